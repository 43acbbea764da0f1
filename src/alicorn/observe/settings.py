"""When live export is on, and where to: `[observe]` in alicorn.toml, else the OpenTelemetry environment.

    [observe]
    endpoint = "http://localhost:4318"   # OTLP over HTTP (base URL; /v1/traces and /v1/metrics are added)
    live = true                          # false: never export while running, whatever the environment says
    content = false                      # true: spans carry references (STREAM#SEQ) to prompts and outputs
    queue = 1024                         # appends held for the exporter (a journal file: delayed beyond, else dropped)
    timeout_s = 2.0                      # how long one export may wait for the collector
    compression = "gzip"                 # gzip (default), deflate or none, for traces and metrics alike

Without a compression there, each signal reads its own variable and then the general one, as the SDK does:
`OTEL_EXPORTER_OTLP_TRACES_COMPRESSION` (or `_METRICS_`), else `OTEL_EXPORTER_OTLP_COMPRESSION`.

Without an endpoint there, `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) turns it on.
Nothing here may stop a run: a section that cannot be used is said once on stderr and export stays off.
"""

from __future__ import annotations

import os
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alicorn.observe.endpoint import endpoint_url
from alicorn.observe.errors import ObserveError

SECTION = "observe"
_KEYS = {"endpoint", "live", "content", "queue", "timeout_s", "compression"}
#: What `OTEL_EXPORTER_OTLP_[TRACES_]COMPRESSION` or `[observe] compression` may say.
COMPRESSIONS = ("gzip", "deflate", "none")
#: Every OTLP server must accept gzip, and a batch of spans shrinks ~9x (alicorn.observe.otlp).
DEFAULT_COMPRESSION = "gzip"


@dataclass(frozen=True)
class ObserveSettings:
    """Live export's settings; `endpoint` None means off."""

    endpoint: str | None = None
    content: bool = False
    queue: int = 1024
    timeout_s: float = 2.0
    source: str = ""
    compression: str = DEFAULT_COMPRESSION
    metrics_compression: str = DEFAULT_COMPRESSION


def home_settings(home: Path, environ: Mapping[str, str] | None = None) -> ObserveSettings:
    """The home's settings for a command that runs: a configuration that cannot be used is said once on stderr
    and leaves export off, so it never stops a run."""
    try:
        return read_settings(home, environ)
    except ObserveError as exc:
        print(f"alicorn: warning: live trace export is off: {exc}", file=sys.stderr)
        return ObserveSettings()


def read_settings(home: Path, environ: Mapping[str, str] | None = None) -> ObserveSettings:
    """The home's settings; ObserveError naming the file or variable when they cannot be used as written."""
    env = os.environ if environ is None else environ
    where = home / "alicorn.toml"
    section = _section(where)
    unknown = set(section) - _KEYS
    if unknown:
        raise ObserveError(
            f"{where}: [observe] has unknown key(s) {', '.join(sorted(unknown))}; known: {', '.join(sorted(_KEYS))}"
        )
    content = _typed(section, where, "content", bool, False)
    queue = _typed(section, where, "queue", int, 1024)
    timeout = float(_typed(section, where, "timeout_s", (int, float), 2.0))
    if not 1 <= queue <= 1_000_000 or not 0 < timeout <= 60:
        raise ObserveError(f"{where}: [observe] queue must be 1-1000000 and timeout_s 0-60 seconds")
    if "compression" in section:
        written = _typed(section, where, "compression", str, "").strip().lower()
        compression = checked_compression(written, f"{where}: [observe] compression")
        metrics_compression = compression
    else:
        compression = compression_from_env(env, "TRACES")
        metrics_compression = compression_from_env(env, "METRICS")
    how = {"compression": compression, "metrics_compression": metrics_compression}
    if not _typed(section, where, "live", bool, True):
        return ObserveSettings(None, content, queue, timeout, "alicorn.toml (live = false)", **how)
    if "endpoint" in section:
        endpoint, source = _typed(section, where, "endpoint", str, ""), f"{where} [observe] endpoint"
    elif env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        endpoint, source = env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"], "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
    elif env.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        endpoint, source = env["OTEL_EXPORTER_OTLP_ENDPOINT"], "OTEL_EXPORTER_OTLP_ENDPOINT"
    else:
        return ObserveSettings(None, content, queue, timeout, **how)
    try:
        endpoint_url(endpoint)
    except ObserveError as exc:
        raise ObserveError(f"{source}: {exc}") from None
    return ObserveSettings(endpoint, content, queue, timeout, source, **how)


def otlp_variable(name: str, signal: str = "TRACES", environ: Mapping[str, str] | None = None) -> tuple[str, str]:
    """The variable that sets `name` for `signal` (TRACES or METRICS) and what it says: the signal's own
    `OTEL_EXPORTER_OTLP_<SIGNAL>_<NAME>`, else `OTEL_EXPORTER_OTLP_<NAME>`; ("", "") when neither is set."""
    env = os.environ if environ is None else environ
    for variable in (f"OTEL_EXPORTER_OTLP_{signal}_{name}", f"OTEL_EXPORTER_OTLP_{name}"):
        said = env.get(variable, "")
        if said.strip():
            return variable, said
    return "", ""


def compression_from_env(environ: Mapping[str, str] | None = None, signal: str = "TRACES") -> str:
    """The compression the OpenTelemetry environment asks for `signal` (DEFAULT_COMPRESSION when it names none);
    ObserveError naming the variable when it names one OTLP does not have."""
    variable, said = otlp_variable("COMPRESSION", signal, environ)
    said = said.strip().lower()
    return checked_compression(said, variable) if said else DEFAULT_COMPRESSION


def checked_compression(value: str, source: str) -> str:
    """`value` if it is one of COMPRESSIONS; else ObserveError naming `source` and what it may say."""
    if value not in COMPRESSIONS:
        known = ", ".join(COMPRESSIONS)
        raise ObserveError(f"{source} = {value!r} is not a compression OTLP knows; use one of {known}")
    return value


def _section(path: Path) -> dict[str, object]:
    try:
        if not path.exists():
            return {}
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ObserveError(f"{path} cannot be read for [observe] ({exc})") from None
    section = doc.get(SECTION, {})
    if not isinstance(section, dict):
        raise ObserveError(f"{path}: [observe] must be a table")
    return section


_TYPE_WORDS: dict[object, str] = {
    str: 'a string (in quotes: "…")',
    int: "a whole number",
    bool: "true or false",
    (int, float): "a number",
}


def _typed(section: Mapping[str, object], where: Path, key: str, kind: type | tuple[type, ...], default: Any) -> Any:
    """`section[key]` (else `default`); ObserveError naming the file `where`, the key and the type it must be."""
    value = section.get(key, default)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        wanted = _TYPE_WORDS.get(kind, str(kind))
        raise ObserveError(f"{where}: [observe] {key} = {value!r} is not {wanted}")
    return value
