"""`alicorn models`: list profiles, explain routing, classify an utterance. Built lazily by `alicorn.cli`; heavy
modules are imported inside the commands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

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


def _fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(1)


def _profiles(profiles: Path | None, home: Path) -> ProfileSet:
    return _profiles_from(profiles, home)[0]


def _profiles_from(profiles: Path | None, home: Path) -> tuple[ProfileSet, str]:
    """The profile set the options name, and where it came from (for errors)."""
    from alicorn.models.defaults import default_profiles
    from alicorn.models.profiles import load_profiles

    path = profiles if profiles is not None else home / "models.toml"
    if profiles is None and not path.exists():
        return default_profiles(), "the built-in profiles (no models.toml in the home)"
    return load_profiles(path), str(path)


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
        model: Annotated[
            str | None, typer.Option("--model", help="A profile forced for every role, as `alicorn ask --model`.")
        ] = None,
        allow_external: Annotated[bool, typer.Option(help="This project's policy allows external providers.")] = False,
        justification: Annotated[str | None, typer.Option(help="Why an external model's quality is needed.")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="The record `model.routed` would journal.")] = False,
    ) -> None:
        """Explain which profile ROLE gets, decided as `alicorn ask` decides it (a profile forced by --model or
        pinned by the profile file's [roles], else the router's pick), and why each other profile was not picked."""
        from alicorn.core.access import profile_models
        from alicorn.core.routing import decide, routed_record
        from alicorn.models.errors import ModelError
        from alicorn.models.router import RoutingPolicy, requirements_for

        try:
            need = requirements_for(role, languages=language)
            loaded, where = _profiles_from(profiles, home)
            known = [p.id for p in loaded.profiles]
            if model is not None and model not in known:  # `ask` also takes auto | local | recorded | none here
                _fail(f"--model {model!r}: no such profile in {where}; known profiles: {', '.join(known)}")
            policy = RoutingPolicy(allow_external=allow_external, justification=justification)
            models = profile_models(loaded, where, force=model, policy=policy)
        except ModelError as exc:
            _fail(str(exc))
            return
        decision, reason = decide(models, need)
        if as_json:
            typer.echo(json.dumps(routed_record(models, decision, reason), indent=2, ensure_ascii=False))
            if decision.pick is None:
                raise typer.Exit(1)
            return
        if decision.pick is not None:
            typer.echo(decision.explain())
            return
        pinned = models.imposed(role)
        fix = (
            f"make {pinned} usable here, or remove `{role} = {pinned!r}` from [roles] in {where}"
            if pinned is not None
            else "add a local profile that meets the requirements, or allow external providers with a justification"
        )
        _fail(f"no model profile may be used for role {role!r}:\n{decision.explain()}\n{fix}")

    @models_app.command("classify")
    def models_classify(
        text: Annotated[str, typer.Argument(help="An utterance (English, Polish, Russian...).")],
        local: Annotated[bool, typer.Option(help="Also ask the bundled local model (the 'local' extra).")] = False,
    ) -> None:
        """Classify TEXT: kind, language, forbidden effects, and which signal decided each."""
        from alicorn.models.errors import ModelError
        from alicorn.models.intent.classifier import IntentClassifier

        if not text.strip():
            _fail("the request is empty; say what you want done")
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
