"""Search, part of the memory contract: hybrid fusion, filters, exactness against brute force, expansion."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from alicorn.memory.errors import MemoryInputError
from alicorn.memory.models import CLASSIFICATIONS, KINDS, TRUSTS, Filters, NewRecord

from .harness import DIM, MEMORY_SETTINGS, OPERATOR, WEB

if TYPE_CHECKING:
    from alicorn.memory.store import MemoryStore

TOPICS = [
    "night shift forklift operators warehouse",
    "camera false alarms wind branches fence",
    "render time driver shader cache",
    "vacation schedule March shifts",
    "backup accounting database NAS",
    "badge reader entrance reset button",
]


def _filled(store: MemoryStore, n: int = 36) -> list[str]:
    """n records across kinds, trust, classifications and tags (deterministic)."""
    drafts = []
    for i in range(n):
        kind = ("fact", "episode", "chunk")[i % 3]
        drafts.append(
            NewRecord(
                text=f"{TOPICS[i % len(TOPICS)]} note {i}",
                kind=kind,
                trust="instruction" if i % 5 == 0 else "data",
                classification=CLASSIFICATIONS[i % 4],
                tags=tuple(t for t, on in (("red", i % 2 == 0), ("blue", i % 3 == 0)) if on),
                provenance=OPERATOR if i % 5 == 0 else WEB,
            )
        )
    return [r.record.id for r in store.add_many(drafts)]


class SearchContract:
    def store(self, project: str = "alpha", **kwargs: object) -> MemoryStore:
        raise NotImplementedError

    def test_hybrid_search_fuses_vector_and_text_ranks(self) -> None:
        store = self.store()
        ids = _filled(store)
        result = store.search("camera false alarms", k=5)
        assert len(result.hits) == 5
        top = result.hits[0]
        assert "camera" in top.record.text and top.vector_rank is not None and top.text_rank is not None
        assert [h.score for h in result.hits] == sorted((h.score for h in result.hits), reverse=True)
        assert {h.record.id for h in result.hits} <= set(ids)
        text_only = store.search("shader", k=10, mode="text")
        assert text_only.hits and all("shader" in h.record.text for h in text_only.hits)
        assert all(h.vector_rank is None for h in text_only.hits)
        vector_only = store.search("shader", k=3, mode="vector")
        assert len(vector_only.hits) == 3 and all(h.text_rank is None for h in vector_only.hits)

    def test_vector_search_is_exact_against_brute_force(self) -> None:
        store = self.store()
        rng = np.random.default_rng(7)
        vectors = rng.standard_normal((60, DIM)).astype(np.float32)
        ids = [
            r.record.id
            for r in store.add_many(
                [NewRecord(text=f"v{i}", provenance=WEB) for i in range(60)], vectors=vectors, dedupe=False
            )
        ]
        unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        for probe in rng.standard_normal((5, DIM)).astype(np.float32):
            expected = [ids[i] for i in np.argsort(-(unit @ (probe / np.linalg.norm(probe))))[:10]]
            found = [h.record.id for h in store.search("", k=10, mode="vector", vector=probe).hits]
            assert found == expected
        for rid, row in zip(ids[:3], unit[:3], strict=True):
            assert np.allclose(store.vector(rid), row, atol=1e-6)

    def test_filters_narrow_hits(self) -> None:
        store = self.store()
        _filled(store)

        @MEMORY_SETTINGS
        @given(
            kinds=st.lists(st.sampled_from(KINDS), max_size=2, unique=True),
            trust=st.lists(st.sampled_from(TRUSTS), max_size=1, unique=True),
            classes=st.lists(st.sampled_from(CLASSIFICATIONS), max_size=2, unique=True),
            tags=st.lists(st.sampled_from(["red", "blue"]), max_size=2, unique=True),
            query=st.sampled_from(TOPICS),
            mode=st.sampled_from(["hybrid", "vector", "text"]),
        )
        def check(
            kinds: list[str], trust: list[str], classes: list[str], tags: list[str], query: str, mode: str
        ) -> None:
            filters = Filters.model_validate({"kinds": kinds, "trust": trust, "classifications": classes, "tags": tags})
            hits = store.search(query, k=8, filters=filters, mode=mode).hits  # type: ignore[arg-type]
            assert len(hits) <= 8
            for hit in hits:
                record = hit.record
                assert record.project == "alpha"
                assert not kinds or record.kind in kinds
                assert not trust or record.trust in trust
                assert not classes or record.classification in classes
                assert set(tags) <= set(record.tags)
            everything = store.search(query, k=50, filters=filters, mode="vector").hits if mode == "vector" else None
            if everything is not None:  # the filtered vector search returns as many as exist, up to k
                assert len(hits) == min(8, len(everything))

        check()

    def test_a_very_selective_filter_still_finds_the_few_matches(self) -> None:
        store = self.store()
        _filled(store, 12)
        drafts = [NewRecord(text=f"ordinary record {i}", provenance=WEB) for i in range(300)]
        store.add_many(drafts, dedupe=False)
        rare = store.add(
            NewRecord(text="a rare secret one", classification="secret", tags=("rare",), provenance=WEB)
        ).record
        hits = store.search("ordinary record", k=5, filters=Filters(tags=("rare",)), mode="vector").hits
        assert [h.record.id for h in hits] == [rare.id]

    def test_graph_expansion_brings_related_records(self) -> None:
        store = self.store()
        hit = store.add(
            NewRecord(text="Anna covers the night shift on Friday.", entities=("Anna Kowalska",), provenance=OPERATOR)
        ).record
        other = store.add(
            NewRecord(text="Her forklift licence expires in May.", entities=("Anna Kowalska",), provenance=OPERATOR)
        ).record
        result = store.search("who covers the night shift Friday", k=1, expand=2)
        assert [h.record.id for h in result.hits] == [hit.id]
        related = {r.record.id: r for r in result.related}
        entity = next(r for r in result.related if r.record.kind == "entity")
        assert entity.depth == 1 and entity.via == hit.id
        assert related[other.id].depth == 2
        limited = store.search(
            "who covers the night shift Friday", k=1, expand=2, filters=Filters(classifications=("public",))
        )
        assert limited.hits == () and limited.related == ()

    def test_bad_search_arguments_are_clear_errors(self) -> None:
        store = self.store()
        with pytest.raises(MemoryInputError, match="k must be between"):
            store.search("x", k=0)
        with pytest.raises(MemoryInputError, match="expand"):
            store.search("x", expand=9)
        with pytest.raises(MemoryInputError, match="mode"):
            store.search("x", mode="magic")  # type: ignore[arg-type]
        assert store.search("nothing stored yet").hits == ()
        assert store.search("!!! ???", mode="text").hits == ()
