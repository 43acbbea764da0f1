"""The executor: starts and resumes runs of plans that Anvil admits, each driven by a Session to its end.

At start, Anvil's decision (allow, needs_approval, deny; see `admission`) is journaled with the run's creation; a
plan that needs a human approval waits for one bound to its hash, a denied one finishes with no effect.

Each step (an outcome arriving, a start, a resume) is one transaction: the result, the node transitions it causes
and the calls it unlocks are appended together, and only then are the new calls dispatched. So a crash at any
moment leaves the journal at a step boundary, and `resume` continues from the fold of the journal without redoing
finished nodes. Decisions depend only on the run state (a fold of the journal) and the plan, which is what makes
byte-for-byte replay possible. One process at a time drives a run: the store's lock says who.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alicorn import canonical
from alicorn.anvil.errors import NotAwaitingApprovalError
from alicorn.anvil.gate import Gate, LiveGate
from alicorn.anvil.identity import canonical_id, parse_principal
from alicorn.anvil.labels import reaching
from alicorn.anvil.replan import DEFAULT_THRESHOLD, compare, summarize
from alicorn.anvil.risk import assess
from alicorn.anvil.secret_reads import ReadGuard
from alicorn.anvil.terms import ReplanOrigin, RunTerms
from alicorn.crashpoints import DISARMED, CrashPoints
from alicorn.errors import ApprovalRequiredError, JournalIntegrityError, RunError, UnknownStreamError
from alicorn.journal.events import Draft, Event, verify_stream
from alicorn.journal.store import JournalStore
from alicorn.ops.registry import OperationContext, Registry
from alicorn.plan.dsl import Plan
from alicorn.plan.effects import plan_effects
from alicorn.plan.validate import DEFAULT_RESOURCES, validate_plan
from alicorn.runtime import admission, saga
from alicorn.runtime.dispatch import Call, Dispatcher, ThreadDispatcher
from alicorn.runtime.humans import (
    Approval,
    CarriedApproval,
    Rejection,
    Resolution,
    Withdrawal,
    carry,
    check_approvals,
    check_rejection,
    grant,
    reject,
    resolve,
)
from alicorn.runtime.needs import DEFAULT_DURABILITY, Approvers, Controls, Durability, EventListener, SessionNeeds
from alicorn.runtime.plan_decisions import plan_risk
from alicorn.runtime.session import Session
from alicorn.runtime.signatures import audit_run, plan_mismatch
from alicorn.runtime.state import RunState, fold
from alicorn.runtime.together import drive_together
from alicorn.runtime.world import Clock, IdSource, RandomIds, default_clock

__all__ = [
    "DEFAULT_DURABILITY",
    "Approval",
    "CarriedApproval",
    "Controls",
    "Durability",
    "EventListener",
    "Executor",
    "Rejection",
    "Resolution",
    "RunEnvironment",
]


def control_stream(run_id: str) -> str:
    """The stream where requests about a run (cancellation) are written by other processes."""
    return f"control:{run_id}"


@dataclass(frozen=True)
class RunEnvironment:
    """Where runs read data and write files, what they may use, and how many calls run at once."""

    workspace_root: Path
    data_root: Path
    resources: frozenset[str] = DEFAULT_RESOURCES
    max_parallel: int = 4
    #: Folders no run reads, wherever its data root is (the Alicorn home: journal, keys, every run's workspace).
    hidden: tuple[Path, ...] = ()

    def workspace(self, run_id: str) -> Path:
        return self.workspace_root / run_id

    def hidden_under(self, data_root: Path) -> tuple[Path, ...]:
        """The hidden folders a run with `data_root` could otherwise reach: those at or under it (a data root inside
        the home, such as the inputs Core staged for a conversation, is that run's own data)."""
        root = data_root.resolve()
        return tuple(h for h in (p.resolve() for p in self.hidden) if h.is_relative_to(root))


class StoreControls:
    """Reads cancellation requests from the run's control stream in the journal."""

    def __init__(self, store: JournalStore) -> None:
        self._store = store

    def cancel_request(self, run_id: str, next_seq: int) -> dict[str, Any] | None:
        stream = control_stream(run_id)
        if self._store.head(stream) is None:
            return None
        requests = [e.data for e in self._store.read(stream) if e.kind == "cancel.requested"]
        return requests[-1] if requests else None


def request_cancel(store: JournalStore, run_id: str, by: str, reason: str, at: str) -> None:
    """Ask whoever drives `run_id` to cancel it: no new effects, then compensation of completed ones."""
    store.require(run_id)
    stream = control_stream(run_id)
    store.append(stream, [Draft("cancel.requested", at, {"by": by, "reason": reason})], expect=store.last_seq(stream))


DispatcherFactory = Callable[["Executor", RunState], Dispatcher]


FinishedListener = Callable[[RunState], None]


def changed_contracts(created: Mapping[str, Any], registry: Registry) -> str:
    """What differs between the operations a run was started with (its `run.created`) and `registry`, in words;
    "" when nothing its plan can call changed. A run recorded before per-operation contracts (with the whole
    registry's `registry` fingerprint) is compared the way it was recorded."""
    recorded = created.get("contracts")
    if recorded is None:
        old = created.get("registry")
        now = registry.fingerprint()
        return "" if old == now else f"the whole registry's fingerprint was {old}, now {now}"
    now_contracts = registry.contracts(recorded)
    return ", ".join(
        f"{name}: {'no longer registered' if now_contracts[name] == 'missing' else 'its contract changed'}"
        for name in sorted(recorded)
        if now_contracts[name] != recorded[name]
    )


class Executor:
    """Starts, resumes and drives runs. One executor may drive many runs, one at a time, or many at once from one
    thread (`start_many`).

    `gate` supplies Anvil's inputs (policy, the proposer's rights, project usage): the live journal by default,
    the recording in replay. `on_finished` is called with the state of every run this executor sees finish (the
    app settles reputations there). `default_terms` are the terms of a run started without its own (the app gives
    the operator's budgets, labels and forbidden effects). `approvers` (the home's people) authorize and sign every
    human decision a live session journals; without them (replay, bare test executors) decisions go unsigned, and
    a replayed decision keeps the seal it was journaled with.
    """

    def __init__(
        self,
        store: JournalStore,
        registry: Registry,
        environment: RunEnvironment,
        *,
        clock: Clock | None = None,
        ids: IdSource | None = None,
        dispatcher_factory: DispatcherFactory | None = None,
        controls: Controls | None = None,
        on_events: EventListener | None = None,
        crash: CrashPoints = DISARMED,
        poll_s: float = 0.1,
        durability: Durability = DEFAULT_DURABILITY,
        gate: Gate | None = None,
        on_finished: FinishedListener | None = None,
        default_terms: RunTerms | None = None,
        approvers: Approvers | None = None,
        whole_registry_fingerprint: bool = False,
        looks_at_links: bool = True,
    ) -> None:
        registry.check()
        #: Record in a new run's terms the symlinks its sources follow (`anvil.labels.reaching`). Replay turns it
        #: off: the links are read from the recording, never from the data root as it is now.
        self.looks_at_links = looks_at_links
        #: Journal the whole registry's fingerprint in `run.created`, as runs recorded before per-operation
        #: contracts did: only replay sets it, to reproduce such a run byte for byte.
        self.whole_registry_fingerprint = whole_registry_fingerprint
        self.store = store
        self.registry = registry
        self.environment = environment
        self.clock = clock or default_clock()
        self.ids = ids or RandomIds(self.clock)
        self._dispatcher_factory = dispatcher_factory or _thread_dispatcher
        self.controls: Controls = controls or StoreControls(store)
        self.on_events = on_events
        self.crash = crash
        self.poll_s = poll_s
        self.durability: Durability = durability
        self.gate: Gate = gate or LiveGate.default(store, registry.names())
        self.on_finished = on_finished
        self.default_terms = default_terms or RunTerms()
        self.approvers = approvers

    def make_dispatcher(self, state: RunState) -> Dispatcher:
        return self._dispatcher_factory(self, state)

    def session_needs(self) -> SessionNeeds:
        """What the sessions of this executor are handed (a session imports no executor)."""
        return SessionNeeds(
            store=self.store,
            registry=self.registry,
            gate=self.gate,
            clock=self.clock,
            controls=self.controls,
            make_dispatcher=self.make_dispatcher,
            max_parallel=self.environment.max_parallel,
            durability=self.durability,
            poll_s=self.poll_s,
            crash=self.crash,
            on_events=self.on_events,
            approvers=self.approvers,
        )

    # ---- public -----------------------------------------------------------------------------------------------

    def start(
        self,
        plan: Plan,
        *,
        approvals: Iterable[Approval] = (),
        run_id: str | None = None,
        terms: RunTerms | None = None,
        carried: Iterable[CarriedApproval] = (),
        drive: bool = True,
    ) -> RunState:
        """Validate `plan`, journal the run's creation and Anvil's decision, then drive it until it finishes,
        blocks, waits for a human approval, or is denied.

        With `drive=False` the creation and the decision are journaled (in one append) and nothing is called: the
        run is left for `resume`, by this process or a broker's worker (alicorn.broker)."""
        with contextlib.ExitStack() as held:
            opened = self._open(
                plan, held, approvals=approvals, run_id=run_id, terms=terms, carried=carried, drive=drive
            )
            if isinstance(opened, RunState):
                return opened
            if not drive:
                opened.commit()
                return opened.state
            return self._finished(opened.drive())

    def start_many(self, plans: Sequence[Plan], *, terms: RunTerms | None = None) -> list[RunState | Exception]:
        """Start `plans` as runs (each as `start` would, under `terms`) and drive them all together in this thread
        (runtime.together): every step of every run is durable before its calls run, as with `start`, and the steps
        of the runs that moved at once share one commit. Each run's final state, or the error that stopped it (a
        plan that does not validate, a failed append), in the order given."""
        with contextlib.ExitStack() as held:
            opened: list[Session | RunState | Exception] = []
            for plan in plans:
                try:
                    opened.append(self._open(plan, held, terms=terms))
                except Exception as exc:
                    opened.append(exc)
            # a plan refused before it ran answers with Anvil's denial (already finished) or its error
            return self._drive_opened(opened)

    def _open(
        self,
        plan: Plan,
        held: contextlib.ExitStack,
        *,
        approvals: Iterable[Approval] = (),
        run_id: str | None = None,
        terms: RunTerms | None = None,
        carried: Iterable[CarriedApproval] = (),
        drive: bool = True,
    ) -> Session | RunState:
        """A new run's session, its creation and Anvil's decision emitted and the right to drive it held (in
        `held`); or, when Anvil decided it may not proceed, its state, that decision already committed."""
        plan = validate_plan(plan, self.registry, self.environment.resources)
        terms = terms or self.default_terms
        # The files the plan's literal sources really reach through symlinks, recorded in its terms' labels: its
        # decisions, resumes and replay judge them as they were now, and a link made later is refused on opening.
        if self.looks_at_links:
            root = self.environment.data_root
            found = reaching(terms.labels, plan, self.registry, root, hidden=self.environment.hidden_under(root))
            if found is not terms.labels:
                terms = terms.model_copy(update={"labels": found})
        run_id = run_id or self.ids.run_id()
        if self.store.head(run_id) is not None:
            raise RunError(f"run {run_id!r} already exists; use `alicorn resume {run_id}`")
        plan_json = plan.model_dump(mode="json")
        plan_hash = canonical.digest(plan_json)  # Plan.plan_hash(), without dumping the plan a second time
        approvals = check_approvals(approvals, terms.proposed_by, run_id, plan_hash, self.approvers)
        carried = list(carried)
        effects = plan_effects(plan, self.registry)
        risk = plan_risk(plan, plan_hash, self.registry, terms.labels)  # the session decides on the same one
        created: dict[str, Any] = {
            "plan": plan_json,
            "plan_hash": plan_hash,
            "effects": effects.to_json(),
            "workspace": str(self.environment.workspace(run_id)),
            "data_root": str(self.environment.data_root),
            "max_parallel": self.environment.max_parallel,
            **terms.to_created(),
            "risk": risk.to_json(),
        }
        if not drive:
            created["queued"] = True  # its first session ends with its creation: replay starts it the same way
        if self.whole_registry_fingerprint:
            created["registry"] = self.registry.fingerprint()
        else:
            created["contracts"] = self.registry.contracts(n.operation for n in plan.nodes)
        if terms.replan_of is not None:
            origin = terms.replan_of
            change = compare(origin.summary, summarize(plan, self.registry, risk), origin.threshold)
            if carried and change.material:
                raise RunError("approvals carry over only to a replan without a material change")
            created["change"] = change.to_json()
        elif carried:
            raise RunError("approvals carry over only to a replan (terms.replan_of names the run it replaces)")
        held.enter_context(self.store.lock(run_id))
        session = Session(self.session_needs(), run_id, RunState(run_id=run_id), plan, committed=0, given_terms=terms)
        session.begin()
        session.emit("run.created", created)
        grant(session, approvals)
        carry(session, carried)
        if not admission.proceed(session, admission.admit(session)):
            session.commit()
            return self._finished(session.state)
        return session

    def resume(
        self,
        run_id: str,
        *,
        approvals: Iterable[Approval] = (),
        resolutions: Iterable[Resolution] = (),
        rejection: Rejection | None = None,
        replaced_by: str | None = None,
        withdrawal: Withdrawal | None = None,
        drive: bool = True,
    ) -> RunState:
        """Continue a run from the fold of its journal: finished nodes are not redone, unsafe effects not repeated,
        and what the run may still call is decided again under the policy in force now (`admission.recheck`).

        With `rejection` (a human's refusal of a waiting proposal), or `replaced_by` (a replan took over a waiting
        proposal), the run instead finishes with no effect. With `drive=False` the session journals its decisions
        (an approval, resolutions, the recheck) and calls nothing: a queued run's worker drives it
        (alicorn.broker); the session's `run.resumed` says `queued`, so replay ends that session the same way.
        """
        with contextlib.ExitStack() as held:
            reopened = self.reopen(
                run_id,
                held,
                approvals=approvals,
                resolutions=resolutions,
                rejection=rejection,
                replaced_by=replaced_by,
                withdrawal=withdrawal,
                drive=drive,
            )
            if isinstance(reopened, RunState):
                return reopened
            return self._finished(reopened.drive())

    def resume_many(self, run_ids: Sequence[str]) -> list[RunState | Exception]:
        """Resume `run_ids` (each as `resume` would, with no human input) and drive them all together in this thread
        (runtime.together), as `start_many` drives new runs: every step durable before its calls run, the steps of
        the runs that moved at once sharing one commit. Each run's final state, or the error that stopped it (a
        run that is locked, finished or waits for a human's answer), in the order given."""
        with contextlib.ExitStack() as held:
            opened: list[Session | RunState | Exception] = []
            for run_id in run_ids:
                try:
                    opened.append(self.reopen(run_id, held))
                except Exception as exc:
                    opened.append(exc)
            return self._drive_opened(opened)

    def _drive_opened(self, opened: Sequence[Session | RunState | Exception]) -> list[RunState | Exception]:
        """Drive the sessions among `opened` together; every item's answer in order (a state or an error that
        came before driving stands as it is)."""
        driven = iter(drive_together(self.store, [o for o in opened if isinstance(o, Session)], self.poll_s))
        answers: list[RunState | Exception] = []
        for one in opened:
            if not isinstance(one, Session):
                answers.append(one)
                continue
            answer = next(driven)
            answers.append(self._finished(answer) if isinstance(answer, RunState) else answer)
        return answers

    def reopen(
        self,
        run_id: str,
        held: contextlib.ExitStack,
        *,
        approvals: Iterable[Approval] = (),
        resolutions: Iterable[Resolution] = (),
        rejection: Rejection | None = None,
        replaced_by: str | None = None,
        withdrawal: Withdrawal | None = None,
        drive: bool = True,
    ) -> Session | RunState:
        """`resume` up to driving: the run's right to be driven taken (held in `held` until it closes), its
        session opened with `run.resumed` and the decisions that come with it emitted, interrupted calls recovered.
        A Session ready to drive (alone with `drive`, or together with others' by `drive_together`), or the run's
        state when the session ended without driving (a rejection, a refusal by policy, `drive=False`)."""
        held.enter_context(self.store.lock(run_id))
        events = self.store.read(run_id)
        if not events:
            raise UnknownStreamError(run_id)
        _require_intact(run_id, events, "resumed")
        self._require_sound_decisions(run_id, events, "resumed")
        state = fold(events, run_id)
        if state.finished:
            raise RunError(
                f"run {run_id} already finished ({state.status}) at {state.finished_at}; nothing to resume. "
                f"`alicorn show {run_id}` shows its result"
            )
        plan = Plan.model_validate(state.plan)
        changed = changed_contracts(events[0].data, self.registry)
        if changed:
            raise RunError(
                f"run {run_id} was started with operations whose contracts differ now ({changed}); resume it "
                "with the Alicorn version and operations that started it"
            )
        was_blocked = state.status == "blocked"
        was_waiting = state.status == "awaiting_approval"
        session = Session(self.session_needs(), run_id, state, plan, committed=events[-1].seq)
        proposer = session.terms.proposed_by
        approvals = check_approvals(approvals, proposer, run_id, state.plan_hash, self.approvers)
        if (rejection is not None or replaced_by is not None or withdrawal is not None) and not was_waiting:
            raise NotAwaitingApprovalError(
                f"run {run_id} is {state.status}, not waiting for an approval; only a waiting proposal can be "
                f"rejected or replaced (`alicorn cancel {run_id}` stops a running one)",
                run_id=run_id,
            )
        if rejection is not None:
            check_rejection(rejection, proposer, run_id, self.approvers)
        if (
            withdrawal is not None
            and canonical_id(withdrawal.by) != canonical_id(proposer)
            and not parse_principal(withdrawal.by).is_human
        ):
            raise RunError(
                f"{withdrawal.by} did not propose run {run_id}; only its proposer ({proposer}) or a human may "
                "withdraw it; nothing was done"
            )
        session.begin()
        interrupted = _interrupted(state)
        resumed: dict[str, Any] = {"session": state.sessions + 1, "interrupted": interrupted}
        if not drive:
            resumed["queued"] = True
        session.emit("run.resumed", resumed)
        if rejection is not None:
            reject(session, rejection)
            admission.close(session, "rejected", f"rejected by {rejection.by}: {rejection.reason}")
            return self._commit_finished(session)
        if withdrawal is not None:
            session.emit(
                "proposal.withdrawn",
                {"by": withdrawal.by, "reason": withdrawal.reason, "plan_hash": state.plan_hash},
            )
            admission.close(session, "withdrawn", f"withdrawn by {withdrawal.by}: {withdrawal.reason}")
            return self._commit_finished(session)
        if replaced_by is not None:
            reason = f"replaced by run {replaced_by} (a replan of the same goal)"
            admission.close(session, "replaced", reason, replaced_by=replaced_by)
            return self._commit_finished(session)
        grant(session, approvals)
        if was_waiting:
            if not approvals:
                effects = ", ".join(state.awaiting["effects"]) if state.awaiting else "effects"
                raise ApprovalRequiredError(
                    f"run {run_id} is waiting for a human other than its proposer ({proposer}) to approve its "
                    f"{effects}; nothing was done. Approve with `alicorn approve {run_id}` (or `alicorn resume "
                    f"{run_id} --approve`), run by that person, or reject it with `alicorn reject {run_id} "
                    "--reason WHY`"
                )
            if not admission.proceed(session, admission.admit(session)):
                return self._commit_finished(session)
        elif not session.terms.project_budget.empty:
            admission.journal_inputs(session, usage=True)  # fresh usage of the project's other runs
        resolutions = list(resolutions)
        cancelling = self.controls.cancel_request(run_id, session.next_seq) is not None
        if was_blocked and not resolutions and not cancelling:
            raise RunError(
                f"run {run_id} waits for a human to say whether these effects happened: "
                + ", ".join(f"{n} (key {state.nodes[n].key})" for n in state.blocked())
                + f". Check the target system, then `alicorn resume {run_id} --resolve NODE=applied` (or "
                "=not-applied); nothing was done"
            )
        resolve(session, resolutions)
        # What the run may still call meets the policy in force now (a waiting run was just decided in full; a
        # run being cancelled calls nothing new).
        if not was_waiting and not cancelling and not admission.recheck(session):
            return self._commit_finished(session)
        if not drive:
            return self._commit_finished(session)
        for item in interrupted:
            if item["purpose"] == "compensate":
                saga.recover(session, item["node"])
            else:
                session.recover(item["node"])
        return session

    def withdraw(self, run_id: str, withdrawal: Withdrawal) -> RunState:
        """Its proposer closes a waiting proposal: the run finishes `withdrawn` with no effect."""
        return self.resume(run_id, withdrawal=withdrawal)

    def reject(self, run_id: str, rejection: Rejection) -> RunState:
        """A human refuses a waiting proposal: the run finishes `rejected` with no effect."""
        return self.resume(run_id, rejection=rejection)

    def replan(
        self,
        run_id: str,
        plan: Plan,
        *,
        approvals: Iterable[Approval] = (),
        new_run_id: str | None = None,
        threshold: float | None = None,
        from_data: bool = False,
        drive: bool = True,
    ) -> RunState:
        """Start a new plan for the goal of `run_id` (finished, or waiting for approval) as a successor run.

        The successor keeps the run's terms. Compared with the last approved plan, a replan that changes the goal,
        adds effect classes or external destinations, or raises the cost past `threshold` is material: it waits
        for a new human approval; so does any replan whose cause came from data or tool output (`from_data`: an
        error text, a failed check), whatever it changes. Otherwise the approvals of the replaced plan carry over
        (`approval.carried`) and it proceeds within the approved goal. A waiting proposal that is replaced finishes
        `replaced`. With `drive=False` the successor is created and decided but not driven (see `start`).
        """
        plan = validate_plan(plan, self.registry, self.environment.resources)
        events = self.store.read(run_id)
        if not events or events[0].kind != "run.created":
            raise UnknownStreamError(run_id)
        _require_intact(run_id, events, "replanned")
        self._require_sound_decisions(run_id, events, "replanned")
        state = fold(events, run_id)
        if state.status == "replaced":
            raise RunError(f"run {run_id} was already replaced by {state.replaced_by}; replan that run instead")
        if not (state.finished or state.status == "awaiting_approval"):
            raise RunError(
                f"run {run_id} is {state.status}; replan a run that finished or waits for approval (cancel it "
                f"first: `alicorn cancel {run_id}`)"
            )
        old_terms = RunTerms.from_created(events[0].data)
        old_plan = Plan.model_validate(state.plan)
        bound = [a for a in state.approvals if a.get("plan_hash") == state.plan_hash]
        carried_only = bool(bound) and all(a.get("carried") for a in bound)
        if carried_only and old_terms.replan_of is not None:
            base = old_terms.replan_of.summary  # compare with the plan a human approved, so drift cannot add up
        else:
            base = summarize(old_plan, self.registry, assess(old_plan, self.registry, old_terms.labels))
        limit = threshold if threshold is not None else DEFAULT_THRESHOLD
        origin = ReplanOrigin(run=run_id, summary=base, threshold=limit, from_data=from_data)
        terms = old_terms.model_copy(update={"replan_of": origin, "origin_kept": True})  # a new run: marked
        new = summarize(plan, self.registry, assess(plan, self.registry, terms.labels))
        change = compare(base, new, limit, from_data=from_data)
        carried = []
        # an approval summarized before effect inputs were bound says nothing of what its effects did: not carried
        if not change.material and "effect_inputs" in base:
            source = {a["by"]: a for a in bound}
            carried = [
                CarriedApproval(
                    a["by"],
                    a.get("comment", ""),
                    a.get("from_run", run_id),
                    a.get("from_plan_hash", a["plan_hash"]),
                    a.get("from_seal", a.get("seal")),
                )
                for a in source.values()
            ]
        successor = new_run_id or self.ids.run_id()
        if self.store.head(successor) is not None:
            raise RunError(f"run {successor!r} already exists; choose another id for the replan")
        # before any change
        approvals = check_approvals(approvals, terms.proposed_by, successor, plan.plan_hash(), self.approvers)
        if state.status == "awaiting_approval":
            self.resume(run_id, replaced_by=successor)
        return self.start(plan, approvals=approvals, run_id=successor, terms=terms, carried=carried, drive=drive)

    # ---- internals --------------------------------------------------------------------------------------------

    def _require_sound_decisions(self, run_id: str, events: Sequence[Event], action: str) -> None:
        """What the run goes on from is what was approved: its plan is the one its plan hash names, and (with the
        home's people) every recorded human decision is signed by someone who could make it. A chain that verifies
        says only that nothing was edited in place: an event appended with a fresh hash, or a tail rewritten, passes
        it."""
        mismatch = plan_mismatch(events[0].data) if events and events[0].kind == "run.created" else None
        problems = [f"event #{events[0].seq}: {mismatch}"] if mismatch is not None else []
        if self.approvers is not None:
            problems += [f"event #{p.seq}: {p.reason}" for p in audit_run(self.store, run_id, events)]
        if problems:
            raise JournalIntegrityError(
                f"run {run_id} cannot go on from what its journal records ({'; '.join(dict.fromkeys(problems))}); "
                f"nothing was {action}. `alicorn verify` lists every problem; restore the journal from a backup."
            )

    def _commit_finished(self, session: Session) -> RunState:
        session.commit()
        return self._finished(session.state)

    def settled(self, state: RunState) -> RunState:
        """`state`, a run this executor drove (with `reopen` and `drive_together`), after the executor's own
        end-of-run work (its `on_finished` callback when the run finished)."""
        return self._finished(state)

    def _finished(self, state: RunState) -> RunState:
        if state.finished and self.on_finished is not None:
            self.on_finished(state)
        return state


def _require_intact(run_id: str, events: Sequence[Event], action: str) -> None:
    """A run goes on only from the history that was recorded: its chain is checked before anything is built on it
    (an edited approval or result must not decide what runs next)."""
    problem = verify_stream(run_id, events)
    if problem is not None:
        raise JournalIntegrityError(
            f"run {run_id}'s history does not verify ({problem}); nothing was {action}. `alicorn verify` lists what "
            "is wrong; restore the journal from a backup."
        )


def _interrupted(state: RunState) -> list[dict[str, Any]]:
    """Calls that were in flight when the previous session ended."""
    items = [{"node": n.node_id, "attempt": n.attempt, "purpose": "run"} for n in state.in_flight()]
    items += [
        {"node": e.node, "attempt": e.compensation_attempt, "purpose": "compensate"}
        for e in state.effects_log.values()
        if e.status == "compensating"
    ]
    return items


def _thread_dispatcher(executor: Executor, state: RunState) -> Dispatcher:
    # The run's own workspace and data root, as journaled at its creation: a resume from another process or home
    # keeps writing where the run started.
    env, run_id = executor.environment, state.run_id
    workspace = Path(state.workspace) if state.workspace else env.workspace(run_id)
    data_root = Path(state.data_root) if state.data_root else env.data_root
    hidden = env.hidden_under(data_root)
    made: list[Path] = []  # the workspace, once made: one mkdir per session, not one per call
    workspace_path = os.fspath(workspace)  # os.path.isdir on the text: pathlib's is_dir costs ~5x more per call
    # The check of every file the run opens (anvil.secret_reads), built when a file is first opened: it validates the
    # plan and propagates its labels, which operations that open no file (most nodes of most plans) never need.
    guards: list[ReadGuard] = []

    def guard() -> ReadGuard:
        if not guards:  # two calls racing here build two equal guards; the first is kept
            terms = RunTerms.from_created(state.terms)
            guards.append(ReadGuard(Plan.model_validate(state.plan), executor.registry, terms))
        return guards[0]

    def read_check(node: str) -> Callable[[str, str], str | None]:
        return lambda named, reaches: guard().check(node, named, reaches)

    def make_context(call: Call, cancel: threading.Event) -> OperationContext:
        if not made or not os.path.isdir(workspace_path):
            workspace.mkdir(parents=True, exist_ok=True)
            made.append(workspace)
        return OperationContext(
            run_id, call.node, call.attempt, call.key, workspace, data_root, cancel, hidden, state.project,
            read_check(call.node),
        )  # fmt: skip

    return ThreadDispatcher(executor.registry, make_context, executor.clock, executor.crash)
