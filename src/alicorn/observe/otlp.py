"""Span records as OTLP/HTTP protobuf, encoded directly and POSTed on a kept-alive connection.

Why not the SDK's `ReadableSpan` + `OTLPSpanExporter`: building an SDK span, then the exporter's protobuf message
objects from it, cost the exporter process ~100-150 µs of CPU per durable node (two spans), about a fifth of a
durable step; on a 2-core machine that CPU is taken from the run. The records already hold everything a span is
(ids, journaled times, attributes), so `OtlpEncoder` writes the wire format of an `ExportTraceServiceRequest`
(opentelemetry-proto's `collector/trace/v1`) itself: one resource and one scope per request, encoded once; each
attribute's encoded key-value cached, since most of them repeat from span to span (the run, the project, the
operation). tests/observe/test_otlp.py decodes what it writes next to what the SDK exporter would send for the
same records and requires them equal.

The sender honours what the SDK exporter did: the endpoint (a base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` is;
`/v1/traces` is added unless the URL already names it), the timeout, `OTEL_EXPORTER_OTLP_[TRACES_]HEADERS`,
`..._COMPRESSION` (gzip, deflate, none) and `..._CERTIFICATE` / `..._CLIENT_CERTIFICATE` / `..._CLIENT_KEY`; it retries
429/502/503/504 and a dropped connection within the timeout. Any other answer, or a collector that cannot be
reached, is `False` from `send`, never an exception.

Requests are gzipped unless the settings say otherwise (every OTLP server must accept gzip), at level 1: a batch of
512 spans shrinks ~9x for ~2 µs of CPU per durable node. Measured with bench/trace_bench.py on 2 cores, sending the
batches uncompressed cost the run ~1.3 points more of wall time (+3.5-3.6% against +2.0-2.5%, alternating runs of
15 pairs): the loopback's copying and the collector's reads run on the cores the run uses.
"""

from __future__ import annotations

import gzip
import http.client
import ssl
import struct
import time
import zlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, cast
from urllib.parse import urlsplit

from alicorn import __version__
from alicorn.observe.endpoint import endpoint_url
from alicorn.observe.settings import checked_compression, compression_from_env, otlp_variable
from alicorn.observe.spans import SpanRecord

if TYPE_CHECKING:
    from opentelemetry.sdk.resources import Resource

SCOPE_NAME = "alicorn.observe"
#: Span flags as the SDK sets them for a local parent: "whether the parent is remote" is known (and it is not).
FLAGS = 0x100
_KINDS = {"internal": 1, "client": 3}
_STATUS = {"unset": 0, "ok": 1, "error": 2}
_RETRY = frozenset({429, 502, 503, 504})
_CACHE_MAX = 8192
_pack_q = struct.Struct("<Q").pack
_pack_d = struct.Struct("<d").pack
_pack_i = struct.Struct("<I").pack


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


_BYTE = [bytes((i,)) for i in range(256)]


def _varint(value: int) -> bytes:
    """A non-negative integer as a protobuf varint; one and two bytes (every length here) without a loop."""
    if value < 0x80:
        return _BYTE[value]
    if value < 0x4000:
        return bytes(((value & 0x7F) | 0x80, value >> 7))
    return _encode_varint(value)


def _field(tag: int, payload: bytes) -> bytes:
    """A length-delimited field: `tag` is (number << 3 | 2), one byte for every field used here."""
    return _BYTE[tag] + _varint(len(payload)) + payload


def _text(tag: int, value: str) -> bytes:
    return _field(tag, value.encode("utf-8")) if value else b""


def _any(value: object) -> bytes | None:
    """An AnyValue's bytes, as the SDK encodes it (booleans before integers); None for a type it would skip."""
    if value is None:
        return b""
    if isinstance(value, bool):
        return b"\x10\x01" if value else b"\x10\x00"
    if isinstance(value, str):
        return _field(0x0A, value.encode("utf-8"))
    if isinstance(value, int):
        return b"\x18" + _varint(value & 0xFFFFFFFFFFFFFFFF)
    if isinstance(value, float):
        return b"\x21" + _pack_d(value)
    if isinstance(value, bytes):
        return _field(0x3A, value)
    if isinstance(value, Sequence):
        items = [_any(v) for v in value]
        if any(item is None for item in items):
            return None
        return _field(0x2A, b"".join(_field(0x0A, item) for item in items if item is not None))
    if isinstance(value, Mapping):
        pairs = [_key_value(str(k), v) for k, v in value.items()]
        return _field(0x32, b"".join(_field(0x0A, p) for p in pairs if p is not None))
    return None


def _key_value(key: str, value: object) -> bytes | None:
    encoded = _any(value)
    return None if encoded is None else _text(0x0A, key) + _field(0x12, encoded)


def resource(service: str = "alicorn") -> Resource:
    """The resource every Alicorn span and metric carries: the service's name and version (plus what
    `OTEL_RESOURCE_ATTRIBUTES` adds, and the SDK's own facts)."""
    from opentelemetry.sdk.resources import Resource

    return Resource.create({"service.name": service, "service.version": __version__})


class OtlpEncoder:
    """Writes `ExportTraceServiceRequest` bytes for span records; one per sink (it caches what repeats)."""

    def __init__(self, service: str = "alicorn") -> None:
        self._ids: dict[str, bytes] = {}
        self._pairs: dict[tuple[int, str, object, type], bytes] = {}
        self._keys: dict[str, bytes] = {}
        where = self._attributes(resource(service).attributes, 0x0A)  # once per encoder: the SDK's Resource rules
        scope = _text(0x0A, SCOPE_NAME) + _text(0x12, __version__)
        self._resource = _field(0x0A, where)  # ResourceSpans.resource
        self._scope = _field(0x0A, scope)  # ScopeSpans.scope

    def encode(self, records: Sequence[SpanRecord]) -> bytes:
        """The serialized request carrying `records`, under Alicorn's resource and scope."""
        scope_spans = b"".join([self._scope, *map(self._span, records)])
        return _field(0x0A, self._resource + _field(0x12, scope_spans))

    # ---- parts ------------------------------------------------------------------------------------------------

    def _id(self, hex_id: str) -> bytes:
        found = self._ids.get(hex_id)
        if found is None:
            if len(self._ids) > _CACHE_MAX:
                self._ids.clear()
            found = self._ids[hex_id] = bytes.fromhex(hex_id)
        return found

    def _attributes(self, attributes: Mapping[str, object], tag: int) -> bytes:
        """Repeated KeyValue fields under `tag`. A string or boolean pair's bytes are kept (most repeat: the run,
        the project, the operation); an integer's key is (seqs rarely repeat). Floats (0.0 == -0.0) and arrays are
        encoded each time. The cache's keys hold the type: True == 1."""
        pairs, keys = self._pairs, self._keys
        head = _BYTE[tag]
        out = []
        for key, value in attributes.items():
            kind = value.__class__
            if kind is str or kind is bool:
                ident = (tag, key, value, kind)
                found = pairs.get(ident)
                if found is None:
                    if len(pairs) > _CACHE_MAX:
                        pairs.clear()
                    found = pairs[ident] = _field(tag, _text(0x0A, key) + _field(0x12, _any(value) or b""))
                out.append(found)
            elif kind is int:
                named = keys.get(key)
                if named is None:
                    named = keys[key] = _text(0x0A, key)
                whole = cast(int, value)
                number = _varint(whole & 0xFFFFFFFFFFFFFFFF)
                pair = named + b"\x12" + _BYTE[len(number) + 1] + b"\x18" + number
                out.append(head + _varint(len(pair)) + pair)
            else:
                pair_ = _key_value(key, value)
                if pair_ is not None:  # None: a type OTLP cannot carry; the SDK logs and skips it too
                    out.append(_field(tag, pair_))
        return b"".join(out)

    def _span(self, record: SpanRecord) -> bytes:
        parts = [b"\x0a\x10", self._id(record.trace_id), b"\x12\x08", self._id(record.span_id)]
        if record.parent_id:
            parts += (b"\x22\x08", self._id(record.parent_id))
        parts += (
            _text(0x2A, record.name),
            b"\x30" + _varint(_KINDS[record.kind]),
            b"\x39" + _pack_q(record.start_ns),
            b"\x41" + _pack_q(record.end_ns),
            self._attributes(record.attributes, 0x4A),
        )
        for event in record.events:
            body = b"\x09" + _pack_q(event.time_ns) + _text(0x12, event.name) + self._attributes(event.attributes, 0x1A)
            parts.append(_field(0x5A, body))
        for link in record.links:
            body = b"\x0a\x10" + self._id(link.trace_id) + b"\x12\x08" + self._id(link.span_id)
            body += self._attributes(link.attributes, 0x22) + b"\x35" + _pack_i(FLAGS)
            parts.append(_field(0x6A, body))
        code = _STATUS[record.status]
        status = _text(0x12, record.status_message) if code == 2 else b""
        if code:
            status += b"\x18" + _varint(code)
        parts += (_field(0x7A, status), b"\x85\x01" + _pack_i(FLAGS))
        return _field(0x12, b"".join(parts))


class OtlpSpanSink:
    """Sends span records to one OTLP/HTTP endpoint; `send` says whether the collector took them."""

    def __init__(
        self, endpoint: str, *, timeout_s: float = 5.0, service: str = "alicorn", compression: str | None = None
    ) -> None:
        """`compression`: one of COMPRESSIONS; None reads `OTEL_EXPORTER_OTLP_[TRACES_]COMPRESSION` (default gzip).
        ObserveError for a URL or a compression that cannot be used."""
        self.url = endpoint_url(endpoint)
        self.timeout_s = timeout_s
        self.encoder = OtlpEncoder(service)
        self._sender = _Sender(self.url, timeout_s, compression_from_env() if compression is None else compression)

    def send(self, records: Sequence[SpanRecord]) -> bool:
        if not records:
            return True
        try:
            return self._sender.post(self.encoder.encode(records))
        except Exception:  # a collector's failure is reported by the caller, never raised into a run
            return False

    def close(self) -> None:
        self._sender.close()


def _env(name: str) -> str:
    """What `OTEL_EXPORTER_OTLP_TRACES_<NAME>`, else `OTEL_EXPORTER_OTLP_<NAME>`, says; "" when neither is set."""
    return otlp_variable(name, "TRACES")[1]


class _Sender:
    """POSTs to one URL over a kept-alive connection, as the SDK's exporter would (headers, compression, TLS)."""

    def __init__(self, url: str, timeout_s: float, compression: str) -> None:
        from opentelemetry.util.re import parse_env_headers

        parts = urlsplit(url)
        self.timeout_s = timeout_s
        self._https = parts.scheme == "https"
        self._host = parts.hostname or ""
        self._port = parts.port
        self._path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self._compression = checked_compression(compression, "the trace exporter's compression")
        self.headers = {"content-type": "application/x-protobuf", "user-agent": f"alicorn/{__version__}"}
        self.headers.update(parse_env_headers(_env("HEADERS"), liberal=True))
        if self._compression in ("gzip", "deflate"):
            self.headers.setdefault("content-encoding", self._compression)
        self._connection: http.client.HTTPConnection | None = None

    def _connect(self, timeout: float) -> http.client.HTTPConnection:
        if self._connection is None:
            if self._https:
                context = ssl.create_default_context(cafile=_env("CERTIFICATE") or None)
                if _env("CLIENT_CERTIFICATE"):
                    context.load_cert_chain(_env("CLIENT_CERTIFICATE"), _env("CLIENT_KEY") or None)
                self._connection = http.client.HTTPSConnection(self._host, self._port, timeout=timeout, context=context)
            else:
                self._connection = http.client.HTTPConnection(self._host, self._port, timeout=timeout)
        elif self._connection.sock is not None:
            self._connection.sock.settimeout(timeout)
        self._connection.timeout = timeout
        return self._connection

    def post(self, body: bytes) -> bool:
        """Whether the collector answered 2xx/3xx within the timeout (retrying what is worth retrying)."""
        if self._compression == "gzip":
            body = gzip.compress(body, compresslevel=1, mtime=0)
        elif self._compression == "deflate":
            body = zlib.compress(body, 1)
        deadline = time.monotonic() + self.timeout_s
        backoff = 1.0
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            try:
                status, retry_after = self._once(body, left)
            except (OSError, http.client.HTTPException):
                self.close()
                status, retry_after = None, None
            if status is not None and 200 <= status < 400:
                return True
            if status is not None and status not in _RETRY:
                return False
            wait = retry_after if retry_after is not None else backoff
            if wait >= deadline - time.monotonic():
                return False
            time.sleep(wait)
            backoff *= 2

    def _once(self, body: bytes, timeout: float) -> tuple[int, float | None]:
        connection = self._connect(timeout)
        try:
            connection.request("POST", self._path, body, self.headers)
            response = connection.getresponse()
        except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
            self.close()  # a kept-alive connection the collector closed meanwhile: once more on a fresh one
            connection = self._connect(timeout)
            connection.request("POST", self._path, body, self.headers)
            response = connection.getresponse()
        response.read()
        if response.will_close:
            self.close()
        retry_after = response.getheader("retry-after")
        try:
            wait = float(retry_after) if retry_after is not None else None
        except ValueError:
            wait = None
        return response.status, wait

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
