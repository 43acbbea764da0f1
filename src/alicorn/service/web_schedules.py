"""The Schedules page, and the heartbeat's findings in the inbox.

    /schedules                     every schedule with its status, its rule, its next slots and its firings; the
                                   heartbeats' latest findings and, when a breaker paused one, why; for an approver
                                   or admin the pause and resume forms (CSRF)
    POST /schedules/ID/pause       pause (with a reason, journaled)
    POST /schedules/ID/resume      resume

The inbox page shows the same findings (templates/heartbeat_findings.html, through the `heartbeat_findings` global
this module gives the templates). Every fact comes from what the API uses (alicorn.service.schedules_api.view and
alicorn.schedule.heartbeat.open_findings); a refusal is a page with one sentence.
"""

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import FastAPI, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from alicorn.anvil.people import ROLE_NAMES, a_role
from alicorn.i18n import tr
from alicorn.schedule import book, heartbeat
from alicorn.schedule.errors import ScheduleError
from alicorn.service.pages import PageError, Pages, language_of
from alicorn.service.words import page_words

#: How many coming slots each schedule's row shows.
NEXT = 3


@page_words
def schedule_words(lang: str) -> dict[str, str]:
    """Every fixed word of the Schedules page and the inbox's findings in `lang`; templates see them as `s.NAME`."""
    return {
        "schedules": tr(lang, "Schedules"),
        "title": tr(lang, "Schedules and heartbeats"),
        "schedule": tr(lang, "Schedule"),
        "when": tr(lang, "When"),
        "request": tr(lang, "Request"),
        "next": tr(lang, "Next slots"),
        "fired": tr(lang, "Fired"),
        "none_coming": tr(lang, "no slot is coming"),
        "actions": tr(lang, "Actions"),
        "pause": tr(lang, "Pause"),
        "resume": tr(lang, "Resume"),
        "reason": tr(lang, "Why (journaled)"),
        "heartbeat": tr(lang, "heartbeat"),
        "active": tr(lang, "active"),
        "paused": tr(lang, "paused"),
        "removed": tr(lang, "removed"),
        "no_schedules": tr(lang, "No schedule yet: add one with `alicorn schedule add` or POST /api/v1/schedules."),
        "findings": tr(lang, "What the heartbeat found"),
        "no_findings": tr(lang, "The heartbeat found nothing that waits for a person."),
        "worded_by": tr(lang, "Worded by"),
        "breaker": tr(lang, "Paused by its breaker"),
        "project": tr(lang, "Project"),
        "looked_at": tr(lang, "Looked at"),
    }


def add_schedule_pages(api: FastAPI, service: Any, loop: Any, view: Callable[[Any, Any], dict[str, Any]]) -> None:
    """The Schedules page and its forms on `api` (see the module docstring); `loop` is the service's ScheduleLoop,
    `view` what the API shows of a schedule (alicorn.service.schedules_api.view, passed in: that module mounts
    this one)."""
    pages: Pages = api.state.pages
    store, clock = service.app.store, service.clock
    pages.env.globals["schedule_words"] = schedule_words  # the nav link of every page (templates/base.html)
    pages.env.globals["heartbeat_findings"] = lambda: heartbeat.open_findings(store)  # the inbox's findings

    def render(request: Request, signed: Any, code: int = 200, **values: Any) -> HTMLResponse:
        words = schedule_words(language_of(request))
        return pages.render(request, "schedules.html", code, signed, s=words, **values)

    @api.get("/schedules", include_in_schema=False, response_class=HTMLResponse)
    def schedules_page(request: Request) -> Response:
        signed = pages.signed(request)
        rows = []
        for state in book.all_schedules(store):
            if state.status == "removed":
                continue
            data = view(service, state)
            data["next"] = data["next"][:NEXT]
            rows.append(data)
        may_change = ROLE_NAMES.index(signed[1].role) >= ROLE_NAMES.index("approver")
        return render(request, signed, rows=rows, findings=heartbeat.open_findings(store), may_change=may_change)

    def change(request: Request, schedule_id: str, csrf: str | None, kind: str, reason: str) -> Response:
        session, person = pages.signed(request)
        pages.check_form(session, csrf)
        if ROLE_NAMES.index(person.role) < ROLE_NAMES.index("approver"):
            raise PageError(
                403, f"{person.id} is {a_role(person.role)}, and pausing or resuming a schedule needs the role "
                "approver; nothing was done",
            )  # fmt: skip
        try:
            if kind == "pause":
                book.pause(store, schedule_id, clock, by=person.id, reason=reason.strip())
            else:
                book.resume(store, schedule_id, clock, by=person.id)
        except ScheduleError as exc:
            raise PageError(404 if "no schedule" in str(exc) else 409, str(exc)) from None
        loop.wake()
        return RedirectResponse(f"/schedules#s-{schedule_id}", status_code=303)

    Token = Annotated[str | None, Form()]
    Reason = Annotated[str, Form(max_length=500)]

    @api.post("/schedules/{schedule_id}/pause", include_in_schema=False)
    def pause(request: Request, schedule_id: str, csrf: Token = None, reason: Reason = "") -> Response:
        return change(request, schedule_id, csrf, "pause", reason)

    @api.post("/schedules/{schedule_id}/resume", include_in_schema=False)
    def resume(request: Request, schedule_id: str, csrf: Token = None) -> Response:
        return change(request, schedule_id, csrf, "resume", "")
