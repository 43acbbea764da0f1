"""Wiring: the one place where a journal, a registry, Anvil and an environment are put together (no singletons)."""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from alicorn.config import Config, ConfigError, load_config, load_operations
from alicorn.errors import AlicornError
from alicorn.journal.sqlite import SQLiteStore
from alicorn.journal.store import JournalStore
from alicorn.secrets import home_secrets

# The registry (every pack's operations and pydantic models), Anvil (Cedar) and the executor are imported where they
# are first used, so the commands that only read the journal (`alicorn runs`, `show`, `journal`, `verify`) start fast.
if TYPE_CHECKING:
    from alicorn.anvil.labels import Classification, DataLabels
    from alicorn.anvil.people import People
    from alicorn.anvil.service import Anvil
    from alicorn.anvil.terms import RunTerms
    from alicorn.mcp.importer import McpImport
    from alicorn.observe.export import LiveExport
    from alicorn.ops.registry import Operation, Registry
    from alicorn.runtime.executor import Durability, EventListener, Executor
    from alicorn.runtime.state import RunState

DEFAULT_HOME = Path(".alicorn")


@dataclass
class App:
    """An Alicorn home directory: `journal.db` (the journal) and `workspaces/RUN/` (files runs write)."""

    home: Path
    #: The journal: the home's SQLite file, or the PostgreSQL database `[journal] url` names.
    store: JournalStore
    #: The operations: a Registry, or how to build one (a read-only open builds it only if a command asks).
    operations: Registry | Callable[[], Registry]
    config: Config = field(default_factory=Config)
    #: The external MCP servers' sessions and tools (None when alicorn.toml names none: nothing was started).
    mcp: McpImport | None = None
    #: Live trace export (alicorn.observe), when alicorn.toml or OTEL_EXPORTER_OTLP_ENDPOINT turns it on.
    live_export: LiveExport | None = None

    def __post_init__(self) -> None:
        if not callable(self.operations):  # opened to work: Anvil is built now, before any thread asks for it
            self.anvil  # noqa: B018

    @functools.cached_property
    def registry(self) -> Registry:
        """The home's operations, built on first use when the app was opened with a way to build them."""
        from alicorn.ops.registry import Registry

        return self.operations if isinstance(self.operations, Registry) else self.operations()

    @functools.cached_property
    def anvil(self) -> Anvil:
        """Anvil over this home (its Cedar policies are compiled only when a decision needs them)."""
        from alicorn.anvil.service import Anvil

        return Anvil(self.store, self.registry, self.config.anvil, self.config.data, home=self.home.resolve())

    @property
    def people(self) -> People:
        """The home's people and roles (`control:people`), whose keys sign every human decision."""
        from alicorn.anvil.people import People

        return People(self.store, self.home.resolve() / "keys")

    @property
    def workspaces(self) -> Path:
        return self.home / "workspaces"

    def artifacts(self, project: str) -> Path:
        """Where `project`'s attachments are stored: each project has its own store, so a request in one project
        can never name (by digest) a file attached in another."""
        return artifact_root(self.home, project)

    def executor(
        self,
        data_root: Path,
        *,
        max_parallel: int = 4,
        on_events: EventListener | None = None,
        durability: Durability | None = None,
    ) -> Executor:
        """An executor over this home: Anvil's live gate, and reputations settled whenever a run finishes.

        The contents of the files under `data_root` that its labels (`data_labels`) classify secret become known
        secrets of the journal (redacted from every event), whether or not a run reads them. Over data Core staged,
        every run it starts is classified by those labels too, so a staged copy is what its original is."""
        from alicorn.runtime.executor import DEFAULT_DURABILITY, Executor, RunEnvironment
        from alicorn.secrets import labelled_file_secrets

        labels = self.data_labels(data_root)
        self.store.secrets = self.store.secrets.merged(labelled_file_secrets(data_root.resolve(), labels))
        environment = RunEnvironment(
            self.workspaces.resolve(), data_root.resolve(), max_parallel=max_parallel, hidden=(self.home.resolve(),)
        )
        # a run started without terms of its own classifies staged data as its originals are (Core passes its own
        # terms, labelled the same way: core/execution.py)
        default_terms = self.anvil.terms("human:operator").model_copy(update={"labels": labels})
        return Executor(
            self.store,
            self.registry,
            environment,
            on_events=on_events,
            durability=durability or DEFAULT_DURABILITY,
            gate=self.anvil.gate(self._trigger_allowance),
            on_finished=self._settle,
            default_terms=default_terms,
            approvers=self.people,
        )

    def data_labels(self, data_root: Path) -> DataLabels:
        """How the files under `data_root` are classified: the home's `[data]` patterns and, for a folder Core staged
        a request's data in (`<home>/inputs/<conversation>/`), the label each staged copy's original has there
        (`record_staged_labels`), whichever is higher."""
        staged = read_staged_labels(data_root) if _is_staged(self.home, data_root) else {}
        return with_staged(self.config.data, staged)

    def _settle(self, state: RunState) -> None:
        self.anvil.settle(state.run_id)

    def _trigger_allowance(self, terms: RunTerms, run_id: str) -> dict[str, Any]:
        """What the schedule a triggered run's terms name allows it, read from the schedule's own stream and checked
        against this home's people and settings now (`alicorn.schedule.allowance`): the envelope's word is not taken."""
        from alicorn.schedule.allowance import allowance_of
        from alicorn.schedule.authority import Authority

        assert terms.trigger is not None  # the gate asks only for a triggered run
        return allowance_of(self.store, terms.trigger, terms.project, Authority.from_app(self), run_id).to_json()

    def close(self) -> None:
        if self.mcp is not None:
            self.mcp.close()
        if self.live_export is not None:
            self.live_export.close()  # bounded: a slow collector delays closing by its timeout at most
        self.store.close()


#: Beside each folder Core stages a conversation's data in: the label of each staged path's original.
STAGED_LABELS_SUFFIX = ".labels.json"


def staged_labels_file(data_root: Path) -> Path:
    """Where the labels of the data staged in `data_root` are kept: beside it, never in it (a plan reads the data
    root, and a workflow reading every JSON file of it must not take this one for data)."""
    return data_root.with_name(data_root.name + STAGED_LABELS_SUFFIX)


def _is_staged(home: Path, data_root: Path) -> bool:
    """Whether `data_root` is a folder Core stages data in (`<home>/inputs/NAME`): only there is a labels file
    trusted, so one planted beside a folder given to `alicorn run --data` classifies nothing."""
    try:
        return data_root.resolve().parent == (home / "inputs").resolve()
    except OSError:
        return False


def read_staged_labels(data_root: Path) -> dict[str, Classification]:
    """The label of each path staged in `data_root` (a pattern relative to it: a file, a folder, `folder/**`); none
    when nothing was recorded. A damaged record is refused: the staged data would lose its labels."""
    from alicorn.anvil.labels import LABEL_ORDER

    path = staged_labels_file(data_root)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise AlicornError(f"cannot read the labels of the staged data {str(path)!r}: {exc.strerror}") from None
    try:
        found = json.loads(text)
    except ValueError:
        found = None
    if not isinstance(found, dict) or not all(v in LABEL_ORDER for v in found.values()):
        raise AlicornError(
            f"the labels of the staged data {str(path)!r} are damaged; remove {str(data_root)!r} and that file, and "
            "give the data again"
        )
    return {str(k): v for k, v in found.items()}


def record_staged_labels(data_root: Path, labels: Mapping[str, Classification]) -> None:
    """Record the label of each path just staged in `data_root` (see `read_staged_labels`), replacing what was
    recorded for the same paths (their files were just replaced) and keeping the rest (files staged before)."""
    import tempfile

    merged = {**read_staged_labels(data_root), **labels}
    path = staged_labels_file(data_root)
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, suffix=".tmp", delete=False) as scratch:
        scratch.write(json.dumps(merged, indent=1, sort_keys=True))
    os.replace(scratch.name, path)  # whole or not at all: a reader never sees half a record


def with_staged(labels: DataLabels, staged: Mapping[str, Classification]) -> DataLabels:
    """`labels` that also classify each staged path as `staged` says, where that is higher than what `labels` say
    of it (the higher label wins; one no higher changes nothing, so honest data keeps its runs' terms as they were)."""
    from alicorn.anvil.labels import DataLabels, label_rank, normalize_path

    # a path with `..` names nothing a run may read (reads are confined to the data root): there is nothing to label
    named = {normalize_path(path): level for path, level in staged.items() if ".." not in path.split("/")}
    raised = {p: level for p, level in named.items() if p and label_rank(level) > label_rank(labels.classify(p))}
    if not raised:
        return labels
    levels = {level: [path for path, label in raised.items() if label == level] for level in _LEVELS}
    return joined(labels, DataLabels.model_validate({**levels, "default": labels.default}))


def joined(labels: DataLabels, more: DataLabels) -> DataLabels:
    """`labels` with `more`'s patterns added at every level (a path gets the higher of its two labels)."""
    levels = {level: (*getattr(labels, level), *getattr(more, level)) for level in _LEVELS}
    return labels.model_validate({**labels.model_dump(), **levels})


_LEVELS = ("public", "internal", "private", "secret")


def artifact_root(home: Path, project: str) -> Path:
    """`<home>/artifacts` for the default project (as before projects had stores), `<home>/projects/P/artifacts`."""
    from alicorn.anvil.terms import PROJECT_PATTERN

    if not re.fullmatch(PROJECT_PATTERN, project):
        raise AlicornError(
            f"project {project!r} is not a project name: lower-case letters, digits and _ . - (at most 64, starting "
            "with a letter or digit); nothing was stored"
        )
    return home / "artifacts" if project == "default" else home / "projects" / project / "artifacts"


def standard_registry() -> Registry:
    """The operations every home has: the built-in ones and those of the bundled workflow packs."""
    from alicorn.ops.builtin import builtin_registry, table_operations
    from alicorn.ops.memory import memory_operations
    from alicorn.packs.catalog import bundled_workflows

    registry = builtin_registry()
    for op in (*table_operations(), *memory_operations()):
        registry.register(op)
    for workflow in bundled_workflows():
        for op in workflow.operations:
            registry.register(op)
    return registry


def configured_registry(config: Config, loaded: dict[str, list[Operation]] | None = None) -> Registry:
    """The standard operations and those `config` names (`loaded` already, or loaded now), checked to fit together
    (a ConfigError otherwise)."""
    registry = standard_registry()
    for spec in config.operation_modules:
        for op in loaded[spec] if loaded is not None else load_operations(spec):
            try:
                registry.register(op)
            except ValueError as exc:
                raise ConfigError(f"operations {spec!r}: {exc}") from None
    try:
        registry.check()
    except ValueError as exc:
        raise ConfigError(f"the configured operations do not fit together: {exc}") from None
    return registry


def open_app(
    home: Path = DEFAULT_HOME,
    *,
    create: bool = True,
    journal: Path | None = None,
    read_only: bool = False,
    journal_url: str | None = None,
    journal_schema: str | None = None,
) -> App:
    """Open (or create) the home's journal with the built-in operations, the bundled packs' operations and those
    the operator configured. `read_only` opens the journal read-only: nothing is created or changed.

    The configuration is read (and its operations loaded) before the journal is touched, so a broken
    alicorn.toml refuses the command with a ConfigError and changes nothing. A read-only open builds the operations
    only when the command first asks for them (a replay, an MCP import): listing and showing runs never loads every
    pack's code."""
    check_home(home, create=create and not read_only)
    config = load_config(home)
    registry: Registry | Callable[[], Registry]
    if read_only and not config.mcp_servers:  # the operator's modules load now: a broken one refuses every command
        loaded = {spec: list(load_operations(spec)) for spec in config.operation_modules}
        registry = functools.partial(configured_registry, config, loaded)
    else:
        registry = configured_registry(config)
    observe = None
    if not read_only:  # read before the journal is touched; never raises
        from alicorn.observe.settings import home_settings

        observe = home_settings(home)
    store = _open_journal(
        home, config, journal, create=create, read_only=read_only, url=journal_url, schema=journal_schema
    )
    store.secrets = home_secrets(home)  # redacted from every event this home journals
    mcp = None
    try:
        if config.mcp_servers:
            assert not callable(registry)  # built above: the MCP tools are registered into it
            mcp = _import_mcp(config, store, registry, started=not read_only)
        live = None
        if observe is not None and observe.endpoint is not None:
            from alicorn.observe.export import start_live

            live = start_live(observe, store)
        return App(home, store, registry, config, mcp, live)
    except BaseException:
        if mcp is not None:
            mcp.close()
        store.close()
        raise


def check_home(home: Path, *, create: bool) -> None:
    """Refuse, before anything is read or made, a home that is not a folder, or (for a command that makes one) a
    home that cannot be made where it is asked for: a HomeError naming the path and what to do."""
    fix = "Point --home (or ALICORN_HOME) at an Alicorn home's folder, or at a new path"
    try:
        if home.is_dir():
            return
        if home.exists() or home.is_symlink():
            raise HomeError(f"the home {str(home)!r} is a file, not a folder; nothing was changed. {fix}.")
        parent = next(p for p in home.absolute().parents if p.exists() or p.is_symlink())
        if not parent.is_dir():
            raise HomeError(
                f"the home {str(home)!r} cannot be {'made' if create else 'there'}: {str(parent)!r} is a file, not a "
                f"folder; nothing was changed. {fix}."
            )
        if create and not os.access(parent, os.W_OK | os.X_OK):
            raise HomeError(
                f"the home {str(home)!r} cannot be made: you may not create folders in {str(parent)!r}; nothing was "
                f"changed. {fix} in a folder you may write to."
            )
    except OSError as exc:  # a folder on the way that may not be looked into
        raise HomeError(
            f"the home {str(home)!r} cannot be used ({exc.strerror or exc}: {exc.filename or home}); nothing was "
            f"changed. {fix} in a folder you may read and write."
        ) from None


class HomeError(AlicornError):
    """The home given cannot be used as one (a file, or a place where no folder can be made)."""


def _open_journal(
    home: Path,
    config: Config,
    journal: Path | None,
    *,
    create: bool,
    read_only: bool,
    url: str | None = None,
    schema: str | None = None,
) -> JournalStore:
    """`journal` if given, else the PostgreSQL journal `url` and `schema` (a worker's `--journal`, `--schema`) or
    `[journal]` name, else `<home>/journal.db`."""
    url = url if url is not None else config.journal_url
    schema = schema if schema is not None else config.journal_schema
    if journal is None and url is not None:
        from alicorn.journal.postgres import PostgresJournalStore  # psycopg only for homes that use it

        return PostgresJournalStore(url, schema=schema, create=create and not read_only, read_only=read_only)
    path = journal if journal is not None else home / "journal.db"
    return SQLiteStore(path, create=create and not read_only, read_only=read_only)


def _import_mcp(config: Config, store: JournalStore, registry: Registry, *, started: bool) -> McpImport:
    """Start the configured MCP servers and register their pinned tools (alicorn.mcp.importer); a server that
    cannot be used is said on stderr and left out, and everything else goes on. Read-only (`started=False`): the
    pinned tools from the journal, nothing started, so a replay has the registry its run had."""
    import sys

    from alicorn.clock import default_clock
    from alicorn.mcp.importer import import_servers, pinned_operations

    if started:
        found = import_servers(config.mcp_servers, store, default_clock())
    else:
        found = pinned_operations(config.mcp_servers, store)
    try:
        for op in found.operations:
            registry.register(op)
    except ValueError as exc:
        found.close()
        raise ConfigError(f"[mcp] {exc}; rename the server in alicorn.toml") from None
    for name, reason in found.withheld.items():
        registry.withhold(name, reason)
    for problem in found.problems.values():
        print(f"alicorn: warning: {problem}; going on without its tools", file=sys.stderr)
    return found
