"""Open MCP sessions, one per server, kept for as long as the app lives (not re-opened per call).

The SDK is asynchronous and the executor runs operations on worker threads, so the pool owns one event loop on a
thread of its own. Each server's session lives in one task there (the task that entered the client's context is
the one that leaves it, as anyio requires); calls from worker threads are submitted to that loop and waited for
with the call's timeout, and given up (the request cancelled) when the timeout passes or the run is cancelled.
`close()` ends every session (a stdio server's process is ended with it) and stops the loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
import threading
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import IO, Any, TextIO, TypeVar, cast

from alicorn.errors import AlicornError
from alicorn.mcp.settings import ServerSettings

T = TypeVar("T")
_CLOSE_WAIT_S = 5.0


class McpServerError(AlicornError):
    """An MCP server cannot be used: it does not start, does not answer, or breaks the protocol."""


@dataclass
class _Held:
    client: Any
    stop: asyncio.Event
    task: asyncio.Future[None]
    errlog: IO[str]


class SessionPool:
    """MCP sessions by server name (see the module docstring). Thread-safe; `close` is idempotent."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._held: dict[str, _Held] = {}
        self._closed = False

    # ---- the loop ---------------------------------------------------------------------------------------------

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._closed:
                raise McpServerError("the MCP sessions of this app are closed; open the app again")
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="alicorn-mcp", daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    def _wait(self, coro: Coroutine[Any, Any, T], timeout_s: float, cancelled: threading.Event | None = None) -> T:
        """Run `coro` on the pool's loop; TimeoutError after `timeout_s` (the coroutine is cancelled), and
        InterruptedError when `cancelled` is set first."""
        future = asyncio.run_coroutine_threadsafe(coro, self._running_loop())
        deadline = threading.Event()
        timer = threading.Timer(timeout_s, deadline.set)
        timer.daemon = True
        timer.start()
        try:
            while not future.done():
                if deadline.is_set():
                    future.cancel()
                    raise TimeoutError
                if cancelled is not None and cancelled.is_set():
                    future.cancel()
                    raise InterruptedError
                with contextlib.suppress(TimeoutError, asyncio.CancelledError, Exception):
                    future.result(timeout=0.05)
            return future.result()
        finally:
            timer.cancel()

    # ---- sessions ---------------------------------------------------------------------------------------------

    def connect(self, settings: ServerSettings) -> None:
        """Start (or reach) the server and complete the MCP handshake within its `start_timeout_s`."""
        if settings.name in self._held:
            return
        # Kept open while the session lives (closed by `close`), so not a `with` block.
        errlog = cast(TextIO, tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace"))  # noqa: SIM115
        try:
            held = self._wait(self._open(settings, errlog), settings.start_timeout_s)
        except TimeoutError:
            errlog.close()
            raise McpServerError(
                f"MCP server {settings.name!r} ({settings.target}) did not complete the MCP handshake within "
                f"{settings.start_timeout_s:g} s{_last_words(errlog)}; check that it speaks MCP on "
                f"{settings.transport}, or raise [mcp.servers.{settings.name}] start_timeout_s"
            ) from None
        except Exception as exc:
            words = _last_words(errlog)
            errlog.close()
            raise McpServerError(
                f"MCP server {settings.name!r} ({settings.target}) cannot be used: {_cause(exc)}{words}; fix "
                f"[mcp.servers.{settings.name}] in alicorn.toml (the command or url) or remove it"
            ) from None
        with self._lock:
            self._held[settings.name] = held

    async def _open(self, settings: ServerSettings, errlog: TextIO) -> _Held:
        from mcp import Client
        from mcp.client.stdio import StdioServerParameters, stdio_client

        target: Any
        if settings.command:
            params = StdioServerParameters(
                command=settings.command[0], args=list(settings.command[1:]), env=dict(settings.env) or None
            )
            # The child's stderr goes to a file of ours, to quote when the server fails (not to our terminal).
            target = stdio_client(params, errlog=errlog)
        else:
            target = settings.url
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[Any] = loop.create_future()
        stop = asyncio.Event()

        async def hold() -> None:
            try:
                client = Client(target, cache=None)
                async with client:
                    ready.set_result(client)
                    await stop.wait()
            except BaseException as exc:
                if not ready.done():
                    ready.set_exception(exc if isinstance(exc, Exception) else McpServerError(str(exc)))
                if isinstance(exc, asyncio.CancelledError):
                    raise

        task = asyncio.ensure_future(hold())
        try:
            client = await ready
        except asyncio.CancelledError:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
            raise
        return _Held(client, stop, task, errlog)

    def list_tools(self, settings: ServerSettings) -> list[Any]:
        """Every tool the server lists (all pages), within `start_timeout_s`."""
        held = self._session(settings.name)

        async def listing() -> list[Any]:
            tools: list[Any] = []
            cursor: str | None = None
            for _ in range(100):
                page = await held.client.list_tools(cursor=cursor)
                tools.extend(page.tools)
                cursor = page.next_cursor
                if cursor is None:
                    break
            return tools

        try:
            return self._wait(listing(), settings.start_timeout_s)
        except TimeoutError:
            raise McpServerError(
                f"MCP server {settings.name!r} did not list its tools within {settings.start_timeout_s:g} s; check "
                f"the server, or raise [mcp.servers.{settings.name}] start_timeout_s"
            ) from None
        except Exception as exc:
            raise McpServerError(
                f"MCP server {settings.name!r} failed to list its tools: {_cause(exc)}; check the server"
            ) from None

    def call_tool(
        self, server: str, tool: str, arguments: dict[str, Any], timeout_s: float, cancelled: threading.Event
    ) -> Any:
        """`tools/call` on the open session; TimeoutError, InterruptedError, or the SDK's error as it came."""
        held = self._session(server)
        # The SDK's own timeout is a backstop a little later than ours, so ours (with its clearer sentence) fires.
        request = held.client.call_tool(tool, arguments, read_timeout_seconds=timeout_s + 5)
        return self._wait(request, timeout_s, cancelled)

    def _session(self, server: str) -> _Held:
        with self._lock:
            held = self._held.get(server)
        if held is None:
            raise McpServerError(
                f"MCP server {server!r} is not connected in this app (it was opened read-only, or the server could "
                "not be started); run the command again in a home opened for running"
            )
        return held

    @property
    def servers(self) -> list[str]:
        with self._lock:
            return sorted(self._held)

    def close(self) -> None:
        """End every session and the loop (waiting a few seconds for servers to stop)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            loop, thread, held, self._held = self._loop, self._thread, self._held, {}
        if loop is None:
            return

        async def stop_all() -> None:
            for item in held.values():
                item.stop.set()
            if held:
                await asyncio.wait([item.task for item in held.values()], timeout=_CLOSE_WAIT_S)
            for item in held.values():
                item.task.cancel()

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(stop_all(), loop).result(timeout=_CLOSE_WAIT_S + 1)
        loop.call_soon_threadsafe(loop.stop)
        if thread is not None:
            thread.join(timeout=_CLOSE_WAIT_S)
        for item in held.values():
            item.errlog.close()
        if thread is None or not thread.is_alive():
            loop.close()


def _cause(exc: BaseException) -> str:
    """The innermost useful sentence of an error (the SDK wraps transport failures in exception groups)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, FileNotFoundError):
        return f"the command {exc.filename or ''!s} was not found".replace("  ", " ")
    if isinstance(exc, PermissionError):
        return f"the command {exc.filename or ''!s} may not be run (permission denied)"
    text = str(exc).strip() or type(exc).__name__
    return f"{type(exc).__name__}: {text[:300]}"


def _last_words(errlog: IO[str]) -> str:
    """The last line the server wrote on stderr (quoted in errors: it usually says what went wrong)."""
    with contextlib.suppress(Exception):
        errlog.flush()
        errlog.seek(0)
        lines = [line.strip() for line in errlog.read().splitlines() if line.strip()]
        if lines:
            return f" (its last words on stderr: {lines[-1][:200]!r})"
    return ""
