"""Agents and models over HTTP, read-only: what `alicorn agent list`, `alicorn rights`, `alicorn models` and
`alicorn models route` show, folded by the same functions.

    GET /api/v1/agents                          every agent stream: registered, reputation, tier, rights
    GET /api/v1/agents/{agent}/rights?at=TIME   the rights at a moment (default now), where each effect came from,
                                                and the events that made it so (`alicorn rights --at`)
    GET /api/v1/agents/{agent}/reputation       the reputation after each event of the agent's stream, with the
                                                reason (cause, by, run) for every change: the chart's points
    GET /api/v1/models                          the home's model profiles (models.toml, else the built-in ones)
    GET /api/v1/models/routes?role=…            the router's decision for a role, as `alicorn models route --json`

`{agent}` is `agent:NAME` or `NAME`. A human is not an agent (422); an agent with no stream is 404. Reading any of
these needs a viewer.
"""

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from alicorn.anvil.agents import AgentRecord, apply, fold_agent
from alicorn.anvil.errors import AnvilError
from alicorn.anvil.explain import rights_report
from alicorn.anvil.identity import parse_principal
from alicorn.clock import ClockError, format_time, parse_instant
from alicorn.service.auth import Authenticator, Caller, needs
from alicorn.service.moments import out_of_range
from alicorn.service.problems import Problem

API = "/api/v1"


class AgentBook:
    """Agents' streams read through Anvil's fold (alicorn.anvil.agents), for the API and the agents page."""

    def __init__(self, service: Any) -> None:
        self.service = service
        self.store = service.app.store

    def names(self) -> list[str]:
        return sorted(i.stream for i in self.store.streams() if i.stream.startswith("agent:"))

    def summary(self) -> list[dict[str, Any]]:
        rows = []
        for name in self.names():
            record = fold_agent(name, self.store.read(name))
            rows.append(
                {
                    "agent": name, "registered": record.registered, "reputation": record.reputation,
                    "tier": record.tier, "rights": record.rights.describe(), "events": record.last_seq,
                }
            )  # fmt: skip
        return rows

    def agent_id(self, name: str) -> str:
        """`name` as an agent's stream; Problem(422) for a human or a malformed name, 404 with no stream."""
        text = name if ":" in name else f"agent:{name}"
        try:
            principal = parse_principal(text)
        except AnvilError as exc:
            raise Problem(422, "invalid-agent", f"{name!r}: {exc}") from None
        if principal.is_human:
            raise Problem(
                422, "not-an-agent",
                f"{principal.id} is a human; humans are not in the agent registry (their rights are the operator's "
                "config). Ask about an agent:NAME",
            )  # fmt: skip
        if self.store.head(principal.id) is None:
            raise Problem(404, "unknown-agent", f"there is no agent {principal.id}; GET {API}/agents lists them")
        return principal.id

    def rights(self, name: str, at: str | None) -> dict[str, Any]:
        agent = self.agent_id(name)
        when = _instant(at) if at else None
        record = fold_agent(agent, self.store.read(agent), when)
        report = rights_report(record, when)
        return {
            "agent": record.id,
            "at": when,
            "registered": record.registered,
            "roles": list(record.roles),
            "reputation": record.reputation,
            "tier": record.tier,
            "rights": record.rights.model_dump(mode="json"),
            "rights_sentence": record.rights.describe(),
            "origins": {
                c: {**o.__dict__, "sentence": o.describe(record.id)} for c, o in sorted(record.origins.items())
            },
            "eligible": list(record.eligible),
            "history": [e.__dict__ for e in record.history],
            "report": {"title": report.title, "lines": list(report.lines)},
        }

    def reputation(self, name: str) -> dict[str, Any]:
        """The reputation and tier after each event that changed the agent, with the reason for each."""
        agent = self.agent_id(name)
        record = AgentRecord(agent)
        points = []
        for event in self.store.read(agent):
            before = len(record.history)
            apply(record, event)
            if len(record.history) == before:
                continue
            entry = record.history[-1]
            data = event.data
            points.append(
                {
                    "seq": event.seq, "at": event.at, "kind": event.kind, "reputation": record.reputation,
                    "delta": int(data.get("delta", 0)) if event.kind == "reputation.changed" else 0,
                    "tier": record.tier, "rights": record.rights.describe(), "summary": entry.summary,
                    "cause": entry.cause, "by": entry.by, "run": data.get("run"),
                }
            )  # fmt: skip
        return {"agent": agent, "reputation": record.reputation, "tier": record.tier, "points": points}


def _instant(text: str) -> str:
    try:
        return format_time(parse_instant(text))
    except ClockError as exc:
        raise Problem(422, "invalid-time", f"at: {exc}") from None
    except OverflowError:  # a year 1 or 9999 moment that leaves the calendar once turned to UTC
        raise Problem(422, "invalid-time", f"at: {out_of_range(text)}") from None


class ModelDesk:
    """The home's model profiles and the router's decisions, as `alicorn models` computes them."""

    def __init__(self, service: Any) -> None:
        self.service = service

    def _profiles(self) -> tuple[Any, str]:
        from alicorn.models.cli import _profiles_from
        from alicorn.models.errors import ModelError

        try:
            return _profiles_from(None, self.service.app.home)
        except ModelError as exc:
            raise Problem(422, "invalid-profiles", str(exc)) from None

    def profiles(self) -> dict[str, Any]:
        loaded, where = self._profiles()
        return {"source": where, "profiles": [p.model_dump(mode="json") for p in loaded.profiles]}

    def route(
        self, role: str, languages: list[str] | None, allow_external: bool, justification: str | None
    ) -> dict[str, Any]:
        from alicorn.core.access import profile_models
        from alicorn.core.routing import decide, routed_record
        from alicorn.models.errors import ModelError
        from alicorn.models.router import RoutingPolicy, requirements_for

        loaded, where = self._profiles()
        try:
            need = requirements_for(role, languages=languages)
            policy = RoutingPolicy(allow_external=allow_external, justification=justification)
            models = profile_models(loaded, where, policy=policy, clock=self.service.clock)
        except ModelError as exc:
            raise Problem(422, "routing-refused", str(exc)) from None
        decision, reason = decide(models, need)
        return {**routed_record(models, decision, reason), "explanation": decision.explain(), "source": where}


def router(service: Any, auth: Authenticator, signed_in: Callable[..., Caller]) -> APIRouter:
    """The agents and models routes over `service` (alicorn.service.app.Service)."""
    routes = APIRouter(prefix=API)
    agents, models = AgentBook(service), ModelDesk(service)

    reader = needs(signed_in, "viewer", "read", "read agents and models")

    Reader = Annotated[Caller, Depends(reader)]

    @routes.get("/agents", tags=["agents"], summary="Every agent: reputation, tier and rights now")
    def list_agents(_: Reader) -> dict[str, Any]:
        return {"agents": agents.summary()}

    @routes.get("/agents/{agent}/rights", tags=["agents"], summary="An agent's rights at a time, and why")
    def agent_rights(
        agent: str,
        _: Reader,
        at: Annotated[str | None, Query(max_length=64, description="A moment (ISO 8601); default now.")] = None,
    ) -> dict[str, Any]:
        return agents.rights(agent, at)

    @routes.get("/agents/{agent}/reputation", tags=["agents"], summary="An agent's reputation over time, with reasons")
    def agent_reputation(agent: str, _: Reader) -> dict[str, Any]:
        return agents.reputation(agent)

    @routes.get("/models", tags=["models"], summary="The home's model profiles")
    def list_models(_: Reader) -> dict[str, Any]:
        return models.profiles()

    @routes.get(
        "/models/routes", tags=["models"], summary="Which profile a role gets, and why (`alicorn models route`)"
    )
    def route(
        _: Reader,
        role: Annotated[str, Query(min_length=1, max_length=64)],
        language: Annotated[list[str] | None, Query(max_length=8)] = None,
        allow_external: bool = False,
        justification: Annotated[str | None, Query(max_length=500)] = None,
    ) -> dict[str, Any]:
        return models.route(role, language, allow_external, justification)

    return routes
