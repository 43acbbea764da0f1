"""`alicorn memory add|search|show|forget|graph|relate` and `alicorn mcp serve`.

Only typer and the standard library are imported here; the store, numpy and the embedder load inside commands,
so `alicorn --help` stays fast. Writes from the command line are the operator's (provenance `cli:<user>`).
"""

from __future__ import annotations

import functools
import getpass
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

if TYPE_CHECKING:
    from alicorn.memory.store import MemoryStore

memory_app = typer.Typer(no_args_is_help=True, help="Pegas Memory: remember, search and relate a project's knowledge.")
mcp_app = typer.Typer(no_args_is_help=True, help="Serve Alicorn's knowledge (project memory) over MCP.")

Home = Annotated[Path, typer.Option("--home", envvar="ALICORN_HOME", help="Alicorn's home (memory.db, journal.db).")]
Store = Annotated[
    str | None,
    typer.Option(
        "--store", envvar="ALICORN_MEMORY", help="A memory store: a file, or postgresql://... (default HOME/memory.db)."
    ),
]
Project = Annotated[str, typer.Option("--project", "-p", envvar="ALICORN_PROJECT", help="The project (memory scope).")]
EmbedderOpt = Annotated[
    str | None,
    typer.Option(
        "--embedder",
        help="For a new store: e5 (default: multilingual, offline), hashing, or openai (--embed-url, --embed-model).",
    ),
]
EmbedUrl = Annotated[str, typer.Option("--embed-url", help="OpenAI-compatible endpoint, ending in /v1.")]
EmbedModel = Annotated[str, typer.Option("--embed-model", help="Model name for --embedder openai.")]
EmbedDim = Annotated[int, typer.Option("--embed-dim", help="Vector dimension (hashing, openai).")]
Journal = Annotated[bool, typer.Option("--journal/--no-journal", help="Journal changes in HOME/journal.db.")]
AsJson = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]


def _fail(message: str, code: int = 1) -> NoReturn:
    from rich.console import Console
    from rich.markup import escape

    # Escaped: messages quote paths and values, which are not markup.
    Console(stderr=True).print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def _guard(fn: Any) -> Any:
    """Alicorn's errors become a clear message and exit code 1 (the store is unchanged: writes are transactions);
    failures of the environment (disk full, I/O error, permission denied, read-only filesystem, a locked or damaged
    database) a sentence naming the file and exit code 5, as everywhere in the command line."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        import sqlite3

        from pydantic import ValidationError

        from alicorn.errors import AlicornError, environment_failure

        try:
            return fn(*args, **kwargs)
        except (AlicornError, OSError, sqlite3.Error) as exc:
            home, store = kwargs.get("home"), kwargs.get("store")
            where = store if isinstance(store, str) and "://" not in store else None
            if where is None and isinstance(home, Path):
                where = str(home / "memory.db")
            failure = environment_failure(exc, path=where)
            if failure is not None:
                _fail(str(failure), 5)
            if not isinstance(exc, AlicornError):
                raise
            _fail(str(exc))
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            _fail(f"invalid input: {problems}; nothing was written", 2)

    return wrapper


def _time(text: str | None, option: str) -> datetime | None:
    """ISO 8601 date or time; without a zone it is UTC."""
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        _fail(f"{option} {text!r} is not an ISO 8601 date or time (e.g. 2025-03-14 or 2025-03-14T08:00:00+01:00)", 2)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _check_store(store: str | None) -> None:
    """Refuse a --store file whose folder does not exist (a mistyped path), before anything is opened: opening it
    would create every missing folder of the path."""
    if store is None or "://" in store:
        return
    folder = Path(store).expanduser().parent
    if not folder.exists():
        _fail(
            f"--store {store}: the folder {folder} does not exist; create it first or fix --store; nothing was written"
        )
    if not folder.is_dir():
        _fail(f"--store {store}: {folder} is a file, not a folder; fix --store; nothing was written")


def _read(file: Path) -> str:
    """The --file to remember, as UTF-8 text; a clear refusal (or the environment's failure) otherwise."""
    from alicorn.errors import environment_failure

    try:
        return file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        _fail(f"--file {file} is not UTF-8 text (byte {exc.start}: {exc.reason}); nothing was written")
    except OSError as exc:
        failure = environment_failure(exc, path=file)
        if failure is not None:
            raise failure from None
        _fail(f"cannot read --file {file}: {exc.strerror or exc}; nothing was written")


def _open(
    home: Path, store: str | None, project: str, journal: bool = False, *, existing: bool = False, **embed: Any
) -> MemoryStore:
    """The memory store; a command that reads or changes what is there (`existing`) never creates one: a missing
    file is refused."""
    from alicorn.memory.open import open_memory

    _check_store(store)
    location = store or str(home / "memory.db")
    if existing and "://" not in location and not Path(location).expanduser().exists():
        _fail(
            f"no memory at {location} yet: nothing to read or change, and nothing was created; remember something "
            "first (`alicorn memory add …`) or check --home or --store"
        )
    embedder = _embedder(**embed) if embed.get("kind") else None
    journal_store = None
    if journal:
        from alicorn.journal.sqlite import SQLiteStore

        journal_store = SQLiteStore(home / "journal.db")
    return open_memory(location, project=project, embedder=embedder, journal=journal_store)


def _embedder(kind: str, url: str = "", model: str = "", dim: int = 384) -> Any:
    from alicorn.memory.embedders import E5Embedder, HashingEmbedder, OpenAIEmbedder

    if kind == "e5":
        return E5Embedder()
    if kind == "hashing":
        return HashingEmbedder(dim)
    if kind == "openai":
        if not url or not model:
            _fail("--embedder openai needs --embed-url (ending in /v1) and --embed-model", 2)
        return OpenAIEmbedder(url, model, dim, api_key_env="OPENAI_API_KEY")
    _fail(f"unknown embedder {kind!r}; choose e5, hashing or openai", 2)


def _operator(source: str | None) -> Any:
    from alicorn.memory.models import Provenance

    return Provenance(origin="operator", ref=source or f"cli:{getpass.getuser()}")


@memory_app.command()
@_guard
def add(
    text: Annotated[str | None, typer.Argument(help="What to remember (or use --file).")] = None,
    file: Annotated[Path | None, typer.Option("--file", help="A text file, stored as document chunks.")] = None,
    kind: Annotated[str, typer.Option(help="fact | episode | chunk | entity")] = "fact",
    key: Annotated[
        str | None, typer.Option(help="The slot a fact fills; same key + other text = contradiction.")
    ] = None,
    name: Annotated[str | None, typer.Option(help="The entity's name (with --kind entity).")] = None,
    entity: Annotated[list[str] | None, typer.Option("--entity", "-e", help="An entity the record is about.")] = None,
    tag: Annotated[list[str] | None, typer.Option("--tag", "-t")] = None,
    trust: Annotated[str, typer.Option(help="data | instruction (only operator content may be instruction).")] = "data",
    classification: Annotated[str, typer.Option(help="public | internal | confidential | secret")] = "internal",
    valid_from: Annotated[str | None, typer.Option(help="When it became true (ISO 8601).")] = None,
    valid_to: Annotated[str | None, typer.Option(help="When it stops being true (ISO 8601).")] = None,
    source: Annotated[str | None, typer.Option(help="Provenance reference (default cli:<user>).")] = None,
    supersede: Annotated[bool, typer.Option(help="Invalidate the valid facts with the same key.")] = False,
    home: Home = Path(".alicorn"),
    store: Store = None,
    project: Project = "default",
    embedder: EmbedderOpt = None,
    embed_url: EmbedUrl = "",
    embed_model: EmbedModel = "",
    embed_dim: EmbedDim = 384,
    journal: Journal = True,
    as_json: AsJson = False,
) -> None:
    """Remember something (write gating: near-duplicates merge, contradictions are recorded)."""
    from alicorn.memory.models import NewRecord

    if (text is None) == (file is None):
        _fail("give the text to remember, or --file PATH (not both)", 2)
    # The input is read and checked before the store (or the home) is opened: a refusal creates no file.
    content = _read(file) if file is not None else None
    draft = None
    if content is None:
        draft = NewRecord.model_validate(
            {
                "text": text,
                "kind": kind,
                "key": key,
                "name": name if name is not None else (text if kind == "entity" else None),
                "entities": entity or [],
                "tags": tag or [],
                "trust": trust,
                "classification": classification,
                "valid_from": _time(valid_from, "--valid-from"),
                "valid_to": _time(valid_to, "--valid-to"),
                "provenance": _operator(source),
            }
        )
    memory = _open(home, store, project, journal, kind=embedder, url=embed_url, model=embed_model, dim=embed_dim)
    with memory:
        if draft is None:
            assert file is not None and content is not None  # read above
            results = memory.add_document(
                content, provenance=_operator(source or f"file:{file}"), title=file.name, tags=tag or ()
            )
        else:
            results = [memory.add(draft, supersede=supersede)]
    if as_json:
        typer.echo(json.dumps([r.model_dump(mode="json") for r in results], ensure_ascii=False, indent=2))
        return
    for result in results:
        record = result.record
        if result.status == "merged":
            typer.echo(f"merged into {record.id} (a near-duplicate; it now has {len(record.sources)} sources)")
        else:
            typer.echo(f"added {record.id} ({record.kind}, {record.trust}, {record.classification}) to {project}")
        for other in result.contradicts:
            verb = "superseded (now invalid)" if other in result.superseded else "kept; both are valid"
            typer.echo(
                f"  contradicts {other} (same key {record.key!r}): {verb}. `alicorn memory forget {other}` if it is "
                "no longer true."
            )


@memory_app.command()
@_guard
def search(
    query: Annotated[str, typer.Argument(help="What to look for (any language).")],
    k: Annotated[int, typer.Option("-k", min=1, max=1000)] = 10,
    kind: Annotated[list[str] | None, typer.Option("--kind")] = None,
    tag: Annotated[list[str] | None, typer.Option("--tag", "-t")] = None,
    at: Annotated[str | None, typer.Option(help="Records true at this time (default now).")] = None,
    as_of: Annotated[str | None, typer.Option(help="As the store knew at this time (default now).")] = None,
    include_invalid: Annotated[bool, typer.Option(help="Also records no longer (or not yet) valid.")] = False,
    expand: Annotated[int, typer.Option(min=0, max=3, help="Add graph neighbours of the hits.")] = 0,
    mode: Annotated[str, typer.Option(help="hybrid | vector | text")] = "hybrid",
    home: Home = Path(".alicorn"),
    store: Store = None,
    project: Project = "default",
    as_json: AsJson = False,
) -> None:
    """Hybrid search (meaning + words) of the project's memory."""
    from alicorn.memory.models import Filters

    filters = Filters.model_validate(
        {
            "kinds": kind or [],
            "tags": tag or [],
            "valid_at": _time(at, "--at"),
            "as_of": _time(as_of, "--as-of"),
            "include_invalid": include_invalid,
        }
    )
    with _open(home, store, project, existing=True) as memory:
        result = memory.search(query, k=k, filters=filters, expand=expand, mode=mode)  # type: ignore[arg-type]
    if as_json:
        typer.echo(json.dumps(result.model_dump(mode="json"), ensure_ascii=False, indent=2))
        return
    from alicorn.memory.render import print_hits

    print_hits(result)


@memory_app.command()
@_guard
def show(
    record_id: Annotated[str, typer.Argument(help="A record id (m-...) or an entity name.")],
    home: Home = Path(".alicorn"),
    store: Store = None,
    project: Project = "default",
    as_json: AsJson = False,
) -> None:
    """A record with its sources, validity, contradictions, relations and history."""
    from alicorn.memory.render import print_record

    with _open(home, store, project, existing=True) as memory:
        graph = memory.neighbours(record_id, depth=1)
        record = memory.get(graph.start)
        history = memory.history(record.id)
    if as_json:
        data = {
            "record": record.model_dump(mode="json"),
            "relations": [e.model_dump(mode="json") for e in graph.edges],
            "history": [h.model_dump(mode="json") for h in history],
        }
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    print_record(record, graph, history)


@memory_app.command()
@_guard
def forget(
    record_id: Annotated[str, typer.Argument(help="The record that stopped being true.")],
    reason: Annotated[str, typer.Option(help="Why (kept in the history).")],
    from_: Annotated[str | None, typer.Option("--from", help="Since when (ISO 8601; default now).")] = None,
    home: Home = Path(".alicorn"),
    store: Store = None,
    project: Project = "default",
    journal: Journal = True,
) -> None:
    """Mark a record as no longer true from a time. Nothing is deleted: searches of earlier times still see it."""
    with _open(home, store, project, journal, existing=True) as memory:
        record = memory.invalidate(record_id, by=_operator(None), reason=reason, at=_time(from_, "--from"))
    when = record.invalid_from.isoformat() if record.invalid_from else "now"
    typer.echo(
        f"{record.id} is no longer valid from {when}: it no longer appears in searches of the present, and is kept "
        f"with its history (`alicorn memory show {record.id}`; `alicorn memory search ... --at TIME` sees the past)."
    )


@memory_app.command()
@_guard
def relate(
    source: Annotated[str, typer.Argument(help="An entity name or record id.")],
    type_: Annotated[str, typer.Argument(metavar="TYPE", help="The relation (works_at, mentions, part_of ...).")],
    target: Annotated[str, typer.Argument(help="An entity name or record id.")],
    ref: Annotated[str | None, typer.Option("--source-ref", help="Provenance reference (default cli:<user>).")] = None,
    home: Home = Path(".alicorn"),
    store: Store = None,
    project: Project = "default",
    journal: Journal = True,
) -> None:
    """Relate two entities (or records); names not known yet become entities."""
    from alicorn.memory.models import NewRelation

    with _open(home, store, project, journal) as memory:
        edge = memory.relate(NewRelation(source=source, type=type_, target=target, provenance=_operator(ref)))
    typer.echo(f"related {source} -{edge.type}-> {target} ({edge.source} -> {edge.target}, relation {edge.id})")


@memory_app.command()
@_guard
def graph(
    node: Annotated[str, typer.Argument(help="An entity name or record id.")],
    to: Annotated[str | None, typer.Option("--to", help="Find a shortest path to this node instead.")] = None,
    depth: Annotated[int, typer.Option(min=0, max=6, help="Steps (neighbourhood) or the longest path.")] = 2,
    type_: Annotated[list[str] | None, typer.Option("--type", help="Only these relation types.")] = None,
    home: Home = Path(".alicorn"),
    store: Store = None,
    project: Project = "default",
    as_json: AsJson = False,
) -> None:
    """The neighbourhood of an entity, or (with --to) a shortest path between two."""
    from alicorn.memory.render import print_graph, print_path

    with _open(home, store, project, existing=True) as memory:
        if to is None:
            found = memory.neighbours(node, depth=depth, types=type_ or ())
            if as_json:
                typer.echo(json.dumps(found.model_dump(mode="json"), ensure_ascii=False, indent=2))
            else:
                print_graph(found)
            return
        route = memory.path(node, to, max_depth=depth, types=type_ or ())
    if as_json:
        typer.echo(json.dumps(None if route is None else route.model_dump(mode="json"), ensure_ascii=False, indent=2))
    elif route is None:
        _fail(f"no path from {node!r} to {to!r} within {depth} steps over relations valid now")
    else:
        print_path(route)


@mcp_app.command("serve")
@_guard
def mcp_serve(
    transport: Annotated[
        str, typer.Option(help="stdio (a client starts this process) or http (streamable HTTP).")
    ] = "stdio",
    host: Annotated[str, typer.Option(help="Address for http (keep it on loopback unless you mean it).")] = "127.0.0.1",
    port: Annotated[
        int, typer.Option(min=1, max=65535, help="Port for http; the endpoint is http://HOST:PORT/mcp.")
    ] = 8765,
    home: Home = Path(".alicorn"),
    store: Store = None,
    project: Project = "default",
    journal: Journal = True,
) -> None:
    """Serve one project's memory as MCP tools: search, add, neighbours, path, relate."""
    if transport not in ("stdio", "http"):
        _fail(f"unknown transport {transport!r}; choose stdio or http", 2)
    from alicorn.memory.mcp_server import serve

    with _open(home, store, project, journal) as memory:
        serve(memory, transport="stdio" if transport == "stdio" else "http", host=host, port=port)
