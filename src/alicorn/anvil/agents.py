"""The PermissionRegistry: every agent's rights and reputation as a fold of its journal stream.

Each agent has a stream named after it (`agent:planner`) holding `agent.registered`, `rights.granted`,
`rights.revoked` and `reputation.changed`, each with its cause and who caused it. Every rights event carries the
resulting rights, so `fold_agent(events, until=T)` says what the agent could do at any moment T, and its history
says which events granted what. Nothing else stores rights.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from alicorn.anvil.errors import AnvilError, UnknownAgentError
from alicorn.anvil.identity import ROLES, parse_principal
from alicorn.anvil.reputation import ReputationSettings, changes, run_outcome
from alicorn.anvil.rights import MINIMAL_AGENT_RIGHTS, Rights, RightsChange, Subject, granted, revoked
from alicorn.clock import default_clock
from alicorn.errors import ConcurrentAppendError
from alicorn.journal.events import Draft, Event
from alicorn.journal.store import JournalStore

AGENT_EVENT_KINDS = frozenset({"agent.registered", "rights.granted", "rights.revoked", "reputation.changed"})


def utc_now() -> str:
    """The current time as an `at` string (the runtime's format)."""
    return default_clock().now()


@dataclass(frozen=True)
class Entry:
    """One event of an agent's history, in words."""

    seq: int
    at: str
    kind: str
    summary: str
    cause: str
    by: str


@dataclass
class AgentRecord:
    """An agent as its stream says it is (at the end of the events folded)."""

    id: str
    registered: bool = False
    roles: tuple[str, ...] = ()
    rights: Rights = field(default_factory=Rights)
    reputation: int = 0
    tier: str = ""
    used: set[str] = field(default_factory=set)
    curiosity: int = 0
    settled: set[str] = field(default_factory=set)
    history: list[Entry] = field(default_factory=list)
    last_seq: int = 0

    def subject(self) -> Subject:
        return Subject(
            self.id, "agent", self.registered, self.rights, self.roles, self.reputation, self.tier, self.last_seq
        )


def apply(record: AgentRecord, event: Event) -> None:
    """Fold one event into `record`."""
    data = event.data
    record.last_seq = event.seq
    if event.kind == "agent.registered":
        record.registered = True
        record.roles = tuple(data.get("roles", ()))
        record.rights = Rights.model_validate(data["rights"])
        record.tier = data.get("tier", "")
        summary = f"registered (roles {', '.join(record.roles) or 'none'}); rights: {record.rights.describe()}"
    elif event.kind in ("rights.granted", "rights.revoked"):
        record.rights = Rights.model_validate(data["rights"])
        record.tier = data.get("tier", record.tier)
        change = RightsChange.model_validate(data["change"]).describe()
        summary = f"{'granted' if event.kind == 'rights.granted' else 'revoked'} {change}"
    elif event.kind == "reputation.changed":
        record.reputation = int(data["reputation"])
        record.settled.add(str(data.get("run", "")))
        if data.get("operation"):
            record.used.add(data["operation"])
        if data["kind"] == "curiosity":
            record.curiosity += int(data["delta"])
        record.used.update(data.get("operations", ()))
        summary = f"reputation {int(data['delta']):+d} ({data['kind']}), now {record.reputation}"
    else:
        return
    record.history.append(Entry(event.seq, event.at, event.kind, summary, data.get("cause", ""), data.get("by", "")))


def fold_agent(agent: str, events: list[Event], until: str | None = None) -> AgentRecord:
    """The agent after its events up to time `until` (inclusive; all of them when None)."""
    record = AgentRecord(agent)
    for event in events:
        if until is not None and event.at > until:
            break
        apply(record, event)
    return record


class PermissionRegistry:
    """Reads and writes agents' streams. `now` gives the time of the events it writes."""

    def __init__(
        self,
        store: JournalStore,
        *,
        reputation: ReputationSettings | None = None,
        initial_rights: Rights = MINIMAL_AGENT_RIGHTS,
        now: Callable[[], str] = utc_now,
    ) -> None:
        self.store = store
        self.reputation = reputation or ReputationSettings()
        self.initial_rights = initial_rights
        self.now = now

    def record(self, agent: str, at: str | None = None) -> AgentRecord:
        principal = parse_principal(agent)
        if principal.is_human:
            raise AnvilError(f"{agent} is a human; humans are not in the agent registry (their rights are config)")
        events = self.store.read(principal.id) if self.store.head(principal.id) is not None else []
        return fold_agent(principal.id, events, at)

    def require(self, agent: str) -> AgentRecord:
        record = self.record(agent)
        if not record.registered:
            raise UnknownAgentError(agent)
        return record

    def agents(self) -> list[str]:
        return sorted(i.stream for i in self.store.streams() if i.stream.startswith("agent:"))

    def register(self, agent: str, roles: tuple[str, ...] = (), *, cause: str, by: str) -> AgentRecord:
        """Journal a new agent with the initial (minimal) rights; refuse one that exists."""
        record = self.record(agent)
        if record.registered:
            raise AnvilError(
                f"{agent} is already registered (since {record.history[0].at}); see `alicorn rights {agent}`"
            )
        unknown = [r for r in roles if r not in ROLES]
        if unknown:
            raise AnvilError(f"unknown role(s) {', '.join(unknown)}; roles are {', '.join(ROLES)}")
        tier = self.reputation.tier_for(0).name
        data = {"agent": agent, "roles": list(roles), "rights": self.initial_rights.model_dump(mode="json")}
        self._append(
            agent,
            record.last_seq,
            [Draft("agent.registered", self.now(), {**data, "tier": tier, "cause": cause, "by": by})],
        )
        return self.record(agent)

    def ensure_builtin(self, agent: str) -> bool:
        """Register a built-in role agent (agent:planner...) on its first use; True if it was registered now."""
        principal = parse_principal(agent)
        if principal.is_human or not principal.is_builtin_role or self.record(agent).registered:
            return False
        self.register(agent, (principal.name,), cause=f"first use of the built-in {principal.name} role", by="anvil")
        return True

    def change(self, agent: str, change: RightsChange, *, grant: bool, cause: str, by: str) -> AgentRecord:
        """Grant or revoke rights, journaled with the cause and the resulting rights."""
        if change.empty:
            raise AnvilError("nothing to change: name effects, operations, projects, hosts, paths or an amount")
        if not cause.strip():
            raise AnvilError('every change of rights needs a cause (--cause "why")')
        record = self.require(agent)
        rights = granted(record.rights, change) if grant else revoked(record.rights, change)
        data = {
            "change": change.model_dump(mode="json"),
            "rights": rights.model_dump(mode="json"),
            "cause": cause,
            "by": by,
        }
        kind = "rights.granted" if grant else "rights.revoked"
        self._append(agent, record.last_seq, [Draft(kind, self.now(), data)])
        return self.record(agent)

    def settle(self, run_id: str) -> list[Event]:
        """Journal the reputation changes of a finished run proposed by a registered agent (once per run)."""
        outcome = run_outcome(self.store.read(run_id))
        if outcome is None or not outcome.proposed_by.startswith("agent:"):
            return []
        return self._append_once(
            outcome.proposed_by,
            run_id,
            lambda record: self._settle_drafts(record, outcome),
            f"the reputation of run {run_id}",
        )

    def calibrate(self, agent: str, run_id: str, brier: float) -> list[Event]:
        """Move a registered agent's reputation by how well its plan's outcome was predicted (the world model's
        Brier score for the run): +1 at most 0.05, -1 at least 0.5, nothing between; once per run."""
        delta = 1 if brier <= 0.05 else -1 if brier >= 0.5 else 0
        if not delta:
            return []
        key = f"calibration:{run_id}"

        def drafts(record: AgentRecord) -> list[Draft]:
            data = {
                "run": key,
                "kind": "calibration",
                "delta": delta,
                "reputation": record.reputation + delta,
                "cause": f"the world model's prediction for run {run_id} scored Brier {brier:.3f}",
                "by": "anvil",
            }
            return [Draft("reputation.changed", self.now(), data)]

        return self._append_once(agent, key, drafts, f"the calibration of run {run_id}")

    def withhold(self, agent: str, run_id: str, why: str) -> list[Event]:
        """Take back what a run that succeeded gave its agent when its result then failed validation (a run whose
        nodes all succeeded but that did not serve its goal never raises reputation); once per run."""
        key = f"validation:{run_id}"

        def drafts(record: AgentRecord) -> list[Draft]:
            gained = sum(
                int(e.data.get("delta", 0))
                for e in self.store.read(record.id)
                if e.kind == "reputation.changed" and e.data.get("run") == run_id and int(e.data.get("delta", 0)) > 0
            )
            if gained <= 0:
                return []
            at, score = self.now(), record.reputation - gained
            data = {
                "run": key,
                "kind": "validation",
                "delta": -gained,
                "reputation": score,
                "by": "anvil",
                "cause": f"run {run_id} succeeded, but its result did not pass validation: {why}",
            }
            return [Draft("reputation.changed", at, data), *self._tier_drafts(record, score, at)]

        return self._append_once(agent, key, drafts, f"the validation of run {run_id}")

    def _tier_drafts(self, record: AgentRecord, score: int, at: str) -> list[Draft]:
        """The rights an agent gains or loses when its reputation moves from `record.reputation` to `score`."""
        drafts: list[Draft] = []
        before, after = self.reputation.tier_for(record.reputation), self.reputation.tier_for(score)
        if after.name != before.name:
            gained = tuple(c for c in after.effects if c not in before.effects)
            lost = tuple(c for c in before.effects if c not in after.effects)
            rights = record.rights
            cause = f"reputation {score} moved {record.id} from tier {before.name} to {after.name} (min {after.min})"
            for effects, grant in ((gained, True), (lost, False)):
                if not effects:
                    continue
                change = RightsChange(effects=effects)
                rights = granted(rights, change) if grant else revoked(rights, change)
                data = {"change": change.model_dump(mode="json"), "rights": rights.model_dump(mode="json")}
                kind = "rights.granted" if grant else "rights.revoked"
                drafts.append(Draft(kind, at, {**data, "tier": after.name, "cause": cause, "by": "anvil"}))
        return drafts

    def _append_once(
        self, agent: str, key: str, drafts_for: Callable[[AgentRecord], list[Draft]], what: str
    ) -> list[Event]:
        """Append the drafts `drafts_for` makes from the agent's current record, once per `key` (the `run` of a
        reputation change). Another writer may append to the agent's stream meanwhile: read again and retry."""
        for _ in range(5):
            record = self.record(agent)
            if not record.registered or key in record.settled:
                return []
            drafts = drafts_for(record)
            if not drafts:
                return []
            try:
                return self.store.append(record.id, drafts, expect=record.last_seq)
            except ConcurrentAppendError:
                continue
        raise AnvilError(f"could not record {what}: {agent}'s stream keeps changing")

    def _settle_drafts(self, record: AgentRecord, outcome: Any) -> list[Draft]:
        at = self.now()
        score, drafts = record.reputation, []
        for item in changes(outcome, frozenset(record.used), record.curiosity, self.reputation):
            score += item.delta
            data: dict[str, Any] = {"run": outcome.run, "kind": item.kind, "delta": item.delta, "reputation": score}
            if item.operation:
                data["operation"] = item.operation
            if item.kind != "curiosity":
                data["operations"] = list(outcome.operations)
            drafts.append(Draft("reputation.changed", at, {**data, "cause": item.cause, "by": "anvil"}))
        drafts += self._tier_drafts(record, score, at)
        return drafts

    def _append(self, agent: str, expect: int, drafts: list[Draft]) -> None:
        try:
            self.store.append(agent, drafts, expect=expect)
        except ConcurrentAppendError:
            raise AnvilError(f"{agent}'s rights changed meanwhile (another writer); look again and retry") from None
