"""Pure parts: reciprocal rank fusion, chunking, the exact vector index, write-gating helpers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alicorn.memory.chunking import chunk_text
from alicorn.memory.engine import iso, query_terms
from alicorn.memory.gate import content_hash, name_key, numbers
from alicorn.memory.search import rrf
from alicorn.memory.vectors import ExactIndex

ids = st.lists(st.sampled_from([f"m-{i}" for i in range(12)]), max_size=12, unique=True)


@settings(max_examples=100, deadline=None)
@given(st.lists(ids, min_size=1, max_size=3))
def test_rrf_scores_are_sums_of_reciprocal_ranks_and_order_is_total(rankings: list[list[str]]) -> None:
    fused = rrf(rankings)
    assert {i for i, _ in fused} == {i for r in rankings for i in r}
    for item, score in fused:
        expected = sum(1 / (60 + r.index(item) + 1) for r in rankings if item in r)
        assert score == pytest.approx(expected)
    assert [s for _, s in fused] == sorted((s for _, s in fused), reverse=True)
    assert rrf(rankings) == fused  # deterministic


def test_rrf_prefers_what_both_lists_found() -> None:
    fused = rrf([["a", "b", "c"], ["c", "d"]])
    assert fused[0][0] == "c"


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab .\n!?ż"), max_size=400), st.integers(1, 60))
def test_chunks_fit_and_keep_every_word(text: str, limit: int) -> None:
    chunks = chunk_text(text, max_chars=limit)
    assert all(0 < len(c) <= limit for c in chunks)
    original = "".join(text.split())
    assert "".join("".join(chunks).split()) == original


def test_chunks_prefer_paragraph_and_sentence_boundaries() -> None:
    text = "First paragraph. It has two sentences.\n\nSecond paragraph is here."
    assert chunk_text(text, max_chars=200) == ["First paragraph. It has two sentences.\n\nSecond paragraph is here."]
    assert chunk_text(text, max_chars=40) == ["First paragraph. It has two sentences.", "Second paragraph is here."]
    # A sentence too long for a chunk is cut between words; chunks are then filled up to the limit.
    assert chunk_text(text, max_chars=20) == [
        "First paragraph. It",
        "has two sentences.",
        "Second paragraph is",
        "here.",
    ]


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 300), st.integers(1, 20), st.integers(0, 2**16), st.floats(0.0, 1.0))
def test_exact_index_equals_brute_force_under_any_filter(n: int, k: int, seed: int, keep: float) -> None:
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((n, 8)).astype(np.float32)
    index = ExactIndex(8)
    for start in range(0, n, 97):  # loaded in increments, as new rows arrive
        index.extend([(i + 1, f"m-{i}", vectors[i].tobytes()) for i in range(start, min(n, start + 97))])
    passing = {f"m-{i}" for i in range(n) if rng.random() < keep}
    probe = rng.standard_normal(8).astype(np.float32)
    found = index.search(
        probe,
        k,
        lambda batch: {i for i in batch if i in passing},
        lambda: sorted(int(i[2:]) + 1 for i in passing),
    )
    scores = vectors @ probe
    expected = sorted((i for i in range(n) if f"m-{i}" in passing), key=lambda i: -scores[i])[:k]
    assert [rid for rid, _ in found] == [f"m-{i}" for i in expected]


def test_gating_helpers() -> None:
    assert name_key("  Anna\tKOWALSKA ") == name_key("anna kowalska") == "anna kowalska"
    assert content_hash("The Shift") == content_hash("the   shift") != content_hash("the shift!")
    assert numbers("from 3 to 14 March, 22:00, 1.5 kg") == ["3", "14", "22:00", "1.5"]
    assert query_terms("Kto ZASTĘPUJE Olgę? kto") == ["kto", "zastępuje", "olgę"]
    from datetime import UTC, datetime, timedelta, timezone

    moment = datetime(5, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=2)))
    assert iso(moment) == "0005-01-02T01:04:05.000000Z"
    assert iso(datetime(2025, 1, 1, tzinfo=UTC)) < iso(datetime(2025, 1, 1, 0, 0, 0, 1, tzinfo=UTC))
