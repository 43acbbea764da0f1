"""Every error the service answers is an RFC 9457 problem detail (`application/problem+json`).

`type`, `title`, `status`, `detail` (one sentence: what was wrong and how to fix it) and `instance` (the path asked
for). FastAPI's own refusals (no such route, wrong method, a query or body that does not validate, malformed JSON)
are turned into the same shape here, and `BodyLimit` refuses an oversized body with 413 before the route reads it.
A refused request changes nothing.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from alicorn.errors import EnvironmentFailure

MEDIA_TYPE = "application/problem+json"
TYPE_BASE = "https://alicorn.dev/problems/"
_TITLES = {
    400: "Bad request",
    401: "Not signed in",
    403: "Not allowed",
    404: "Not found",
    405: "Method not allowed",
    409: "Conflict",
    415: "Unsupported media type",
    413: "Request body too large",
    422: "Invalid input",
    500: "Internal error",
    503: "Unavailable",
}


class Problem(Exception):
    """Raised by a route to answer a problem detail; `slug` names its `type`."""

    def __init__(self, status: int, slug: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.status, self.slug, self.detail, self.extra = status, slug, detail, extra


def invalid_cursor(cursor: str | None) -> Problem:
    """The refusal of a paging cursor the service did not give (the run and conversation lists share it)."""
    return Problem(422, "invalid-cursor", f"cursor {cursor!r} is not one this service gave; use a page's `next_cursor`")


def problem_body(status: int, slug: str, detail: str, instance: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": TYPE_BASE + slug,
        "title": _TITLES.get(status, "Error"),
        "status": status,
        "detail": detail,
        "instance": instance,
        **extra,
    }


def problem_response(
    status: int, slug: str, detail: str, instance: str, headers: dict[str, str] | None = None, **extra: Any
) -> JSONResponse:
    body = problem_body(status, slug, detail, instance, **extra)
    return JSONResponse(body, status_code=status, media_type=MEDIA_TYPE, headers=headers)


def _where(location: tuple[Any, ...] | list[Any]) -> str:
    parts = [str(p) for p in location]
    if parts and parts[0] in ("query", "path", "header", "body"):
        return f"{parts[0]} {'.'.join(parts[1:]) or '(whole)'}"
    return ".".join(parts) or "the request"


def install(app: FastAPI) -> None:
    """Make every refusal of `app` a problem detail."""

    @app.exception_handler(Problem)
    async def _problem(request: Request, exc: Problem) -> JSONResponse:
        headers = {"WWW-Authenticate": 'Bearer realm="alicorn"'} if exc.status == 401 else None
        return problem_response(exc.status, exc.slug, exc.detail, request.url.path, headers, **exc.extra)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        if any(e.get("type") == "json_invalid" for e in errors):
            first = next(e for e in errors if e.get("type") == "json_invalid")
            reason = (first.get("ctx") or {}).get("error", "it does not parse")
            detail = f"the request body is not valid JSON ({reason}); send a JSON object"
            return problem_response(400, "malformed-json", detail, request.url.path)
        said = "; ".join(f"{_where(e.get('loc', ()))}: {e.get('msg', 'invalid')}" for e in errors[:5])
        invalid = [{"where": _where(e.get("loc", ())), "message": str(e.get("msg", ""))} for e in errors]
        detail = f"the request does not validate ({said}); fix those fields and send it again"
        return problem_response(422, "invalid-input", detail, request.url.path, errors=invalid)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        path = request.url.path
        if exc.status_code == 404:
            detail = f"there is nothing at {path}; /docs lists the API's routes"
            return problem_response(404, "not-found", detail, path)
        if exc.status_code == 405:
            detail = f"{request.method} is not allowed on {path}; /docs lists what each route accepts"
            headers = dict(exc.headers) if exc.headers else None
            return problem_response(405, "method-not-allowed", detail, path, headers)
        detail = str(exc.detail) if exc.detail else _TITLES.get(exc.status_code, "error")
        return problem_response(exc.status_code, "http-error", detail, path)

    @app.exception_handler(EnvironmentFailure)
    async def _environment(request: Request, exc: EnvironmentFailure) -> JSONResponse:
        # The machine failed the service, not the request (a journal server that is down, a disk that is full):
        # its sentence (passwords masked) and a hint to try again; what the journal holds is unchanged.
        detail = f"{exc}; try again shortly"
        return problem_response(503, "unavailable", detail, request.url.path, {"Retry-After": "5"})

    @app.exception_handler(Exception)
    async def _crash(request: Request, exc: Exception) -> JSONResponse:
        detail = (
            f"the service failed on this request ({type(exc).__name__}); nothing was changed. Its log says more; "
            "report it if it happens again"
        )
        return problem_response(500, "internal-error", detail, request.url.path)


class BodyLimit:
    """Refuse a request body over `limit` bytes with 413, whether it says its length or streams it chunked.

    The paths `uploads` matches (the routes that take a file) may send up to `upload_limit` bytes instead; their
    refusal says the file is too large. A page's refusal is a plain sentence, an API route's a problem detail."""

    def __init__(
        self, app: ASGIApp, limit: int, *, uploads: re.Pattern[str] | None = None, upload_limit: int = 0
    ) -> None:
        self.app, self.base_limit = app, limit
        self.uploads, self.upload_limit = uploads, upload_limit

    def _limit(self, path: str) -> int:
        if self.uploads is not None and self.uploads.fullmatch(path):
            return max(self.upload_limit, self.base_limit)
        return self.base_limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self._limit(str(scope.get("path", "")))
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            await self._refuse(scope, send, limit)
            return
        # Read the whole body first (it is small, or refused): the route then never sees a byte of a body too large.
        chunks: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away before sending its body
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > limit:
                await self._refuse(scope, send, limit)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, scope: Scope, send: Send, limit: int) -> None:
        path = str(scope.get("path", ""))
        if limit > self.base_limit:
            detail = (
                f"the upload is larger than {limit:,} bytes, the most this service takes in one request; send a "
                "smaller file, or one file at a time; nothing was stored"
            )
        else:
            detail = f"the request body is larger than {limit:,} bytes, the most this service reads; send less"
        response: Response = (
            problem_response(413, "body-too-large", detail, path)
            if path.startswith("/api/")
            else PlainTextResponse(detail, status_code=413)
        )
        await response(scope, _nothing, send)


async def _nothing() -> Message:
    return {"type": "http.disconnect"}
