"""The graph, part of the memory contract: relations with provenance and validity, neighbourhoods and paths."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

import pytest
from hypothesis import given
from hypothesis import strategies as st

from alicorn.memory.errors import MemoryInputError, RecordNotFoundError, TrustError, ValidityError
from alicorn.memory.graph import invalidate_relation
from alicorn.memory.models import NewRecord, NewRelation

from .harness import AGENT, MEMORY_SETTINGS, OPERATOR, T0

if TYPE_CHECKING:
    from alicorn.memory.store import MemoryStore


def edge(source: str, kind: str, target: str, **kw: object) -> NewRelation:
    kw.setdefault("provenance", OPERATOR)
    return NewRelation.model_validate({"source": source, "type": kind, "target": target, **kw})


class GraphContract:
    def store(self, project: str = "alpha", **kwargs: object) -> MemoryStore:
        raise NotImplementedError

    def test_relations_create_entities_and_carry_provenance(self) -> None:
        store = self.store()
        relation = store.relate(edge("Anna Kowalska", "works_at", "Gdańsk warehouse", provenance=AGENT))
        anna, gdansk = store.neighbours("anna  KOWALSKA").nodes
        assert (anna.kind, anna.name, gdansk.name) == ("entity", "Anna Kowalska", "Gdańsk warehouse")
        assert (relation.source, relation.target, relation.provenance) == (anna.id, gdansk.id, AGENT)
        assert store.relate(edge("Anna Kowalska", "works_at", "Gdańsk warehouse")).id == relation.id
        assert store.count() == 2
        assert [h.kind for h in store.history()] == ["added", "added", "related"]

    def test_neighbourhood_by_depth_and_type(self) -> None:
        store = self.store()
        for a, kind, b in [
            ("A", "knows", "B"),
            ("B", "knows", "C"),
            ("C", "knows", "D"),
            ("A", "owns", "X"),
            ("D", "knows", "A"),
        ]:
            store.relate(edge(a, kind, b))
        one = store.neighbours("A", depth=1)
        names = {n.name: one.depths[n.id] for n in one.nodes}
        assert names == {"A": 0, "B": 1, "X": 1, "D": 1}
        assert {(e.type) for e in one.edges} == {"knows", "owns"}
        two = store.neighbours("A", depth=2, types=("knows",))
        assert {n.name: two.depths[n.id] for n in two.nodes} == {"A": 0, "B": 1, "D": 1, "C": 2}
        assert store.neighbours("A", depth=0).nodes[0].name == "A"
        with pytest.raises(MemoryInputError):
            store.neighbours("A", depth=7)
        with pytest.raises(RecordNotFoundError, match="record or entity 'Nobody'"):
            store.neighbours("Nobody")

    def test_shortest_path_in_either_direction(self) -> None:
        store = self.store()
        for a, kind, b in [
            ("A", "r", "B"),
            ("B", "r", "C"),
            ("C", "r", "D"),
            ("A", "r", "E"),
            ("E", "r", "D"),
            ("Z", "r", "Y"),
        ]:
            store.relate(edge(a, kind, b))
        found = store.path("A", "D")
        assert (
            found is not None and len(found.edges) == 2 and found.nodes[0].name == "A" and found.nodes[-1].name == "D"
        )
        back = store.path("D", "A")
        assert back is not None and [n.name for n in back.nodes][::-1][0] == "A" and len(back.edges) == 2
        assert store.path("A", "Z") is None
        assert store.path("A", "D", max_depth=1) is None
        same = store.path("A", "A")
        assert same is not None and same.edges == ()

    def test_paths_agree_with_breadth_first_search(self) -> None:
        store = self.store()
        nodes = [f"n{i}" for i in range(8)]
        made: set[tuple[int, int]] = set()

        @MEMORY_SETTINGS
        @given(
            st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=6), st.integers(0, 7), st.integers(0, 7)
        )
        def check(new: list[tuple[int, int]], a: int, b: int) -> None:
            for x, y in new:
                if x != y and (x, y) not in made:
                    made.add((x, y))
                    store.relate(edge(nodes[x], "r", nodes[y]))
            if not {a, b} <= {n for pair in made for n in pair}:
                return
            dist = {a: 0}
            frontier = [a]
            while frontier:
                nxt = []
                for node in frontier:
                    for x, y in made:
                        for u, v in ((x, y), (y, x)):
                            if u == node and v not in dist:
                                dist[v] = dist[node] + 1
                                nxt.append(v)
                frontier = nxt
            found = store.path(nodes[a], nodes[b], max_depth=6)
            if b not in dist:
                assert found is None
            else:
                assert found is not None and len(found.edges) == dist[b]
                names = [n.name for n in found.nodes]
                assert names[0] == nodes[a] and names[-1] == nodes[b]

        check()

    def test_invalidated_relations_are_not_walked_now_but_are_in_the_past(self) -> None:
        store = self.store()
        relation = store.relate(edge("Tomasz", "works_at", "Poznań"))
        self.clock.advance(days=5)  # type: ignore[attr-defined]
        with pytest.raises(TrustError):
            invalidate_relation(store, relation.id, by=AGENT, reason="rumour")
        moved = self.clock.now - timedelta(days=1)  # type: ignore[attr-defined]
        gone = invalidate_relation(store, relation.id, by=OPERATOR, reason="moved", at=moved)
        assert gone.invalid_from == moved
        assert store.path("Tomasz", "Poznań") is None
        assert len(store.neighbours("Tomasz").nodes) == 1
        assert len(store.neighbours("Tomasz", at=moved - timedelta(hours=1)).nodes) == 2
        with pytest.raises(ValidityError):
            invalidate_relation(store, relation.id, by=OPERATOR, reason="again")

    def test_relation_validity_must_be_an_interval(self) -> None:
        store = self.store()
        with pytest.raises(ValidityError):
            store.relate(edge("A", "r", "B", valid_from=T0, valid_to=T0 - timedelta(days=1)))
        assert store.count() == 0

    def test_records_link_to_entities_they_mention(self) -> None:
        store = self.store()
        note = store.add(
            NewRecord(text="Camera 7 alarm at night.", entities=("Camera 7", "North lot"), provenance=OPERATOR)
        ).record
        graph = store.neighbours(note.id)
        assert sorted(n.name or "" for n in graph.nodes if n.kind == "entity") == ["Camera 7", "North lot"]
        assert {e.type for e in graph.edges} == {"mentions"}
