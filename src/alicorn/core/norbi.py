"""Norbi Core: from an utterance to a validated report, one journaled step at a time.

Core orchestrates; it never performs an operation itself, never approves its own plans (its plans are proposed by
`agent:planner`, and agents never approve), and never writes a run's state except through the runtime.

Every step reads the conversation's fold and appends what it decided, so `advance` is also the recovery: after a
crash or a broker failure it continues from the last journaled step, and a run it started before is found by its
fixed id (`run_id_for`), never started twice.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from alicorn.anvil.words import effects_said
from alicorn.app import App
from alicorn.broker.jobs import Broker
from alicorn.context.artifacts import ArtifactStore
from alicorn.context.fence import injection_flags
from alicorn.context.tap import JournalTap
from alicorn.core import understand
from alicorn.core.choosing import NONE_OF_THESE, Choosing, impossible_date
from alicorn.core.contract import OutcomeContract, check_plan, make_contract
from alicorn.core.conversation import ConversationState, fold, new_conversation_id
from alicorn.core.decided import choice_said, kind_said, signals_said
from alicorn.core.execution import PLANNER, Execution
from alicorn.core.followup import FollowUps
from alicorn.core.gathering import check_coverage, gather
from alicorn.core.intake import IntentEnvelope
from alicorn.core.planner import ProposedPlan, settle_flags
from alicorn.core.recurring import Recurring
from alicorn.core.report import Report, fallback
from alicorn.core.routing import ModelAccess, RoleClients
from alicorn.core.select import WorkflowSelector, as_data, fill_slots
from alicorn.core.turn import Turn
from alicorn.core.world import read_world
from alicorn.errors import AlicornError, JournalError
from alicorn.i18n import tr, tr_marked
from alicorn.models.intent.classifier import IntentClassifier
from alicorn.models.recorder import ModelClient
from alicorn.packs.workflow import Workflow
from alicorn.plan.dsl import EffectClass, Plan
from alicorn.plan.validate import validate_plan
from alicorn.runtime.humans import Approval, Rejection, Withdrawal
from alicorn.runtime.state import fold as fold_run
from alicorn.runtime.world import Clock, default_clock, parse_time

#: What a failing job broker (the runtime and its journal) raises. Core then stops creating jobs; the plan and the
#: conversation are already journaled, so `advance` resumes idempotently once the broker is back.
BROKER_FAILURES: tuple[type[BaseException], ...] = (OSError, sqlite3.Error, JournalError)


class CoreError(AlicornError):
    """A request Core cannot take (bad input, unknown conversation, wrong phase); nothing was journaled."""


class Norbi(Recurring, Choosing, FollowUps, Execution):
    """The intent orchestrator over one Alicorn home (see the module docstring)."""

    def __init__(
        self,
        app: App,
        workflows: Sequence[Workflow],
        *,
        models: ModelAccess | None = None,
        clock: Clock | None = None,
        max_repairs: int = 2,
        data_root: Path | None = None,
        max_replans: int = 1,
        samples: bool = False,
        workdir: Path | None = None,
        broker: Broker | None = None,
    ) -> None:
        self.app = app
        self.workflows = {w.id: w for w in workflows}
        self.selector = WorkflowSelector(workflows, max_repairs=max_repairs)
        self.models = models
        self.clock: Clock = clock or default_clock()
        self.max_repairs = max_repairs
        self.data_root = data_root
        self.max_replans = max_replans
        #: Whether a workflow may fall back to its bundled sample data (the demo and the tests only).
        self.samples = samples
        #: The folder requests are made in (paths in the words and in --data are read from it); journaled.
        self.workdir = workdir
        #: With a broker, runs are submitted as jobs and workers drive them (`alicorn worker`, on any machine that
        #: shares the journal); Core never drives such a run itself, and says where its job stands.
        self.broker = broker
        self.clients = RoleClients(models, lambda: read_world(self.app.store))
        self._taps: dict[str, JournalTap] = {}

    # ---- public ---------------------------------------------------------------------------------------------

    def receive(self, intent: IntentEnvelope) -> Turn:
        """Take a new request: journal it, then advance as far as it can go without a human."""
        return self.advance(self.take(intent))

    def take(self, intent: IntentEnvelope, *, conversation: str | None = None) -> str:
        """Journal a new request and return its conversation's id, advancing nothing (the service answers with the
        id at once and lets its workers `advance` it). `conversation` names it (a schedule's firing derives it from
        the slot): one that exists already is left as it is, and of two takes racing the journal keeps one."""
        self._check_attachments(intent)
        conversation = conversation or new_conversation_id(self.clock.now())
        tap = self._tap(conversation)
        if tap.seq:
            return conversation
        flags = list(injection_flags(intent.utterance))
        received: dict[str, Any] = {"envelope": intent.model_dump(mode="json"), "injection_flags": flags}
        if self.workdir is not None:
            received["workdir"] = str(self.workdir.resolve())
        tap.append("intent.received", received)
        return conversation

    def reply(self, conversation: str, text: str, *, by: str, attachments: Sequence[str] = ()) -> Turn:
        """The human's answer to the pending clarifying question (the conversation resumes from it), or, after the
        report, the next message of the conversation ("I pick variant 2"), which Core acts on or answers.

        `attachments` (sha256 digests already in the project's artifact store, as `alicorn ask --attach` stores
        them) go with an answer: Core's data step reads them as the request's own attachments, so a file uploaded
        in answer to a data question is the data. Only an answer takes them; the answer's text may then be empty."""
        state = self.state(conversation)
        words = " ".join(text.split())
        if not words and not attachments:
            raise CoreError("the answer is empty; answer the question or start a new request")
        if attachments and (state.finished or not state.waiting_for_answer):
            raise CoreError(
                f"conversation {conversation} waits for no answer, so the attached files were not taken; attach "
                "them to a new request; nothing was done"
            )
        if attachments:
            intent = IntentEnvelope.model_validate(state.envelope)
            self._check_attachments(intent.model_copy(update={"attachments": tuple(attachments)}))
            data = {"text": words[:2000], "by": by, "attachments": list(attachments)}
            self._tap(conversation).append("clarification.answered", data)
            return self.advance(conversation)
        if state.finished:  # the conversation goes on after its report (alicorn.core.followup)
            self._tap(conversation).append("message.received", {"text": words[:2000], "by": by})
            return self.advance(conversation)
        if not state.waiting_for_answer:
            waiting = (
                f"; it waits for a decision on run {state.run}: `alicorn approve {state.run}` or "
                f"`alicorn reject {state.run}`, then `alicorn ask -c {conversation}`"
                if state.phase == "running"
                else ""
            )
            raise CoreError(
                f"conversation {conversation} is {state.phase}, so your message was not taken{waiting}; "
                "nothing was done"
            )
        self._tap(conversation).append("clarification.answered", {"text": words[:2000], "by": by})
        return self.advance(conversation)

    def approve(self, conversation: str, *, by: str, comment: str = "") -> Turn:
        """A human approves the conversation's waiting plan; the run proceeds, then validation and the report.

        Only in a conversation a human started: one that came from a trigger or an external channel keeps that
        provenance whoever continues it, so its plan is approved deliberately with `alicorn approve RUN`."""
        state = self.state(conversation)
        run = self._waiting_run(state)
        origin = self.provenance(conversation)
        if origin != "human":
            raise CoreError(
                f"conversation {conversation} came from a {origin} channel, and continuing it does not make it a "
                f"person's request: approve its plan deliberately with `alicorn approve {run}`, then "
                f"`alicorn ask -c {conversation}`; nothing was done"
            )
        # A queued run's approval is journaled for its worker (the parked job wakes up); any other run goes on here.
        self._executor(state).resume(run, approvals=[Approval(by, comment)], drive=not self._queued(run))
        return self.advance(conversation)

    def provenance(self, conversation: str) -> str:
        """Where the conversation's request came from (human, trigger, external): fixed when it was received."""
        return IntentEnvelope.model_validate(self.state(conversation).envelope).provenance

    def reject(self, conversation: str, *, by: str, reason: str) -> Turn:
        """A human refuses the waiting plan: the run ends with no effect, and the report says so."""
        state = self.state(conversation)
        run = self._waiting_run(state)
        self._executor(state).reject(run, Rejection(by, reason))
        return self.advance(conversation)

    def close(self, conversation: str, *, reason: str) -> Turn:
        """Stop safely: withdraw a proposal still waiting (no effect happens), start nothing new, and report what is
        known, what is missing, which jobs finished, which decisions remain and whether an effect may be pending."""
        state = self.state(conversation)
        if state.finished:
            raise CoreError(f"conversation {conversation} already ended ({state.phase}); nothing to close")
        if not reason.strip():
            raise CoreError("say why the conversation is closed (it is journaled); nothing was done")
        run = None
        if state.run is not None:
            run = fold_run(self.app.store.read(state.run), state.run)
            if run.status == "awaiting_approval":
                run = self._executor(state).withdraw(state.run, Withdrawal(PLANNER, reason))
        language = self._language(state)
        known = [tr(language, "the request: {text}", text=IntentEnvelope.model_validate(state.envelope).utterance)]
        if state.contract is not None:
            known += OutcomeContract.model_validate(state.contract).sentences(language)
        missing = []
        if state.waiting_for_answer:
            missing.append(tr(language, "the answer to: {question}", question=state.questions[-1]["question"]))
        if run is None or run.status != "succeeded":
            missing.append(tr(language, "a validated result"))
        report = fallback(
            conversation, reason, known=known, missing=missing, state=run, goal_hash=state.goal_hash, language=language
        )
        tap = self._tap(conversation)
        self._write_report(conversation, tap, report)
        return self._turn(self.state(conversation), "reported", report=report)

    def replan(self, conversation: str, plan: Plan, *, reason: str) -> Turn:
        """A new plan for the conversation's goal (a validator found a gap, an executor is unavailable).

        It must cite the same goal hash and keep the forbidden effects out (ContractBreach otherwise: goal drift is
        refused, nothing journaled). The runtime then compares it with the approved plan: a material change (new
        effect classes or destinations, more cost) waits for a new human decision; otherwise approvals carry over.
        """
        state = self.state(conversation)
        if state.contract is None or state.run is None:
            raise CoreError(f"conversation {conversation} has no executed plan to replan ({state.phase})")
        contract = OutcomeContract.model_validate(state.contract)
        registry = self.app.registry
        plan = validate_plan(plan, registry)
        check_plan(plan, contract, lambda name: registry.get(name).effect)
        proposed = ProposedPlan(plan, "replan", problems=(reason,))
        self._propose_replan(state, proposed, reason, self._tap(conversation), from_data=False)
        return self.advance(conversation)

    def state(self, conversation: str) -> ConversationState:
        events = self.app.store.read(conversation)
        if not events or events[0].kind != "intent.received":
            raise CoreError(f"no conversation {conversation!r} in {self.app.store.location}; `alicorn ask` starts one")
        return fold(events)

    def advance(self, conversation: str) -> Turn:
        """Continue from the journal until the conversation needs a human or ends. Idempotent: calling it again
        after a crash continues from the last journaled step and never starts a run twice."""
        for _ in range(32):
            state = self.state(conversation)
            try:
                turn = self._step(state)
            except BROKER_FAILURES as exc:
                return self._stalled(state, exc)
            if turn is not None:
                return turn
        raise CoreError(f"conversation {conversation} did not settle; see `alicorn journal {conversation}`")

    # ---- the steps ------------------------------------------------------------------------------------------

    def _step(self, state: ConversationState) -> Turn | None:
        tap = self._tap(state.id)
        intent = IntentEnvelope.model_validate(state.envelope)
        if state.phase in ("answered", "triaged", "reported"):
            return self._finished_turn(state)
        if state.phase == "asking":
            return self._turn(state, "asking", question=state.questions[-1]["question"])
        if state.phase == "received":
            self._classify(state, intent, tap)
            return None
        if state.phase == "classified":
            return self._understood(state, intent, tap)
        if state.phase == "contracted":
            return self._plan(state, intent, tap)
        if state.phase == "planned":
            self._start(state, intent, tap)
            return None
        if state.phase == "running":
            return self._follow(state, intent, tap)
        if state.phase == "following":
            return self._follow_up(state, intent, tap)
        raise CoreError(f"conversation {state.id} is in an unknown phase {state.phase!r}")

    def _classify(self, state: ConversationState, intent: IntentEnvelope, tap: JournalTap) -> None:
        client = self._client("classifier", state, tap)
        result = IntentClassifier(client, max_repairs=self.max_repairs).classify(intent.utterance)
        data = result.model_dump(mode="json")
        if intent.language is not None:
            data["language"] = intent.language
            data["decided_by"] = {**data["decided_by"], "language": "envelope"}
        tap.append("intent.classified", data)

    def _language(self, state: ConversationState) -> str:
        return str((state.classification or {}).get("language", "en"))

    def _understood(self, state: ConversationState, intent: IntentEnvelope, tap: JournalTap) -> Turn | None:
        kind = (state.classification or {}).get("kind", "task")
        language = self._language(state)
        if language == "other" and intent.language is None and _has_words(intent.utterance):
            # words in a language Core does not read: said so, and nothing planned from a misreading
            tap.append("answer.given", {"text": understand.OTHER_LANGUAGE, "by": "fixed reply", "effects": []})
            report = Report(conversation=state.id, outcome="answered", headline=understand.OTHER_LANGUAGE)
            self._write_report(state.id, tap, report)
            return None
        recurrence = (state.classification or {}).get("recurrence")
        if recurrence or kind == "process":  # recurring work is proposed as a schedule (alicorn.core.recurring)
            once = self._recurring_schedule(state, intent, tap, recurrence or None)
            if once is not True:
                return once or None
        if kind in ("conversation", "question") and self._looks_like_work(state, intent, tap):
            return None
        if kind in ("conversation", "question"):
            client = self._client("assistant", state, tap)
            menu = [tr_marked(language, w.title) for w in self.workflows.values()]  # titles are marked N_
            recalled = understand.recall(self.app, state.id, intent, PLANNER) if kind == "question" else None
            if recalled is not None:  # the home has a memory: the question is answered from it (or "I don't know")
                reply = understand.answer_from_memory(
                    intent.utterance, language, recalled, client, project=intent.project, tap=tap,
                    untrusted=not intent.authoritative,
                    consultants=lambda: self._consultants("assistant", state, tap),
                )  # fmt: skip
            else:
                question = as_data(intent.utterance, not intent.authoritative)
                reply = understand.answer(question, kind, language, client, menu)
            tap.append("answer.given", reply)
            answered = Report(conversation=state.id, outcome="answered", headline=reply["text"], language=language)
            self._write_report(state.id, tap, answered)
            return None
        if kind == "alarm":
            found = understand.triage(intent.utterance)
            work = self._work_an_alarm_names(intent)
            if work is not None:
                # triaged at once, then taken as that work, so the person's own data is read now (not a triage alone)
                tap.append("triage.done", {**found.to_json(), "then": "work"})
                why = f"an alarm that names the work of workflow {work}: triaged as {found.severity}, then worked on"
                tap.append("intent.reclassified", {"kind": "task", "was": "alarm", "why": why, "workflow": work})
                return None
            tap.append("triage.done", found.to_json())
            said = understand.triage_report_words(found, intent.utterance, language)
            report = Report(conversation=state.id, outcome="triaged", language=language, **said)
            self._write_report(state.id, tap, report)
            return None
        return self._select_and_fill(state, intent, tap)

    def _texts(self, state: ConversationState, intent: IntentEnvelope) -> list[str]:
        return [intent.utterance, *(a["text"] for a in state.answers)]

    def _select_and_fill(self, state: ConversationState, intent: IntentEnvelope, tap: JournalTap) -> Turn | None:
        language = self._language(state)
        texts = self._texts(state, intent)
        if state.workflow is None or state.workflow.get("workflow") is None:
            chosen = self._chosen_by_answer(state)
            if chosen == NONE_OF_THESE:
                tap.append(
                    "workflow.selected", {"workflow": None, "decided_by": "human: none of these", "runner_up": None}
                )
                return self._no_template(state, intent, tap, None)
            if chosen is not None:
                tap.append("workflow.selected", {"workflow": chosen, "decided_by": "human", "runner_up": None})
                return None
            client = self._client("classifier", state, tap)
            selection = self.selector.select(" ".join(texts), client, untrusted=not intent.authoritative)
            profile = client.profile.id if client is not None else None
            tap.append("workflow.selected", {**selection.to_json(), "profile": profile})
            if selection.workflow is None:
                return self._no_template(state, intent, tap, selection)
            return None
        workflow = self.workflows[state.workflow["workflow"]]
        now = parse_time(state.received_at)
        impossible = impossible_date(texts[-1], language, now)
        if impossible is not None and sum(1 for q in state.questions if q.get("date")) < 2:
            question = tr(language, "“{words}” is not a date that exists; which day do you mean?", words=impossible)
            tap.append("clarification.asked", {"question": question, "date": impossible})
            return None
        if workflow.inputs and (state.data is None or state.data.get("workflow") != workflow.id):
            gathered = gather(self.app, state, intent, workflow, texts, tap, samples=self.samples, language=language)
            if isinstance(gathered, Report):
                self._write_report(state.id, tap, gathered)
            return None
        client = self._client("classifier", state, tap)
        root = Path(state.data["root"]) if state.data else None
        slots = fill_slots(
            workflow,
            texts,
            language,
            now,
            client,
            max_repairs=self.max_repairs,
            untrusted=not intent.authoritative,
            data_root=root,
        )
        if not slots.missing:
            settled, notes = settle_flags(workflow, slots.values, frozenset(self._forbidden(state, intent)))
            slots = replace(slots, values=settled, reverted=(*slots.reverted, *notes))
        tap.append("slots.filled", {"workflow": workflow.id, **slots.to_json()})
        if slots.missing:
            questions = [workflow.question(slot, language) for slot in slots.missing]
            tap.append("clarification.asked", {"question": " ".join(questions), "slots": list(slots.missing)})
            return None
        conflict = workflow.conflict(slots.values, language)
        if conflict is not None:  # asked beyond the template, or values that do not go together ("variant 3 of 2")
            question = tr(language, "I cannot do it as asked: {conflict}. Say how you want it instead.",
                          conflict=conflict)  # fmt: skip
            tap.append("clarification.asked", {"question": question, "slots": []})
            return None
        if workflow.inputs and "coverage" not in (state.data or {}):
            missing = check_coverage(state, intent, workflow, slots.values, tap, language)
            if missing is not None:
                self._write_report(state.id, tap, missing)
                return None
            state = self.state(state.id)  # the data and its coverage are part of the contract
        contract = self._contract(state, intent, workflow, slots.values)
        tap.append("contract.fixed", {"contract": contract.model_dump(mode="json"), "goal_hash": contract.goal_hash})
        return None

    def _forbidden(self, state: ConversationState, intent: IntentEnvelope) -> set[EffectClass]:
        """What the words (the lexicon's reading) and the envelope forbid."""
        found = (state.classification or {}).get("forbidden", ())
        return {*found, *intent.forbid}

    def _contract(
        self, state: ConversationState, intent: IntentEnvelope, workflow: Workflow | None, values: dict[str, Any]
    ) -> OutcomeContract:
        data = {i["input"]: [f["sha256"] for f in i["files"]] for i in (state.data or {}).get("inputs", [])}
        return make_contract(
            intent, state.classification or {}, self._forbidden(state, intent), workflow, values, data=data
        )

    def _turn(self, state: ConversationState, phase: str, **fields: Any) -> Turn:
        """A Turn with what Core understood so far (kind, workflow, contract). After the report, the contract is the
        latest message's (`follows` the first goal), and so is the understanding: the first request's reading (what
        it forbade) no longer says what this turn does."""
        language = self._language(state)
        lines = []
        contract = state.contract or {}
        if state.classification and contract.get("follows"):
            lines.append(
                tr(
                    language,
                    "understood: a next step on this conversation's result, in {language} (forbids {forbidden})",
                    language=state.classification["language"],
                    forbidden=effects_said(contract.get("forbidden", []), language) or tr(language, "nothing"),
                )
            )
        elif state.classification:
            c = state.classification
            forbidden = effects_said(c.get("forbidden", []), language) or tr(language, "nothing")
            lines.append(
                tr(
                    language,
                    "understood: a {kind} in {language} (forbids {forbidden}); decided by {signals}",
                    kind=kind_said(c["kind"], language),
                    language=c["language"],
                    forbidden=forbidden,
                    signals=signals_said(c["decided_by"], language),
                )
            )
        if state.workflow and state.workflow.get("workflow"):
            lines.append(
                tr(
                    language,
                    "workflow: {workflow} (chosen by {who})",
                    workflow=state.workflow["workflow"],
                    who=choice_said(state.workflow.get("decided_by"), language),
                )
            )
        if state.contract:
            lines.extend(OutcomeContract.model_validate(state.contract).sentences(language))
        return Turn(state.id, phase, understood=tuple(lines), language=language, **fields)

    def _stalled(self, state: ConversationState, exc: BaseException) -> Turn:
        """The broker failed: no new jobs; say what is known. Nothing is journaled (the journal may be the failure)."""
        language = self._language(state)
        run = None
        if state.run is not None:
            try:
                run = fold_run(self.app.store.read(state.run), state.run)
            except BROKER_FAILURES:
                run = None
        report = fallback(
            state.id,
            tr(
                language,
                "the job broker failed ({error}); no new job was started",
                error=f"{type(exc).__name__}: {exc}",
            ),
            known=[tr(language, "the plan and the conversation are saved (phase {phase})", phase=state.phase)],
            missing=[tr(language, "the run's result")],
            state=run,
            goal_hash=state.goal_hash,
            extra_decisions=[
                tr(
                    language,
                    "when the broker is back: alicorn ask --conversation {id} (resumes, idempotent)",
                    id=state.id,
                )
            ],
            language=language,
        )
        return self._turn(state, "stalled", report=report)

    def _finished_turn(self, state: ConversationState) -> Turn:
        report = Report.model_validate(state.report) if state.report else None
        text = (state.answer or {}).get("text")
        return self._turn(state, state.phase, answer=text, report=report)

    def _waiting_run(self, state: ConversationState) -> str:
        run = state.run
        if state.phase != "running" or run is None:
            raise CoreError(f"conversation {state.id} is {state.phase}; it has no plan waiting for approval")
        status = fold_run(self.app.store.read(run), run).status
        if status != "awaiting_approval":
            raise CoreError(f"run {run} of conversation {state.id} is {status}, not waiting for approval")
        return run

    def _tap(self, conversation: str) -> JournalTap:
        """The one tap of this Core for `conversation` (model calls and Core's steps append through it, in order).

        It is refreshed when the stream moved on without it (another Core process, or a restart), so a stale
        tap never overwrites; a truly concurrent writer still gets ConcurrentAppendError from the journal."""
        tap = self._taps.get(conversation)
        if tap is None or tap.seq != self.app.store.last_seq(conversation):
            tap = JournalTap(self.app.store, conversation, self.clock)
            self._taps[conversation] = tap
            self.clients.forget(conversation)
        return tap

    def _client(self, role: str, state: ConversationState, tap: JournalTap) -> ModelClient | None:
        """The model routed for `role` (journaled as `model.routed`), or None when none may be used."""
        if self.models is None:
            return None
        # The classifier needs no language of its own (deterministic signals read every language); the other
        # roles must speak the request's language (the envelope's, or the one classified).
        return self.clients.get(role, () if role == "classifier" else (self._language(state),), tap)

    def _consultants(self, role: str, state: ConversationState, tap: JournalTap) -> list[ModelClient]:
        """The profiles a hard task of `role` is asked of (journaled as `model.consulted`), or [] to ask one."""
        if self.models is None:
            return []
        return self.clients.consultants(role, (self._language(state),), tap)

    def _check_attachments(self, intent: IntentEnvelope) -> None:
        root = self.app.artifacts(intent.project)
        store = ArtifactStore(root)
        for sha in intent.attachments:
            if not store.path(sha).is_file():
                raise CoreError(
                    f"attachment {sha[:16]}… is not in the artifact store {root}; attach the file itself "
                    '(`alicorn ask --attach FILE "…"`), which stores it first; nothing was journaled'
                )


def _has_words(text: str) -> bool:
    """Whether `text` holds a word (not only digits, marks or emoji, which say no language)."""
    return any(ch.isalpha() for ch in text)
