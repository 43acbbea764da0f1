"""The operator's configuration: `<home>/alicorn.toml` (optional).

    [operations]
    # Extra operations, each "module:function" where function() returns Operation declarations.
    modules = ["mycompany.alicorn_ops:operations"]

    [anvil]          # policy file, forbidden effects, budgets, rights, reputation (see alicorn.anvil.settings)
    [data]           # classification of data files: private = ["hr/**"] (see alicorn.anvil.labels)

    [projects.ops]   # a project's data: where its files may come from, and its standing data sources
    roots = ["/srv/ops"]                     # paths a request may name (default: the folder Alicorn runs in)
    [projects.ops.data]
    alarms = "/srv/ops/alarms/*.csv"         # a workflow input's name -> a glob (or a list of globs)

Operations are code the operator installs and trusts; a plan (or a model) can only name them. Nothing here can be
set by a plan.
"""

from __future__ import annotations

import importlib
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from alicorn.anvil.labels import DataLabels
from alicorn.anvil.settings import AnvilSettings, parse_settings
from alicorn.errors import AlicornError
from alicorn.ops.registry import Operation

CONFIG_FILE = "alicorn.toml"


class ConfigError(AlicornError):
    """The operator's configuration cannot be used as written."""


#: The sections alicorn.toml may have.
SECTIONS = ("operations", "anvil", "data", "projects")


@dataclass(frozen=True)
class ProjectData:
    """A project's data: the roots a request may name paths under, and its standing sources (input -> globs)."""

    roots: tuple[Path, ...] = ()
    sources: dict[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Config:
    operation_modules: list[str] = field(default_factory=list)
    anvil: AnvilSettings = field(default_factory=AnvilSettings)
    data: DataLabels = field(default_factory=DataLabels)
    projects: dict[str, ProjectData] = field(default_factory=dict)


def load_config(home: Path) -> Config:
    path = home / CONFIG_FILE
    if not path.exists():
        return Config()
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path} cannot be read as TOML: {exc}; fix it or remove it") from None
    unknown = set(doc) - set(SECTIONS)
    if unknown:
        known = ", ".join(f"[{s}]" for s in SECTIONS)
        raise ConfigError(f"{path}: unknown section(s) {', '.join(sorted(unknown))}; known: {known}")
    modules = doc.get("operations", {}).get("modules", [])
    if not isinstance(modules, list) or not all(isinstance(m, str) and ":" in m for m in modules):
        raise ConfigError(f'{path}: [operations] modules must be a list of "module:function" strings')
    anvil, data = parse_settings(doc.get("anvil"), doc.get("data"), str(path))
    projects = _projects(doc.get("projects", {}), path)
    return Config(operation_modules=list(modules), anvil=anvil, data=data, projects=projects)


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
            sources[key] = tuple(g if Path(g).expanduser().is_absolute() else str(base / g) for g in globs)
        projects[name] = ProjectData(tuple((base / Path(r).expanduser()).resolve() for r in roots), sources)
    return projects


def load_operations(spec: str) -> Iterable[Operation]:
    """Import "module:function" and return the operations it declares."""
    module_name, _, attribute = spec.partition(":")
    try:
        factory = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"operations {spec!r} cannot be loaded ({exc}); is the package installed?") from None
    operations = list(factory())
    bad = [o for o in operations if not isinstance(o, Operation)]
    if bad:
        raise ConfigError(f"operations {spec!r} returned something that is not an Operation: {bad[0]!r}")
    return operations
