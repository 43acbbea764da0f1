"""A provider in a child process: native code that crashes there (a segfault inside llama.cpp) cannot take Alicorn down.

    parent: IsolatedProvider.complete(request) ─► pipe ─► child: provider.complete(request) ─► pipe ─► response
                                                  child dies (signal, exit) ─► ProviderCrashedError, child restarted
                                                                               on the next call

The child is started from a forkserver (a clean, single-threaded process that forks children quickly), builds the
provider from an import spec (`"package.module:Class"` and keyword arguments: nothing unpicklable crosses), and
answers requests one at a time. Requests and answers cross the pipe as JSON-ready dicts. A `ProviderError` raised in
the child reaches the caller as the same class with the same message; a crash reaches it as a
`ProviderCrashedError` naming the signal, which the models package journals as an `llm.error` like any provider
failure, so Core goes on without the model (it asks, or uses what the words said). The next call starts a new
child, so one bad prompt costs that prompt's answer, not the session.
"""

from __future__ import annotations

import importlib
import multiprocessing
import signal
import threading
from multiprocessing.connection import Connection
from multiprocessing.context import ForkServerContext, SpawnContext
from typing import Any

from alicorn.context.tokens import TokenCounter
from alicorn.models import errors
from alicorn.models.errors import ProviderCrashedError, ProviderError, ProviderTimeoutError
from alicorn.models.messages import ChatRequest, ChatResponse
from alicorn.models.providers.base import Provider

#: How long a child may take to load its model and answer one request before it is stopped.
DEFAULT_TIMEOUT_S = 600.0


def _build(spec: str, options: dict[str, Any]) -> Provider:
    module_name, _, class_name = spec.partition(":")
    provider = getattr(importlib.import_module(module_name), class_name)(**options)
    if not isinstance(provider, Provider):
        raise ProviderError(f"{spec} is not a Provider")
    return provider


def _serve(connection: Connection, spec: str, options: dict[str, Any]) -> None:
    """The child's loop: build the provider, then answer ("complete", request) and ("count", text) until closed."""
    try:
        provider = _build(spec, options)
    except Exception as exc:  # anything the provider's constructor raises is reported, then the child ends
        connection.send(("error", type(exc).__name__, str(exc)))
        return
    connection.send(("ready", provider.kind, provider.constrains_output))
    counter: TokenCounter | None = None
    while True:
        try:
            message = connection.recv()
        except EOFError:
            break
        kind, payload = message
        try:
            if kind == "complete":
                response = provider.complete(ChatRequest.model_validate(payload))
                connection.send(("ok", response.model_dump(mode="json")))
            elif kind == "count":
                counter = counter or provider.token_counter()
                connection.send(("ok", None if counter is None else counter.count(payload)))
            elif kind == "counter":
                counter = counter or provider.token_counter()
                connection.send(("ok", None if counter is None else counter.name))
        except Exception as exc:  # the provider's own failures travel back; a crash kills the child instead
            connection.send(("error", type(exc).__name__, str(exc)))
    provider.close()


def _context() -> ForkServerContext | SpawnContext:
    """A forkserver (children fork from a clean process that has this module loaded), else spawn."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    return context


class IsolatedProvider(Provider):
    """`spec`'s provider, run in a child process (see the module docstring)."""

    def __init__(
        self, spec: str, *, kind: str = "isolated", timeout_s: float = DEFAULT_TIMEOUT_S, **options: Any
    ) -> None:
        self.spec = spec
        self.options = options
        self.timeout_s = timeout_s
        self.kind = kind
        self.crashes = 0
        self._lock = threading.Lock()
        self._process: Any = None
        self._connection: Connection | None = None

    # ---- the child ------------------------------------------------------------------------------------------

    def _start(self) -> Connection:
        if self._connection is not None and self._process is not None and self._process.is_alive():
            return self._connection
        self._stop()
        parent, child = _context().Pipe()
        process = _context().Process(target=_serve, args=(child, self.spec, self.options), daemon=True)
        process.start()
        child.close()
        self._process, self._connection = process, parent
        ready = self._receive(parent, "loading the model")
        if ready[0] == "ready":
            self.constrains_output = bool(ready[2])
        return parent

    def _stop(self) -> None:
        if self._connection is not None:
            self._connection.close()
        if self._process is not None:
            if self._process.is_alive():
                self._process.kill()
            self._process.join(timeout=5)
        self._process, self._connection = None, None

    def _receive(self, connection: Connection, doing: str) -> tuple[Any, ...]:
        """The child's next message; a dead, hung or failing child as the ProviderError the caller can act on."""
        if not connection.poll(self.timeout_s):
            self._stop()
            raise ProviderTimeoutError(
                f"the model process ({self.spec}) did not answer within {self.timeout_s:g} s while {doing}; it was "
                "stopped (a longer timeout, or a smaller model)"
            )
        try:
            message: tuple[Any, ...] = connection.recv()
        except (EOFError, OSError):
            raise self._crashed(doing) from None
        if message[0] == "error":
            name, text = str(message[1]), str(message[2])
            known = getattr(errors, name, None)
            if isinstance(known, type) and issubclass(known, ProviderError):
                raise known(text)  # the provider's own failure, as it raised it
            raise ProviderError(f"the model process ({self.spec}) failed: {name}: {text}")
        return message

    def _crashed(self, doing: str) -> ProviderCrashedError:
        process = self._process
        if process is not None:
            process.join(timeout=5)
        code = process.exitcode if process is not None else None
        self._stop()
        self.crashes += 1
        how = f"exit status {code}"
        if code is not None and code < 0:
            try:
                how = f"signal {signal.Signals(-code).name}"
            except ValueError:
                how = f"signal {-code}"
        return ProviderCrashedError(
            f"the model process ({self.spec}) died ({how}) while {doing}; Alicorn goes on without its answer and "
            "starts a new one for the next call"
        )

    def _ask(self, kind: str, payload: Any, doing: str) -> Any:
        with self._lock:
            connection = self._start()
            try:
                connection.send((kind, payload))
            except (BrokenPipeError, OSError):
                raise self._crashed(doing) from None
            return self._receive(connection, doing)[1]

    # ---- Provider -------------------------------------------------------------------------------------------

    def complete(self, request: ChatRequest) -> ChatResponse:
        return ChatResponse.model_validate(self._ask("complete", request.model_dump(mode="json"), "answering"))

    def token_counter(self) -> TokenCounter | None:
        name = self._ask("counter", None, "loading the tokenizer")
        if name is None:
            return None
        return TokenCounter(str(name), lambda text: int(self._ask("count", text, "counting tokens")))

    def close(self) -> None:
        with self._lock:
            self._stop()
