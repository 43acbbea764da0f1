"""The execution half of Norbi Core: from a fixed contract to a plan, a run, its validation and the report.

    contracted ─► plan (template, or a free DAG) + world-model predictions ─► planned
    planned    ─► the run, with a fixed id (found, never started twice, after a crash) ─► running
    running    ─► waiting for a human | resumed after an interruption | finished
    finished   ─► validation + observation ─► a replan (once, no effect done) or the final report

`Norbi` (alicorn.core.norbi) mixes this in and provides the conversation's tap, the routed model clients and turns.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alicorn.anvil.replan import material_change
from alicorn.anvil.words import effect_said
from alicorn.app import App
from alicorn.broker.jobs import Broker
from alicorn.broker.submit import broker_for, enqueuing, is_queued
from alicorn.context.fence import DATA_RULE, fence_untrusted
from alicorn.context.tap import JournalTap
from alicorn.core import consulting
from alicorn.core.contract import ContractBreach, OutcomeContract
from alicorn.core.conversation import ConversationState, run_id_for
from alicorn.core.data import stage_given
from alicorn.core.gathering import sources_for
from alicorn.core.intake import IntentEnvelope
from alicorn.core.outcome import final_report, validate_run
from alicorn.core.planner import PlanningError, ProposedPlan, plan_from_model, plan_from_template
from alicorn.core.report import Report, fallback
from alicorn.core.select import as_data
from alicorn.core.turn import Turn
from alicorn.core.world import best, observe, predict, read_world
from alicorn.errors import PlanError
from alicorn.i18n import tr
from alicorn.models.recorder import ModelClient
from alicorn.packs.workflow import Workflow
from alicorn.plan.dsl import Plan
from alicorn.runtime.admission import proposal_in
from alicorn.runtime.executor import Executor
from alicorn.runtime.state import RunState
from alicorn.runtime.state import fold as fold_run
from alicorn.runtime.world import Clock
from alicorn.validate.base import ValidationReport

PLANNER = "agent:planner"
#: Selections the model's choice decided (or agreed with): only then is the plan's prediction the model's.
MODEL_DECIDED = frozenset({"model", "examples+model", "words+model", "words+examples+model"})


class Execution:
    """Planning, running, validating and reporting, step by step from the conversation's fold."""

    app: App
    workflows: dict[str, Workflow]
    clock: Clock
    max_replans: int
    data_root: Path | None
    #: Where new runs are submitted as jobs for workers (`alicorn worker`) to drive; None: Core drives them here.
    broker: Broker | None

    # ---- provided by Norbi ------------------------------------------------------------------------------------

    def _tap(self, conversation: str) -> JournalTap:
        raise NotImplementedError

    def _client(self, role: str, state: ConversationState, tap: JournalTap) -> ModelClient | None:
        raise NotImplementedError

    def _consultants(self, role: str, state: ConversationState, tap: JournalTap) -> list[ModelClient]:
        raise NotImplementedError

    def _turn(self, state: ConversationState, phase: str, **fields: Any) -> Turn:
        raise NotImplementedError

    def _language(self, state: ConversationState) -> str:
        raise NotImplementedError

    # ---- the steps --------------------------------------------------------------------------------------------

    def _plan(self, state: ConversationState, intent: IntentEnvelope, tap: JournalTap) -> Turn | None:
        contract = OutcomeContract.model_validate(state.contract)
        registry = self.app.registry
        candidates: list[ProposedPlan] = []
        problems: list[str] = []
        confidence = ((state.workflow or {}).get("model") or {}).get("confidence")
        decided_by = str((state.workflow or {}).get("decided_by", ""))
        predictor = "template"
        if contract.workflow is not None:
            workflow = self.workflows[contract.workflow]
            sources = (state.slots or {}).get("sources", {})
            try:
                candidates.append(plan_from_template(workflow, contract.parameters, sources, contract, registry))
            except PlanningError as exc:
                problems.append(str(exc))
            profile = (state.workflow or {}).get("profile")
            if decided_by in MODEL_DECIDED and profile:
                predictor = str(profile)
        elif consulting.pending_plan_choice(state.questions, state.answers):
            picked = consulting.chosen_plan(state.questions[-1], state.answers[-1]["text"])
            if picked is None and len([q for q in state.questions if q.get("plans")]) < 2:
                tap.append("clarification.asked", state.questions[-1])  # the answer named no plan: asked again
                return None
            if isinstance(picked, dict):
                try:
                    candidates.append(consulting.recheck_choice(picked, contract, registry))
                except (PlanError, ContractBreach) as exc:
                    problems.append(f"the chosen plan no longer passes: {exc}")
            else:
                problems.append("none of the consultants' plans was chosen")
        else:
            text = as_data(intent.utterance, not intent.authoritative)
            consultants = self._consultants("planner", state, tap)
            client = None if consultants else self._client("planner", state, tap)
            if consultants:
                consultation = consulting.consult_plans(consultants, text, contract, registry)
                tap.append("plans.consulted", consultation.to_json())
                alive = [p for p in consultation.verdict.positions if not p.refuted]
                if not consultation.verdict.settled and len(alive) >= 2:
                    question = consulting.plan_question(consultation, self._language(state), registry)
                    tap.append("clarification.asked", question)
                    return None
                candidates.extend(consultation.winners)
                problems.extend(consultation.problems)
            elif client is not None:
                try:
                    candidates.append(plan_from_model(client, text, contract, registry))
                    predictor = client.profile.id
                except PlanningError as exc:
                    problems.extend(exc.attempts or [str(exc)])
        if not candidates:
            language = self._language(state)
            report = fallback(
                state.id,
                tr(language, "no valid plan could be made for this request"),
                known=contract.sentences(language),
                missing=[tr(language, "a valid plan: {problem}", problem=p) for p in problems[-3:]]
                or [tr(language, "a valid plan")],
                goal_hash=contract.goal_hash,
                language=language,
            )
            self._write_report(state.id, tap, report)
            return None
        view = read_world(self.app.store)
        predictions = [
            predict(
                c.source,
                c.plan,
                registry,
                view,
                predictor=c.source.removeprefix("model:") if c.source.startswith("model:") else predictor,
                confidence=confidence if c.source.startswith("template") and decided_by in MODEL_DECIDED else None,
            )
            for c in candidates
        ]
        chosen = best(predictions)
        proposed = next(c for c in candidates if c.source == chosen.candidate)
        tap.append("world.predicted", {"picked": chosen.candidate, "candidates": [p.to_json() for p in predictions]})
        tap.append("plan.proposed", proposed.to_json())
        return None

    def _start(self, state: ConversationState, intent: IntentEnvelope, tap: JournalTap) -> None:
        plan = Plan.model_validate(state.plan)
        contract = OutcomeContract.model_validate(state.contract)
        run_id = run_id_for(state.id, len(state.runs) + 1)
        started_before = self.app.store.head(run_id) is not None  # before a crash: found, never started twice
        # A run driven here may be long: only one found after a crash is read again to learn whether it was queued.
        queued = self._queued(run_id) if started_before else False
        if not started_before:
            terms = self.app.anvil.terms(
                PLANNER,
                project=contract.project,
                budget=contract.budget,
                forbidden=tuple(contract.forbidden),
                provenance=intent.provenance,  # the conversation's, for every run it starts: never upgraded
                channel=intent.channel,
            )
            if intent.trigger is not None:  # a schedule's firing: its record travels with the run (run.created)
                terms = terms.model_copy(update={"trigger": intent.trigger})
            self.app.anvil.prepare(terms)
            executor = self._executor(state, contract)
            # the data Core staged is classified as its originals are (a copy of a private file stays private)
            terms = terms.model_copy(update={"labels": self.app.data_labels(executor.environment.data_root)})
            previous = state.run
            # A conversation whose run went to the broker keeps its runs there (a replan, whoever continues it).
            queued = self.broker is not None or (previous is not None and self._queued(previous))
            with self._submitting(queued, executor, run_id, plan, contract.project):
                if state.replans and previous is not None:
                    from_data = bool(state.replans[-1].get("from_data", False))
                    executor.replan(previous, plan, new_run_id=run_id, from_data=from_data, drive=not queued)
                else:
                    executor.start(plan, run_id=run_id, terms=terms, drive=not queued)
        linked: dict[str, Any] = {"run": run_id, "plan_hash": plan.plan_hash(), "goal_hash": plan.goal_hash}
        if queued:
            linked["queued"] = True
        tap.append("run.linked", linked)

    def _queued(self, run_id: str) -> bool:
        """Whether `run_id` was submitted to the job broker (its creation says so): workers drive it, not Core."""
        return is_queued(self.app.store.read(run_id))

    @contextmanager
    def _submitting(self, queued: bool, executor: Executor, run_id: str, plan: Plan, project: str) -> Iterator[None]:
        """Inside, creating `run_id` also enqueues its job when `queued` (on Core's broker, or one opened on the
        journal for a queued conversation continued without one)."""
        if not queued:
            yield
            return
        with self._broker(read_only=False) as broker, enqueuing(executor, broker, run_id, plan, project):
            yield

    @contextmanager
    def _broker(self, *, read_only: bool) -> Iterator[Broker]:
        """Core's broker, or one opened on the journal for the block (closed after it)."""
        if self.broker is not None:
            yield self.broker
            return
        opened = broker_for(self.app.store, read_only=read_only)
        try:
            yield opened
        finally:
            opened.close()

    def job_status(self, run_id: str, language: str) -> str:
        """Where a queued run's job stands, in words (`language`'s)."""
        with self._broker(read_only=True) as broker:
            job = broker.job(run_id)
        if job is None:
            return tr(language, "its job is missing from the broker: `alicorn resume {run}` drives it here", run=run_id)
        if job.state == "claimed":
            return tr(language, "held by {worker} (claim {epoch})", worker=job.worker, epoch=job.epoch)
        # a parked job whose run's journal moved on is made ready by the next worker's look
        if job.state == "ready" or (job.state == "waiting" and self.app.store.last_seq(run_id) > job.parked_seq):
            return tr(language, "ready: the next free worker takes it")
        if job.state == "waiting":
            return tr(language, "parked until a person acts or the run's journal moves on: {note}", note=job.note)
        return tr(language, "done: {note}", note=job.note)

    def _follow(self, state: ConversationState, intent: IntentEnvelope, tap: JournalTap) -> Turn | None:
        run_id = state.run
        assert run_id is not None
        events = self.app.store.read(run_id)
        run = fold_run(events, run_id)
        if run.status == "awaiting_approval":
            plan = Plan.model_validate(run.plan)
            language = self._language(state)
            effects = tuple(
                f"{effect_said(k, language)}: {', '.join(v)}"
                for k, v in sorted(run.effects.items())
                if k not in ("none", "read")
            )
            proposal = proposal_in(events, self.app.registry, language)  # Anvil's reasons in the person's words
            return self._turn(state, "waiting", proposal=proposal, plan=plan, effects=effects)
        if not run.finished:
            if run.status == "blocked" and run.blocked():
                language = self._language(state)
                report = fallback(
                    state.id,
                    tr(language, "run {run} waits for a human to say whether an effect happened", run=run_id),
                    known=[tr(language, "goal hash: {hash}", hash=state.goal_hash)],
                    missing=[tr(language, "the outcome of the effects listed below")],
                    state=run,
                    goal_hash=state.goal_hash,
                    language=language,
                )
                return self._turn(state, "blocked", report=report)
            if is_queued(events):  # a worker drives it: say where it stands, never drive it here
                language = self._language(state)
                return self._turn(state, "queued", status=self.job_status(run_id, language), run=run_id)
            self._executor(state).resume(run_id)  # a crash or a broker failure interrupted it: continue it
            return None
        return self._validate_and_report(state, run, tap)

    def _validate_and_report(self, state: ConversationState, run: RunState, tap: JournalTap) -> Turn | None:
        contract = OutcomeContract.model_validate(state.contract)
        workflow = self.workflows.get(contract.workflow or "")
        validated = [v for v in state.validations if v.get("run") == run.run_id]
        if not validated:
            report = validate_run(workflow, contract, run, state.data)
            tap.append("validation.done", {"run": run.run_id, **report.model_dump(mode="json")})
            if state.predictions:
                seen = observe(
                    self.app.store,
                    _picked(state.predictions[-1]),
                    {n: run.nodes[n].status for n in run.order},
                    report.status == "complete",
                    conversation=state.id,
                    run=run.run_id,
                    at=self.clock.now(),
                )
                if run.proposed_by.startswith("agent:"):
                    self.app.anvil.agents.calibrate(run.proposed_by, run.run_id, float(seen.data["brier"]))
            if run.proposed_by.startswith("agent:") and run.status == "succeeded" and report.status != "complete":
                failed = "; ".join(c.name for c in report.checks if not c.passed) or report.status
                self.app.anvil.agents.withhold(run.proposed_by, run.run_id, f"{report.status} ({failed})")
            return None
        report = ValidationReport.model_validate({k: v for k, v in validated[-1].items() if k != "run"})
        if self._replan_after(state, run, report, tap):
            return None
        self._write_report(state.id, tap, final_report(state, run, contract, workflow, report, self._language(state)))
        return None

    def _replan_after(self, state: ConversationState, run: RunState, report: ValidationReport, tap: JournalTap) -> bool:
        """Once per conversation (`max_replans`), a run that failed because an executor was unavailable (its last
        error was retryable: retries ran out) is run again as a successor of the same plan, and a free plan that
        missed the contract is written again with the failures as feedback; both cite the same goal hash. Never
        after an effect happened (repeating the plan could repeat the effect: a human decides), and never for a
        template run whose operation said trying again cannot help."""
        if len(state.replans) >= self.max_replans or run.effects_done:
            return False
        failed = run.status in ("failed", "stopped") and run.stop_cause in (None, "failure")
        source = str(state.plans[-1].get("source", "")) if state.plans else ""
        if not failed and not (report.status != "complete" and source.startswith("model:")):
            return False
        unavailable = any(
            (run.nodes[n].error or {}).get("retryable", True) for n in run.order if run.nodes[n].status == "failed"
        )
        if source.startswith("template:") and not unavailable:
            return False  # the operation said trying again cannot help: the same plan would fail the same way
        problems = [
            f"{n}: {(run.nodes[n].error or {}).get('message') or run.nodes[n].reason or 'failed'}"
            for n in run.order
            if run.nodes[n].status == "failed"
        ] or [f"{c.name}: {c.detail}" for c in report.failures]
        reason = f"run {run.run_id} ended {run.status} ({'; '.join(problems)[:400]})"
        contract = OutcomeContract.model_validate(state.contract)
        intent = IntentEnvelope.model_validate(state.envelope)
        from_data = False
        try:
            if source.startswith("template:") and contract.workflow is not None:
                workflow = self.workflows[contract.workflow]
                sources = (state.slots or {}).get("sources", {})
                proposed = plan_from_template(workflow, contract.parameters, sources, contract, self.app.registry)
                reason += "; the plan is tried once more in a new run (an executor may have been unavailable)"
            else:
                client = self._client("planner", state, tap)
                if client is None:
                    return False
                feedback = as_data(intent.utterance, not intent.authoritative) + "\n" + failure_feedback(reason)
                proposed = plan_from_model(client, feedback, contract, self.app.registry)
                from_data = True  # the errors and failed checks it was told about came from data and tool output
        except PlanningError:
            return False
        self._propose_replan(state, proposed, reason, tap, from_data=from_data)
        return True

    def _propose_replan(
        self, state: ConversationState, proposed: ProposedPlan, reason: str, tap: JournalTap, *, from_data: bool
    ) -> None:
        """Journal a new plan for the same goal with why, and how it differs from the last one (the runtime judges
        again, against the plan a human approved, when it starts the successor run). `from_data`: the new plan was
        written from error texts or check details, so it is material and waits for a person."""
        old = Plan.model_validate(state.plan)
        registry, labels = self.app.registry, self.app.anvil.labels
        change = material_change(old, proposed.plan, registry, labels=labels, from_data=from_data)
        data = {**proposed.to_json(), "reason": reason, "change": change.to_json()}
        if from_data:
            data["from_data"] = True
        tap.append("replan.proposed", data)

    # ---- helpers --------------------------------------------------------------------------------------------

    def _write_report(self, conversation: str, tap: JournalTap, report: Report) -> None:
        """Journal the report; a schedule's firing's report names its trigger first among what is known."""
        events = self.app.store.read(conversation)
        trigger = events[0].data.get("envelope", {}).get("trigger") if events else None
        if trigger:
            line = tr(
                report.language,
                "triggered by schedule {schedule}: slot {slot}, fired at {fired_at}",
                schedule=trigger["schedule"],
                slot=trigger["slot"],
                fired_at=trigger["fired_at"],
            )
            if line not in report.known:
                report = report.model_copy(update={"known": [line, *report.known]})
        tap.append("report.written", report.model_dump(mode="json"))

    def _executor(self, state: ConversationState, contract: OutcomeContract | None = None) -> Executor:
        contract = contract or OutcomeContract.model_validate(state.contract)
        workflow = self.workflows.get(contract.workflow or "")
        if state.data is not None:  # the user's data, staged for this conversation
            return self.app.executor(Path(state.data["root"]))
        if self.data_root is not None:
            return self.app.executor(self.data_root)
        if workflow is not None:
            return self.app.executor(workflow.data_dir)
        # A free plan reads what the request gave, staged for this conversation: never the home.
        intent = IntentEnvelope.model_validate(state.envelope)
        sources = sources_for(self.app, state, intent, None)
        return self.app.executor(stage_given(sources, self.app.home / "inputs" / state.id))


def failure_feedback(reason: str) -> str:
    """Why the last plan failed, for the planner: fenced as data, since error texts and check details carry what the
    data and the tools said (a CSV cell, an HTTP body), never an instruction."""
    source = "errors and failed checks of the last run"
    body = fence_untrusted("previous-run", source, reason)
    return "The previous plan failed; what its run reported:\n" + DATA_RULE + "\n" + body


def _picked(predicted: dict[str, Any]) -> dict[str, Any]:
    picked = predicted["picked"]
    return next(c for c in predicted["candidates"] if c["candidate"] == picked)
