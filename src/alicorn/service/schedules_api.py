"""Schedules in `alicorn serve`: the scheduler thread, and `/api/v1/schedules`.

`ScheduleLoop` runs an `alicorn.schedule.scheduler.Scheduler` in a thread of the service, on the service's journal
and clock: it ticks, then waits until the next due slot (at most `poll_s`), or until a route wakes it (a schedule
added, resumed or fired by hand). Firings go to the service's Core as provenance "trigger"
(`alicorn.core.triggered.CoreSubmitter`, as `alicorn scheduler` does), heartbeat firings to the heartbeat
(`alicorn.schedule.heartbeat`), whose findings are worded by the service's models' summarizer when it has models.
The thread stops when the service closes.

The routes (roles as everywhere in the service): a viewer lists and shows schedules (the next slots, the
heartbeat's findings); a requester adds schedules of their own (an approver one that allows effects above read,
as `alicorn.schedule.authority` says); an approver or admin adds a heartbeat, pauses, resumes, removes and fires
by hand. Bad input is a problem detail naming the field, and nothing is journaled.
"""

import logging
import threading
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, FastAPI
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from alicorn.clock import parse_time
from alicorn.models.messages import ChatRequest, ChatResponse
from alicorn.models.providers.base import Provider
from alicorn.plan.dsl import EffectClass
from alicorn.schedule import book, heartbeat, report, rules
from alicorn.schedule.authority import Authority
from alicorn.schedule.errors import ScheduleError, UnknownScheduleError
from alicorn.schedule.scheduler import Scheduler, TickReport, run_now
from alicorn.schedule.spec import ScheduleSpec
from alicorn.schedule.state import Firing, ScheduleState
from alicorn.service.auth import Caller, needs
from alicorn.service.moments import out_of_range
from alicorn.service.problems import Problem
from alicorn.service.shared import API, Service

_log = logging.getLogger("alicorn.service.schedules")
#: The scheduler thread never waits longer than this (a schedule added by another process is seen within it).
DEFAULT_POLL_S = 60.0


class _Summarizer(Provider):
    """The service models' summarizer, routed and started on the first finding that needs wording (never at start:
    a local model may take a while to load, and a quiet heartbeat never needs one)."""

    kind = "summarizer"

    def __init__(self, models: Any) -> None:
        self.models = models
        self._inner: Provider | None = None

    def complete(self, request: ChatRequest) -> ChatResponse:
        if self._inner is None:
            from alicorn.models.router import requirements_for, route

            decision = route(
                requirements_for("summarizer"), self.models.profiles, policy=self.models.policy, host=self.models.host
            )
            profile = next(p for p in self.models.profiles if p.id == decision.pick)
            self._inner = self.models.provider_for(profile)
        return self._inner.complete(request)


class _HandOff:
    """The scheduler's hand-off in the service: heartbeats to the heartbeat, the rest to this thread's Core (built on
    the first firing, so a service without schedules never builds one)."""

    def __init__(self, actions: Any, beat: heartbeat.Heartbeat) -> None:
        self.actions = actions
        self.beat = beat
        self._inner: heartbeat.HeartbeatSubmitter | None = None

    def _submitter(self) -> heartbeat.HeartbeatSubmitter:
        if self._inner is None:
            from alicorn.core.triggered import CoreSubmitter

            self._inner = heartbeat.HeartbeatSubmitter(CoreSubmitter(self.actions.core()), self.beat)
        return self._inner

    def submit(self, state: ScheduleState, firing: Firing) -> None:
        if heartbeat.is_heartbeat(state):
            self.beat.tick(state, firing)
        else:
            self._submitter().submit(state, firing)

    def active(self, conversation: str) -> bool:
        if self.actions.store.head(conversation) is None:  # a heartbeat's firing has none: no Core to build
            return False
        return self._submitter().active(conversation)

    def cancel(self, conversation: str, reason: str) -> None:
        self._submitter().cancel(conversation, reason)


class ScheduleLoop:
    """The scheduler thread of a service (see the module docstring)."""

    def __init__(self, service: Service, actions: Any, *, poll_s: float = DEFAULT_POLL_S) -> None:
        self.service = service
        self.actions = actions
        self.poll_s = poll_s
        models = getattr(actions, "models", None)
        self.beat = heartbeat.Heartbeat.for_app(
            service.app, service.clock, wording=_Summarizer(models) if models is not None else None
        )
        self.ticks = 0
        self.last: TickReport | None = None
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._lock = threading.Lock()  # the heartbeat's run cache is the loop's: run-now waits for a tick
        self._thread = threading.Thread(target=self._run, name="alicorn-scheduler", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def wake(self) -> None:
        """Tick now (a schedule changed)."""
        self._wake.set()

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(30)

    def hand_off(self) -> _HandOff:
        return _HandOff(self.actions, self.beat)

    def _run(self) -> None:
        scheduler = Scheduler(
            self.service.app.store, self.hand_off(), self.service.clock, name="serve", max_poll_s=self.poll_s
        )
        while not self._stop.is_set():
            wait = self.poll_s
            try:
                with self._lock:
                    found = scheduler.tick()
                self.last, self.ticks = found, self.ticks + 1
                for problem in found.problems:
                    _log.warning("scheduler: %s", problem)
                wait = scheduler.wait_after(found)
            except Exception:  # the journal closed under it, or a bug: say so and keep the service up
                _log.exception("the scheduler's tick failed; it tries again in %s s", self.poll_s)
            self._wake.wait(wait)
            self._wake.clear()

    def run_now(self, schedule_id: str, by: str) -> Firing:
        with self._lock:
            return run_now(self.service.app.store, schedule_id, self.service.clock, self.hand_off(), by=by)


# ---- the routes -------------------------------------------------------------------------------------------------


class NewSchedule(BaseModel):
    """A schedule to add (the same fields as `alicorn schedule add`); exactly one of cron, every, at."""

    model_config = ConfigDict(extra="forbid")

    request: Annotated[str, Field(min_length=1, max_length=4000)]
    cron: Annotated[str | None, Field(max_length=200)] = None
    every: Annotated[str | None, Field(max_length=20)] = None
    at: Annotated[str | None, Field(max_length=40)] = None
    zone: Annotated[str, Field(max_length=80)] = "UTC"
    active_hours: Annotated[str | None, Field(max_length=20)] = None
    overlap: Literal["skip", "queue-one", "cancel-previous"] = "skip"
    catch_up: Literal["none", "last", "all"] = "last"
    window: Annotated[str, Field(max_length=20)] = "6h"
    max_catch_up: Annotated[int, Field(ge=1, le=100)] = 5
    allow: list[EffectClass] = Field(default_factory=list, max_length=8)
    #: The hosts (or patterns like *.example.com) each firing may reach without a human: required when `allow`
    #: holds a class that sends data out (`alicorn schedule add --host`).
    hosts: list[Annotated[str, Field(min_length=1, max_length=253)]] = Field(default_factory=list, max_length=50)
    project: Annotated[str, Field(max_length=64)] = "default"
    language: Literal["en", "pl", "ru"] | None = None


class NewHeartbeat(BaseModel):
    """A project's heartbeat: its interval, and optionally its limits and budget (alicorn.schedule.heartbeat)."""

    model_config = ConfigDict(extra="forbid")

    project: Annotated[str, Field(min_length=1, max_length=64)]
    every: Annotated[str, Field(max_length=20)] = "15m"
    settings: heartbeat.HeartbeatSettings = Field(default_factory=heartbeat.HeartbeatSettings)


class Change(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: Annotated[str, Field(max_length=500)] = ""


#: Options of `alicorn schedule add` whose body field is named otherwise (a repeated option is a list field).
_FIELD_OF_OPTION = {"--host": "hosts", "--hosts": "hosts"}


def refusal(exc: ScheduleError) -> Problem:
    """A schedule's refusal as a problem detail: 404 for an unknown id, else 422 naming the field (the book's and
    the rules' sentences name the command line's option, `--cron`; here it is the body's field, `cron`)."""
    if isinstance(exc, UnknownScheduleError):
        return Problem(
            404, "unknown-schedule", f"there is no schedule {exc.schedule_id!r}; GET {API}/schedules lists them"
        )
    text = str(exc)
    field = ""
    if text.startswith("--"):
        option = text.split()[0]
        field = _FIELD_OF_OPTION.get(option, option[2:].replace("-", "_"))
        text = field + text[len(option) :]
    if any(state in text for state in ("already", "was removed", "not paused")):
        return Problem(409, "schedule-conflict", text)
    return Problem(422, "invalid-schedule", text, **({"field": field} if field else {}))


def spec_of(body: NewSchedule, author: str, now: Any) -> ScheduleSpec:
    """The ScheduleSpec `body` asks for (ScheduleError naming the field when it cannot be one)."""
    given = [name for name in ("cron", "every", "at") if getattr(body, name) is not None]
    if len(given) != 1:
        raise ScheduleError(
            "say when, once: give exactly one of the fields cron ('0 8 * * 1'), every ('15m') or at "
            f"('2026-03-29T08:00'){' (got ' + ', '.join(given) + ')' if given else ''}; nothing was journaled"
        )
    zone = rules.zone_of(body.zone)
    if body.cron is not None:
        rule: Any = rules.parse_cron(body.cron)
    elif body.every is not None:
        rule = rules.parse_every(body.every, now)
    else:
        try:
            rule = rules.parse_once(body.at or "", zone)
        except OverflowError:  # a year 1 or 9999 time that leaves the calendar in UTC
            raise ScheduleError(f"--at {out_of_range(body.at or '')}; nothing was journaled") from None
    try:
        return ScheduleSpec(
            request=body.request, author=author, project=body.project, language=body.language, rule=rule,
            zone=body.zone, active_hours=rules.parse_hours(body.active_hours) if body.active_hours else None,
            overlap=body.overlap, catch_up=body.catch_up, window_s=rules.parse_duration("--window", body.window),
            max_catch_up=body.max_catch_up, allow=tuple(body.allow), hosts=tuple(body.hosts),
        )  # fmt: skip
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "schedule"
        raise ScheduleError(f"--{where} is not valid: {err['msg']}; nothing was journaled") from None


def view(service: Service, state: ScheduleState) -> dict[str, Any]:
    """A schedule as the API and the page show it: `alicorn schedule show`'s facts, and a heartbeat's."""
    data = report.detail(state, parse_time(service.clock.now()))
    data["heartbeat"] = heartbeat.detail(service.app.store, state) if heartbeat.is_heartbeat(state) else None
    return data


def load(service: Service, schedule_id: str) -> ScheduleState:
    store = service.app.store
    try:
        return book.load(store, heartbeat.resolve_id(store, schedule_id))
    except ScheduleError as exc:
        raise refusal(exc) from None


def router(service: Service, loop: ScheduleLoop, signed_in: Any) -> APIRouter:
    routes = APIRouter(prefix=API, tags=["schedules"])
    store, clock = service.app.store, service.clock
    reader = needs(signed_in, "viewer", "read", "read schedules")
    adder = needs(signed_in, "requester", "write", "add a schedule")
    operator = needs(signed_in, "approver", "write", "add a heartbeat, or pause, resume, remove or fire a schedule")

    @routes.get("/schedules", summary="Every schedule: id, status, when, the request, firings; heartbeats marked")
    def list_schedules(_: Annotated[Caller, Depends(reader)]) -> dict[str, Any]:
        rows = [{**report.summary(s), "heartbeat": heartbeat.is_heartbeat(s)} for s in book.all_schedules(store)]
        return {"schedules": rows, "findings": heartbeat.open_findings(store)}

    @routes.get("/schedules/{schedule_id}", summary="A schedule: spec, status, recent firings, the next 5 slots")
    def show(schedule_id: str, _: Annotated[Caller, Depends(reader)]) -> dict[str, Any]:
        return view(service, load(service, schedule_id))

    @routes.post("/schedules", status_code=201, summary="Add a schedule (its author is the caller)")
    def add(body: NewSchedule, caller: Annotated[Caller, Depends(adder)]) -> dict[str, Any]:
        try:
            spec = spec_of(body, caller.person, parse_time(clock.now()))
            state = book.add_schedule(store, spec, clock, authority=Authority.from_app(service.app))
        except ScheduleError as exc:
            raise refusal(exc) from None
        loop.wake()
        return view(service, state)

    @routes.post("/schedules/heartbeat", status_code=201, summary="Add a project's heartbeat")
    def add_heartbeat(body: NewHeartbeat, caller: Annotated[Caller, Depends(operator)]) -> dict[str, Any]:
        try:
            state = heartbeat.add_heartbeat(
                service.app, body.project, clock=clock, by=caller.person, every=body.every, settings=body.settings
            )
        except ScheduleError as exc:
            raise refusal(exc) from None
        loop.wake()
        return view(service, state)

    def change(kind: str, schedule_id: str, caller: Caller, reason: str) -> dict[str, Any]:
        state = load(service, schedule_id)
        try:
            if kind == "pause":
                state = book.pause(store, state.id, clock, by=caller.person, reason=reason)
            elif kind == "resume":
                state = book.resume(store, state.id, clock, by=caller.person)
            else:
                state = book.remove(store, state.id, clock, by=caller.person, reason=reason)
        except ScheduleError as exc:
            raise refusal(exc) from None
        loop.wake()
        return view(service, state)

    @routes.post("/schedules/{schedule_id}/pause", summary="Stop firing until resumed")
    def pause(schedule_id: str, caller: Annotated[Caller, Depends(operator)], body: Change | None = None) -> Any:
        return change("pause", schedule_id, caller, (body or Change()).reason)

    @routes.post("/schedules/{schedule_id}/resume", summary="Fire again, from now on")
    def resume(schedule_id: str, caller: Annotated[Caller, Depends(operator)]) -> Any:
        return change("resume", schedule_id, caller, "")

    @routes.post("/schedules/{schedule_id}/remove", summary="End the schedule for good (its history stays)")
    def remove(schedule_id: str, caller: Annotated[Caller, Depends(operator)], body: Change | None = None) -> Any:
        return change("remove", schedule_id, caller, (body or Change()).reason)

    @routes.post("/schedules/{schedule_id}/run-now", status_code=201, summary="Fire once now, by hand")
    def fire(schedule_id: str, caller: Annotated[Caller, Depends(operator)]) -> dict[str, Any]:
        state = load(service, schedule_id)
        try:
            firing = loop.run_now(state.id, caller.person)
        except ScheduleError as exc:
            raise refusal(exc) from None
        return {"schedule": state.id, "slot_id": firing.slot_id, "conversation": firing.conversation}

    return routes


def install(api: FastAPI, service: Service, actions: Any, signed_in: Any, *, poll_s: float | None) -> ScheduleLoop:
    """Mount the routes and the Schedules page, and start the scheduler thread unless `poll_s` is None (then the
    routes still work and nothing fires by itself); it stops when the service closes."""
    loop = ScheduleLoop(service, actions, poll_s=poll_s or DEFAULT_POLL_S)
    api.include_router(router(service, loop, signed_in))
    api.state.schedules = loop
    from alicorn.service.web_schedules import add_schedule_pages

    add_schedule_pages(api, service, loop, view)
    if poll_s is not None:
        loop.start()
        service.on_close.insert(0, loop.close)
    return loop
