"""The `alicorn` command line. Heavy modules are imported inside commands so `alicorn --help` starts fast.

Exit codes: 0 done (run succeeded), 1 error (bad input: nothing was changed), 2 usage error, 3 the run finished but
did not succeed (partial, failed, stopped, cancelled), 4 the run waits for a human (an approval, or a decision
about an effect whose outcome is unknown), 5 the environment failed (disk full, I/O error, permission denied,
read-only filesystem, a journal locked by another process or damaged).

One error boundary (`_guard`, around every command) turns every failure into one sentence on stderr naming the file,
what happened and what to do, with its exit code; a traceback is printed too only with `alicorn --debug` (or
ALICORN_DEBUG=1). Read-only commands open the journal read-only and never create or change a file.
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from typer.core import TyperGroup

if TYPE_CHECKING:
    from alicorn.app import App
    from alicorn.runtime.state import RunState

EXIT_ERROR, EXIT_USAGE, EXIT_NOT_SUCCEEDED, EXIT_AWAITING, EXIT_ENVIRONMENT = 1, 2, 3, 4, 5
EXIT_INTERRUPTED = 130  # the shell's code for a command ended by SIGINT
#: How many runs `alicorn runs` lists unless told otherwise (the newest).
RUNS_SHOWN = 50
#: What `alicorn runs` shows for a run the journal says is running whose driver is gone (`--status` takes it too).
INTERRUPTED = "interrupted"

HomeOption = Annotated[
    Path, typer.Option("--home", envvar="ALICORN_HOME", help="Alicorn's home: journal.db and workspaces/.")
]
RunArg = Annotated[str, typer.Argument(help="The run id (see `alicorn runs`).")]


class _JournalGroup(TyperGroup):
    """`alicorn journal RUN` lists a run's events; `alicorn journal head|archive|export|import` are subcommands."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["events", *args]
        return super().resolve_command(ctx, args)


#: The application's settings, shared by the whole application and its narrowed form (`app_for`).
_APP_SETTINGS: dict[str, Any] = {
    "name": "alicorn",
    "help": "Alicorn: the model proposes, the runtime disposes. Typed plans, a hash-chained journal, verified replay.",
    "no_args_is_help": True,
    "add_completion": False,
    "pretty_exceptions_enable": False,
}
app = typer.Typer(**_APP_SETTINGS)
journal_app = typer.Typer(cls=_JournalGroup, no_args_is_help=True, help="Read, pin, archive and move journal events.")
app.add_typer(journal_app, name="journal")

_debug = False


def _print_version(wanted: bool) -> None:
    if wanted:
        from alicorn import __version__

        typer.echo(f"alicorn {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    debug: Annotated[
        bool,
        typer.Option(
            "--debug", envvar="ALICORN_DEBUG", help="Print the traceback of a failure too, not only its sentence."
        ),
    ] = False,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print Alicorn's version and exit."),
    ] = False,
) -> None:
    """Alicorn: the model proposes, the runtime disposes. Typed plans, a hash-chained journal, verified replay."""
    global _debug
    _debug = debug


def _debugging() -> bool:
    return _debug or os.environ.get("ALICORN_DEBUG", "").strip().lower() in ("1", "true", "yes", "on")


def _fail(message: str, code: int = EXIT_ERROR, exc: BaseException | None = None) -> NoReturn:
    from rich.console import Console
    from rich.markup import escape

    console = Console(stderr=True)
    message = _scrubbed(message)
    if exc is not None and _debugging():
        import traceback

        trace = _scrubbed("".join(traceback.format_exception(exc)))
        console.print(escape(trace), highlight=False, soft_wrap=True)
    # Escaped: messages quote config sections ("[anvil]") and rules, which are not markup.
    console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


#: Apps opened by the running command; the error boundary closes them when the command ends, however it ends.
_opened: list[App] = []


def _scrubbed(text: str) -> str:
    """`text` without the secrets of the environment and of the homes this command opened (DESIGN.md invariant 7:
    an error may quote a file or an answer that holds one)."""
    from alicorn.secrets import collect

    secrets = collect()
    for application in _opened:
        secrets = secrets.merged(application.store.secrets)
    from alicorn.context.redact import CREDENTIAL_CATEGORIES

    return secrets.redact_text(text, CREDENTIAL_CATEGORIES)[0]


def _open(
    home: Path,
    *,
    create: bool = False,
    read_only: bool = False,
    journal_url: str | None = None,
    journal_schema: str | None = None,
    warn_if_marked: bool = True,
) -> App:
    """The home's App, closed when the command ends. `read_only` opens the journal read-only (and never makes one);
    `journal_url` names a PostgreSQL journal to open instead of the home's (a worker's `--journal`). A reader of a
    journal that verification found damaged is warned (`warn_if_marked`); a writer is refused by the store."""
    from alicorn.app import open_app
    from alicorn.secrets import install_log_redaction

    application = open_app(
        home,
        create=create and not read_only,
        read_only=read_only,
        journal_url=journal_url,
        journal_schema=journal_schema,
    )
    _opened.append(application)
    install_log_redaction(lambda: application.store.secrets)  # what anything logs while the command runs
    finding = application.store.damage_mark() if read_only and warn_if_marked else None
    if finding is not None:
        typer.echo(
            f"warning: `alicorn verify` found this journal damaged ({finding}); what it shows may not be what was "
            "recorded. Restore it from a backup.",
            err=True,
        )
    return application


def _close_opened(keep: int) -> None:
    import contextlib

    while len(_opened) > keep:
        with contextlib.suppress(Exception):
            _opened.pop().close()


#: OS errors that say a path the user gave cannot be used as given (bad input, exit 1), not that the machine failed.
_PATH_ERRNOS = frozenset(
    {errno.ENOENT, errno.ENOTDIR, errno.EISDIR, errno.ENAMETOOLONG, errno.ELOOP, errno.EEXIST, errno.EINVAL}
)


def failure_exit(exc: BaseException, *, home: object = None) -> tuple[int, str] | None:
    """The exit code and sentence for a failure at the command line's boundary; None when `exc` is not one this
    boundary knows (a bug: it keeps its traceback)."""
    from alicorn.errors import AlicornError, environment_failure

    failure = environment_failure(exc, path=home if isinstance(home, str | Path) else None)
    if failure is not None:
        return EXIT_ENVIRONMENT, str(failure)
    if isinstance(exc, AlicornError):
        return EXIT_ERROR, str(exc)
    if isinstance(exc, OSError) and exc.errno in _PATH_ERRNOS:
        named = exc.filename if exc.filename is not None else home
        return EXIT_ERROR, f"{named}: {exc.strerror or exc}; nothing was changed"
    return None


def _guard(fn: Any) -> Any:
    """The command line's one error boundary: Alicorn's errors become their sentence and exit code 1; failures of
    the environment (disk full, I/O error, permission denied, read-only filesystem, a locked or damaged journal)
    become a sentence naming the file, what happened and what to do, and exit code 5. Nothing is half-done: the
    journal is the truth (`alicorn resume` continues a run from its last saved step)."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from alicorn.errors import AlicornError

        opened = len(_opened)
        try:
            return fn(*args, **kwargs)
        except (AlicornError, OSError, sqlite3.Error) as exc:
            if isinstance(exc, OSError) and exc.errno == errno.EPIPE:
                raise  # the reader of our output went away: click ends quietly
            verdict = failure_exit(exc, home=kwargs.get("home"))
            if verdict is None:
                raise
            _fail(verdict[1], verdict[0], exc)
        except UnicodeDecodeError as exc:
            _fail(
                f"a file Alicorn had to read is not UTF-8 text ({exc.reason} at byte {exc.start}): check the files "
                "named on the command line and in alicorn.toml (a policy file, data files); nothing was changed",
                EXIT_ERROR,
                exc,
            )
        except KeyboardInterrupt:
            # Ctrl-C (or SIGINT from a script): the journal holds every step saved before it; say where to go on
            _close_opened(opened)
            typer.echo(
                "interrupted: every step saved before it is in the journal; `alicorn runs --status interrupted` "
                "lists the runs it stopped, and `alicorn resume RUN` continues one",
                err=True,
            )
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            _close_opened(opened)
            verdict = _unverified_journal(exc, kwargs.get("home"))
            if verdict is None:
                raise  # the journal is sound: this is a bug, and its traceback is the report
            _fail(verdict[1], verdict[0], exc)
        finally:
            _close_opened(opened)

    return wrapper


def _unverified_journal(exc: BaseException, home: object) -> tuple[int, str] | None:
    """When a command trips over events that do not verify (an edited or damaged journal whose rows still
    decode), that is what to say, not a traceback; None when the home's journal verifies (then `exc` is a bug)."""
    from alicorn.errors import AlicornError
    from alicorn.journal.sqlite import SQLiteStore
    from alicorn.journal.verify import verify_journal

    if not isinstance(home, str | Path) or not (Path(home) / "journal.db").is_file():
        return None
    path = Path(home) / "journal.db"
    try:
        with SQLiteStore(path, read_only=True) as store:
            report = verify_journal(store)
    except AlicornError as failure:
        return failure_exit(failure, home=home)
    if report.ok:
        return None
    first = report.damage[0] if report.damage else str(report.problems[0])
    return (
        EXIT_ENVIRONMENT if report.damage else EXIT_ERROR,
        f"{path} does not verify ({first}); this command stopped on it ({type(exc).__name__}: {exc}). "
        "`alicorn verify` lists what is wrong; restore the journal from a backup.",
    )


def _read_text(path: Path, what: str) -> str:
    """A file the user named, as UTF-8 text; a clear error (exit 1, or 5 when the machine failed) otherwise."""
    from alicorn.errors import environment_failure

    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        _fail(f"{what} {path} is not UTF-8 text (byte {exc.start}: {exc.reason}); nothing was changed")
    except OSError as exc:
        failure = environment_failure(exc, path=path)
        if failure is not None:
            raise failure from exc
        _fail(f"cannot read {what} {path}: {exc.strerror or exc}; nothing was changed")


def _exit_for(state: RunState) -> None:
    if state.status in ("awaiting_approval", "blocked"):
        raise typer.Exit(EXIT_AWAITING)
    if state.status != "succeeded":
        raise typer.Exit(EXIT_NOT_SUCCEEDED)


def _human(application: App, who: str | None, *, role: str = "approver", doing: str = "approve runs") -> str:
    """The authenticated human of this command: the OS user (`--as` must name them), enrolled with `role`. On a
    home that never had people, they become its first admin (journaled, and said here)."""
    from alicorn.anvil.people import authenticate

    me, enrolled = authenticate(application.people, who, role=role, doing=doing)
    if enrolled:
        typer.echo(f"{me} is this home's first person: enrolled as admin (`alicorn people list`)", err=True)
    return me.id


def _approvals(application: App, approve: bool, who: str | None, comment: str) -> list[Any]:
    """`--approve` as an approval by the authenticated human (never the proposer's)."""
    from alicorn.runtime.executor import Approval

    if not approve:
        return []
    return [Approval(_human(application, who), comment)]


@app.command()
@_guard
def run(
    plan_file: Annotated[Path, typer.Argument(help="A plan in the DSL (JSON); `alicorn schema plan` shows it.")],
    home: HomeOption = Path(".alicorn"),
    data: Annotated[
        Path | None, typer.Option(help="Directory that relative data paths are read from (default: the plan's).")
    ] = None,
    approve: Annotated[
        bool,
        typer.Option(
            help="Refused: the process that proposes a plan never approves it (`alicorn approve RUN` instead)."
        ),
    ] = False,
    proposed_by: Annotated[
        str | None,
        typer.Option(help="Who wrote the plan: agent:NAME, or you (the default; never another person)."),
    ] = None,
    project: Annotated[str, typer.Option(help="The project the run belongs to (budgets, scope).")] = "default",
    budget: Annotated[
        list[str] | None, typer.Option(help="NAME=LIMIT for steps, effects, tokens, money or wall_s (repeatable).")
    ] = None,
    forbid: Annotated[
        list[str] | None, typer.Option(help="An effect class this run must not have, e.g. publication (repeatable).")
    ] = None,
    allow_secret_read: Annotated[
        list[str] | None,
        typer.Option(
            help="A secret-labelled path (or pattern, like keys/**) this run may read once a human approves it "
            "(repeatable; rule forbid-secret-read)."
        ),
    ] = None,
    parallel: Annotated[int, typer.Option(min=1, max=64, help="Node calls running at once.")] = 4,
    grouped: Annotated[
        bool,
        typer.Option(
            "--grouped/--every-step",
            help="Make effect-free steps durable in groups, at most 50 ms late (the default; effects are never "
            "grouped, and a crash only makes resume run that effect-free work again), or every step before the next.",
        ),
    ] = True,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    queue: Annotated[
        bool, typer.Option("--queue", help="Journal the run and queue it for a worker (`alicorn worker`); run nothing.")
    ] = False,
) -> None:
    """Validate PLAN_FILE, let Anvil decide, journal it as a new run and execute it (or wait for an approval)."""
    import math

    from alicorn.anvil.budget import parse_budget
    from alicorn.anvil.errors import ProposerApprovalError
    from alicorn.anvil.secret_reads import allowing
    from alicorn.config import load_config
    from alicorn.plan.validate import parse_plan
    from alicorn.render import Progress, print_run

    plan = parse_plan(_read_text(plan_file, "the plan file"))
    limits = parse_budget(budget or [])
    for name, limit in limits.limits().items():
        if not math.isfinite(limit):
            _fail(f"--budget {name}={limit}: a limit must be a finite number (for no limit, leave the budget out)")
    proposer = _proposer(proposed_by)
    if approve:
        raise ProposerApprovalError(
            f"a process can never both propose and approve: this `alicorn run` proposes the plan as {proposer}, so "
            "it cannot approve it too. Start it without --approve; it waits for an approval, which a person other "
            "than its proposer gives with `alicorn approve RUN`. Nothing was run"
        )
    # The run's terms are checked before the home is opened: a refused run makes no journal in a new home.
    config = load_config(home)
    terms = config.anvil.terms(
        proposed_by=proposer, project=project, budget=limits, forbidden=tuple(forbid or ()), labels=config.data
    )
    terms = allowing(terms, allow_secret_read or ())
    _refuse_an_agent_no_journal_knows(home, config, proposer)
    application = _open(home, create=True)
    application.anvil.prepare(terms)
    if queue:
        from alicorn.broker.submit import broker_for, submit

        broker = broker_for(application.store)
        try:
            executor = application.executor(data or plan_file.parent, max_parallel=parallel)
            state = submit(executor, broker, plan, terms=terms)
        finally:
            broker.close()
        if state.finished or state.status == "awaiting_approval":
            print_run(state, application.store)
            _exit_for(state)
        typer.echo(f"{state.run_id} queued: a worker drives it (`alicorn worker`); `alicorn jobs` shows who holds it")
        return
    with Progress(len(plan.nodes), enabled=not quiet) as progress:
        executor = application.executor(
            data or plan_file.parent,
            max_parallel=parallel,
            on_events=progress.update,
            durability="grouped" if grouped else "step",
        )
        state = executor.start(plan, terms=terms)
    print_run(state, application.store)
    _exit_for(state)


def _refuse_an_agent_no_journal_knows(home: Path, config: Any, proposer: str) -> None:
    """A named agent that is not a built-in role is registered in the journal: where there is no journal yet, it
    is unknown, and the run is refused before a journal is made for it (Anvil's `prepare` says so in a journal)."""
    from alicorn.anvil.errors import UnknownAgentError
    from alicorn.anvil.identity import parse_principal

    principal = parse_principal(proposer)
    if principal.is_human or principal.is_builtin_role or config.journal_url is not None:
        return
    if not (home / "journal.db").exists():
        raise UnknownAgentError(principal.id)


def _resolutions(specs: list[str] | None, outputs: list[str] | None, who: str | None) -> list[Any]:
    """Parse `--resolve NODE=applied|not-applied` (and `--output NODE=JSON` for applied effects), as decided by
    the authenticated human (the OS user)."""
    from alicorn.anvil.identity import acting_human
    from alicorn.runtime.executor import Resolution

    given: dict[str, Any] = {}
    for spec in outputs or []:
        node, sep, text = spec.partition("=")
        try:
            given[node] = json.loads(text) if sep else None
        except ValueError as exc:
            _fail(f"--output {spec!r}: not JSON ({exc}); write it as NODE='{{\"field\": 1}}'")
    out = []
    for spec in specs or []:
        node, _, verdict = spec.partition("=")
        if verdict not in ("applied", "not-applied"):
            _fail(f"--resolve {spec!r}: write NODE=applied or NODE=not-applied")
        out.append(Resolution(node, verdict == "applied", acting_human(who).id, given.get(node)))
    return out


@app.command()
@_guard
def resume(
    run_id: RunArg,
    home: HomeOption = Path(".alicorn"),
    approve: Annotated[
        bool, typer.Option(help="Approve, as yourself (the OS user, an enrolled approver), what the run waits for.")
    ] = False,
    who: Annotated[
        str | None, typer.Option("--as", help="Optional: your name, which must be the OS user running this.")
    ] = None,
    comment: Annotated[str, typer.Option(help="A comment journaled with the approval.")] = "",
    resolve: Annotated[
        list[str] | None,
        typer.Option(help="NODE=applied|not-applied: your finding about an effect whose outcome was unknown."),
    ] = None,
    output: Annotated[
        list[str] | None, typer.Option(help="NODE=JSON: the output of an effect you resolve as applied.")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q")] = False,
) -> None:
    """Continue a run that stopped (crash, kill, approval, unknown effect) without redoing finished nodes."""
    from alicorn.render import Progress, print_run
    from alicorn.runtime.state import fold

    application = _open(home)
    before = fold(application.store.read(run_id), run_id)
    if not before.run_id or not before.plan:
        _fail(f"no run {run_id!r} in {application.store.location}; `alicorn runs` lists the runs")
    if before.finished:
        # said before the run's lock is taken or an approver enrolled: a refused resume changes no file
        _fail(
            f"run {run_id} already finished ({before.status}) at {before.finished_at}; nothing to resume. "
            f"`alicorn show {run_id}` shows its result"
        )
    resolutions = _resolutions(resolve, output, who)  # a bad --resolve is refused before an approver is enrolled
    approvals = _approvals(application, approve, who, comment)
    with Progress(len(before.nodes), enabled=not quiet) as progress:
        executor = application.executor(Path(before.data_root), on_events=progress.update)
        state = executor.resume(run_id, approvals=approvals, resolutions=resolutions)
    print_run(state, application.store)
    _exit_for(state)


@app.command()
@_guard
def cancel(
    run_id: RunArg,
    home: HomeOption = Path(".alicorn"),
    reason: Annotated[str, typer.Option(help="Why; journaled with the cancellation.")] = "cancelled by the operator",
    who: Annotated[
        str | None, typer.Option("--as", help="Optional: your name, which must be the OS user running this.")
    ] = None,
) -> None:
    """Cancel a run: no new effects start; completed effects are compensated; the journal stays consistent."""
    from alicorn.errors import RunError, StreamLockedError
    from alicorn.render import print_run
    from alicorn.runtime.executor import request_cancel
    from alicorn.runtime.state import fold
    from alicorn.runtime.world import default_clock

    application = _open(home)
    state = fold(application.store.read(run_id), run_id)
    if not state.plan:
        _fail(f"no run {run_id!r}; `alicorn runs` lists the runs")
    if state.finished:
        _fail(f"run {run_id} already finished ({state.status}); there is nothing to cancel")
    if state.status == "awaiting_approval":
        _fail(f"run {run_id} waits for an approval (nothing ran); refuse it: `alicorn reject {run_id} --reason WHY`")
    from alicorn.anvil.identity import acting_human

    request_cancel(application.store, run_id, acting_human(who).id, reason, default_clock().now())
    try:
        state = application.executor(Path(state.data_root)).resume(run_id)
    except StreamLockedError:
        typer.echo(f"cancellation requested: the process driving {run_id} stops it at its next step")
        return
    except RunError:
        # The process driving the run took the request and finished between our request and our resume.
        state = fold(application.store.read(run_id), run_id)
        if not state.finished:
            raise
        typer.echo(f"cancellation requested: the process driving {run_id} stopped it ({state.status})")
        return
    print_run(state, application.store)


@app.command()
@_guard
def runs(
    home: HomeOption = Path(".alicorn"),
    as_json: Annotated[bool, typer.Option("--json")] = False,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit", help=f"Show the newest N runs (default {RUNS_SHOWN}; --json: all).", show_default=False
        ),
    ] = None,
    show_all: Annotated[bool, typer.Option("--all", help="Show every run.")] = False,
    status: Annotated[
        str | None,
        typer.Option("--status", help="Only runs with this status (e.g. failed; interrupted: running, no driver)."),
    ] = None,
) -> None:
    """List runs, newest first, with their status, goal and journal size."""
    from alicorn.render import RUN_STATUSES, console, print_runs, run_summaries

    if status is not None and status not in (*RUN_STATUSES, INTERRUPTED):
        _fail(f"no run can have status {status!r}; use one of: {', '.join((*RUN_STATUSES, INTERRUPTED))}", EXIT_USAGE)
    if limit is not None and (show_all or limit < 1):
        _fail("--limit takes a number of runs of 1 or more, and not together with --all", EXIT_USAGE)
    # the table shows the newest RUNS_SHOWN; --json, read by programs, lists every run unless --limit says otherwise
    shown = None if show_all or (as_json and limit is None) else limit or RUNS_SHOWN
    application = _open(home, read_only=True)
    if status == INTERRUPTED:  # running in the journal, its driver gone: what the table shows as "interrupted"
        running = run_summaries(application.store, limit=None, status="running")
        stopped = [s for s in running if s.get("driver") and not s["driver"]["alive"]]
        summaries, total = stopped[:shown] if shown is not None else stopped, len(stopped)
    else:
        summaries = run_summaries(application.store, limit=shown, status=status)
    cut = ""
    if shown is not None and len(summaries) == shown:
        total = total if status == INTERRUPTED else application.store.run_count(status=status)
        if total > shown:
            cut = f"{shown:,} of {total:,} {status + ' ' if status else ''}runs; --all or --limit N for more"
    if as_json:
        typer.echo(json.dumps(summaries, ensure_ascii=False, indent=2))
        if cut:
            typer.echo(cut, err=True)  # stdout stays the JSON list
    else:
        print_runs(summaries, status=status)
        if cut:
            console.print(cut, markup=False)


@app.command()
@_guard
def show(run_id: RunArg, home: HomeOption = Path(".alicorn")) -> None:
    """A run's nodes, states, timings, effects and its DAG."""
    from alicorn.journal.events import verify_stream
    from alicorn.render import print_run
    from alicorn.runtime.signatures import plan_mismatch
    from alicorn.runtime.state import fold, read_run

    application = _open(home, read_only=True)
    events = read_run(application.store, run_id)
    print_run(fold(events, run_id), application.store, detailed=True)
    # what is shown is what the journal holds now: say so when that is not what was recorded
    problem = verify_stream(run_id, events)
    mismatch = plan_mismatch(events[0].data)
    if problem is not None or mismatch is not None:
        found = str(problem) if problem is not None else f"event #1: {mismatch}"
        typer.echo(
            f"warning: this run's history does not verify ({found}); what is shown above may not be what happened. "
            "`alicorn verify` lists every problem.",
            err=True,
        )


@journal_app.command("events", hidden=True)
@_guard
def journal_events(
    run_id: RunArg,
    home: HomeOption = Path(".alicorn"),
    kind: Annotated[list[str] | None, typer.Option(help="Only events of this kind (prefix, e.g. tool.).")] = None,
    node: Annotated[str | None, typer.Option(help="Only events about this node.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One stored event per line, exactly as journaled.")] = False,
) -> None:
    """A run's events, filterable (`alicorn journal RUN --kind tool. --node load`)."""
    from alicorn.render import print_events

    application = _open(home, read_only=True)
    application.store.require(run_id)
    events = [
        e
        for e in application.store.read(run_id)
        if (not kind or any(e.kind.startswith(k) for k in kind)) and (node is None or e.data.get("node") == node)
    ]
    if as_json:
        for e in events:
            typer.echo(e.line)
    else:
        print_events(events)


@journal_app.command("head")
@_guard
def journal_head(
    home: HomeOption = Path(".alicorn"),
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file, not stdout.")] = None,
) -> None:
    """Print (or save) every stream's head; keep it elsewhere to detect truncation with `alicorn verify --head`."""
    from alicorn.durable import write_atomically
    from alicorn.errors import environment_failure
    from alicorn.journal.verify import save_head

    text = json.dumps(save_head(_open(home, read_only=True).store), indent=2) + "\n"
    if output is None:
        typer.echo(text, nl=False)
        return
    try:
        if output.exists() and not output.is_file():  # a device or pipe (/dev/stdout): written in place
            output.write_text(text, encoding="utf-8")
        else:  # a file: whole or not at all, never a half-written head
            write_atomically(output, text.encode("utf-8"))
    except OSError as exc:
        failure = environment_failure(exc, path=output)
        if failure is not None:
            raise failure from exc
        _fail(f"cannot write the head to {output}: {exc.strerror or exc}; give a file in a folder that exists")
    typer.echo(f"saved the heads of the journal's streams to {output}")


@journal_app.command("archive")
@_guard
def journal_archive(
    run_ids: Annotated[list[str] | None, typer.Argument(help="Runs to archive (default: every finished run).")] = None,
    home: HomeOption = Path(".alicorn"),
) -> None:
    """Move finished runs into compressed segments that still verify and replay."""
    from alicorn.runtime.state import fold, read_run

    store = _open(home).store
    candidates = run_ids or [i.stream for i in store.streams() if not i.archived]
    chosen = []
    for run_id in dict.fromkeys(candidates):  # every named run is checked before any is archived
        if run_ids and not store.is_archived(run_id):
            read_run(store, run_id)  # a named stream that is no run is said so, not "new, not finished"
        elif run_ids:
            store.require(run_id)
        if store.is_archived(run_id):
            if run_ids:
                _fail(f"run {run_id} is already archived; nothing was archived")
            continue
        state = fold(store.read(run_id), run_id)
        if not state.finished:
            if run_ids:
                _fail(
                    f"run {run_id} is {state.status}, not finished; only finished runs can be archived "
                    "(nothing was archived)"
                )
            continue
        chosen.append(run_id)
    archived = 0
    for run_id in chosen:
        info = store.archive(run_id)
        archived += 1
        ratio = info.bytes / info.archived_bytes if info.archived_bytes else 0
        typer.echo(f"{run_id}: {info.events} events, {info.bytes:,} B -> {info.archived_bytes:,} B ({ratio:.1f}x)")
    typer.echo(f"archived {archived} run(s)")


@journal_app.command("export")
@_guard
def journal_export(run_id: RunArg, home: HomeOption = Path(".alicorn")) -> None:
    """Write a run's events as JSON lines (exactly as stored) to stdout."""
    store = _open(home, read_only=True).store
    store.require(run_id)
    for event in store.read(run_id):
        typer.echo(event.line)


@journal_app.command("import")
@_guard
def journal_import(
    files: Annotated[list[Path], typer.Argument(help="JSON-lines files written by `alicorn journal export`.")],
    home: HomeOption = Path(".alicorn"),
) -> None:
    """Load exported runs into this journal; each must verify and keep its exact hashes."""
    from alicorn.journal.transfer import import_events, read_export

    # Every file is read and verified before the journal is opened: a bad file creates and changes nothing.
    exports = [read_export(_read_text(path, "the export").splitlines()) for path in files]
    store = _open(home, create=True).store
    for stream, events in exports:
        count = import_events(store, stream, events)
        typer.echo(f"imported {stream}: {count} events")


@app.command()
@_guard
def replay(
    run_id: RunArg,
    home: HomeOption = Path(".alicorn"),
    verify: Annotated[
        bool, typer.Option("--verify/--no-verify", help="Compare regenerated events byte for byte.")
    ] = True,
) -> None:
    """Re-execute a run from its recorded inputs and prove the regenerated journal is byte-identical."""
    from alicorn.runtime.replay import replay_run

    if not verify:
        _fail("replay always compares what it regenerates; drop --no-verify", 2)
    application = _open(home, read_only=True)
    report = replay_run(application.store, run_id, application.registry)
    rate = report.events / report.seconds if report.seconds else float("inf")
    typer.echo(
        f"replay of {run_id} verified: {report.events} events regenerated byte for byte over {report.sessions} "
        f"session(s), final status {report.status} ({rate:,.0f} events/s)"
    )


def _proposer(proposed_by: str | None) -> str:
    """Who proposes a plan given at the command line: you, or an agent whose plan you hand in. A person is never
    named by someone else (they could then approve what they wrote themselves, as "someone else's" plan)."""
    from alicorn.anvil.errors import IdentityError
    from alicorn.anvil.identity import acting_human, canonical_id, parse_principal

    if not proposed_by:
        return acting_human().id
    named = parse_principal(canonical_id(proposed_by))
    me = acting_human()
    if named.is_human and named.id != me.id:
        raise IdentityError(
            f"--proposed-by {proposed_by} names another person, but this process runs as {me.id}: a person proposes "
            f"only as themselves (else they could approve their own plan as someone else's). Leave --proposed-by out, "
            "name the agent that wrote the plan (agent:NAME), or let that person run it; nothing was run"
        )
    return named.id


@app.command()
@_guard
def verify(
    run_ids: Annotated[list[str] | None, typer.Argument(help="Runs to verify (default: the whole journal).")] = None,
    home: HomeOption = Path(".alicorn"),
    head: Annotated[
        Path | None, typer.Option(help="A head saved by `alicorn journal head`: catches truncation.")
    ] = None,
) -> None:
    """Check the hash chain of every stream and the signature of every human decision; report each bad event."""
    from alicorn.journal.verify import load_head, verify_journal
    from alicorn.runtime.signatures import audit_decisions

    saved = load_head(_read_text(head, "the saved head")) if head is not None else None
    store = _open(home, read_only=True, warn_if_marked=False).store
    report = verify_journal(store, head=saved, streams=run_ids or None)
    if not report.damage:
        report.problems.extend(audit_decisions(store, run_ids or None))
    for damage in report.damage:
        typer.echo(f"DAMAGED {damage}", err=True)
    for problem in report.problems:
        typer.echo(f"BAD {problem}", err=True)
    against = " against the saved head" if saved is not None else ""
    # Only a verdict on the whole journal moves the mark that stops writers (a check of some runs says nothing
    # about the others).
    whole = not run_ids
    if not report.ok and whole:
        first = report.damage[0] if report.damage else str(report.problems[0])
        stopped = (
            " Writers now refuse it until it verifies again."
            if store.mark_damaged(first)
            else " (The mark that stops writers could not be written beside it.)"
        )
    else:
        stopped = ""
    if report.damage:
        bad = f"; {len(report.problems)} stream(s) failed verification" if report.problems else ""
        _fail(
            f"{store.location} is damaged (where, above): {report.events} event(s) of {report.streams} stream(s) could "
            f"still be read and were checked{against}{bad}. Nothing in it was changed; restore the journal from a "
            f"backup (keep this copy for forensics).{stopped}",
            EXIT_ENVIRONMENT,
        )
    if not report.ok:
        _fail(
            f"{len(report.problems)} problem(s) found{against} (the bad events above); nothing in the journal was "
            f"changed.{stopped}"
        )
    if whole and store.clear_damage_mark():
        typer.echo("the journal verifies again: the mark left by an earlier verification was removed", err=True)
    typer.echo(f"ok: {report.streams} stream(s), {report.events} events verified{against}")


@app.command()
@_guard
def schema(
    what: Annotated[str, typer.Argument(help="plan | operations | events")] = "plan",
    home: HomeOption = Path(".alicorn"),
) -> None:
    """Print a JSON Schema: the plan DSL, the operations' declarations, or the event kinds."""
    if what == "plan":
        from alicorn.plan.dsl import Plan

        typer.echo(json.dumps(Plan.model_json_schema(), indent=2))
    elif what == "operations":
        from alicorn.app import configured_registry
        from alicorn.config import load_config

        # every operation a plan of this home may name: the built-in ones, the bundled packs' and the configured
        # modules' (what `run` validates against); an MCP server's tools are listed by `alicorn mcp tools`
        registry = configured_registry(load_config(home))
        typer.echo(json.dumps([op.describe() for op in registry.operations()], indent=2))
    elif what == "events":
        from alicorn.runtime.state import RUN_EVENT_KINDS

        typer.echo(json.dumps(sorted(RUN_EVENT_KINDS), indent=2))
    else:
        _fail(f"unknown schema {what!r}; choose plan, operations or events", 2)


@app.command()
@_guard
def demo(
    home: HomeOption = Path(".alicorn"),
    record: Annotated[
        bool, typer.Option("--record", help="Run the local model and save its answers as the demo's recording.")
    ] = False,
) -> None:
    """The main job on embedded defaults: the seed's camera-alarms command in words, through Norbi Core, then the
    run's replay and hash chain verified. Uses the local model if installed, else its shipped recorded answers."""
    from alicorn.demo import run_demo

    raise typer.Exit(run_demo(home, record=record))


def _core_commands() -> None:
    """Norbi Core (issue 6): `alicorn ask` (its module imports only typer at this point)."""
    from alicorn.core.cli import register

    register(app, open_app=_open, guard=_guard)


_core_commands()


def _anvil_commands() -> None:
    """Anvil (issue 4): proposals, approve, reject, rights, why, agent, policy (its module imports only typer)."""
    from alicorn.anvil_cli import register

    register(app, open_app=_open, guard=_guard, exit_for=_exit_for)


_anvil_commands()


def _memory_apps() -> None:
    """Pegas Memory: `alicorn memory ...` and `alicorn mcp serve` (their module imports only typer at this point)."""
    from alicorn.mcp.cli import register as register_mcp_tools
    from alicorn.memory.cli import mcp_app, memory_app

    register_mcp_tools(mcp_app, open_app=_open, guard=_guard)  # `alicorn mcp tools|accept` (external servers)
    app.add_typer(memory_app, name="memory")
    app.add_typer(
        mcp_app, name="mcp", help="MCP: serve Alicorn's knowledge (serve); use external servers' tools (tools, accept)."
    )


_memory_apps()


# ---- `alicorn models` (issue 5): the sub-app's module imports only typer at its top; each command imports the rest.
def _models_app() -> typer.Typer:
    from alicorn.models.cli import build_models_app

    return build_models_app()


app.add_typer(_models_app(), name="models", help="Model profiles, routing decisions and intent classification.")


def _service_commands() -> None:
    """The HTTP service (issue 15): `alicorn serve`, `alicorn tokens` (their module imports only typer)."""
    from alicorn.service.cli import register as register_service

    register_service(app, open_app=_open, guard=_guard)


_service_commands()


def _observe_commands() -> None:
    """Traces derived from the journal (issue 18): `alicorn trace` (its module imports only typer)."""
    from alicorn.observe.cli import register as register_observe

    register_observe(app, open_app=_open, guard=_guard)


_observe_commands()


def _schedule_commands() -> None:
    """Schedules (issue 16): `alicorn schedule …` and `alicorn scheduler` (their module imports only typer)."""
    from alicorn.schedule_cli import register as register_schedules

    register_schedules(app, open_app=_open, guard=_guard)


_schedule_commands()


def _broker_commands() -> None:
    """The job broker (issue 17): `alicorn worker`, `alicorn jobs` (their module imports only typer)."""
    from alicorn.broker_cli import register as register_broker

    register_broker(app, open_app=_open, guard=_guard)


_broker_commands()


def _command_name(info: Any) -> str | None:
    """The name a registered command or group answers to (typer derives a command's from its function)."""
    if info.name:
        return str(info.name)
    callback = getattr(info, "callback", None)
    return typer.main.get_command_name(callback.__name__) if callback is not None else None


def app_for(args: list[str]) -> typer.Typer:
    """The application narrowed to the one command `args` invoke, so a start builds that command's parameters
    only (typer inspects every function of every command it is given: ~200 ms of a 330 ms start for the whole tree).
    The whole application when `args` name no known command (`--help`, a typo: its suggestions need them all)."""
    wanted = next((arg for arg in args if not arg.startswith("-")), None)
    if wanted is None:
        return app
    commands = [info for info in app.registered_commands if _command_name(info) == wanted]
    groups = [info for info in app.registered_groups if _command_name(info) == wanted]
    if not commands and not groups:
        return app
    narrowed = typer.Typer(**_APP_SETTINGS)
    narrowed.registered_callback = app.registered_callback
    narrowed.registered_commands = commands
    narrowed.registered_groups = groups
    return narrowed


def main() -> None:
    """Console entry point: the application narrowed to the invoked command (see `app_for`)."""
    sys.exit(app_for(sys.argv[1:])())
