"""`http.post_json` and `http.get_json`: talk JSON to an HTTP endpoint.

`http.post_json` sends a document, carrying the call's idempotency key. Its effect is an external transmission, so a
plan that uses it waits for a human approval. `http.get_json` only reads (effect `read`), but both declare
`url_input`: whatever their arguments carry reaches the URL's host, so Anvil counts a GET whose query carries private
data as an external transmission of that plan, whatever the operation declares. The POST request carries
`Idempotency-Key: <key>`; the key is the same for every attempt and every resume of the same node with the same
inputs, so a receiver that honours the header (the usual contract of payment and messaging APIs) applies it once.
Credentials never travel as plan inputs: headers that carry them are refused.

A POST reports what it knows of its effect. Before any byte of the request was sent (no such host, connection
refused or unreachable, a failed TLS handshake) it certainly was not applied: a plain, retryable OperationError.
Once the request was sent, a failure to get a complete answer (a timeout, a reset or dropped connection, a
truncated response) and a 5xx answer leave the effect unknown: `EffectUnknown`, which the runtime repeats only for
a keyed or idempotent effect and otherwise looks up or leaves for a human. A 4xx answer is the receiver refusing
the request: not applied, and not retried.
"""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Annotated, Any
from urllib.parse import urlencode, urlsplit

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator

from alicorn.errors import EffectUnknown, OperationError
from alicorn.ops.registry import Operation, OperationContext
from alicorn.plan.dsl import RetryPolicy

MAX_RESPONSE_BYTES = 1 << 20
_SECRET_HEADERS = {"authorization", "proxy-authorization", "cookie", "x-api-key"}


def _check_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("only http:// and https:// URLs with a host are allowed")
    if parts.username or parts.password:
        raise ValueError("credentials may not be written into the URL")
    return url


def _check_headers(headers: dict[str, str]) -> dict[str, str]:
    bad = sorted(h for h in headers if h.lower() in _SECRET_HEADERS or h.lower() == "idempotency-key")
    if bad:
        raise ValueError(f"header(s) {', '.join(bad)} may not be set by a plan (credentials come by reference)")
    return headers


class _HttpInputs(BaseModel):
    """What every HTTP operation takes: where to, extra headers (never credentials), how long to wait."""

    model_config = ConfigDict(extra="forbid")
    url: Annotated[str, Field(min_length=8, max_length=2048, description="http:// or https:// URL")]
    headers: dict[str, Annotated[str, Field(max_length=1024)]] = Field(
        default_factory=dict, max_length=32, description="extra headers; never credentials"
    )
    timeout_s: float = Field(10.0, gt=0, le=300)

    @field_validator("url")
    @classmethod
    def _http_only(cls, url: str) -> str:
        return _check_url(url)

    @field_validator("headers")
    @classmethod
    def _no_secrets(cls, headers: dict[str, str]) -> dict[str, str]:
        return _check_headers(headers)


class PostJsonInputs(_HttpInputs):
    payload: JsonValue = Field(description="the JSON document to send")


class PostJsonOutputs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    status: int
    body: JsonValue = Field(description="the response, parsed as JSON when it is JSON, else text")
    idempotency_key: str


@dataclass
class _Progress:
    """Whether any byte of the request has been handed to a connection yet (after that, it may have arrived)."""

    sent: bool = False


def _tracking(base: type[http.client.HTTPConnection], progress: _Progress) -> Any:
    class Tracking(base):  # type: ignore[misc, valid-type]
        def send(self, data: Any) -> None:
            if self.sock is None and self.auto_open:
                self.connect()  # what send() would do first: a failure to connect has sent nothing
            progress.sent = True
            super().send(data)

    return Tracking


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, progress: _Progress) -> None:
        super().__init__()
        self._progress = progress

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_tracking(http.client.HTTPConnection, self._progress), req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, progress: _Progress) -> None:
        super().__init__()
        self._progress = progress

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(
            _tracking(http.client.HTTPSConnection, self._progress),
            req,
            context=self._context,  # type: ignore[attr-defined]
        )


def _exchange(request: urllib.request.Request, inputs: _HttpInputs, *, effect: bool) -> tuple[int, JsonValue]:
    """Send `request`; (status, body parsed as JSON when it is JSON). 5xx and unreachable hosts are retryable.

    With `effect` (the request changes something at the target), a failure after the request was sent, and a 5xx,
    raise EffectUnknown: the target may have applied it. Without, every failure is a plain OperationError.
    """
    for name, value in inputs.headers.items():
        request.add_header(name, value)
    progress = _Progress()
    opener = urllib.request.build_opener(_HTTPHandler(progress), _HTTPSHandler(progress))
    try:
        with opener.open(request, timeout=inputs.timeout_s) as response:
            status, raw = response.status, response.read(MAX_RESPONSE_BYTES)
    except urllib.error.HTTPError as exc:
        detail = exc.read(2048).decode("utf-8", "replace")
        message = f"{inputs.url} answered {exc.code} {exc.reason}: {detail[:300]}"
        if effect and exc.code >= 500:
            raise EffectUnknown(
                f"{message}; the request was received and may have been applied", retryable=True
            ) from None
        raise OperationError(message, retryable=exc.code >= 500) from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
        reason = getattr(exc, "reason", None) or exc
        if isinstance(reason, TimeoutError) or isinstance(exc, TimeoutError):
            reason = f"timed out after {inputs.timeout_s:g} s ({reason})"
        if effect and progress.sent:
            raise EffectUnknown(
                f"{inputs.url}: the request was sent but no complete answer came ({reason}); it may have been applied",
                retryable=True,
            ) from None
        raise OperationError(f"cannot reach {inputs.url}: {reason} (nothing was sent)", retryable=True) from None
    text = raw.decode("utf-8", "replace")
    try:
        body: JsonValue = json.loads(text) if text else None
    except ValueError:
        body = text
    return status, body


def post_json(inputs: PostJsonInputs, ctx: OperationContext) -> PostJsonOutputs:
    """POST the payload; 5xx and connection failures are retryable (the key makes a retry safe), 4xx are not.
    Once the request was sent, a failure to learn what became of it is `EffectUnknown` (see the module docstring)."""
    data = json.dumps(inputs.payload, ensure_ascii=False).encode("utf-8")
    request = urllib.request.Request(inputs.url, data=data, method="POST")
    request.add_header("Content-Type", "application/json; charset=utf-8")
    request.add_header("Idempotency-Key", ctx.idempotency_key)
    status, body = _exchange(request, inputs, effect=True)
    return PostJsonOutputs(status=status, body=body, idempotency_key=ctx.idempotency_key)


class GetJsonInputs(_HttpInputs):
    params: dict[str, JsonValue] = Field(
        default_factory=dict, max_length=64, description="query parameters; non-string values are sent as JSON"
    )


class GetJsonOutputs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    status: int
    body: JsonValue = Field(description="the response, parsed as JSON when it is JSON, else text")


def _query(params: dict[str, JsonValue]) -> str:
    pairs = [(k, v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)) for k, v in sorted(params.items())]
    return urlencode(pairs)


def get_json(inputs: GetJsonInputs, ctx: OperationContext) -> GetJsonOutputs:
    """GET a URL (with `params` as its query) and parse the answer; 5xx and connection failures are retryable."""
    url = inputs.url
    if inputs.params:
        url += ("&" if urlsplit(url).query else "?") + _query(inputs.params)
    request = urllib.request.Request(url, method="GET")
    request.add_header("Accept", "application/json")
    status, body = _exchange(request, inputs, effect=False)
    return GetJsonOutputs(status=status, body=body)


GET_JSON = Operation(
    "http.get_json",
    "GET a JSON document from an HTTP endpoint; query parameters travel to its host.",
    GetJsonInputs,
    GetJsonOutputs,
    "read",
    "repeatable",
    get_json,
    timeout_s=60.0,
    retry=RetryPolicy(max_attempts=3, backoff_s=1.0),
    url_input="url",
)

POST_JSON = Operation(
    "http.post_json",
    "POST a JSON document to an HTTP endpoint with an Idempotency-Key header.",
    PostJsonInputs,
    PostJsonOutputs,
    "external_transmission",
    "keyed",
    post_json,
    timeout_s=60.0,
    retry=RetryPolicy(max_attempts=3, backoff_s=1.0),
    url_input="url",
)
