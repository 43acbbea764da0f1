"""The operator's configuration: `<home>/alicorn.toml` (optional).

    [operations]
    # Extra operations, each "module:function" where function() returns Operation declarations.
    modules = ["mycompany.alicorn_ops:operations"]

    [anvil]          # policy file, forbidden effects, budgets, rights, reputation (see alicorn.anvil.settings)
    [data]           # classification of data files: private = ["hr/**"] (see alicorn.anvil.labels)

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
SECTIONS = ("operations", "anvil", "data")


@dataclass(frozen=True)
class Config:
    operation_modules: list[str] = field(default_factory=list)
    anvil: AnvilSettings = field(default_factory=AnvilSettings)
    data: DataLabels = field(default_factory=DataLabels)


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
    return Config(operation_modules=list(modules), anvil=anvil, data=data)


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
