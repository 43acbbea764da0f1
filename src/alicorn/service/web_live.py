"""A run page's live event list: the run's journal as Server-Sent Events for a signed-in person.

    GET /runs/{run_id}/stream      the run's events after `Last-Event-ID` (or `?after=N`), then new ones as appended

The API's `/api/v1/runs/{id}/events` wants a bearer token, which a page has no safe place to keep; this route reads
the session cookie instead (like every page, alicorn.service.pages), so no token ever sits in a URL or a script. The
body is the API's own (alicorn.service.events.run_events), so resuming is exact the same way: `Last-Event-ID` (sent
by the browser's EventSource when it reconnects by itself) wins over `?after=` (what static/live_events.js puts in
the URL when it opens a fresh EventSource after a drop). A refused stream is a plain status with one sentence; the
script then waits and tries again, so a signed-out page stops streaming without a traceback.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import FastAPI, Header, Query, Request
from fastapi.responses import PlainTextResponse, Response, StreamingResponse

from alicorn.i18n import tr
from alicorn.service.events import MAX_SEQ, event_stream, resume_point
from alicorn.service.problems import Problem
from alicorn.service.sessions import COOKIE
from alicorn.service.words import page_words


@page_words
def live_words(lang: str) -> dict[str, str]:
    """The fixed words of the live event list (templates/run_events.html), in `lang`."""
    return {
        "heading": tr(lang, "Events as they happen"),
        "hint": tr(lang, "Follows the run's journal; after a dropped connection it carries on from the last event."),
        "connecting": tr(lang, "connecting…"),
        "connected": tr(lang, "connected"),
        "reconnecting": tr(lang, "connection lost, reconnecting…"),
    }


def install(api: FastAPI, service: Any, *, poll_s: float = 0.05, keepalive_s: float = 15.0) -> None:
    """Add the stream route to `api` over `service` (alicorn.service.app.Service), after the pages
    (alicorn.service.web.install), whose sessions it reads; the templates get `live_words`."""
    pages = api.state.pages
    pages.env.globals["live_words"] = live_words

    @api.get("/runs/{run_id}/stream", include_in_schema=False, response_class=StreamingResponse)
    def run_stream(
        request: Request,
        run_id: str,
        last_event_id: Annotated[str | None, Header()] = None,
        after: Annotated[int, Query(ge=0, le=MAX_SEQ)] = 0,
    ) -> Response:
        if pages.sessions.read(request.cookies.get(COOKIE)) is None:
            return _refusal(401, "this event stream is for signed-in people; sign in again and reload the run page")
        try:
            service.run_events(run_id)
        except Problem:
            return _refusal(404, f"there is no run {run_id!r}; the Runs page lists the runs")
        try:
            start = resume_point(last_event_id, after)
        except Problem as exc:
            return _refusal(exc.status, exc.detail)
        return event_stream(service, run_id, start, request.is_disconnected, poll_s=poll_s, keepalive_s=keepalive_s)


def _refusal(status: int, sentence: str) -> Response:
    """A stream that cannot be served: its status and one sentence (an EventSource gives up on a non-200)."""
    return PlainTextResponse(sentence, status_code=status, headers={"Cache-Control": "no-store"})
