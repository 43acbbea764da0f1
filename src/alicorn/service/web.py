"""The web UI's pages: sign-in, the runs, a run, and the inbox (the chat pages are alicorn.service.web_chat).

Server-rendered HTML (Jinja2, templates/), readable with no JavaScript; htmx (static/htmx.min.js, vendored) only
refreshes the live parts of a run page. Every page is folded from the journal through what the API uses (the run
index, `views.run_detail`, Anvil's proposal envelopes). A page needs a signed-in person (`alicorn.service.sessions`);
every form that changes anything carries the session's CSRF token, and the work it starts (an approval drives the
run) goes to the service's workers, never into the request.
"""

from __future__ import annotations

import inspect
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import FastAPI, Form, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles

from alicorn.anvil.errors import AnvilError
from alicorn.runtime.admission import proposal_in
from alicorn.runtime.humans import Approval, Rejection, check_approvals, check_rejection
from alicorn.runtime.state import fold
from alicorn.service.artifacts import listing, workspace_of
from alicorn.service.dag import draw
from alicorn.service.events import MAX_SEQ
from alicorn.service.index import CursorError, RunFilter
from alicorn.service.pages import HERE, NeedsSignIn, PageError, Pages, language_of, secure, states_for, words_for
from alicorn.service.problems import Problem
from alicorn.service.sessions import COOKIE, SIGNIN_COOKIE, Sessions, SignInRefused, load_key
from alicorn.service.signin_state import FAILURES_FILE, SignInFailures
from alicorn.service.web_chat import Chat, add_chat_routes
from alicorn.service.web_effects import add_effect_routes
from alicorn.service.web_passkeys import ASSERTION_LIMIT, proof_for_page
from alicorn.service.web_passkeys import install as install_passkeys

STATUSES = (
    "awaiting_approval",
    "running",
    "blocked",
    "succeeded",
    "partial",
    "failed",
    "stopped",
    "rejected",
    "denied",
)
LIVE = frozenset({"new", "running", "awaiting_approval", "blocked"})
DECISIONS = ("allow", "needs_approval", "deny")
PAGE = 25
JOURNAL_PAGE = 50
Text = Annotated[str, Form(max_length=4000)]


def _field_said(error: Any) -> str:
    """One of a form's validation errors as a person reads it: the field and what is wrong with it."""
    field = str(error.get("loc", ("", "?"))[-1])
    limit = (error.get("ctx") or {}).get("max_length")
    if error.get("type") == "string_too_long" and limit is not None:
        return f"“{field}” is longer than {limit} characters; shorten it"
    return f"“{field}”: {error.get('msg', 'not valid')}"


Token = Annotated[str | None, Form()]


def install(api: FastAPI, service: Any, actions: Any, *, sessions: Sessions | None = None) -> Pages:
    """Add the pages to `api`, over `service` (alicorn.service.app.Service) and what it does (`actions`,
    alicorn.service.actions.Actions). Returns what the pages share."""
    folder = service.app.home
    failures = SignInFailures(folder / FAILURES_FILE)  # wrong passwords survive a restart
    service.on_close.append(failures.close)
    sessions = sessions or Sessions(service.app.people, load_key(folder), service.clock, failures=failures)
    pages = Pages(sessions)
    chat = Chat(actions)
    api.state.pages, api.state.chat = pages, chat
    api.mount("/static", StaticFiles(directory=HERE / "static"), name="static")

    async def signin_first(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, NeedsSignIn)
        return pages.to_sign_in(exc)

    async def refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, PageError)
        return pages.error_page(request, exc)

    api.add_exception_handler(NeedsSignIn, signin_first)
    api.add_exception_handler(PageError, refused)
    as_problem = api.exception_handlers.get(RequestValidationError)

    async def invalid_form(request: Request, exc: Exception) -> Response:
        """A page's form that does not validate (a reason past its limit, sent around the page's own limits) is a
        refusal page with a sentence, as every page's refusal is; the API's routes keep their problem details."""
        assert isinstance(exc, RequestValidationError)
        if request.url.path.startswith("/api/") and as_problem is not None:
            answered = as_problem(request, exc)
            return await answered if inspect.isawaitable(answered) else answered
        said = "; ".join(_field_said(error) for error in exc.errors()[:3])
        return pages.error_page(request, PageError(422, f"the form was not taken: {said}; nothing was done"))

    api.add_exception_handler(RequestValidationError, invalid_form)

    @api.get("/", include_in_schema=False)
    def home() -> Response:
        return RedirectResponse("/runs", status_code=303)

    @api.get("/signin", include_in_schema=False, response_class=HTMLResponse)
    def signin_page(request: Request, next: str = "/runs") -> Response:
        token = sessions.signin_token()
        response = pages.render(request, "signin.html", signin_token=token, back=_local(next), message=None)
        response.set_cookie(
            SIGNIN_COOKIE, token, max_age=3600, httponly=True, samesite="lax", secure=secure(request), path="/signin"
        )
        return response

    @api.post("/signin", include_in_schema=False, response_class=HTMLResponse)
    def signin(
        request: Request, name: Text = "", password: Text = "", signin_token: Token = None, back: Text = "/runs"
    ) -> Response:
        if not sessions.signin_ok(request.cookies.get(SIGNIN_COOKIE), signin_token):
            raise PageError(403, "the sign-in form came without its security token, so nothing was done; reload it")
        try:
            session = sessions.sign_in(name, password)
        except SignInRefused as exc:
            return pages.render(
                request, "signin.html", 401, signin_token=signin_token, back=_local(back), message=str(exc), name=name
            )
        response = RedirectResponse(_local(back), status_code=303)
        response.set_cookie(
            COOKIE, sessions.cookie(session), max_age=sessions.max_age_s, httponly=True, samesite="lax",
            secure=secure(request),
        )  # fmt: skip
        response.delete_cookie(SIGNIN_COOKIE, path="/signin")
        return response

    @api.post("/signout", include_in_schema=False)
    def signout(request: Request, csrf: Token = None) -> Response:
        session, _ = pages.signed(request)
        pages.check_form(session, csrf)
        sessions.sign_out(session)
        response = RedirectResponse("/signin", status_code=303)
        response.delete_cookie(COOKIE)
        return response

    @api.get("/runs", include_in_schema=False, response_class=HTMLResponse)
    def runs_page(
        request: Request,
        status: Annotated[str, Query(max_length=40)] = "",
        project: Annotated[str, Query(max_length=64)] = "",
        workflow: Annotated[str, Query(max_length=128)] = "",
        decision: Annotated[str, Query(max_length=20)] = "",
        approver: Annotated[str, Query(max_length=200)] = "",
        cursor: Annotated[str | None, Query(max_length=1000)] = None,
    ) -> Response:
        signed = pages.signed(request)
        if decision and decision not in DECISIONS:
            choices = ", ".join(DECISIONS)
            raise PageError(422, f"the decision {decision!r} is not one of {choices}; pick one in the list")
        where = RunFilter(
            (status,) if status else (), project or None, workflow or None, decision=decision or None,
            approver=_person(approver),
        )  # fmt: skip
        try:
            page = service.index.page(where, limit=PAGE, cursor=cursor or None)
        except CursorError:
            raise PageError(
                422, "that page link is not one this service made; start again from the first page"
            ) from None
        chosen = (("status", status), ("project", project), ("workflow", workflow), ("decision", decision),
                  ("approver", approver))  # fmt: skip
        kept = {k: v for k, v in chosen if v}
        more = f"/runs?{urlencode({**kept, 'cursor': page.next_cursor})}" if page.next_cursor else None
        first = f"/runs?{urlencode(kept)}" if cursor else None
        return pages.render(
            request, "runs.html", signed=signed, runs=page.runs, statuses=STATUSES, status=status, project=project,
            workflow=workflow, decisions=DECISIONS, decision=decision, approver=approver, next_page=more,
            first_page=first,
        )  # fmt: skip

    def run_context(run_id: str) -> dict[str, Any]:
        try:
            events = service.run_events(run_id)
        except Problem as exc:
            raise PageError(404, exc.detail.replace(f"GET {'/api/v1'}/runs", "the Runs page")) from None
        from alicorn.service.views import run_detail

        detail = run_detail(run_id, events)
        plan = fold(events, run_id).plan
        states = {n["node"]: n["status"] for n in detail["nodes"]}
        return {"detail": detail, "events": events, "plan": plan, "states": states, "live": detail["status"] in LIVE}

    @api.get("/runs/{run_id}", include_in_schema=False, response_class=HTMLResponse)
    def run_page(
        request: Request,
        run_id: str,
        kind: Annotated[str, Query(max_length=64)] = "",
        after: Annotated[int, Query(ge=0, le=MAX_SEQ)] = 0,
    ) -> Response:
        signed = pages.signed(request)
        found = run_context(run_id)
        events = found["events"]
        kinds = sorted({e.kind for e in events})
        shown = [e for e in events if e.seq > after and (not kind or e.kind.startswith(kind))]
        page = shown[:JOURNAL_PAGE]
        later = None
        if len(shown) > JOURNAL_PAGE:
            later = f"/runs/{run_id}?{urlencode({**({'kind': kind} if kind else {}), 'after': page[-1].seq})}#journal"
        svg = draw(found["plan"], found["states"], words_for(request)["plan_drawing"], states_for(request))
        files = listing(
            workspace_of(service, run_id), service.digests
        )  # alicorn.service.artifacts: downloads, never rendered
        return pages.render(
            request, "run.html", signed=signed, d=found["detail"], svg=svg, live=found["live"], journal=page,
            kinds=kinds, kind=kind, later=later, conversation=chat.owner(run_id),
            working=chat.busy_run(run_id), files=files,
        )  # fmt: skip

    @api.get("/runs/{run_id}/live", include_in_schema=False, response_class=HTMLResponse)
    def run_live(request: Request, run_id: str) -> Response:
        """The part of a run page htmx refreshes: the state, the drawing and the effects. Once the run settles,
        htmx is told to reload the whole page (its decisions and journal are then complete)."""
        signed = pages.signed(request)
        found = run_context(run_id)
        if not (found["live"] or chat.busy_run(run_id)):
            return Response(status_code=200, headers={"HX-Refresh": "true"})
        svg = draw(found["plan"], found["states"], words_for(request)["plan_drawing"], states_for(request))
        return pages.render(
            request,
            "run_live.html",
            signed=signed,
            d=found["detail"],
            svg=svg,
            live=found["live"],
            working=chat.busy_run(run_id),
        )

    @api.get("/inbox", include_in_schema=False, response_class=HTMLResponse)
    def inbox(request: Request) -> Response:
        signed = pages.signed(request)
        waiting = service.index.page(RunFilter(("awaiting_approval",)), limit=100).runs
        lang, registry = language_of(request), service.app.registry
        proposals = [p for r in waiting if (p := proposal_in(service.app.store.read(r["run"]), registry, lang))]
        busy = {p.run for p in proposals if chat.busy_run(p.run)}
        return pages.render(request, "inbox.html", signed=signed, proposals=proposals, busy=busy)

    @api.post("/inbox/{run_id}/approve", include_in_schema=False)
    def approve(
        request: Request, run_id: str, plan_hash: Annotated[str, Form(max_length=64)] = "", comment: Text = "",
        csrf: Token = None, passkey: Annotated[str | None, Form(max_length=ASSERTION_LIMIT)] = None,
    ) -> Response:  # fmt: skip
        session, person = pages.signed(request)
        pages.check_form(session, csrf)
        state = _waiting(service, run_id)
        mine = Approval(person.id, comment.strip(), plan_hash or None)
        try:
            check_approvals([mine], state.proposed_by, run_id, state.plan_hash, approvers=service.app.people)
        except AnvilError as exc:
            raise PageError(403, str(exc)) from None
        proof = proof_for_page(service, person.id, state, comment.strip(), passkey)  # None: no passkey needed
        mine = Approval(person.id, comment.strip(), plan_hash or None, passkey=proof)
        chat.decide(run_id, approvals=[mine])
        return RedirectResponse(f"/runs/{run_id}", status_code=303)

    @api.post("/inbox/{run_id}/reject", include_in_schema=False)
    def reject(request: Request, run_id: str, reason: Text = "", csrf: Token = None) -> Response:
        session, person = pages.signed(request)
        pages.check_form(session, csrf)
        state = _waiting(service, run_id)
        if not reason.strip():
            raise PageError(422, "say why the plan is rejected (it is journaled for the proposer); nothing was done")
        refusal = Rejection(person.id, reason.strip())
        try:
            check_rejection(refusal, state.proposed_by, run_id, approvers=service.app.people)
        except AnvilError as exc:
            raise PageError(403, str(exc)) from None
        chat.decide(run_id, rejection=refusal)
        return RedirectResponse(f"/runs/{run_id}", status_code=303)

    add_chat_routes(api, pages, chat)
    add_effect_routes(api, pages, actions)
    install_passkeys(api, service, pages)
    return pages


def _waiting(service: Any, run_id: str) -> Any:
    try:
        service.run_events(run_id)
    except Problem:
        raise PageError(404, f"there is no run {run_id!r}; the Runs page lists them") from None
    state = fold(service.app.store.read(run_id), run_id)
    if state.status != "awaiting_approval":
        raise PageError(409, f"run {run_id} is {state.status}, not waiting for a decision; nothing was done")
    return state


def _person(name: str) -> str | None:
    """The approver filter's name as the journal spells people (`human:NAME`); a page saying why otherwise."""
    if not name.strip():
        return None
    from alicorn.anvil.people import person_id

    try:
        return person_id(name.strip()).id
    except AnvilError as exc:
        raise PageError(422, f"the approver filter: {exc}") from None


def _local(path: str) -> str:
    """Only a path on this site is a place to go back to after signing in (never another site)."""
    return path if path.startswith("/") and not path.startswith("//") and "\\" not in path else "/runs"
