"""Journaling model calls: llm.request / llm.response / llm.error, secrets scrubbed, replay from the journal."""

from __future__ import annotations

import pytest

from alicorn.context.tap import JournalTap
from alicorn.journal.memory import InMemoryStore
from alicorn.models.errors import ProviderTimeoutError, ScriptExhaustedError
from alicorn.models.messages import ChatRequest
from alicorn.models.providers.scripted import Scripted, ScriptedProvider
from alicorn.models.recorder import ModelCallRecorder, ModelClient
from tests.models.support import FakeClock, profile

SECRET = "sk-proj-AAAAbbbbCCCCddddEEEE1234"


def recorded_client(script: list[object], store: InMemoryStore) -> ModelClient:
    tap = JournalTap(store, "run-1:models", FakeClock())
    return ModelClient(
        profile(cost_input_per_1k=1.0, cost_output_per_1k=2.0), ScriptedProvider(script), ModelCallRecorder(tap)
    )  # type: ignore[arg-type]


def test_request_and_response_are_journaled_with_usage_latency_and_cost() -> None:
    store = InMemoryStore()
    client = recorded_client([Scripted("hello", prompt_tokens=100, completion_tokens=50)], store)
    client.complete(ChatRequest.chat("sys", "hi"), purpose="greet")
    request, response = store.read("run-1:models")
    assert request.kind == "llm.request" and response.kind == "llm.response"
    assert request.data["profile"]["id"] == "test-local" and request.data["purpose"] == "greet"
    assert request.data["messages"][1] == {"role": "user", "content": "hi"}
    assert response.data["call"] == "run-1:models#1"
    assert response.data["usage"] == {"prompt_tokens": 100, "completion_tokens": 50, "estimated": False}
    assert response.data["latency_ms"] == 250.0  # two readings of the fake clock
    assert response.data["cost"] == pytest.approx(0.1 + 0.1)


def test_secrets_never_reach_the_prompt_or_the_journal() -> None:
    store = InMemoryStore()
    provider = ScriptedProvider([f"the key was {SECRET}"])
    tap = JournalTap(store, "s", FakeClock())
    client = ModelClient(profile(), provider, ModelCallRecorder(tap))
    answer = client.complete(ChatRequest.chat("sys", f"use the key {SECRET} please"))
    assert SECRET not in provider.requests[0].messages[1].content
    assert all(SECRET not in e.line for e in store.read("s"))
    assert SECRET not in answer.text
    assert store.read("s")[0].data["secrets_scrubbed"] == 1


def test_unrecorded_client_scrubs_too() -> None:
    provider = ScriptedProvider(["ok"])
    ModelClient(profile(), provider).complete(ChatRequest.chat("", f"password: {SECRET}"))
    assert SECRET not in provider.requests[0].messages[0].content


def test_errors_are_journaled_and_raised() -> None:
    store = InMemoryStore()
    client = recorded_client([ProviderTimeoutError("no answer within 5 s")], store)
    with pytest.raises(ProviderTimeoutError):
        client.complete(ChatRequest.chat("", "hi"))
    error = store.read("run-1:models")[-1]
    assert error.kind == "llm.error" and error.data["error"] == "ProviderTimeoutError" and error.data["retryable"]


def test_the_journal_replays_through_a_scripted_provider() -> None:
    store = InMemoryStore()
    client = recorded_client(["first", ProviderTimeoutError("slow"), "second"], store)
    client.complete(ChatRequest.chat("", "a"))
    with pytest.raises(ProviderTimeoutError):
        client.complete(ChatRequest.chat("", "b"))
    client.complete(ChatRequest.chat("", "c"))
    replay = ScriptedProvider.from_events(store.read("run-1:models"))
    assert replay.complete(ChatRequest.chat("", "a")).text == "first"
    with pytest.raises(ProviderTimeoutError):
        replay.complete(ChatRequest.chat("", "b"))
    assert replay.complete(ChatRequest.chat("", "c")).text == "second"
    with pytest.raises(ScriptExhaustedError, match="asked for answer #4"):
        replay.complete(ChatRequest.chat("", "d"))
