"""Checking every signed human decision in the journal against the people stream (`alicorn verify`).

The hash chain says the journal was not edited in place; it cannot say who decided, and a whole tail rewritten with
fresh hashes passes it. A decision's signature can: each `approval.granted` and `approval.rejected` must carry a
seal whose Ed25519 signature, made with a key the `control:people` stream journaled for that very person and valid
at the seq the seal names, verifies over the run's own plan hash, goal hash and terms (as its `run.created` says)
and the decision's fields. An `approval.carried` must name a signed approval its source run really has. Each
failure is a ChainProblem naming the run and the event's seq.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from alicorn import canonical
from alicorn.anvil import signing
from alicorn.anvil.identity import canonical_id
from alicorn.anvil.people import PEOPLE_STREAM, fold_people
from alicorn.errors import AlicornError
from alicorn.journal.events import ChainProblem, Event
from alicorn.journal.store import JournalStore
from alicorn.runtime.state import RunState, fold

DECISIONS = {"approval.granted": ("approved", "comment"), "approval.rejected": ("rejected", "reason")}


def audit_decisions(store: JournalStore, runs: Sequence[str] | None = None) -> list[ChainProblem]:
    """Every problem with the signed decisions of `runs` (default: every run in the journal)."""
    people = store.read(PEOPLE_STREAM) if store.head(PEOPLE_STREAM) is not None else []
    audit = _Audit(store, people)
    names = list(runs) if runs is not None else [info.stream for info in store.streams()]
    problems: list[ChainProblem] = []
    for name in dict.fromkeys(names):
        problems.extend(_audit_run(audit, name, audit.events(name)))
    return problems


def audit_run(store: JournalStore, run_id: str, events: Sequence[Event]) -> list[ChainProblem]:
    """The problems of one run's decisions, its events already read (what a resume checks before acting on them)."""
    people = store.read(PEOPLE_STREAM) if store.head(PEOPLE_STREAM) is not None else []
    audit = _Audit(store, people)
    audit.seed(run_id, list(events))
    return _audit_run(audit, run_id, events)


def plan_mismatch(created: dict[str, Any]) -> str | None:
    """Why a `run.created` event's plan is not the plan its `plan_hash` names (None when it is). Approvals are bound
    to the hash; a plan edited under an unchanged hash would carry them onto effects nobody approved."""
    plan = created.get("plan")
    if not isinstance(plan, dict):
        return "it holds no plan"
    actual = canonical.digest(plan)
    named = str(created.get("plan_hash", ""))
    if actual != named:
        return (
            f"its plan hashes to {actual[:16]}…, not to the plan hash {named[:16]}… it names, which approvals are "
            "bound to (the plan was edited)"
        )
    return None


def _audit_run(audit: _Audit, name: str, events: Sequence[Event]) -> list[ChainProblem]:
    if not events or events[0].kind != "run.created":
        return []
    problems: list[ChainProblem] = []
    mismatch = plan_mismatch(events[0].data)
    if mismatch is not None:
        problems.append(ChainProblem(name, events[0].seq, mismatch))
    created = fold(events[:1], name)
    for event in events:
        reason = audit.check(name, created, event)
        if reason is not None:
            problems.append(ChainProblem(name, event.seq, reason))
    return problems


class _Audit:
    def __init__(self, store: JournalStore, people: list[Event]) -> None:
        self.store = store
        self.people = people
        self.roster = fold_people(people)
        self._runs: dict[str, list[Event]] = {}

    def seed(self, run: str, events: list[Event]) -> None:
        self._runs[run] = events

    def events(self, run: str) -> list[Event]:
        if run not in self._runs:
            try:
                self._runs[run] = self.store.read(run) if self.store.head(run) is not None else []
            except AlicornError:
                self._runs[run] = []  # an unreadable stream is reported by the chain check
        return self._runs[run]

    def check(self, run: str, created: RunState, event: Event) -> str | None:
        if event.kind in DECISIONS:
            return self.decision(run, created, event)
        if event.kind == "approval.carried":
            return self.carried(event.data)
        return None

    def decision(self, run: str, created: RunState, event: Event) -> str | None:
        data = event.data
        decision, note_field = DECISIONS[event.kind]
        by = str(data.get("by", ""))
        seal = data.get("seal")
        if not isinstance(seal, dict):
            return (
                f"the {decision} decision by {by} is not signed, so nothing says who made it (it was journaled "
                "before signed approvals, or by an executor without the home's people)"
            )
        fingerprint = str(seal.get("fingerprint", ""))
        signer = str(seal.get("signer", ""))
        if _canonical(signer) != _canonical(by):
            return f"the decision names {by} but is signed by {signer} (tampered)"
        if data.get("plan_hash") != created.plan_hash:
            return (
                f"the decision names plan hash {str(data.get('plan_hash'))[:16]}…, but the run's plan is "
                f"{created.plan_hash[:16]}… (tampered)"
            )
        key = self.roster.keys.get(fingerprint)
        if key is None:
            return (
                f"it is signed with key {fingerprint[:23]}…, which the people stream never journaled (unknown signer)"
            )
        if key.person != _canonical(by):
            return f"it is signed with {key.person}'s key, not {by}'s (tampered)"
        people_seq = seal.get("people_seq")
        if not isinstance(people_seq, int) or people_seq > self.roster.seq:
            return f"its seal names people seq {people_seq!r}, which the people stream has not reached (tampered)"
        if not key.valid_at(people_seq) or (key.ended_at is not None and key.ended_at < event.at):
            return (
                f"{by}'s key {fingerprint[:23]}… was not valid at that point (journaled at #{key.added_seq}"
                + (f", ended at #{key.ended_seq}" if key.ended_seq is not None else "")
                + f" of {PEOPLE_STREAM}; the seal names #{people_seq})"
            )
        if key.added_at > event.at:
            return f"{by}'s key {fingerprint[:23]}… was journaled after this decision (at {key.added_at})"
        person = fold_people(self.people, until=people_seq).people.get(key.person)
        if person is None or not person.may("approver"):
            role = person.role if person is not None else "not enrolled"
            return f"{by} was {role} at #{people_seq} of {PEOPLE_STREAM}, and only approvers decide about runs"
        message = signing.decision_message(
            run=run,
            plan_hash=created.plan_hash,
            goal_hash=created.goal_hash,
            terms=signing.terms_digest(created.terms),
            decision=decision,
            by=by,
            note=str(data.get(note_field, "")),
            fingerprint=fingerprint,
            people_seq=people_seq,
        )
        if not signing.verify(key.public_key, message, str(seal.get("signature", ""))):
            return (
                f"the signature of the {decision} decision by {by} does not verify: it was changed after it was signed"
            )
        return None

    def carried(self, data: dict[str, Any]) -> str | None:
        source, by = str(data.get("from_run", "")), str(data.get("by", ""))
        origin = data.get("from_seal")
        if not isinstance(origin, dict):
            return f"the approval by {by} carried from run {source} names no signed approval"
        wanted = origin.get("signature")
        for event in self.events(source):
            if event.kind not in ("approval.granted", "approval.carried"):
                continue
            seal = event.data.get("seal") if event.kind == "approval.granted" else event.data.get("from_seal")
            if isinstance(seal, dict) and seal.get("signature") == wanted and event.data.get("by") == by:
                return None
        return f"the approval by {by} carried from run {source} names a signed approval that run {source} does not have"


def _canonical(text: str) -> str:
    try:
        return canonical_id(text)
    except AlicornError:
        return text
