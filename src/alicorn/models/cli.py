"""`alicorn models`: list profiles, explain routing, classify an utterance. Built lazily by `alicorn.cli`; heavy
modules are imported inside the commands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from alicorn.models.profiles import ProfileSet

ProfilesOption = Annotated[
    Path | None,
    typer.Option(
        "--profiles",
        envvar="ALICORN_MODELS",
        help="A profile file (TOML or JSON); default: <home>/models.toml if present, else the built-in profiles.",
    ),
]
HomeOption = Annotated[Path, typer.Option("--home", envvar="ALICORN_HOME", help="Alicorn's home directory.")]


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(1)


def _profiles(profiles: Path | None, home: Path) -> ProfileSet:
    from alicorn.models.defaults import default_profiles
    from alicorn.models.profiles import load_profiles

    path = profiles if profiles is not None else home / "models.toml"
    if profiles is None and not path.exists():
        return default_profiles()
    return load_profiles(path)


def build_models_app() -> typer.Typer:
    """The `alicorn models` sub-app."""
    models_app = typer.Typer(
        no_args_is_help=False,
        invoke_without_command=True,
        help="Model profiles, routing decisions and intent classification.",
    )

    @models_app.callback(invoke_without_command=True)
    def models_list(
        ctx: typer.Context,
        profiles: ProfilesOption = None,
        home: HomeOption = Path(".alicorn"),
        as_json: Annotated[bool, typer.Option("--json", help="The validated profiles as JSON.")] = False,
    ) -> None:
        """List the model profiles (abilities, limits, location, privacy)."""
        if ctx.invoked_subcommand is not None:
            return
        from alicorn.models.errors import ModelError

        try:
            loaded = _profiles(profiles, home)
        except ModelError as exc:
            _fail(str(exc))
            return
        if as_json:
            typer.echo(json.dumps([p.model_dump(mode="json") for p in loaded.profiles], indent=2, ensure_ascii=False))
            return
        from rich.console import Console
        from rich.table import Table

        table = Table(title="model profiles")
        for column in ("id", "provider", "location", "languages", "reason/code", "context", "structured", "privacy"):
            table.add_column(column)
        for p in loaded.profiles:
            table.add_row(
                p.id,
                p.provider,
                p.location,
                ",".join(p.languages),
                f"{p.reasoning}/{p.code}",
                str(p.context_length),
                p.structured_output,
                p.privacy,
            )
        Console().print(table)

    @models_app.command("route")
    def models_route(
        role: Annotated[str, typer.Argument(help="planner | executor | researcher | decision | classifier | …")],
        profiles: ProfilesOption = None,
        home: HomeOption = Path(".alicorn"),
        language: Annotated[
            list[str] | None, typer.Option("--language", "-l", help="Languages the role needs.")
        ] = None,
        allow_external: Annotated[bool, typer.Option(help="This project's policy allows external providers.")] = False,
        justification: Annotated[str | None, typer.Option(help="Why an external model's quality is needed.")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="The full decision record as JSON.")] = False,
    ) -> None:
        """Explain which profile the router picks for ROLE, and why each other profile was not picked."""
        from alicorn.models.errors import ModelError, RoutingError
        from alicorn.models.router import RoutingPolicy, requirements_for, route

        try:
            loaded = _profiles(profiles, home)
            need = requirements_for(role, languages=language)
            policy = RoutingPolicy(allow_external=allow_external, justification=justification)
            decision = route(need, loaded.profiles, policy=policy)
        except RoutingError as exc:
            if exc.decision is not None and as_json:
                typer.echo(exc.decision.model_dump_json(indent=2))
                raise typer.Exit(1) from None
            _fail(str(exc))
            return
        except ModelError as exc:
            _fail(str(exc))
            return
        typer.echo(decision.model_dump_json(indent=2) if as_json else decision.explain())

    @models_app.command("classify")
    def models_classify(
        text: Annotated[str, typer.Argument(help="An utterance (English, Polish, Russian...).")],
        local: Annotated[bool, typer.Option(help="Also ask the bundled local model (the 'local' extra).")] = False,
    ) -> None:
        """Classify TEXT: kind, language, forbidden effects, and which signal decided each."""
        from alicorn.models.errors import ModelError
        from alicorn.models.intent.classifier import IntentClassifier

        client = None
        if local:
            from alicorn.models.defaults import default_profiles
            from alicorn.models.providers import provider_for
            from alicorn.models.recorder import ModelClient

            try:
                profile = default_profiles().get("smollm2-135m")
                client = ModelClient(profile, provider_for(profile))  # llama.cpp in a child process
            except ModelError as exc:
                _fail(str(exc))
        result = IntentClassifier(client).classify(text)
        typer.echo(result.model_dump_json(indent=2))

    return models_app
