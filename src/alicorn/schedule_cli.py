"""`alicorn schedule add|list|show|pause|resume|remove|run-now` and `alicorn scheduler`.

    alicorn schedule add "summarise the weekend's alarms" --cron "0 8 * * 1" --zone Europe/Warsaw
    alicorn schedule add "check the inbox" --every 15m --active-hours 08:00-18:00 --catch-up none
    alicorn schedule add "send the digest" --cron "0 9 * * *" --allow external_transmission --host api.example.com
    alicorn schedule show SCH            the spec, status, recent firings and the next 5 slots in its zone
    alicorn schedule heartbeat ops --every 15m     the project's heartbeat (cheap probes; a model only for findings)
    alicorn schedule show heartbeat:ops  its settings, latest look, findings and breaker
    alicorn scheduler                    fire what is due, exactly once per slot, until stopped

Every command prints sentences, or `--json`. Only typer is imported at the top, so `alicorn --help` stays fast.
It lives in the command-line layer (beside `alicorn.anvil_cli`) because `alicorn scheduler` hands firings to Core,
which sits above the schedule package.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

Home = Annotated[Path, typer.Option("--home", envvar="ALICORN_HOME", help="Alicorn's home.")]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON instead of sentences.")]
Who = Annotated[str | None, typer.Option("--as", help="Optional: who you are, which must be the OS user running this.")]


#: The longest `alicorn scheduler --max-poll` (a day): a due slot wakes it sooner anyway, and the clock cannot sleep
#: for ever.
_LONGEST_POLL_S = 86400.0


def _poll_seconds(value: float) -> float:
    """`--max-poll`, checked as the option is read: a positive, finite number of seconds, at most a day."""
    if not (math.isfinite(value) and 0 < value <= _LONGEST_POLL_S):
        raise typer.BadParameter(
            f"{value:g} is not a number of seconds the scheduler can wait; give a positive number up to "
            f"{_LONGEST_POLL_S:g} (a day), like 60"
        )
    return value


def register(app: typer.Typer, *, open_app: Callable[..., Any], guard: Callable[..., Any]) -> None:
    """Add the `schedule` group and the `scheduler` command to `app`."""
    group = typer.Typer(no_args_is_help=True, help="Recurring requests that fire exactly once per slot.")
    app.add_typer(group, name="schedule")

    @group.command("add")
    @guard
    def add(
        request: Annotated[str, typer.Argument(help="What each firing asks for, in words.")],
        cron: Annotated[str | None, typer.Option(help="A 5-field cron rule, like '0 8 * * 1'.")] = None,
        every: Annotated[str | None, typer.Option(help="An interval, like 15m, 2h or 1d.")] = None,
        at: Annotated[str | None, typer.Option(help="One local time, like 2026-03-29T08:00.")] = None,
        zone: Annotated[str, typer.Option(help="The IANA time zone the rule is read in.")] = "UTC",
        active_hours: Annotated[str | None, typer.Option(help="Local hours slots may fire in: 08:00-18:00.")] = None,
        overlap: Annotated[str, typer.Option(help="skip, queue-one or cancel-previous.")] = "skip",
        catch_up: Annotated[
            str, typer.Option(help="none, last or all (within --window, up to --max-catch-up).")
        ] = "last",
        window: Annotated[str, typer.Option(help="How far back catch-up 'all' reaches: 6h, 2d.")] = "6h",
        max_catch_up: Annotated[int, typer.Option(help="At most this many missed slots fire (catch-up all).")] = 5,
        allow: Annotated[
            list[str] | None, typer.Option(help="An effect class each firing may have (none and read always).")
        ] = None,
        host: Annotated[
            list[str] | None,
            typer.Option(
                help="A host each firing may reach without a human (api.example.com, *.example.com); needed with "
                "--allow external_transmission. Private data never leaves without a human."
            ),
        ] = None,
        project: Annotated[str, typer.Option(help="The project the request belongs to.")] = "default",
        language: Annotated[str | None, typer.Option(help="en, pl or ru (else Core reads it from the words).")] = None,
        who: Who = None,
        home: Home = Path(".alicorn"),
        as_json: AsJson = False,
    ) -> None:
        """Add a schedule (nothing is journaled when anything in it is wrong)."""
        from alicorn.anvil.identity import acting_human
        from alicorn.clock import default_clock
        from alicorn.schedule.authority import Authority
        from alicorn.schedule.book import add_schedule

        author = acting_human(who).id
        clock = default_clock()
        spec = _spec(request, author, cron, every, at, zone, active_hours, overlap, catch_up, window, max_catch_up,
                     allow or [], host or [], project, language, clock)  # fmt: skip
        application = open_app(home, create=True)
        state = add_schedule(application.store, spec, clock, authority=Authority.from_app(application))
        _print_state(state, clock, as_json, headline=f"added schedule {state.id}")

    @group.command("list")
    @guard
    def list_(home: Home = Path(".alicorn"), as_json: AsJson = False) -> None:
        """Every schedule: id, status, when, the request."""
        from alicorn.schedule.book import all_schedules
        from alicorn.schedule.report import summary

        application = open_app(home, create=True)
        rows = [summary(s) for s in all_schedules(application.store)]
        if as_json:
            typer.echo(json.dumps({"schedules": rows}, ensure_ascii=False, indent=2))
            return
        if not rows:
            typer.echo('no schedules; add one: alicorn schedule add "…" --cron "0 8 * * 1"')
        for row in rows:
            typer.echo(f"{row['id']}  {row['status']:<7} {row['when']}: {row['request']} ({row['fired']} fired)")

    @group.command("show")
    @guard
    def show(schedule_id: str, home: Home = Path(".alicorn"), as_json: AsJson = False) -> None:
        """A schedule: its spec, status, recent firings and the next 5 slots in its zone."""
        from alicorn.clock import default_clock
        from alicorn.schedule import heartbeat
        from alicorn.schedule.book import load

        application = open_app(home, create=True)
        state = load(application.store, heartbeat.resolve_id(application.store, schedule_id))
        looks = heartbeat.detail(application.store, state) if heartbeat.is_heartbeat(state) else None
        _print_state(state, default_clock(), as_json, headline=None, heartbeat=looks)

    @group.command("heartbeat")
    @guard
    def heartbeat_(
        project: Annotated[str, typer.Argument(help="The project the heartbeat looks over.")],
        every: Annotated[str, typer.Option(help="How often it looks: 15m, 1h.")] = "15m",
        zone: Annotated[str, typer.Option(help="The IANA time zone of --active-hours.")] = "UTC",
        active_hours: Annotated[str | None, typer.Option(help="Local hours it may look in: 08:00-18:00.")] = None,
        who: Who = None,
        home: Home = Path(".alicorn"),
        as_json: AsJson = False,
    ) -> None:
        """Add the project's heartbeat: cheap probes each tick, a model only when one finds something."""
        from alicorn.anvil.identity import acting_human
        from alicorn.clock import default_clock
        from alicorn.schedule import heartbeat
        from alicorn.schedule.rules import parse_hours

        by = acting_human(who).id
        clock = default_clock()
        hours = parse_hours(active_hours) if active_hours else None
        application = open_app(home, create=True)
        state = heartbeat.add_heartbeat(application, project, clock=clock, by=by, every=every, zone=zone,
                                        active_hours=hours)  # fmt: skip
        looks = heartbeat.detail(application.store, state)
        _print_state(state, clock, as_json, headline=f"added the heartbeat of {project}: {state.id}", heartbeat=looks)

    def _changer(name: str, doc: str) -> None:
        @group.command(name, help=doc)
        @guard
        def change(
            schedule_id: str,
            reason: Annotated[str, typer.Option(help="Why (journaled).")] = "",
            who: Who = None,
            home: Home = Path(".alicorn"),
            as_json: AsJson = False,
        ) -> None:
            from alicorn.anvil.identity import acting_human
            from alicorn.clock import default_clock
            from alicorn.schedule import book

            by = acting_human(who).id
            clock = default_clock()
            application = open_app(home, create=True)
            store = application.store
            if name == "pause":
                state = book.pause(store, schedule_id, clock, by=by, reason=reason)
            elif name == "resume":
                state = book.resume(store, schedule_id, clock, by=by)
            else:
                state = book.remove(store, schedule_id, clock, by=by, reason=reason)
            _print_state(state, clock, as_json, headline=f"schedule {schedule_id}: {state.status}")

    _changer("pause", "Stop firing until resumed (slots while paused never fire later).")
    _changer("resume", "Fire again, from now on.")
    _changer("remove", "End the schedule for good (its history stays in the journal).")

    @group.command("run-now")
    @guard
    def run_now_(schedule_id: str, who: Who = None, home: Home = Path(".alicorn"), as_json: AsJson = False) -> None:
        """Fire the schedule once now, by hand: its request goes to Core as a trigger, like any firing."""
        from alicorn.anvil.identity import acting_human
        from alicorn.clock import default_clock
        from alicorn.schedule.scheduler import run_now

        by = acting_human(who).id
        clock = default_clock()
        application = open_app(home, create=True)
        firing = run_now(application.store, schedule_id, clock, _submitter(application, "none"), by=by)
        if as_json:
            typer.echo(json.dumps({"slot_id": firing.slot_id, "conversation": firing.conversation}, indent=2))
            return
        typer.echo(
            f"fired {firing.slot_id}: conversation {firing.conversation} (`alicorn ask -c {firing.conversation}`)"
        )

    @app.command("scheduler")
    @guard
    def scheduler(
        home: Home = Path(".alicorn"),
        max_poll: Annotated[
            float,
            typer.Option(
                callback=_poll_seconds,
                help=f"Never sleep longer than this many seconds (more than 0, at most {_LONGEST_POLL_S:g}).",
            ),
        ] = 60.0,
        ticks: Annotated[
            int | None, typer.Option(min=1, help="Stop after this many ticks (default: run until stopped).")
        ] = None,
        model: Annotated[
            str, typer.Option("--model", help="The models firings' conversations use (see ask).")
        ] = "none",
        queue: Annotated[
            bool, typer.Option("--queue", help="Firings' runs go to the job broker: `alicorn worker` drives them.")
        ] = False,
    ) -> None:
        """Run the scheduler: wake at the next due slot (or every --max-poll seconds), fire, repeat."""
        from alicorn.clock import default_clock
        from alicorn.schedule.scheduler import Scheduler

        application = open_app(home, create=True)
        clock = default_clock()
        broker = None
        if queue:
            from alicorn.broker.submit import broker_for

            broker = broker_for(application.store)  # a journal with no broker is refused before anything fires
        try:
            loop = Scheduler(application.store, _submitter(application, model, broker), clock, max_poll_s=max_poll)
            made = loop.run(ticks=ticks)
        except KeyboardInterrupt:
            typer.echo("scheduler stopped")
            return
        finally:
            if broker is not None:
                broker.close()
        typer.echo(f"scheduler stopped after {made} tick(s)")


def _spec(
    request: str, author: str, cron: str | None, every: str | None, at: str | None, zone: str,
    active_hours: str | None, overlap: str, catch_up: str, window: str, max_catch_up: int, allow: list[str],
    hosts: list[str], project: str, language: str | None, clock: Any,
) -> Any:  # fmt: skip
    from pydantic import ValidationError

    from alicorn.clock import parse_time
    from alicorn.schedule import rules
    from alicorn.schedule.errors import ScheduleError
    from alicorn.schedule.spec import CATCH_UPS, OVERLAPS, ScheduleSpec

    given = [name for name, value in (("--cron", cron), ("--every", every), ("--at", at)) if value is not None]
    if len(given) != 1:
        raise ScheduleError(
            "say when, once: give exactly one of --cron '0 8 * * 1', --every 15m or --at 2026-03-29T08:00"
            f"{' (got ' + ', '.join(given) + ')' if given else ''}; nothing was journaled"
        )
    tz = rules.zone_of(zone)
    if cron is not None:
        rule: Any = rules.parse_cron(cron)
    elif every is not None:
        rule = rules.parse_every(every, parse_time(clock.now()))
    else:
        rule = rules.parse_once(at or "", tz)
    if overlap not in OVERLAPS:
        raise ScheduleError(f"--overlap {overlap!r}: choose {', '.join(OVERLAPS)}; nothing was journaled")
    if catch_up not in CATCH_UPS:
        raise ScheduleError(f"--catch-up {catch_up!r}: choose {', '.join(CATCH_UPS)}; nothing was journaled")
    try:
        return ScheduleSpec(
            request=request,
            author=author,
            project=project,
            language=language,
            rule=rule,
            zone=zone,
            active_hours=rules.parse_hours(active_hours) if active_hours else None,
            overlap=overlap,
            catch_up=catch_up,
            window_s=rules.parse_duration("--window", window),
            max_catch_up=max_catch_up,
            allow=tuple(allow),
            hosts=tuple(hosts),
        )
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "schedule"
        if err["loc"] and err["loc"][0] == "hosts":  # the sentence says what to give; the option names it
            raise ScheduleError(f"--host {err['msg'].removeprefix('Value error, ')}; nothing was journaled") from None
        raise ScheduleError(f"the schedule is not valid: {where}: {err['msg']}; nothing was journaled") from None


def _submitter(application: Any, model: str, broker: Any = None) -> Any:
    from alicorn.clock import default_clock
    from alicorn.core.access import choose_models
    from alicorn.core.norbi import Norbi
    from alicorn.core.triggered import CoreSubmitter
    from alicorn.packs.catalog import bundled_workflows
    from alicorn.schedule.heartbeat import Heartbeat, HeartbeatSubmitter

    models = choose_models(model, application.home)
    core = CoreSubmitter(Norbi(application, bundled_workflows(), models=models, workdir=Path.cwd(), broker=broker))
    # Heartbeat firings go to the heartbeat's probes (worded by rule: no model is called from the command line).
    return HeartbeatSubmitter(core, Heartbeat.for_app(application, default_clock()))


def _print_state(
    state: Any, clock: Any, as_json: bool, *, headline: str | None, heartbeat: dict[str, Any] | None = None
) -> None:
    from alicorn.clock import parse_time
    from alicorn.schedule.report import detail

    data = detail(state, parse_time(clock.now()))
    if heartbeat is not None:
        data["heartbeat"] = heartbeat
    if as_json:
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    if headline:
        typer.echo(headline)
    typer.echo(f"{data['id']} ({data['status']}), project {data['project']}, by {data['author']}: {data['request']}")
    typer.echo(f"  when: {data['when']}; overlap {data['overlap']}; catch-up {data['catch_up_text']}")
    typer.echo(f"  each firing may: {', '.join(data['allow'])} (anything more is forbidden)")
    typer.echo(
        f"  each firing may reach without a human: {', '.join(data['hosts']) or 'no host'} (any other host, or "
        "private data sent out, waits for a human)"
    )
    typer.echo(f"  fired {data['fired']} slot(s); {data['skipped_events']} skip(s) journaled")
    for firing in data["recent"]:
        typer.echo(
            f"  fired {firing['slot']} at {firing['fired_at'][:19]}Z → {firing['conversation']} ({firing['by']})"
        )
    if data["next"]:
        typer.echo(f"  next {len(data['next'])} slot(s) in {data['zone']}:")
        for slot in data["next"]:
            typer.echo(f"    {slot['local']}  ({slot['utc']})")
    elif data["status"] == "active":
        typer.echo("  no slot is coming")
    if heartbeat is not None:
        typer.echo(f"  heartbeat of {heartbeat['project']}: {heartbeat['ticks']} look(s), {heartbeat['model_calls']} "
                   "model call(s)")  # fmt: skip
        if heartbeat["breaker"]:
            typer.echo(f"  paused by its breaker: {heartbeat['breaker']}")
        if heartbeat["summary"]:
            typer.echo(f"  latest: {heartbeat['summary']}")
        for finding in heartbeat["findings"]:
            typer.echo(f"  - {finding.get('text') or finding}")
