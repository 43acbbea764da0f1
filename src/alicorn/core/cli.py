"""`alicorn ask`: a request in words, through Norbi Core, interactively.

    alicorn ask "Prepare three variants of next month's schedule, do not publish"
        classification, the outcome contract and its goal hash, the plan with its effects and why approval is needed,
        then: a clarifying question to answer, an approval to give (or refuse) at the prompt, or the report.
    alicorn ask --conversation CONV ["answer"]   continue: answer a question, decide an approval, or resume after a
                                                  crash (idempotent: nothing is started twice)

    alicorn ask --queue "…"   the run becomes a job that `alicorn worker` processes drive (on any machine sharing
                              the journal); `alicorn ask --conversation CONV` then reports where it stands or ends

Exit codes: 0 complete (or answered / triaged / queued for a worker), 3 partial, failed or stopped safely, 4 waiting
for a human.
This module imports only typer at its top, so `alicorn --help` stays fast.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

ModelChoice = Annotated[
    str,
    typer.Option(
        "--model",
        help="auto: the home's models.toml routed per role if present, else the local model if installed, else "
        "deterministic signals only; PROFILE: that profile of models.toml for every role; local; recorded (the "
        "demo's recorded answers); none.",
    ),
]


def register(app: typer.Typer, *, open_app: Callable[..., Any], guard: Callable[..., Any]) -> None:
    """Add `alicorn ask` to `app`."""

    @app.command()
    @guard
    def ask(
        ctx: typer.Context,
        text: Annotated[str | None, typer.Argument(help="What you want done, in your words (or your answer).")] = None,
        conversation: Annotated[
            str | None, typer.Option("--conversation", "-c", help="Continue this conversation.")
        ] = None,
        who: Annotated[
            str | None, typer.Option("--as", help="Optional: who is asking, which must be the OS user running this.")
        ] = None,
        project: Annotated[str, typer.Option(help="The project the request belongs to.")] = "default",
        provenance: Annotated[
            str, typer.Option(help="human, or trigger / external: such requests can never approve anything.")
        ] = "human",
        channel: Annotated[str, typer.Option(help="Where the request came from (cli, mail, webhook…).")] = "cli",
        forbid: Annotated[list[str] | None, typer.Option(help="An effect class the plan may not have.")] = None,
        constraint: Annotated[
            list[str] | None, typer.Option(help="A constraint, in words (part of the contract).")
        ] = None,
        deadline: Annotated[str | None, typer.Option(help="When the result is due: YYYY-MM-DD[THH:MM].")] = None,
        data: Annotated[
            list[str] | None,
            typer.Option(
                "--data",
                help="The data to work on: a file or folder ([NAME=]PATH), under the project's folders "
                "(the current folder, or `roots` in alicorn.toml).",
            ),
        ] = None,
        attach: Annotated[
            list[Path] | None, typer.Option(help="A file for the request: stored, classified, never pasted in prompts.")
        ] = None,
        approve: Annotated[bool, typer.Option("--approve", help="Approve the plan without asking.")] = False,
        close: Annotated[
            str | None, typer.Option("--close", help="Stop the conversation safely, saying why (withdraws its plan).")
        ] = None,
        no_input: Annotated[
            bool, typer.Option("--no-input", help="Never prompt; stop where a human is needed.")
        ] = False,
        quiet: Annotated[
            bool, typer.Option("--quiet", help="No live progress display (there is none when not on a terminal).")
        ] = False,
        queue: Annotated[
            bool,
            typer.Option(
                "--queue",
                help="Submit the run as a job for `alicorn worker` (any machine sharing the journal) instead of "
                "driving it here; continue with --conversation to see its report.",
            ),
        ] = False,
        model: ModelChoice = "auto",
        home: Annotated[Path, typer.Option("--home", envvar="ALICORN_HOME", help="Alicorn's home.")] = Path(".alicorn"),
    ) -> None:
        """Ask for something in words: Core classifies it, fixes the outcome contract, plans, gets approval, runs,
        validates and reports."""
        import sys

        from alicorn.anvil.identity import acting_human
        from alicorn.core.access import UnknownModelChoiceError, choose_models
        from alicorn.core.progress import ProgressView
        from alicorn.core.render import ModelNotes, console, print_turn
        from alicorn.i18n import tr

        try:  # a broken models.toml refuses the command before anything is journaled
            models = choose_models(model, home)
        except UnknownModelChoiceError as exc:
            raise typer.BadParameter(str(exc)) from None
        person = acting_human(who).id  # the OS user: who asks, and who approves at the prompt
        if close is not None and conversation is None:
            raise typer.BadParameter("--close needs the conversation: --conversation CONV --close WHY")
        request = None
        if close is None and conversation is None:
            if not text:
                raise typer.BadParameter('say what you want done: alicorn ask "…" (or continue with --conversation)')
            due = _deadline(deadline)
            request = _Request(
                text, person, project, provenance, channel, forbid or [], constraint or [], due, data or []
            )
            # A request and its files are checked before the home is opened: a refused one creates no file.
            _envelope(request, [])
            _check_attachments(attach or [])
        # Continuing a conversation needs the journal that holds it: a new home gets none made for a refusal.
        from alicorn.core.norbi import CoreError
        from alicorn.errors import NoJournalError

        try:
            application = open_app(home, create=conversation is None)
        except NoJournalError as exc:
            raise CoreError(
                f"no conversation {conversation!r}: there is no journal at {exc.location} yet, and nothing was "
                'created; start a conversation with `alicorn ask "…"`, or check --home'
            ) from None
        notes = ModelNotes(application.store)
        # Live progress read from the journal as Core commits it; shown only while a Core call works (never at a
        # prompt or under the printed turn), and not at all with --quiet or when stdout is not a terminal.
        progress = ProgressView(console, enabled=not quiet and sys.stdout.isatty())
        ctx.call_on_close(progress.observe(application.store))
        broker = None
        if queue:
            from alicorn.broker.submit import broker_for

            broker = broker_for(application.store)  # a journal with no broker (in memory) is refused here
            ctx.call_on_close(broker.close)
        core = progress.around(_core(application, models, broker))
        interactive = not no_input
        if close is not None and conversation is not None:
            turn = core.close(conversation, reason=close)
            print_turn(turn, application.registry, source=None)
            raise typer.Exit(_exit_code(turn))
        if conversation is None:
            assert request is not None  # built and checked above, before the home was opened
            turn = core.receive(_envelope(request, _attachments(application.artifacts(project), attach or [])))
        else:
            state = core.state(conversation)
            notes.skip(conversation)
            progress.language = str((state.classification or {}).get("language") or "en")
            # An answer, or the conversation's next message (Core says so when it cannot take it).
            turn = core.reply(conversation, text, by=person) if text else core.advance(conversation)
        source = core.models.source if core.models else tr(turn.language, "no model")
        print_turn(turn, application.registry, source=source, models=notes.new(turn.conversation))
        turn = _interact(core, turn, person, approve=approve, interactive=interactive, notes=notes)
        raise typer.Exit(_exit_code(turn))


def _interact(core: Any, turn: Any, person: str, *, approve: bool, interactive: bool, notes: Any = None) -> Any:
    from alicorn.core.render import print_turn
    from alicorn.i18n import tr

    for _ in range(8):
        lang = getattr(turn, "language", "en")
        if turn.phase == "asking" and interactive:
            answer = _prompt(tr(lang, "your answer"))
            if answer is None:
                return turn
            turn = core.reply(turn.conversation, answer, by=person)
        elif turn.phase == "waiting" and (provenance := core.provenance(turn.conversation)) != "human":
            # the conversation's provenance, whoever continues it: continuing never makes it a person's request
            typer.echo(
                tr(
                    lang,
                    "this request came from a {provenance} channel, so it cannot approve its own plan; a person "
                    "must: `alicorn approve {run}`, then `alicorn ask --conversation {conversation}`",
                    provenance=provenance,
                    run=turn.proposal.run if turn.proposal else "RUN",
                    conversation=turn.conversation,
                )
            )
            return turn
        elif turn.phase == "waiting" and (approve or interactive):
            # The planner (agent:planner) proposed; the person at the terminal decides, if enrolled to.
            _authenticate(core.app, turn)
            decision = "y" if approve else _prompt(tr(lang, "approve this plan? [y = approve / n = reject]"))
            if decision is None:
                return turn
            if decision.strip().lower() in ("y", "yes", "t", "tak", "д", "да"):
                turn = core.approve(turn.conversation, by=person)
            else:
                reason = _prompt(tr(lang, "why (journaled)")) or "refused at the prompt"
                turn = core.reject(turn.conversation, by=person, reason=reason)
        else:
            return turn
        print_turn(turn, core.app.registry, source=None, models=notes.new(turn.conversation) if notes else ())
    return turn


def _authenticate(application: Any, turn: Any) -> None:
    """The OS user must be an enrolled approver to decide at the prompt (the first admin of a new home)."""
    from alicorn.anvil.people import authenticate
    from alicorn.i18n import tr

    run = turn.proposal.run if turn.proposal else "the plan"
    me, enrolled = authenticate(application.people, None, role="approver", doing=f"approve or reject run {run}")
    if enrolled:
        said = tr(turn.language, "{me} is this home's first person: enrolled as admin (`alicorn people list`)", me=me)
        typer.echo(said, err=True)


def _prompt(text: str) -> str | None:
    """A line from the person, or None when there is no one to ask (end of input)."""
    import click

    try:
        answer: str = typer.prompt(text)
    except (typer.Abort, click.exceptions.Abort):  # typer's own click raises typer.Abort
        typer.echo("")
        return None
    return answer


def _exit_code(turn: Any) -> int:
    if turn.phase in ("asking", "waiting", "blocked"):
        return 4
    if turn.phase == "stalled":  # the journal (the job broker) failed: an environment fault, as the CLI's exit 5
        return 5
    report = turn.report
    if report is None or report.outcome in ("complete", "answered", "triaged"):
        return 0
    return 3


@dataclass(frozen=True)
class _Request:
    text: str
    person: str
    project: str
    provenance: str
    channel: str
    forbid: list[str]
    constraints: list[str]
    deadline: str | None
    data: list[str]


def _envelope(request: _Request, attachments: list[str]) -> Any:
    from pydantic import ValidationError

    from alicorn.core.intake import IntentEnvelope, envelope_refusal
    from alicorn.core.norbi import CoreError

    human = request.provenance == "human"
    try:
        return IntentEnvelope(
            utterance=request.text,
            author=request.person if human else f"{request.provenance}:{request.channel}",
            provenance=request.provenance,
            channel=request.channel,
            project=request.project,
            forbid=tuple(request.forbid),
            constraints=tuple(request.constraints),
            deadline=request.deadline,
            attachments=tuple(attachments),
            data=tuple(request.data),
        )
    except ValidationError as exc:
        names = {"utterance": "", "project": "--project", "deadline": "--deadline", "forbid": "--forbid"}
        raise CoreError(envelope_refusal(exc, names)) from None


def _deadline(text: str | None) -> str | None:
    """--deadline, refused unless it is a day (and time) that exists: 2026-13-45 and 2026-02-30 have the shape of a
    date but are none."""
    import re

    from alicorn.core.intake import DEADLINE_FORM, names_a_real_moment
    from alicorn.core.norbi import CoreError

    if text is None:
        return None
    if not re.fullmatch(DEADLINE_FORM, text) or not names_a_real_moment(text):
        raise CoreError(f"--deadline {text} is not a date; write YYYY-MM-DD or YYYY-MM-DDTHH:MM; nothing was journaled")
    return text


def _check_attachments(files: list[Path]) -> None:
    """Refuse an --attach that is not a file, before anything is stored or the home is opened."""
    from alicorn.core.norbi import CoreError

    for path in files:
        if path.is_dir():
            raise CoreError(
                f"--attach {path} is a folder; attach a file (or pass the folder with --data); nothing was stored "
                "or journaled"
            )
        if not path.is_file():
            raise CoreError(f"--attach {path}: no such file; nothing was stored or journaled")


def _attachments(root: Path, files: list[Path]) -> list[str]:
    """Store each file in the home's artifact store (content-addressed: storing twice is storing once); their
    digests go in the envelope. A file that cannot be read is refused before anything is stored."""
    from alicorn.context.artifacts import ArtifactStore

    _check_attachments(files)
    store = ArtifactStore(root)
    digests = []
    for path in files:
        view = store.put_file(path)
        flags = f"; flagged: {', '.join(view.flags)}" if view.flags else ""
        typer.echo(
            f"attached {view.name}: {view.media_type}, {view.classification}{flags} (sha256 {view.sha256[:16]}…)"
        )
        digests.append(view.sha256)
    return digests


def _core(application: Any, models: Any, broker: Any = None) -> Any:
    """Norbi over the app's home, with the models `alicorn.core.access.choose_models` gave (None: no model), and
    the job broker its runs are submitted to (None: Core drives them in this process)."""
    from alicorn.core.norbi import Norbi
    from alicorn.packs.catalog import bundled_workflows

    return Norbi(application, bundled_workflows(), models=models, workdir=Path.cwd(), broker=broker)
