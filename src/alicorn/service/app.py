"""The service's one app factory: `create_app(home, clock=...)` wires a home's journal into a FastAPI app.

Nothing here holds state of its own: every answer is folded from the journal (the run index is a cache of such
folds, rebuilt from the journal at will). Routes live under `/api/v1`; `/openapi.json` and `/docs` describe them.
Every refusal is a problem detail (alicorn.service.problems), decided before anything is done.
"""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, FastAPI, Header, Query, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from alicorn.anvil.errors import AnvilError
from alicorn.anvil.identity import parse_principal
from alicorn.app import open_app
from alicorn.clock import Clock, ClockError, format_time, parse_instant
from alicorn.service import control, conversations, problems, proposals, uploads
from alicorn.service.actions import Actions
from alicorn.service.auth import Caller, needs
from alicorn.service.events import MAX_SEQ, event_stream, resume_point
from alicorn.service.index import CursorError, RunFilter
from alicorn.service.moments import out_of_range
from alicorn.service.problems import Problem, invalid_cursor
from alicorn.service.shared import API, Service
from alicorn.service.tokens import MAX_DAYS, Tokens
from alicorn.service.views import event_json, run_detail

#: The most bytes of a request body the service reads (413 beyond).
BODY_LIMIT = 64 * 1024

RunStatus = Literal[
    "new", "awaiting_approval", "running", "blocked", "succeeded", "partial", "failed", "stopped", "cancelled",
    "denied", "rejected", "replaced", "withdrawn",
]  # fmt: skip


class NewToken(BaseModel):
    """A token to create for one of the home's people."""

    model_config = ConfigDict(extra="forbid")
    person: Annotated[str, Field(min_length=1, max_length=200)]
    scope: Literal["read", "write"] = "read"
    expires_days: Annotated[int | None, Field(ge=1, le=MAX_DAYS)] = None


def create_app(
    home: Path,
    *,
    clock: Clock,
    body_limit: int = BODY_LIMIT,
    upload_limit: int = uploads.UPLOAD_LIMIT,
    poll_s: float = 0.05,
    keepalive_s: float = 15.0,
    workers: int = 0,
    models: str = "none",
    scheduler_poll_s: float | None = 60.0,
    queue: bool = False,
) -> FastAPI:
    """The service over the home at `home` (its journal is created if missing); `clock` is the only time it reads.
    With `queue`, Core's runs are submitted to the journal's job broker for `alicorn worker` processes to drive.
    A scheduler thread fires the journal's schedules, waking at least every `scheduler_poll_s` seconds (None: no
    thread; the schedule routes still answer)."""
    service = Service(open_app(home), clock)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        service.close()

    api = FastAPI(
        title="Alicorn",
        version="1",
        summary="Runs, their journal and their live progress, folded from the journal.",
        lifespan=lifespan,
    )
    api.state.service = service
    problems.install(api)
    api.add_middleware(problems.BodyLimit, limit=body_limit, uploads=uploads.UPLOAD_PATHS, upload_limit=upload_limit)

    def signed_in(authorization: Annotated[str | None, Header()] = None) -> Caller:
        return service.auth.caller(authorization)

    reader = needs(signed_in, "viewer", "read", "read runs")
    token_admin = needs(signed_in, "admin", "read", "see the home's tokens")
    token_writer = needs(signed_in, "admin", "write", "create or revoke tokens")

    router = APIRouter(prefix=API)

    @router.get("/me", summary="Who the token acts for")
    def me(caller: Annotated[Caller, Depends(reader)]) -> dict[str, str]:
        return {"person": caller.person, "role": caller.role, "scope": caller.scope, "token": caller.token}

    @router.get("/runs", summary="Runs, newest first, filtered and paged (from the run index)")
    def list_runs(
        _: Annotated[Caller, Depends(reader)],
        status: Annotated[list[RunStatus] | None, Query(description="Any of these statuses.")] = None,
        project: Annotated[str | None, Query(max_length=64)] = None,
        workflow: Annotated[str | None, Query(max_length=128)] = None,
        agent: Annotated[
            str | None, Query(max_length=200, description="The proposer: agent:NAME or human:NAME.")
        ] = None,
        provenance: Annotated[Literal["human", "trigger", "external"] | None, Query()] = None,
        decision: Annotated[
            Literal["allow", "needs_approval", "deny"] | None,
            Query(description="Anvil's decision about the run: the strictest of its latest checks."),
        ] = None,
        approver: Annotated[
            str | None, Query(max_length=200, description="A person who approved the run: NAME or human:NAME.")
        ] = None,
        since: Annotated[str | None, Query(description="Created at or after this ISO 8601 time.")] = None,
        until: Annotated[str | None, Query(description="Created before this ISO 8601 time.")] = None,
        limit: Annotated[int, Query(ge=1, le=500)] = 50,
        cursor: Annotated[str | None, Query(max_length=1000, description="`next_cursor` of the previous page.")] = None,
    ) -> dict[str, Any]:
        where = RunFilter(
            tuple(status or ()), project, workflow, _agent(agent), provenance, decision, _approver(approver),
            _instant("since", since), _instant("until", until),
        )  # fmt: skip
        try:
            page = service.index.page(where, limit=limit, cursor=cursor)
        except CursorError:
            raise invalid_cursor(cursor) from None
        return {"runs": page.runs, "next_cursor": page.next_cursor}

    @router.get("/runs/{run_id}", summary="A run's folded state: nodes, effects ledger, decisions with their why")
    def get_run(run_id: str, _: Annotated[Caller, Depends(reader)]) -> dict[str, Any]:
        return run_detail(run_id, service.run_events(run_id))

    @router.get("/runs/{run_id}/journal", summary="A run's events, filtered and paged by seq")
    def get_journal(
        run_id: str,
        _: Annotated[Caller, Depends(reader)],
        after: Annotated[int, Query(ge=0, le=MAX_SEQ, description="Only events with a greater seq.")] = 0,
        kind: Annotated[list[str] | None, Query(description="Only kinds starting with one of these.")] = None,
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    ) -> dict[str, Any]:
        events = [e for e in service.run_events(run_id) if e.seq > after]
        if kind:
            events = [e for e in events if any(e.kind.startswith(k) for k in kind)]
        page = events[:limit]
        return {
            "events": [event_json(e) for e in page],
            "next_after": page[-1].seq if len(events) > limit else None,
        }

    @router.get(
        "/runs/{run_id}/events",
        summary="Live: the run's events as Server-Sent Events, resumable with Last-Event-ID",
        response_class=StreamingResponse,
    )
    def stream_run(
        run_id: str,
        request: Request,
        _: Annotated[Caller, Depends(reader)],
        last_event_id: Annotated[str | None, Header()] = None,
        after: Annotated[int, Query(ge=0, le=MAX_SEQ, description="Start after this seq (Last-Event-ID wins).")] = 0,
    ) -> StreamingResponse:
        service.run_events(run_id)
        start = resume_point(last_event_id, after)
        return event_stream(service, run_id, start, request.is_disconnected, poll_s=poll_s, keepalive_s=keepalive_s)

    @router.get("/tokens", summary="The home's API tokens (admins; never their secrets or hashes)")
    def list_tokens(_: Annotated[Caller, Depends(token_admin)]) -> dict[str, Any]:
        now = clock.now()
        found = _tokens(service).current().tokens.values()
        return {"tokens": [t.to_json(now) for t in sorted(found, key=lambda t: (t.created_at, t.id))]}

    @router.post("/tokens", status_code=201, summary="Create a token for one of the home's people (shown once)")
    def create_token(body: NewToken, caller: Annotated[Caller, Depends(token_writer)]) -> dict[str, Any]:
        try:
            made = _tokens(service).create(
                body.person, scope=body.scope, expires_days=body.expires_days, by=parse_principal(caller.person)
            )
        except AnvilError as exc:
            raise Problem(422, "token-refused", str(exc)) from None
        return {**made.record.to_json(clock.now()), "token": made.token}

    @router.post("/tokens/{token_id}/revoke", summary="Revoke a token (it never works again)")
    def revoke_token(token_id: str, caller: Annotated[Caller, Depends(token_writer)]) -> dict[str, Any]:
        try:
            record = _tokens(service).revoke(token_id, by=parse_principal(caller.person))
        except AnvilError as exc:
            status = 404 if "no token" in str(exc) else 422
            raise Problem(status, "token-refused", str(exc)) from None
        return record.to_json(clock.now())

    api.include_router(router)
    actions = _mount_actions(api, service, signed_in, workers=workers, models=models, queue=queue)
    from alicorn.service.web import install as install_web  # the pages: sign-in, runs, inbox, chat

    install_web(api, service, actions)
    from alicorn.service.knowledge import install as install_knowledge  # memory, agents, models; chats remember

    install_knowledge(api, service, actions, signed_in)
    from alicorn.service.web_live import install as install_live  # a run page's live event list (SSE, session)

    install_live(api, service, poll_s=poll_s, keepalive_s=keepalive_s)
    from alicorn.service.web_trace import install as install_trace  # a run's / conversation's trace (spans)

    install_trace(api, service, signed_in)
    from alicorn.service.artifacts import install as install_files  # a run's files, listed and downloaded

    install_files(api, service, signed_in)
    from alicorn.service.schedules_api import install as install_schedules  # the scheduler thread, API and page

    install_schedules(api, service, actions, signed_in, poll_s=scheduler_poll_s)
    return api


def _mount_actions(
    api: FastAPI, service: Service, signed_in: Any, *, workers: int, models: str, queue: bool = False
) -> Actions:
    """Add the acting routes (conversations, proposals, run control) to `api`, with a pool of `workers` threads
    (0: none; the acting routes answer 503) whose Core uses `models` (`alicorn serve --model`); the pool resumes
    the journal's unfinished work in the background from now and is closed with the service. It lives here, in
    the factory, so the route modules import `Actions` and never the module that mounts them."""
    actions = Actions(service, workers=workers, models=models, workdir=Path.cwd(), queue=queue)
    service.on_close.append(actions.close)
    for module in (conversations, uploads, proposals, control):
        api.include_router(module.router(actions, signed_in))
    actions.resume_in_background()
    actions.follow_queued()  # with --queue: a run a worker finished gets its conversation's report
    return actions


def _tokens(service: Service) -> Tokens:
    return Tokens(service.app.people, service.clock)


def _instant(name: str, text: str | None) -> str | None:
    if text is None:
        return None
    try:
        return format_time(parse_instant(text))
    except ClockError as exc:
        raise Problem(422, "invalid-time", f"{name}: {exc}") from None
    except OverflowError:  # a year 1 or 9999 moment that leaves the calendar once turned to UTC
        raise Problem(422, "invalid-time", f"{name}: {out_of_range(text)}") from None


def _approver(text: str | None) -> str | None:
    """A person's name as the journal spells approvers (`human:NAME`); agents never approve, so one is refused."""
    if text is None:
        return None
    from alicorn.anvil.people import person_id

    try:
        return person_id(text).id
    except AnvilError as exc:
        raise Problem(422, "invalid-approver", f"approver: {exc}") from None


def _agent(text: str | None) -> str | None:
    if text is None:
        return None
    try:
        return parse_principal(text).id
    except AnvilError as exc:
        raise Problem(422, "invalid-agent", f"agent: {exc}") from None
