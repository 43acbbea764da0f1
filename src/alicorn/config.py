"""The operator's configuration: `<home>/alicorn.toml` (optional).

    [operations]
    # Extra operations, each "module:function" where function() returns Operation declarations.
    modules = ["mycompany.alicorn_ops:operations"]

    [anvil]          # policy file, forbidden effects, budgets, rights, reputation (see alicorn.anvil.settings)
    [data]           # classification of data files: private = ["hr/**"] (see alicorn.anvil.labels)

    [mcp.servers.time]   # an external MCP server whose tools become operations (see alicorn.mcp.settings)
    command = ["python", "-m", "mcp_server_time"]

    [journal]        # where the journal lives (default: <home>/journal.db, SQLite)
    url = "postgresql://alicorn:PASSWORD@db.example:5432/alicorn"   # a PostgreSQL journal, for many machines
    schema = "public"                        # the schema of its journal_* tables (optional)

    [projects.ops]   # a project's data: where its files may come from, and its standing data sources
    roots = ["/srv/ops"]                     # paths a request may name (default: the folder Alicorn runs in)
    [projects.ops.data]
    alarms = "/srv/ops/alarms/*.csv"         # a workflow input's name -> a glob (or a list of globs)

Operations are code the operator installs and trusts; a plan (or a model) can only name them. Nothing here can be
set by a plan.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from alicorn.errors import AlicornError, environment_failure

# Anvil's settings and the MCP servers' table are pydantic models and plan types: they are imported when a command
# first needs them (Config.anvil, Config.data; load_config only when alicorn.toml has [mcp]), so the commands that
# only read the journal (`alicorn runs`, `show`, `journal`) start without them.
if TYPE_CHECKING:
    from alicorn.anvil.labels import DataLabels
    from alicorn.anvil.settings import AnvilSettings
    from alicorn.mcp.settings import ServerSettings
    from alicorn.ops.registry import Operation

CONFIG_FILE = "alicorn.toml"


class ConfigError(AlicornError):
    """The operator's configuration cannot be used as written."""


#: The sections alicorn.toml may have ([observe]: alicorn.observe.settings; [journal]: where the journal lives).
SECTIONS = ("operations", "anvil", "data", "projects", "mcp", "observe", "journal")
#: How deeply alicorn.toml may nest tables and arrays (its real sections need four levels at most).
MAX_DEPTH = 32


@dataclass(frozen=True)
class ProjectData:
    """A project's data: the roots a request may name paths under, and its standing sources (input -> globs)."""

    roots: tuple[Path, ...] = ()
    sources: dict[str, tuple[str, ...]] = field(default_factory=dict)


class AnvilSections:
    """`[anvil]` and `[data]` as read from alicorn.toml, validated into Anvil's settings (pydantic) on first use and
    kept. load_config asks at once when alicorn.toml has either section (a bad value refuses every command before it
    touches the journal); a home without them builds the defaults only if a command asks, so `alicorn show` never
    imports the models."""

    def __init__(
        self,
        anvil: object = None,
        data: object = None,
        where: str = CONFIG_FILE,
        *,
        given: tuple[AnvilSettings | None, DataLabels | None] = (None, None),
    ) -> None:
        self._sections, self._where, self._given = (anvil, data), where, given
        self._parsed: tuple[AnvilSettings, DataLabels] | None = None

    def parsed(self) -> tuple[AnvilSettings, DataLabels]:
        """The settings and the data labels (those given when the Config was built, the sections' otherwise)."""
        if self._parsed is None:
            anvil, data = _parse_sections(*self._sections, self._where)
            self._parsed = (self._given[0] or anvil, self._given[1] or data)
        return self._parsed

    def giving(self, anvil: AnvilSettings | None, data: DataLabels | None) -> AnvilSections:
        """The same sections, with `anvil` and `data` (where not None) in place of what they would parse to."""
        return AnvilSections(*self._sections, self._where, given=(anvil, data))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AnvilSections) and self.parsed() == other.parsed()

    __hash__ = None  # type: ignore[assignment]  # mutable cache; equal by value


@dataclass(frozen=True, init=False)
class Config:
    """alicorn.toml, read. `anvil` and `data` are parsed on first use (AnvilSections)."""

    operation_modules: list[str]
    projects: dict[str, ProjectData]
    #: External MCP servers by name (`[mcp.servers.NAME]`); empty: none is started.
    mcp_servers: dict[str, ServerSettings]
    #: `[journal] url`: a PostgreSQL journal instead of `<home>/journal.db`; None: the home's SQLite file.
    journal_url: str | None
    #: `[journal] schema`: the PostgreSQL schema of the journal's tables.
    journal_schema: str
    sections: AnvilSections = field(repr=False)

    def __init__(
        self,
        operation_modules: list[str] | None = None,
        anvil: AnvilSettings | None = None,
        data: DataLabels | None = None,
        projects: dict[str, ProjectData] | None = None,
        mcp_servers: dict[str, ServerSettings] | None = None,
        journal_url: str | None = None,
        journal_schema: str = "public",
        *,
        sections: AnvilSections | None = None,
    ) -> None:
        """`anvil` and `data` given here win over `sections` (the raw [anvil] and [data] load_config read)."""
        if sections is None or anvil is not None or data is not None:
            sections = (sections or AnvilSections()).giving(anvil, data)
        object.__setattr__(self, "operation_modules", operation_modules or [])
        object.__setattr__(self, "projects", projects or {})
        object.__setattr__(self, "mcp_servers", mcp_servers or {})
        object.__setattr__(self, "journal_url", journal_url)
        object.__setattr__(self, "journal_schema", journal_schema)
        object.__setattr__(self, "sections", sections)

    @property
    def anvil(self) -> AnvilSettings:
        """`[anvil]`: the policy file, forbidden effects, budgets, rights, reputation (alicorn.anvil.settings)."""
        return self.sections.parsed()[0]

    @property
    def data(self) -> DataLabels:
        """`[data]`: the classification of data files (alicorn.anvil.labels)."""
        return self.sections.parsed()[1]


def load_config(home: Path) -> Config:
    """Read `<home>/alicorn.toml`; ConfigError (nothing changed) when it cannot be used as written. [anvil] and [data]
    are validated here when alicorn.toml has them; when it has neither, their defaults are built on first use, so a
    command that never asks (`alicorn show`) does not import Anvil's models."""
    path = home / CONFIG_FILE
    try:
        if not path.exists():
            return Config()
        raw = path.read_bytes()
        import tomllib  # here: most homes have no alicorn.toml, and every command reads it
    except OSError as exc:
        failure = environment_failure(exc, path=path)
        if failure is not None:
            raise failure from exc
        raise ConfigError(f"{path} cannot be read ({exc.strerror or exc}); fix it or remove it") from None
    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is not UTF-8 text (byte {exc.start}: {exc.reason}); save it as UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} cannot be read as TOML: {exc}; fix it or remove it") from None
    except RecursionError:
        raise ConfigError(f"{path} nests arrays or tables too deeply to be read; fix it or remove it") from None
    _check_values(doc, path)
    unknown = set(doc) - set(SECTIONS)
    if unknown:
        known = ", ".join(f"[{s}]" for s in SECTIONS)
        raise ConfigError(f"{path}: unknown section(s) {', '.join(sorted(unknown))}; known: {known}")
    for section in SECTIONS:
        if section in doc and not isinstance(doc[section], dict):
            raise ConfigError(f"{path}: {section} must be a table ([{section}]), not a {type(doc[section]).__name__}")
    modules = doc.get("operations", {}).get("modules", [])
    if not isinstance(modules, list) or not all(isinstance(m, str) and ":" in m for m in modules):
        raise ConfigError(f'{path}: [operations] modules must be a list of "module:function" strings')
    sections = AnvilSections(doc.get("anvil"), doc.get("data"), str(path))
    if doc.get("anvil") or doc.get("data"):  # what the operator wrote is checked now; the defaults need no check
        sections.parsed()
    projects = _projects(doc.get("projects", {}), path)
    servers = _mcp(doc["mcp"], path) if "mcp" in doc else {}
    journal_url, journal_schema = _journal(doc.get("journal", {}), path)
    return Config(
        operation_modules=list(modules),
        projects=projects,
        mcp_servers=servers,
        journal_url=journal_url,
        journal_schema=journal_schema,
        sections=sections,
    )


def _parse_sections(anvil: Any, data: Any, where: str) -> tuple[AnvilSettings, DataLabels]:
    """[anvil] and [data] through Anvil's settings models; ConfigError (an AlicornError) when they do not fit."""
    from alicorn.anvil.settings import parse_settings

    try:
        return parse_settings(anvil, data, where)
    except AlicornError:
        raise
    except (TypeError, ValueError, AttributeError, KeyError, LookupError, RecursionError) as exc:
        raise ConfigError(
            f"{where}: [anvil] or [data] cannot be used as written ({type(exc).__name__}: {exc}); see docs/anvil.md"
        ) from None


def _mcp(section: object, path: Path) -> dict[str, ServerSettings]:
    """`[mcp.servers.NAME]` tables (alicorn.mcp.settings: imported only for a home that has them)."""
    from alicorn.mcp.settings import parse_mcp

    try:
        return parse_mcp(section)
    except ValueError as exc:
        raise ConfigError(f"{path}: {exc}; see docs/mcp.md") from None


def _journal(section: dict[str, object], path: Path) -> tuple[str | None, str]:
    """`[journal] url` and `schema`; the URL is checked when the journal is opened (it names the fix then)."""
    unknown = set(section) - {"url", "schema"}
    if unknown:
        raise ConfigError(f"{path}: [journal] has unknown key(s) {', '.join(sorted(unknown))}; known: url, schema")
    url, schema = section.get("url"), section.get("schema", "public")
    if url is not None and not (isinstance(url, str) and url.split("://", 1)[0] in ("postgresql", "postgres")):
        raise ConfigError(
            f"{path}: [journal] url must be a PostgreSQL URL, postgresql://USER@HOST:5432/DATABASE with the password "
            "after USER and a colon (leave it out for the home's SQLite journal.db)"
        )
    if not isinstance(schema, str):
        raise ConfigError(f'{path}: [journal] schema must be a string like "public"')
    return url, schema


def _check_values(doc: dict[str, object], path: Path) -> None:
    """Refuse what no setting can use and would break later: nesting deeper than MAX_DEPTH, and the TOML floats
    inf and nan (settings are journaled as JSON, which has neither)."""
    pending: list[tuple[str, object, int]] = [(key, value, 1) for key, value in doc.items()]
    while pending:
        where, value, depth = pending.pop()
        if depth > MAX_DEPTH:
            raise ConfigError(f"{path}: {where.split('.')[0]} nests tables or arrays more than {MAX_DEPTH} levels deep")
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"{path}: {where} = {value}: give a finite number (no setting takes inf or nan)")
        if isinstance(value, dict):
            pending.extend((f"{where}.{k}", v, depth + 1) for k, v in value.items())
        elif isinstance(value, list):
            pending.extend((f"{where}[{i}]", v, depth + 1) for i, v in enumerate(value))


def _projects(section: object, path: Path) -> dict[str, ProjectData]:
    """`[projects.<name>]` tables: `roots` (a list of folders) and `[projects.<name>.data]` (input -> glob(s))."""
    if not isinstance(section, dict):
        raise ConfigError(f"{path}: [projects] must be a table of [projects.NAME] tables")
    projects: dict[str, ProjectData] = {}
    for name, table in section.items():
        where = f"{path}: [projects.{name}]"
        if not isinstance(table, dict) or set(table) - {"roots", "data"}:
            raise ConfigError(f"{where} may only have `roots` (a list of folders) and a [projects.{name}.data] table")
        roots = table.get("roots", [])
        if not isinstance(roots, list) or not all(isinstance(r, str) and r for r in roots):
            raise ConfigError(f'{where} roots must be a list of folders, like roots = ["/srv/{name}"]')
        sources: dict[str, tuple[str, ...]] = {}
        base = path.parent  # relative globs and roots are read from alicorn.toml's folder
        data = table.get("data", {})
        if not isinstance(data, dict):
            raise ConfigError(f"{where} data must be a table: input name = glob")
        for key, value in data.items():
            globs = [value] if isinstance(value, str) else value
            if not isinstance(globs, list) or not globs or not all(isinstance(g, str) and g for g in globs):
                raise ConfigError(f'{where}.data {key} must be a glob or a list of globs, like "/srv/{key}/*.csv"')
            try:
                sources[key] = tuple(g if Path(g).expanduser().is_absolute() else str(base / g) for g in globs)
            except (ValueError, RuntimeError) as exc:  # a NUL in the path; ~user that does not exist
                raise ConfigError(f"{where}.data {key}: {exc}; give a glob of a real path") from None
        try:
            project_roots = tuple((base / Path(r).expanduser()).resolve() for r in roots)
        except (ValueError, RuntimeError, OSError) as exc:
            raise ConfigError(f'{where} roots: {exc}; give existing folders, like roots = ["/srv/{name}"]') from None
        projects[name] = ProjectData(project_roots, sources)
    return projects


def load_operations(spec: str) -> Iterable[Operation]:
    """Import "module:function" and return the operations it declares; ConfigError for anything that goes wrong
    (the module does not import, or raises while importing; the function is missing, not callable, raises, or
    returns something other than Operation declarations)."""
    from alicorn.ops.registry import Operation

    module_name, _, attribute = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"operations {spec!r} cannot be loaded ({exc}); is the package installed?") from None
    except (Exception, SystemExit) as exc:
        raise ConfigError(
            f"operations {spec!r}: importing {module_name!r} failed ({type(exc).__name__}: {exc}); fix the module "
            "or remove it from [operations] modules in alicorn.toml"
        ) from None
    factory = getattr(module, attribute, None) if attribute.isidentifier() else None
    if factory is None:
        raise ConfigError(f"operations {spec!r} cannot be loaded: {module_name!r} has no function {attribute!r}")
    if not callable(factory):
        raise ConfigError(
            f"operations {spec!r}: {attribute!r} is a {type(factory).__name__}, not a function returning Operations"
        )
    try:
        declared = factory()
    except (Exception, SystemExit) as exc:
        raise ConfigError(
            f"operations {spec!r} raised {type(exc).__name__}: {exc}; fix it or remove it from [operations] modules"
        ) from None
    if not isinstance(declared, Iterable) or isinstance(declared, str | bytes | dict):
        shown = repr(declared) if len(repr(declared)) <= 80 else type(declared).__name__
        raise ConfigError(f"operations {spec!r} returned {shown}, not a list of Operation declarations")
    try:
        operations = list(declared)
    except Exception as exc:
        raise ConfigError(
            f"operations {spec!r}: what it returned cannot be read ({type(exc).__name__}: {exc})"
        ) from None
    bad = [o for o in operations if not isinstance(o, Operation)]
    if bad:
        raise ConfigError(f"operations {spec!r} returned something that is not an Operation: {bad[0]!r}")
    return operations
