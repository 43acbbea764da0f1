"""The web UI's chat: a request to Norbi Core from a form, and the conversation's page.

A request handler never drives Core or a run: the chat goes through the service's `Actions`
(alicorn.service.actions, the same object the API's conversation and proposal routes use). Sending a request
journals it (`Norbi.take`) and queues advancing it on the worker pool; an answer, an approval or a rejection is
queued the same way, keyed by the conversation, so nothing about one conversation runs twice at once. Until the
journal has the next step, the conversation's page says "working" and refreshes itself (a meta refresh: no
JavaScript needed). A service started without workers refuses these forms (503) before anything is journaled, and
a person below the requester role is refused them (403), as the API refuses them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import FastAPI, File, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from alicorn.service.dag import draw
from alicorn.service.pages import PageError, Pages, language_of, states_for, words_for
from alicorn.service.problems import Problem
from alicorn.service.uploads import attach, chosen, store_files

TEXT = 2000


class Chat:
    """What the pages ask of `actions` (alicorn.service.actions.Actions), with its refusals as pages."""

    def __init__(self, actions: Any) -> None:
        self.actions = actions
        self.service = actions.service

    def _do(self, act: Callable[[], Any]) -> Any:
        try:
            return act()
        except Problem as exc:
            raise PageError(exc.status, exc.detail) from None

    def busy(self, key: str) -> bool:
        return bool(self.actions.status(key)["busy"])

    def busy_run(self, run_id: str) -> bool:
        """Whether work on `run_id` (or on the conversation that owns it) is queued or running."""
        return self.busy(self.actions.key(run_id))

    def failure(self, key: str) -> str | None:
        found = self.actions.status(key)["failure"]
        return str(found) if found else None

    def owner(self, run_id: str) -> str | None:
        return self.actions.owner(run_id)  # type: ignore[no-any-return]

    def may_ask(self, pages: Pages, session: Any, person: Any) -> None:
        """Refuse (403, as a page) a person whose role is below requester: talking to Core is a requester's."""
        from alicorn.service.auth import Authenticator

        self._do(lambda: Authenticator.allow(pages.caller(session, person), "requester", "write", "talk to Core"))

    def ask(self, envelope: Any) -> str:
        """Journal a new request and queue advancing it; its conversation's id."""
        from alicorn.core.norbi import CoreError

        self._do(lambda: self.actions.workers("take a request"))  # 503 before anything is journaled
        try:
            conversation = str(self.actions.core().take(envelope))
        except CoreError as exc:
            raise PageError(422, str(exc)) from None
        self._do(lambda: self.actions.advance(conversation))
        return conversation

    def reply(self, conversation: str, text: str, by: str) -> None:
        core = self.actions.core
        self._do(lambda: self.actions.submit(conversation, "answer", lambda: core().reply(conversation, text, by=by)))

    def decide(self, run_id: str, **decision: Any) -> None:
        """Queue an approval or a rejection (already checked) on `run_id`, then its conversation's report."""
        self._do(lambda: self.actions.drive(run_id, f"decide on {run_id}", **decision))


def add_chat_routes(api: FastAPI, pages: Pages, chat: Chat) -> None:
    """The chat's pages and forms on `api`."""
    service = chat.service

    @api.get("/chat", include_in_schema=False, response_class=HTMLResponse)
    def chat_page(request: Request) -> Response:
        signed = pages.signed(request)
        recent = [c["conversation"] for c in service.index.conversations(limit=20).conversations]  # newest first
        return pages.render(request, "chat.html", signed=signed, recent=recent)

    @api.post("/chat", include_in_schema=False)
    def send(
        request: Request,
        text: Annotated[str, Form(max_length=TEXT)] = "",
        project: Annotated[str, Form(max_length=64)] = "default",
        csrf: Annotated[str | None, Form()] = None,
        file: Annotated[list[UploadFile] | None, File()] = None,
    ) -> Response:
        session, person = pages.signed(request)
        pages.check_form(session, csrf)
        chat.may_ask(pages, session, person)
        envelope = _envelope(text, person.id, project)
        files = chosen(file)
        if files:  # the request's own attachments, stored as `alicorn ask --attach` stores them
            chat._do(lambda: chat.actions.workers("take a request"))  # 503 before anything is stored
            views = chat._do(lambda: store_files(chat.actions, envelope.project, files))
            envelope = envelope.model_copy(update={"attachments": tuple(v["sha256"] for v in views)})
        conversation = chat.ask(envelope)
        return RedirectResponse(f"/chat/{conversation}", status_code=303)

    @api.post("/chat/{conversation}/attach", include_in_schema=False)
    def attach_files(
        request: Request,
        conversation: str,
        text: Annotated[str, Form(max_length=TEXT)] = "",
        csrf: Annotated[str | None, Form()] = None,
        file: Annotated[list[UploadFile] | None, File()] = None,
    ) -> Response:
        """The conversation page's upload field: the files answer Core's pending question (alicorn.service.uploads)."""
        session, person = pages.signed(request)
        pages.check_form(session, csrf)
        chat.may_ask(pages, session, person)
        state = _state(service, conversation)
        chat._do(lambda: attach(chat.actions, state, chosen(file), text, person.id))
        return RedirectResponse(f"/chat/{conversation}", status_code=303)

    @api.get("/chat/{conversation}", include_in_schema=False, response_class=HTMLResponse)
    def conversation_page(request: Request, conversation: str) -> Response:
        signed = pages.signed(request)
        state = _state(service, conversation)
        run = None
        job = None
        svg = ""
        if state.plan:
            states: dict[str, str] = {}
            if state.run is not None:
                from alicorn.broker.submit import is_queued
                from alicorn.runtime.state import fold

                events = service.app.store.read(state.run)
                run = fold(events, state.run)
                states = {node: ns.status for node, ns in run.nodes.items()}
                if is_queued(events) and not run.finished and run.status != "awaiting_approval":
                    job = chat.actions.core().job_status(state.run, language_of(request))  # a worker drives it
            svg = draw(state.plan, states, words_for(request)["plan_drawing"], states_for(request))
        working = chat.busy(conversation)
        return pages.render(
            request, "conversation.html", signed=signed, c=state, run=run, svg=svg, working=working,
            failure=chat.failure(conversation), job=job, may_decide=signed[1].may("approver"),
        )  # fmt: skip

    @api.post("/chat/{conversation}/answer", include_in_schema=False)
    def answer(
        request: Request,
        conversation: str,
        text: Annotated[str, Form(max_length=TEXT)] = "",
        csrf: Annotated[str | None, Form()] = None,
    ) -> Response:
        session, person = pages.signed(request)
        pages.check_form(session, csrf)
        chat.may_ask(pages, session, person)
        state = _state(service, conversation)
        if not text.strip():
            raise PageError(422, "the answer is empty; write it in the field and send it again")
        if not (state.waiting_for_answer or state.finished):
            raise PageError(409, f"conversation {conversation} is {state.phase}: it is not waiting for an answer")
        chat.reply(conversation, text.strip(), person.id)
        return RedirectResponse(f"/chat/{conversation}", status_code=303)


def _state(service: Any, conversation: str) -> Any:
    from alicorn.core.conversation import fold
    from alicorn.journal.store import check_stream_name

    try:
        check_stream_name(conversation)
        events = service.app.store.read(conversation) if service.app.store.head(conversation) is not None else []
    except Exception:
        events = []
    if not conversation.startswith("conv-") or not events or events[0].kind != "intent.received":
        raise PageError(404, f"there is no conversation {conversation!r}; the Chat page starts one")
    return fold(events)


def _envelope(text: str, person: str, project: str) -> Any:
    from pydantic import ValidationError

    from alicorn.core.intake import IntentEnvelope, envelope_refusal

    if not " ".join(text.split()):
        raise PageError(422, "the request is empty; say what you want done in the field and send it again")
    try:
        return IntentEnvelope(utterance=text, author=person, provenance="human", channel="web", project=project)
    except ValidationError as exc:
        raise PageError(422, envelope_refusal(exc, {"utterance": ""})) from None
