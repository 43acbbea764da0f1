"""The application's configuration, read from config.json."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path


class ConfigError(ValueError):
    """The configuration file is missing a field or holds a wrong value."""


@dataclass(frozen=True)
class Config:
    name: str
    demo: bool
    currency: str
    low_stock_threshold: int
    data_file: str


def load_config(path: Path) -> Config:
    """Read and check the configuration at `path`."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(raw, dict):
        raise ConfigError(f"{path} must hold a JSON object")
    try:
        config = Config(
            name=str(raw["name"]),
            demo=bool(raw.get("demo", False)),
            currency=str(raw["currency"]),
            low_stock_threshold=int(raw.get("low_stock_threshold", 5)),
            data_file=str(raw["data_file"]),
        )
    except KeyError as exc:
        raise ConfigError(f"{path} lacks the field {exc.args[0]!r}") from None
    if len(config.currency) != 3 or not config.currency.isupper():
        raise ConfigError(f"currency {config.currency!r} is not a three-letter code")
    if config.low_stock_threshold < 0:
        raise ConfigError("low_stock_threshold must not be negative")
    return config
