"""The PermissionRegistry: every agent's rights and reputation as a fold of its journal stream.

Each agent has a stream named after it (`agent:planner`) holding `agent.registered`, `rights.granted`,
`rights.revoked`, `reputation.changed` and `tier.changed`, each with its cause and who caused it. Every rights event
carries the resulting rights, so `fold_agent(events, until=T)` says what the agent could do at any moment T, and its
history says which events granted what. The fold also keeps, for each effect class held, where it came from (the
registration, a tier, or a human grant) so `alicorn rights` and `alicorn why` can name it. Nothing else stores rights.

Reputation alone never widens rights beyond local writes: a tier above that only makes the agent eligible, and only
a human grants such a class. Falling below a tier revokes what the registration or a tier gave, never what a human
granted (that stays until a human revokes it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Any

from alicorn.anvil.errors import AnvilError, UnknownAgentError
from alicorn.anvil.identity import ROLES, parse_principal
from alicorn.anvil.reputation import (
    ReputationSettings,
    RunOutcome,
    Standing,
    changes,
    eligible_effects,
    needs_grant,
    run_outcome,
)
from alicorn.anvil.rights import MINIMAL_AGENT_RIGHTS, Rights, RightsChange, Subject, granted, revoked
from alicorn.clock import default_clock, format_time, parse_time
from alicorn.errors import ConcurrentAppendError
from alicorn.journal.events import Draft, Event
from alicorn.journal.store import JournalStore
from alicorn.plan.dsl import EffectClass

AGENT_EVENT_KINDS = frozenset(
    {"agent.registered", "rights.granted", "rights.revoked", "reputation.changed", "tier.changed"}
)


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


@dataclass(frozen=True)
class Origin:
    """Where a held effect class came from: the registration, a tier, or a human grant (the event that did it)."""

    source: str  # registration | tier | grant
    seq: int
    at: str
    by: str
    cause: str
    tier: str = ""

    def describe(self, agent: str) -> str:
        where = f"{agent}#{self.seq} at {self.at}"
        if self.source == "grant":
            return f"granted by {self.by} ({where}): {self.cause or '-'}"
        if self.source == "tier":
            return f"from tier {self.tier} ({where}): {self.cause or '-'}"
        return f"from the registration by {self.by or '-'} ({where}): {self.cause or '-'}"


@dataclass
class AgentRecord:
    """An agent as its stream says it is (at the end of the events folded)."""

    id: str
    registered: bool = False
    roles: tuple[str, ...] = ()
    rights: Rights = field(default_factory=Rights)
    reputation: int = 0
    tier: str = ""
    tier_eligible: tuple[str, ...] = ()  # the classes above local_write its tier makes it eligible for
    used: set[str] = field(default_factory=set)
    curiosity: int = 0
    settled: set[str] = field(default_factory=set)
    shapes: dict[str, str] = field(default_factory=dict)  # credited plan shape -> the run credited for it
    gains: list[tuple[str, int, str]] = field(default_factory=list)  # (at, points, run) of every gain
    origins: dict[EffectClass, Origin] = field(default_factory=dict)  # held effect class -> where it came from
    history: list[Entry] = field(default_factory=list)
    last_seq: int = 0

    def subject(self) -> Subject:
        return Subject(
            self.id, "agent", self.registered, self.rights, self.roles, self.reputation, self.tier, self.last_seq
        )

    @property
    def eligible(self) -> tuple[str, ...]:
        """Classes its tier makes it eligible for that it does not hold: a human grant gives them."""
        return tuple(c for c in self.tier_eligible if c not in self.rights.effects)

    def earned_since(self, start: str) -> int:
        """Points gained after the moment `start` (journaled times), gains taken back excluded."""
        return sum(points for at, points, _ in self.gains if at > start)

    def standing(self, now: str, period_s: int) -> Standing:
        """What `changes` needs to know at the moment `now`: the period is the `period_s` seconds before it."""
        start = format_time(parse_time(now) - timedelta(seconds=period_s))
        return Standing(frozenset(self.used), self.curiosity, dict(self.shapes), self.earned_since(start))


def _origins(record: AgentRecord, event: Event, source: str) -> None:
    data = event.data
    effects = data["rights"]["effects"] if source == "registration" else data["change"]["effects"]
    for effect in effects:
        if event.kind == "rights.revoked":
            record.origins.pop(effect, None)
        else:
            origin = Origin(source, event.seq, event.at, str(data.get("by", "")), str(data.get("cause", "")))
            record.origins[effect] = replace(origin, tier=str(data.get("tier", "")))


def _reputation(record: AgentRecord, event: Event) -> str:
    data = event.data
    delta = int(data["delta"])
    record.reputation = int(data["reputation"])
    record.settled.add(str(data.get("run", "")))
    if data.get("operation"):
        record.used.add(data["operation"])
    if data["kind"] == "curiosity":
        record.curiosity += delta
    if data.get("shape") and delta > 0:
        record.shapes.setdefault(str(data["shape"]), str(data["run"]))
    if delta > 0:
        record.gains.append((event.at, delta, str(data.get("run", ""))))
    taken = data.get("withheld_run")
    if taken:  # a result that failed validation: its credit, its shape and its share of the period are taken back
        record.shapes = {s: r for s, r in record.shapes.items() if r != taken}
        record.gains = [g for g in record.gains if g[2] != taken]
    record.used.update(data.get("operations", ()))
    return f"reputation {delta:+d} ({data['kind']}), now {record.reputation}"


def apply(record: AgentRecord, event: Event) -> None:
    """Fold one event into `record`."""
    data = event.data
    record.last_seq = event.seq
    if event.kind == "agent.registered":
        record.registered = True
        record.roles = tuple(data.get("roles", ()))
        record.rights = Rights.model_validate(data["rights"])
        record.tier = data.get("tier", "")
        record.tier_eligible = tuple(data.get("eligible", ()))
        _origins(record, event, "registration")
        summary = f"registered (roles {', '.join(record.roles) or 'none'}); rights: {record.rights.describe()}"
    elif event.kind in ("rights.granted", "rights.revoked"):
        record.rights = Rights.model_validate(data["rights"])
        record.tier = data.get("tier", record.tier)
        _origins(record, event, "tier" if data.get("tier") and data.get("by") == "anvil" else "grant")
        change = RightsChange.model_validate(data["change"]).describe()
        summary = f"{'granted' if event.kind == 'rights.granted' else 'revoked'} {change}"
        # A journal written before rights were earned may hold a tier's grant above local_write: it is not held.
        unearned = tuple(c for c, o in record.origins.items() if o.source == "tier" and needs_grant(c))
        if unearned:
            record.rights = revoked(record.rights, RightsChange(effects=unearned))
            record.origins = {c: o for c, o in record.origins.items() if c not in unearned}
            summary += f" (not held: {', '.join(unearned)} above local_write came from a tier, not a human grant)"
    elif event.kind == "tier.changed":
        record.tier = str(data["tier"])
        record.tier_eligible = tuple(data.get("eligible", ()))
        summary = f"tier {data.get('from', '-')} -> {record.tier} at reputation {data.get('reputation', '?')}"
    elif event.kind == "reputation.changed":
        summary = _reputation(record, event)
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
        tier = self.reputation.tier_for(0)
        data = {"agent": agent, "roles": list(roles), "rights": self.initial_rights.model_dump(mode="json")}
        data |= {"tier": tier.name, "eligible": list(eligible_effects(tier)), "cause": cause, "by": by}
        self._append(agent, record.last_seq, [Draft("agent.registered", self.now(), data)])
        return self.record(agent)

    def ensure_builtin(self, agent: str) -> bool:
        """Register a built-in role agent (agent:planner...) on its first use; True if it was registered now."""
        principal = parse_principal(agent)
        if principal.is_human or not principal.is_builtin_role or self.record(agent).registered:
            return False
        try:
            self.register(
                agent, (principal.name,), cause=f"first use of the built-in {principal.name} role", by="anvil"
            )
        except AnvilError:
            if self.record(agent).registered:  # two runs started at once: the other one registered it first
                return False
            raise
        return True

    def check_change(self, agent: str, change: RightsChange, cause: str) -> AgentRecord:
        """Refuse (AnvilError) a change that names nothing, has no cause, or is for an unknown agent; the record
        otherwise. The command line asks it before it signs anyone in, so a bad change journals nothing at all."""
        if change.empty:
            raise AnvilError("nothing to change: name effects, operations, projects, hosts, paths or an amount")
        if not cause.strip():
            raise AnvilError('every change of rights needs a cause (--cause "why")')
        return self.require(agent)

    def change(self, agent: str, change: RightsChange, *, grant: bool, cause: str, by: str) -> AgentRecord:
        """Grant or revoke rights, journaled with the cause and the resulting rights. A class above local_write is
        granted only by a human (`by` human:NAME): reputation or an agent never widens rights that far."""
        record = self.check_change(agent, change, cause)
        wide = [c for c in change.effects if needs_grant(c)]
        if grant and wide and not (by.startswith("human:") and parse_principal(by).is_human):
            raise AnvilError(
                f"{by} cannot grant {', '.join(wide)}: an effect class above local_write is held only after a "
                f"human grants it (`alicorn agent grant {agent} --effect {wide[0]} --cause WHY`); "
                "nothing was changed"
            )
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
            at = self.now()
            cause = f"the world model's prediction for run {run_id} scored Brier {brier:.3f}"
            points = delta
            if delta > 0 and run_id not in record.shapes.values():
                points, cause = 0, f"{cause}, but run {run_id} earned no credit as new work, so neither does this"
            elif delta > 0 and record.standing(at, self.reputation.period_s).earned >= self.reputation.period_cap:
                points, cause = 0, f"{cause}, but the cap of {self.reputation.period_cap} points per period is reached"
            score = record.reputation + points
            data = {"run": key, "kind": "calibration", "delta": points, "reputation": score}
            change = Draft("reputation.changed", at, {**data, "cause": cause, "by": "anvil"})
            return [change, *self._tier_drafts(record, score, at)]

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
            at, score = self.now(), record.reputation - max(0, gained)
            cause = f"run {run_id} succeeded, but its result did not pass validation: {why}"
            data = {
                "run": key,
                "withheld_run": run_id,
                "kind": "validation",
                "delta": -max(0, gained),
                "reputation": score,
                "by": "anvil",
                "cause": cause if gained > 0 else f"{cause}; it had earned nothing, so nothing is taken back",
            }
            return [Draft("reputation.changed", at, data), *self._tier_drafts(record, score, at)]

        return self._append_once(agent, key, drafts, f"the validation of run {run_id}")

    def _tier_drafts(self, record: AgentRecord, score: int, at: str) -> list[Draft]:
        """What a move of reputation from `record.reputation` to `score` changes: `tier.changed` (with the classes
        above local_write the new tier makes the agent eligible for, never granted here), then the rights up to
        local_write that the tiers differ by: granted when missing, revoked unless a human granted them."""
        before, after = self.reputation.tier_for(record.reputation), self.reputation.tier_for(score)
        if after.name == before.name:
            return []
        eligible = eligible_effects(after)
        cause = f"reputation {score} moved {record.id} from tier {before.name} to {after.name} (min {after.min})"
        missing = [c for c in eligible if c not in record.rights.effects]
        note = (
            f"; eligible for {', '.join(missing)}, which only a human grant gives "
            f"(`alicorn agent grant {record.id} --effect {missing[0]} --cause WHY`)"
            if missing
            else ""
        )
        data = {"from": before.name, "tier": after.name, "min": after.min, "reputation": score}
        drafts = [Draft("tier.changed", at, {**data, "eligible": list(eligible), "cause": cause + note, "by": "anvil"})]
        held = record.rights.effects
        gained = tuple(c for c in after.effects if c not in held and not needs_grant(c))
        kept = {c for c, origin in record.origins.items() if origin.source == "grant"}
        lost = tuple(c for c in before.effects if c not in after.effects and c in held and c not in kept)
        rights = record.rights
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

    def _settle_drafts(self, record: AgentRecord, outcome: RunOutcome) -> list[Draft]:
        at = self.now()
        score, drafts = record.reputation, []
        for item in changes(outcome, record.standing(at, self.reputation.period_s), self.reputation):
            score += item.delta
            data: dict[str, Any] = {"run": outcome.run, "kind": item.kind, "delta": item.delta, "reputation": score}
            if item.operation:
                data["operation"] = item.operation
            if item.shape:
                data["shape"] = item.shape
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
