"""Conversations with Norbi Core over HTTP: send a request, watch it, answer, continue, close.

POST journals the request (the author is the signed-in person, the provenance human, the channel `api`) and
answers 202 with the conversation's id and location; the service's workers advance it (alicorn.service.actions).
GET folds the conversation's stream: the phase, what Core understood, the question, the contract and its goal hash,
the plan, the run and the proposal it waits on, the report. The list is paged from the run index
(alicorn.service.index), which keeps each conversation's summary, so it reads no stream on a request. Asking
(sending, answering, closing) needs at least the requester role and a token with the write scope; reading needs a
viewer's.
"""

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from alicorn.core.contract import OutcomeContract
from alicorn.core.conversation import ConversationState
from alicorn.core.intake import MAX_UTTERANCE, IntentEnvelope, envelope_refusal
from alicorn.core.norbi import CoreError
from alicorn.errors import JournalError
from alicorn.plan.dsl import EffectClass
from alicorn.runtime.admission import proposal_in
from alicorn.runtime.state import fold
from alicorn.service.actions import Actions
from alicorn.service.auth import Caller, needs
from alicorn.service.events import MAX_SEQ, event_stream, resume_point
from alicorn.service.index import CursorError
from alicorn.service.moments import DEADLINE_FORMS, checked_deadline
from alicorn.service.problems import Problem, invalid_cursor
from alicorn.service.shared import API

Text = Annotated[str, Field(min_length=1, max_length=MAX_UTTERANCE)]


class NewConversation(BaseModel):
    """A request to Core, in words (what `alicorn ask` takes)."""

    model_config = ConfigDict(extra="forbid")
    text: Text
    project: Annotated[str, Field(min_length=1, max_length=64)] = "default"
    data: Annotated[list[Annotated[str, Field(min_length=1, max_length=1000)]], Field(max_length=20)] = []
    constraints: Annotated[list[Annotated[str, Field(min_length=1, max_length=500)]], Field(max_length=20)] = []
    forbid: list[EffectClass] = []
    deadline: Annotated[str | None, AfterValidator(checked_deadline), Field(description=DEADLINE_FORMS)] = None


class Message(BaseModel):
    """An answer to Core's question, a pick of a variant, or the next message after a report."""

    model_config = ConfigDict(extra="forbid")
    text: Text


class Closing(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: Annotated[str, Field(min_length=1, max_length=500)] = "closed by the person"


def router(actions: Actions, signed_in: Any) -> APIRouter:
    """The conversation routes over `actions`; `signed_in` is the app's token dependency."""
    routes = APIRouter(prefix=f"{API}/conversations", tags=["conversations"])
    store = actions.store

    reader = needs(signed_in, "viewer", "read", "read conversations")
    asker = needs(signed_in, "requester", "write", "talk to Core")

    def accepted(conversation: str) -> JSONResponse:
        location = f"{API}/conversations/{conversation}"
        body = {"conversation": conversation, "location": location, "events": f"{location}/events"}
        return JSONResponse(body, status_code=202, headers={"Location": location})

    @routes.post("", status_code=202, summary="Send Core a request; its workers take it from there")
    def create(body: NewConversation, caller: Annotated[Caller, Depends(asker)]) -> JSONResponse:
        try:
            intent = IntentEnvelope(
                utterance=body.text, author=caller.person, provenance="human", channel="api", project=body.project,
                forbid=tuple(body.forbid), constraints=tuple(body.constraints), deadline=body.deadline,
                data=tuple(body.data),
            )  # fmt: skip
        except ValidationError as exc:
            raise Problem(422, "invalid-request", envelope_refusal(exc, {"utterance": "text"})) from None
        actions.workers("take a request")  # 503 before anything is journaled when no worker would advance it
        try:
            conversation = actions.core().take(intent)
        except CoreError as exc:
            raise Problem(422, "request-refused", str(exc)) from None
        actions.advance(conversation)
        return accepted(conversation)

    @routes.get("", summary="Conversations, newest first, paged")
    def list_all(
        _: Annotated[Caller, Depends(reader)],
        limit: Annotated[int, Query(ge=1, le=100)] = 20,
        cursor: Annotated[str | None, Query(max_length=300, description="`next_cursor` of the previous page.")] = None,
    ) -> dict[str, Any]:
        try:
            page = actions.service.index.conversations(limit=limit, cursor=cursor)
        except CursorError:
            raise invalid_cursor(cursor) from None
        return {"conversations": page.conversations, "next_cursor": page.next_cursor}

    @routes.get("/{conversation}", summary="A conversation's folded state")
    def show(conversation: str, _: Annotated[Caller, Depends(reader)]) -> dict[str, Any]:
        state = actions.conversation(conversation)
        return {**_detail(actions, state), "worker": actions.status(conversation)}

    @routes.post("/{conversation}/messages", status_code=202, summary="Answer Core's question, or go on after a report")
    def message(conversation: str, body: Message, caller: Annotated[Caller, Depends(asker)]) -> JSONResponse:
        state = actions.conversation(conversation)
        if not (state.finished or state.waiting_for_answer):
            waiting = ""
            if state.run is not None and fold(store.read(state.run), state.run).status == "awaiting_approval":
                waiting = (
                    f"; it waits for a decision on run {state.run}: POST {API}/proposals/{state.run}/approve or /reject"
                )
            raise Problem(
                409, "not-waiting-for-a-message",
                f"conversation {conversation} is {state.phase}, so the message was not taken{waiting}; nothing was "
                "done",
            )  # fmt: skip
        text = " ".join(body.text.split())
        if not text:
            raise Problem(422, "empty-message", "the message is empty; write the answer; nothing was done")
        person = caller.person
        actions.submit(
            conversation, f"reply to {conversation}", lambda: actions.core().reply(conversation, text, by=person)
        )
        return accepted(conversation)

    @routes.post("/{conversation}/close", status_code=202, summary="Stop safely: withdraw a waiting plan, report")
    def close(
        conversation: str, caller: Annotated[Caller, Depends(asker)], body: Closing | None = None
    ) -> JSONResponse:
        state = actions.conversation(conversation)
        if state.finished:
            ended = f"conversation {conversation} already ended ({state.phase}); nothing to close"
            raise Problem(409, "conversation-ended", ended)
        reason = f"{(body or Closing()).reason} ({caller.person})"
        actions.submit(conversation, f"close {conversation}", lambda: actions.core().close(conversation, reason=reason))
        return accepted(conversation)

    @routes.get(
        "/{conversation}/events",
        summary="Live: the conversation's events as Server-Sent Events, resumable with Last-Event-ID",
        response_class=StreamingResponse,
    )
    def events(
        conversation: str,
        request: Request,
        _: Annotated[Caller, Depends(reader)],
        last_event_id: Annotated[str | None, Header()] = None,
        after: Annotated[int, Query(ge=0, le=MAX_SEQ, description="Start after this seq (Last-Event-ID wins).")] = 0,
    ) -> StreamingResponse:
        actions.conversation(conversation)
        start = resume_point(last_event_id, after)
        return event_stream(actions.service, conversation, start, request.is_disconnected)

    return routes


def _summary(state: ConversationState) -> dict[str, Any]:
    intent = state.envelope
    return {
        "conversation": state.id,
        "phase": state.phase,
        "received_at": state.received_at,
        "author": intent.get("author"),
        "project": intent.get("project"),
        "text": intent.get("utterance"),
        "run": state.run,
        "outcome": (state.report or {}).get("outcome"),
    }


def _detail(actions: Actions, state: ConversationState) -> dict[str, Any]:
    """What the chat shows: every part Core journaled, and the run and proposal it waits on."""
    language = str((state.classification or {}).get("language", "en"))
    contract = OutcomeContract.model_validate(state.contract) if state.contract else None
    run: dict[str, Any] | None = None
    proposal = None
    waiting_for = "answer" if state.waiting_for_answer else None
    if state.run is not None:
        try:
            events = actions.store.read(state.run)
        except JournalError:
            events = []
        if events:
            folded = fold(events, state.run)
            run = {"run": state.run, "status": folded.status, "plan_hash": folded.plan_hash}
            found = proposal_in(events, actions.service.app.registry, language)  # its reasons in the chat's language
            proposal = found.model_dump(mode="json") if found is not None else None
            if not state.finished and folded.status == "awaiting_approval":
                waiting_for = "approval"
            elif not state.finished and folded.status == "blocked":
                waiting_for = "resolution"
    return {
        **_summary(state),
        "language": language,
        "waiting_for": waiting_for,
        "understood": {
            "classification": state.classification,
            "workflow": state.workflow,
            "slots": state.slots,
        },
        "question": state.questions[-1]["question"] if state.waiting_for_answer and state.questions else None,
        "contract": state.contract,
        "contract_sentences": contract.sentences(language) if contract is not None else [],
        "goal_hash": state.goal_hash,
        "plan": state.plan,
        "runs": state.runs,
        "run_state": run,
        "proposal": proposal,
        "answer": (state.answer or {}).get("text"),
        "report": state.report,
        "last_seq": state.last_seq,
    }
