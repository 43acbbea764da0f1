"""The OTLP/HTTP endpoint URL, checked without importing OpenTelemetry (alicorn.toml is read by every command)."""

from __future__ import annotations

from urllib.parse import urlsplit

from alicorn.observe.errors import ObserveError


def endpoint_url(base: str, signal: str = "traces") -> str:
    """The OTLP/HTTP URL for `signal` under the base `base`; ObserveError, saying how to write one, when it is not
    an http(s) URL with a host."""
    text = base.strip()
    try:
        parts = urlsplit(text)
        port = parts.port  # raises for a port that is not a number or out of range
    except ValueError as exc:
        raise ObserveError(
            f"the OTLP endpoint {base!r} is not a URL ({exc}); write it like http://localhost:4318"
        ) from None
    if parts.scheme not in ("http", "https") or not parts.hostname or " " in text:
        raise ObserveError(
            f"the OTLP endpoint {base!r} is not an http(s) URL with a host; write it like http://localhost:4318 "
            "(OTLP over HTTP; the gRPC port 4317 is not supported)"
        )
    del port
    path = parts.path.rstrip("/")
    suffix = f"/v1/{signal}"
    if path.endswith(suffix):
        return text
    return f"{parts.scheme}://{parts.netloc}{path}{suffix}"
