"""The OpenAI-compatible provider against a real loopback HTTP server that answers from a script."""

from __future__ import annotations

import socket

import pytest

from alicorn.models.errors import (
    ProviderAuthError,
    ProviderResponseError,
    ProviderTimeoutError,
    ProviderUnavailableError,
    UnknownModelError,
)
from alicorn.models.messages import ChatRequest
from alicorn.models.providers.openai_http import OpenAICompatibleProvider
from tests.models.fake_openai import Reply, completion, serve
from tests.models.support import FakeClock

ASK = ChatRequest.chat("You classify.", "Hello there")
SCHEMA = {"type": "object", "properties": {"kind": {"enum": ["a", "b"]}}, "required": ["kind"]}


def provider(url: str, **options: object) -> OpenAICompatibleProvider:
    return OpenAICompatibleProvider(url, "fake-model", clock=options.pop("clock", FakeClock()), **options)  # type: ignore[arg-type]


def test_chat_usage_and_request_body() -> None:
    usage = {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}
    with serve([completion("Hi!", usage=usage)]) as server, provider(server.url) as p:
        answer = p.complete(ASK)
    assert answer.text == "Hi!" and answer.finish_reason == "stop"
    assert (answer.usage.prompt_tokens, answer.usage.completion_tokens, answer.usage.estimated) == (12, 3, False)
    sent = server.requests[0]
    assert sent["model"] == "fake-model" and sent["messages"][1] == {"role": "user", "content": "Hello there"}
    assert sent["seed"] == 0 and sent["temperature"] == 0.0 and "response_format" not in sent


def test_json_schema_is_sent_as_response_format() -> None:
    with serve([completion('{"kind": "a"}')]) as server, provider(server.url) as p:
        answer = p.complete(ASK.model_copy(update={"json_schema": SCHEMA, "schema_name": "Label"}))
    response_format = server.requests[0]["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"] == {"name": "Label", "schema": SCHEMA, "strict": True}
    assert answer.constrained


def test_missing_usage_is_estimated() -> None:
    with serve([completion("a b c")]) as server, provider(server.url) as p:
        answer = p.complete(ASK)
    assert answer.usage.estimated and answer.usage.completion_tokens > 0


def test_server_without_json_schema_gets_json_mode_and_it_is_remembered() -> None:
    refusal = Reply(status=400, body={"error": {"message": "response_format json_schema is not supported"}})
    with (
        serve([refusal, completion('{"kind": "b"}'), completion('{"kind": "a"}')]) as server,
        provider(server.url) as p,
    ):
        first = p.complete(ASK.model_copy(update={"json_schema": SCHEMA}))
        second = p.complete(ASK.model_copy(update={"json_schema": SCHEMA}))
    assert first.text == '{"kind": "b"}' and not first.constrained and not second.constrained
    assert "response_format" in server.requests[0]
    assert [r["response_format"]["type"] for r in server.requests[1:]] == ["json_object", "json_object"]


def test_overload_is_retried_with_backoff_then_succeeds() -> None:
    clock = FakeClock()
    busy = Reply(status=503, body={"error": {"message": "loading model"}})
    with serve([busy, busy, completion("ok")]) as server, provider(server.url, clock=clock, backoff_s=0.5) as p:
        assert p.complete(ASK).text == "ok"
    assert clock.slept == [0.5, 1.0] and len(server.requests) == 3


def test_retry_after_is_honoured() -> None:
    clock = FakeClock()
    limited = Reply(status=429, body={"error": {"message": "slow down"}}, headers={"Retry-After": "3"})
    with serve([limited, completion("ok")]) as server, provider(server.url, clock=clock) as p:
        assert p.complete(ASK).text == "ok"
    assert clock.slept == [3.0]


def test_persistent_failure_reports_attempts() -> None:
    clock = FakeClock()
    down = Reply(status=502, body={"error": {"message": "bad gateway"}})
    with (
        serve([down, down, down]) as server,
        provider(server.url, clock=clock, max_retries=2) as p,
        pytest.raises(ProviderUnavailableError) as info,
    ):
        p.complete(ASK)
    assert "after 3 attempts" in str(info.value) and len(clock.slept) == 2


def test_unreachable_server_is_a_clear_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    clock = FakeClock()
    unreachable = provider(f"http://127.0.0.1:{port}/v1", clock=clock, max_retries=1)
    with unreachable as p, pytest.raises(ProviderUnavailableError, match="cannot reach the model server") as info:
        p.complete(ASK)
    assert "is it running" in str(info.value) and clock.slept == [0.5]


def test_unknown_model_lists_what_is_served() -> None:
    missing = Reply(status=404, body={"error": {"message": 'model "fake-model" not found, try pulling it first'}})
    with (
        serve([missing], models=["qwen2.5:7b", "llama3:8b"]) as server,
        provider(server.url) as p,
        pytest.raises(UnknownModelError) as info,
    ):
        p.complete(ASK)
    assert "qwen2.5:7b" in str(info.value) and "fake-model" in str(info.value)
    assert len(server.requests) == 1  # not retried


def test_timeout_is_retried_then_reported() -> None:
    clock = FakeClock()
    with (
        serve([Reply(hold=True, body={}), Reply(hold=True, body={})]) as server,
        provider(server.url, clock=clock, timeout_s=0.2, max_retries=1) as p,
        pytest.raises(ProviderTimeoutError, match=r"did not answer within 0\.2 s"),
    ):
        p.complete(ASK)
    assert len(server.requests) == 2


@pytest.mark.parametrize(
    "reply",
    [
        Reply(raw="<html>502 proxy</html>"),
        Reply(body={"choices": []}),
        Reply(body={"choices": [{"message": {"content": 42}}]}),
        Reply(body=["not", "an", "object"]),
    ],
    ids=["html", "no-choices", "content-not-text", "array"],
)
def test_garbage_body_is_a_response_error(reply: Reply) -> None:
    with (
        serve([reply]) as server,
        provider(server.url) as p,
        pytest.raises(ProviderResponseError, match="not a chat completion"),
    ):
        p.complete(ASK)


def test_api_key_comes_from_the_named_env_var_and_is_never_in_errors() -> None:
    key = "sk-test-abcdefghijklmnop1234"
    refused = Reply(status=401, body={"error": {"message": f"invalid key {key}"}})
    with (
        serve([completion("ok"), refused]) as server,
        provider(server.url, api_key_env="FAKE_KEY", env={"FAKE_KEY": key}) as p,
    ):
        p.complete(ASK)
        with pytest.raises(ProviderAuthError) as info:
            p.complete(ASK)
    assert server.headers[0]["authorization"] == f"Bearer {key}"
    assert key not in str(info.value) and "FAKE_KEY" in str(info.value)


def test_missing_key_variable_is_reported_before_any_request() -> None:
    with (
        serve([]) as server,
        provider(server.url, api_key_env="ABSENT_KEY", env={}) as p,
        pytest.raises(ProviderAuthError, match="ABSENT_KEY, which is not set"),
    ):
        p.complete(ASK)
    assert server.requests == []
