"""`alicorn worker` and `alicorn jobs`: workers that claim queued runs (`alicorn run PLAN --queue`) from the job
broker on the journal's engine, and the broker's table.

    alicorn run plan.json --queue                 journal the run and its job; a worker drives it
    alicorn worker                                claim and drive the home's queued runs until Ctrl-C
    alicorn worker --journal postgresql://…       the same on a PostgreSQL journal, from any machine
    alicorn jobs                                  each job: its run, state, holder, epoch, lease and last note

It lives in the command-line layer (beside `alicorn.schedule_cli`); only typer is imported at the top.
"""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

Home = Annotated[Path, typer.Option("--home", envvar="ALICORN_HOME", help="Alicorn's home.")]
JournalUrl = Annotated[
    str | None,
    typer.Option(
        "--journal",
        help="A PostgreSQL journal to work on (postgresql://USER@HOST:PORT/DB) instead of the home's own journal.",
    ),
]

Schema = Annotated[
    str | None, typer.Option("--schema", help="The PostgreSQL journal's schema (default: the home's, else public).")
]


#: libpq's connection parameters that take one of a few words, and those words: a URL naming another is bad input,
#: refused before anything connects (libpq itself only says so when connecting, as if the server had failed).
_PARAMETER_WORDS = {
    "sslmode": ("disable", "allow", "prefer", "require", "verify-ca", "verify-full"),
    "gssencmode": ("disable", "prefer", "require"),
    "channel_binding": ("disable", "prefer", "require"),
    "target_session_attrs": ("any", "read-write", "read-only", "primary", "standby", "prefer-standby"),
    "load_balance_hosts": ("disable", "random"),
    "sslnegotiation": ("postgres", "direct"),
}


def _check_url(url: str | None) -> None:
    """Refuse a --journal that is not a usable PostgreSQL URL (bad input, exit 1), before anything connects."""
    from alicorn.errors import JournalError
    from alicorn.journal.postgres import is_postgres_url, redact

    if url is None:
        return
    if not is_postgres_url(url):
        raise JournalError(
            f"--journal {redact(url)!r} is not a PostgreSQL URL: give postgresql://USER@HOST:PORT/DATABASE (with the "
            "password after USER and a colon); workers of an SQLite journal share its home instead (--home)"
        )
    import psycopg

    try:
        given = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.Error:
        return  # the journal's own check names what libpq cannot parse
    for name, words in _PARAMETER_WORDS.items():
        value = given.get(name)
        if value is not None and str(value) not in words:
            raise JournalError(
                f"--journal {redact(url)!r}: {name}={value} is not a value PostgreSQL takes; write {name}= one of "
                f"{', '.join(words)}; nothing was changed"
            )
    for port in str(given.get("port") or "5432").split(","):
        if not (port.isdigit() and 1 <= int(port) <= 65535):
            raise JournalError(
                f"--journal {redact(url)!r}: port {port} is not a port number; give one from 1 to 65535; nothing was "
                "changed"
            )


def _open_journal(open_app: Callable[..., Any], home: Path, journal: str | None, **options: Any) -> Any:
    """The app over the home, or over the --journal URL; the journal's refusals of a --journal name that option
    (they are written for `[journal] url` in alicorn.toml, where a home's URL usually comes from)."""
    from alicorn.errors import AlicornError, EnvironmentFailure, JournalError

    try:
        return open_app(home, journal_url=journal, **options)
    except AlicornError as exc:
        said = str(exc)
        if journal is None or "[journal] url in alicorn.toml" not in said:
            raise
        said = said.replace("([journal] url in alicorn.toml)", "(--journal)").replace(
            "[journal] url in alicorn.toml", "--journal"
        )
        if isinstance(exc, EnvironmentFailure):
            raise EnvironmentFailure(said, path=exc.path) from None
        raise JournalError(said) from None


def register(app: typer.Typer, *, open_app: Callable[..., Any], guard: Callable[..., Any]) -> None:
    """Add `worker` and `jobs` to `app`."""

    @app.command("worker")
    @guard
    def worker(
        home: Home = Path(".alicorn"),
        journal: JournalUrl = None,
        schema: Schema = None,
        name: Annotated[str | None, typer.Option(help="This worker's name (default worker:HOST:PID).")] = None,
        lease: Annotated[float, typer.Option(min=1, help="Seconds a claim holds without renewal.")] = 30.0,
        poll: Annotated[float, typer.Option(min=0.05, help="Seconds between looks when idle.")] = 1.0,
        until_idle: Annotated[bool, typer.Option(help="Stop when nothing is left to claim.")] = False,
        parallel: Annotated[int, typer.Option(min=1, max=64, help="Node calls running at once per run.")] = 4,
        runs_at_once: Annotated[
            int,
            typer.Option(
                "--runs-at-once",
                min=1,
                max=256,
                help="Claimed runs driven together from one thread: their steps share commits (1: one run at a time).",
            ),
        ] = 8,
    ) -> None:
        """Claim queued runs and drive them, each under a lease fenced by its epoch, until stopped."""
        from alicorn.broker.submit import broker_for
        from alicorn.broker.worker import Outcome, Worker, default_name

        _check_url(journal)
        application = _open_journal(open_app, home, journal, create=journal is None, journal_schema=schema)
        base = application.executor(Path.cwd(), max_parallel=parallel)

        def executor_for(state: Any) -> Any:
            data = Path(state.data_root) if state.data_root else Path.cwd()
            return application.executor(data, max_parallel=parallel)

        broker = broker_for(application.store)
        me = Worker(
            broker,
            base,
            name=name or default_name(),
            lease_s=lease,
            executor_for=executor_for,
            runs_at_once=runs_at_once,
        )
        stop = threading.Event()
        previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())

        def said(outcome: Outcome) -> None:
            took = f" (taken over from {outcome.taken_from})" if outcome.taken_from else ""
            typer.echo(f"{outcome.run}: {outcome.result}{took}: {outcome.note}")

        typer.echo(
            f"{me.name} works on {application.store.location} (lease {lease:g} s, up to {runs_at_once} runs at once); "
            "Ctrl-C stops it"
        )
        try:
            claims = me.serve(stop, poll_s=poll, on_outcome=said, until_idle=until_idle)
        except KeyboardInterrupt:
            claims = -1
        finally:
            signal.signal(signal.SIGTERM, previous)
            broker.close()
        if claims >= 0:
            typer.echo(f"{me.name} stopped after {claims} claims")
        else:
            typer.echo(f"{me.name} stopped; a run it held is resumed by the next worker once its lease expires")

    @app.command("jobs")
    @guard
    def jobs(
        home: Home = Path(".alicorn"),
        journal: JournalUrl = None,
        schema: Schema = None,
        state: Annotated[
            list[str] | None, typer.Option(help="Only jobs in this state: ready, claimed, waiting, done (repeatable).")
        ] = None,
        limit: Annotated[
            list[str] | None,
            typer.Option(
                help="Set a concurrency limit every worker keeps to: project:NAME=N or operation:NAME=N "
                "(=none removes it; repeatable)."
            ),
        ] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    ) -> None:
        """The broker's jobs: each queued run, its state, who holds it (epoch, lease) and its last note; and its
        concurrency limits (set with --limit)."""
        from alicorn.broker.jobs import STATES
        from alicorn.broker.submit import broker_for, wall_seconds

        _check_url(journal)
        changes = [_parse_limit(spec) for spec in limit or []]  # all checked before anything is stored
        # a listing writes nothing, not even the broker's tables; setting a limit opens them for writing
        application = _open_journal(open_app, home, journal, create=False, journal_schema=schema, read_only=not changes)
        _check_operations(application, changes)
        broker = broker_for(application.store, read_only=not changes)
        try:
            for kind, name, value in changes:
                broker.set_limit(kind, name, value)
            rows = broker.jobs(states=tuple(state or STATES))
            limits = broker.stored_limits()
        finally:
            broker.close()
        said_limits = [f"project {n}: {v}" for n, v in sorted(limits.per_project.items())] + [
            f"operation {n}: {v}" for n, v in sorted(limits.per_operation.items())
        ]
        now = wall_seconds()
        if as_json:
            out = {
                "jobs": [_job_json(j, now) for j in rows],
                "limits": {"project": dict(limits.per_project), "operation": dict(limits.per_operation)},
            }
            typer.echo(json.dumps(out, indent=2))
            return
        if said_limits:
            typer.echo("limits (runs claimed at once): " + "; ".join(said_limits))
        if not rows:
            typer.echo("no jobs: `alicorn run PLAN --queue` queues a run for the workers")
            return
        for job in rows:
            held = ""
            if job.state == "claimed":
                left = job.lease_until - now
                held = f" by {job.worker}, epoch {job.epoch}, " + (
                    f"lease {left:.0f} s left" if left > 0 else f"lease expired {-left:.0f} s ago"
                )
            typer.echo(f"{job.run}  {job.state}{held}  [{job.project}]  {job.note}")


def _parse_limit(spec: str) -> tuple[str, str, int | None]:
    """`project:NAME=N`, `operation:NAME=N` or `…=none`, as (kind, name, limit or None)."""
    import re

    from alicorn.anvil.terms import PROJECT_PATTERN
    from alicorn.broker.jobs import LIMIT_KINDS, BrokerError

    target, sep, value = spec.partition("=")
    kind, colon, name = target.partition(":")
    if not sep or not colon or kind not in LIMIT_KINDS or not name:
        raise BrokerError(
            f"--limit {spec!r}: write project:NAME=N or operation:NAME=N (a whole number of at least 1), or =none to "
            "remove a limit; nothing was changed"
        )
    if kind == "project" and not re.fullmatch(PROJECT_PATTERN, name):
        raise BrokerError(
            f"--limit {spec!r}: {name!r} is not a project name (lower-case letters, digits and _ . -, at most 64, "
            "starting with a letter or digit, as `alicorn run --project` takes it); nothing was changed"
        )
    if value.strip().lower() == "none":
        return kind, name, None
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise BrokerError(
            f"--limit {spec!r}: the limit must be a whole number of at least 1 (or none); nothing was changed"
        )
    return kind, name, number


def _check_operations(application: Any, changes: list[tuple[str, str, int | None]]) -> None:
    """Refuse a limit for an operation this home does not know, before anything is stored (removing one, `=none`,
    is always allowed: it may be a limit left from operations the home no longer has)."""
    from alicorn.broker.jobs import BrokerError

    asked = [name for kind, name, value in changes if kind == "operation" and value is not None]
    if not asked:
        return
    known = set(application.registry.names())
    for name in asked:
        if name not in known:
            raise BrokerError(
                f"--limit operation:{name}: this home has no operation {name!r} (`alicorn schema operations` lists "
                "them); nothing was changed"
            )


def _job_json(job: Any, now: float) -> dict[str, Any]:
    return {
        "run": job.run,
        "project": job.project,
        "state": job.state,
        "worker": job.worker,
        "epoch": job.epoch,
        "lease_left_s": round(job.lease_until - now, 3) if job.state == "claimed" else None,
        "attempts": job.attempts,
        "operations": list(job.operations),
        "note": job.note,
    }
