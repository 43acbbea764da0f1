"""`alicorn trace RUN`: a run's (or a conversation's) spans as a waterfall, as JSON, sent to a collector, or
loaded into ClickHouse. Like the rest of the CLI this module imports only typer at its top."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

HomeOption = Annotated[
    Path, typer.Option("--home", envvar="ALICORN_HOME", help="Alicorn's home: journal.db and workspaces/.")
]


def register(app: typer.Typer, *, open_app: Callable[..., Any], guard: Callable[..., Any]) -> None:
    """Add `alicorn trace` to `app` (the helpers come from alicorn.cli)."""

    @app.command("trace")
    @guard
    def trace_command(
        stream: Annotated[str, typer.Argument(help="A run id (see `alicorn runs`) or a conversation id.")],
        home: HomeOption = Path(".alicorn"),
        as_json: Annotated[bool, typer.Option("--json", help="Print the spans as JSON instead.")] = False,
        export: Annotated[
            bool, typer.Option("--export", help="Send the spans (and metrics) to an OTLP/HTTP collector.")
        ] = False,
        endpoint: Annotated[
            str | None,
            typer.Option(
                "--endpoint",
                help="The collector's base URL (default: [observe] endpoint in alicorn.toml, else "
                "OTEL_EXPORTER_OTLP_ENDPOINT).",
            ),
        ] = None,
        content: Annotated[
            bool, typer.Option("--content", help="Reference prompts and outputs (STREAM#SEQ) from the spans.")
        ] = False,
        timeout: Annotated[
            float, typer.Option("--timeout", min=0.1, max=120, help="Seconds to wait for the collector.")
        ] = 5.0,
        clickhouse: Annotated[
            Path | None,
            typer.Option("--clickhouse", help="Load the spans into an embedded ClickHouse (chdb) at this folder."),
        ] = None,
    ) -> None:
        """A run's spans, derived from its journal: model calls, tool steps, policy decisions, effects."""
        from alicorn.observe.errors import ObserveError
        from alicorn.observe.export import trace
        from alicorn.observe.settings import read_settings
        from alicorn.observe.waterfall import as_json as spans_json
        from alicorn.observe.waterfall import print_waterfall

        target, settings = None, None
        if export:  # the settings are checked before the journal is opened: a bad URL changes and opens nothing
            from alicorn.observe.endpoint import endpoint_url

            settings = read_settings(home)
            target = endpoint or settings.endpoint
            if target is None:
                raise ObserveError(
                    "--export needs a collector: pass --endpoint URL, set [observe] endpoint in alicorn.toml or "
                    "OTEL_EXPORTER_OTLP_ENDPOINT"
                )
            endpoint_url(target)
        if clickhouse is not None:  # checked before the journal is opened, like the collector's URL
            _check_folder(clickhouse)
        application = open_app(home, read_only=True)
        found = trace(application.store, stream, content=content)
        if as_json:
            typer.echo(json.dumps(spans_json(found), ensure_ascii=False, indent=2))
        elif not export and clickhouse is None:
            print_waterfall(found)
        if target is not None and settings is not None:
            from alicorn.errors import EnvironmentFailure
            from alicorn.observe.export import export_trace

            try:
                sent = export_trace(
                    found,
                    target,
                    timeout_s=timeout,
                    compression=settings.compression,
                    metrics_compression=settings.metrics_compression,
                )
            except ObserveError as exc:
                # The URL and the settings were checked above: what fails now is the collector (down, or refusing),
                # a fault of the environment (exit 5), not of the input.
                raise EnvironmentFailure(str(exc)) from exc
            typer.echo(f"sent {sent} span(s) of {stream} to {target}", err=as_json)
        if clickhouse is not None:
            from alicorn.observe import clickhouse as ch

            try:
                db = ch.connect(str(clickhouse))
            except RuntimeError as exc:  # chdb's engine could not start there: its first line says why
                from alicorn.errors import EnvironmentFailure

                why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                raise EnvironmentFailure(
                    f"the embedded ClickHouse could not open {clickhouse} ({why[:300]}); check that you may "
                    "write to that folder; nothing was loaded",
                    path=clickhouse,
                ) from exc
            try:
                written = ch.load(db, found.spans)
            finally:
                db.close()
            typer.echo(
                f"loaded {written} span(s) of {stream} into {clickhouse} ({ch.DATABASE}.{ch.TABLE})", err=as_json
            )


def _check_folder(folder: Path) -> None:
    """`--clickhouse` names a folder that exists, or one the engine may create in a folder that exists: a file is
    refused, and so is a mistyped path whose missing folders the engine would otherwise all create."""
    from alicorn.observe.errors import ObserveError

    if folder.exists() and not folder.is_dir():
        raise ObserveError(f"--clickhouse {folder} is a file; give a folder (an existing one, or a new one to create)")
    parent = folder.absolute().parent
    if not folder.exists() and not parent.is_dir():
        if parent.exists():
            raise ObserveError(f"{parent} is a file, not a folder; fix --clickhouse")
        raise ObserveError(f"{parent} does not exist; create it first or fix --clickhouse")
