"""`alicorn serve` and `alicorn tokens create|list|revoke`. Like the rest of the CLI this module imports only typer
at its top; each command imports what it needs, so `alicorn --help` stays fast."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

HomeOption = Annotated[
    Path, typer.Option("--home", envvar="ALICORN_HOME", help="Alicorn's home: journal.db and workspaces/.")
]
AsOption = Annotated[
    str | None, typer.Option("--as", help="Optional: your name, which must be the OS user running this.")
]


def register(app: typer.Typer, *, open_app: Callable[..., Any], guard: Callable[..., Any]) -> None:
    """Add the service's commands to `app` (the helpers come from alicorn.cli)."""
    tokens_app = typer.Typer(no_args_is_help=True, help="API tokens for programs using `alicorn serve`.")
    app.add_typer(tokens_app, name="tokens")

    def admin(application: Any, who: str | None, doing: str) -> Any:
        from alicorn.anvil.people import authenticate

        me, enrolled = authenticate(application.people, who, role="admin", doing=doing)
        if enrolled:
            typer.echo(f"{me} is this home's first person: enrolled as admin (`alicorn people list`)", err=True)
        return me

    def people_now(home: Path) -> set[str]:
        """The ids of the home's people as they stand, read without creating or changing anything (none when the
        home has no journal yet)."""
        from alicorn.config import load_config

        if load_config(home).journal_url is None and not (home / "journal.db").exists():
            return set()
        return set(open_app(home, read_only=True).people.roster().people)

    @app.command()
    @guard
    def serve(
        home: HomeOption = Path(".alicorn"),
        host: Annotated[str, typer.Option(help="The address to listen on (loopback by default).")] = "127.0.0.1",
        port: Annotated[int, typer.Option(min=1, max=65535, help="The TCP port.")] = 8700,
        workers: Annotated[
            int, typer.Option(min=1, max=64, help="Threads advancing conversations and runs (a bounded pool).")
        ] = 2,
        model: Annotated[
            str, typer.Option("--model", help="Core's models, as `alicorn ask --model`: auto|recorded|none|PROFILE.")
        ] = "auto",
        queue: Annotated[
            bool,
            typer.Option(
                "--queue",
                help="Submit Core's runs as jobs for `alicorn worker` processes (any machine sharing the journal) "
                "instead of driving them in this service.",
            ),
        ] = False,
    ) -> None:
        """Serve the HTTP API (/api/v1, docs at /docs) over this home's journal until interrupted."""
        import uvicorn

        from alicorn.clock import default_clock
        from alicorn.core.access import UnknownModelChoiceError, choose_models
        from alicorn.service.app import create_app
        from alicorn.service.listen import listening_socket

        try:  # a bad --model or a broken models.toml refuses to start, before anything is journaled
            choose_models(model, home)
        except UnknownModelChoiceError as exc:
            raise typer.BadParameter(str(exc)) from None
        # The address is bound before the home is opened: a port in use or a bad --host refuses the command before
        # the service creates its files or resumes the home's interrupted runs.
        sock = listening_socket(host, port)
        try:
            api = create_app(home, clock=default_clock(), workers=workers, models=model, queue=queue)
            shown = f"[{host}]" if ":" in host else host
            typer.echo(f"alicorn serve: http://{shown}:{port}/docs (Ctrl-C stops it)", err=True)
            server = uvicorn.Server(uvicorn.Config(api, host=host, port=port, log_level="warning"))
            # uvicorn stops gracefully on Ctrl-C, then raises it again: it ends the command quietly, as uvicorn.run
            with contextlib.suppress(KeyboardInterrupt):
                server.run(sockets=[sock])
        finally:
            sock.close()

    @tokens_app.command("create")
    @guard
    def tokens_create(
        person: Annotated[str, typer.Option("--person", help="The person the token acts for (`alicorn people`).")],
        scope: Annotated[str, typer.Option(help="read | write")] = "read",
        expires: Annotated[int | None, typer.Option("--expires", help="Days until it stops working.")] = None,
        home: HomeOption = Path(".alicorn"),
        who: AsOption = None,
    ) -> None:
        """Create a token (an admin only); it is printed once, and only its SHA-256 is stored."""
        from alicorn.anvil.identity import acting_human
        from alicorn.clock import default_clock
        from alicorn.service.tokens import Tokens, check_request, not_enrolled

        # Everything that can be refused is refused before the home is opened for writing, where a new home
        # enrols the OS user as its first admin: the caller may be enrolled by this command, anyone else must be
        # one of the home's people already.
        target = check_request(person, scope=scope, expires_days=expires)
        if target != acting_human(who) and target.id not in people_now(home):
            raise not_enrolled(target)
        application = open_app(home, create=True)
        me = admin(application, who, "create API tokens")
        made = Tokens(application.people, default_clock()).create(person, scope=scope, expires_days=expires, by=me)
        record = made.record
        until = f"expires {record.expires_at}" if record.expires_at else "does not expire"
        typer.echo(f"token {record.id} for {record.person} ({record.scope}; {until}); shown once, keep it:", err=True)
        typer.echo(made.token)

    @tokens_app.command("list")
    @guard
    def tokens_list(
        home: HomeOption = Path(".alicorn"), as_json: Annotated[bool, typer.Option("--json")] = False
    ) -> None:
        """The home's tokens: id, person, scope, state (read-only; never a secret or a hash)."""
        from alicorn.clock import default_clock
        from alicorn.service.tokens import Tokens

        clock = default_clock()
        rows: list[dict[str, object]] = []
        if (home / "journal.db").exists():
            tokens = Tokens(open_app(home, read_only=True).people, clock).current().tokens.values()
            rows = [t.to_json(clock.now()) for t in sorted(tokens, key=lambda t: (t.created_at, t.id))]
        if as_json:
            typer.echo(json.dumps(rows, indent=2))
            return
        if not rows:
            typer.echo("no tokens yet; `alicorn tokens create --person NAME` makes one")
        for row in rows:
            until = f", expires {row['expires_at']}" if row["expires_at"] else ""
            typer.echo(f"{row['id']}  {row['person']}  {row['scope']}  {row['state']}{until}")

    @tokens_app.command("revoke")
    @guard
    def tokens_revoke(
        token_id: Annotated[str, typer.Argument(help="The token's id (`alicorn tokens list`).")],
        home: HomeOption = Path(".alicorn"),
        who: AsOption = None,
    ) -> None:
        """Revoke a token (an admin only): it never works again."""
        from alicorn.clock import default_clock
        from alicorn.service.tokens import Tokens

        application = open_app(home)
        me = admin(application, who, "revoke API tokens")
        record = Tokens(application.people, default_clock()).revoke(token_id, by=me)
        typer.echo(f"revoked token {record.id} of {record.person} at {record.revoked_at}")
