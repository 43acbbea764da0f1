"""The memory routes over real HTTP: add (provenance the person, through the write gate), search with scores and
provenance, show with the bi-temporal history, forget (admins only, journaled), the entity graph; refusals are
problem details and change nothing."""

from __future__ import annotations

from typing import Any

from tests.service.conftest import Served

NOWAK = "Our night shift supervisor is Piotr Nowak, who works at the North Gate."


def _add(served: Served, who: str = "ada", **body: Any) -> Any:
    with served.client(who) as http:
        return http.post("/api/v1/memory/records", json=body)


def test_a_person_adds_a_fact_then_searches_shows_and_walks_its_graph(served: Served) -> None:
    added = _add(served, text=NOWAK, key="night/supervisor", entities=["Piotr Nowak", "North Gate"])
    assert added.status_code == 201, added.text
    record = added.json()["record"]
    assert added.json()["status"] == "added"
    assert record["provenance"] == {"origin": "human", "ref": "api:human:ada", "note": "added by human:ada over HTTP"}
    assert record["trust"] == "data" and record["recorded_at"].startswith("2026-11-30T08:00")  # the injected clock
    # journaled on memory:<project> as the CLI's writes are
    journaled = served.store.read("memory:default")
    assert {e.kind for e in journaled} == {"memory.added", "memory.related"}  # the record, its entities, mentions
    assert any(e.kind == "memory.added" and record["id"] in str(e.data) for e in journaled)

    with served.client("vic") as http:  # a viewer reads
        found = http.get("/api/v1/memory/search", params={"q": "who supervises the night shift", "k": 3}).json()
        assert found["hits"][0]["id"] == record["id"]
        hit = found["hits"][0]
        assert hit["score"] > 0 and hit["similarity"] > 0.8 and hit["provenance"]["origin"] == "human"
        text_only = http.get("/api/v1/memory/search", params={"q": "Nowak", "mode": "text"}).json()
        assert record["id"] in [h["id"] for h in text_only["hits"]]  # the fact and the entity "Piotr Nowak"
        assert {h["similarity"] for h in text_only["hits"]} == {None} and {h["kind"] for h in text_only["hits"]} == {
            "fact",
            "entity",
        }

        shown = http.get(f"/api/v1/memory/records/{record['id']}").json()
        assert shown["record"]["text"] == NOWAK and shown["record"]["valid_now"] is True
        assert [h["kind"] for h in shown["history"]] == ["added", "related", "related"]  # two mentions
        assert sorted(shown["names"][e["target"]] for e in shown["relations"]) == ["North Gate", "Piotr Nowak"]

        graph = http.get("/api/v1/memory/graph", params={"node": "Piotr Nowak", "depth": 2}).json()
        names = {n["name"] or n["text"] for n in graph["nodes"]}
        assert {"Piotr Nowak", "North Gate", NOWAK} <= names
        assert {e["type"] for e in graph["edges"]} == {"mentions"}

    again = _add(served, who="abe", text=NOWAK, key="night/supervisor")  # the write gate merges a repeat
    assert again.json()["status"] == "merged" and len(again.json()["record"]["sources"]) == 2
    other = _add(served, text="Our night shift supervisor is Jan Kowalski.", key="night/supervisor")
    assert other.json()["contradicts"] == [record["id"]]  # same key, other text: a recorded contradiction


def test_an_admin_forgets_and_the_record_keeps_its_history(served: Served) -> None:
    record = _add(served, text=NOWAK, key="night/supervisor").json()["record"]
    with served.client("ada") as http:
        done = http.post(f"/api/v1/memory/records/{record['id']}/forget", json={"reason": "Piotr moved to days"})
        assert done.status_code == 200, done.text
        assert done.json()["valid_now"] is False and done.json()["invalidation_reason"] == "Piotr moved to days"
        shown = http.get(f"/api/v1/memory/records/{record['id']}").json()
        assert [h["kind"] for h in shown["history"]] == ["added", "invalidated"]
        gone = http.get("/api/v1/memory/search", params={"q": "night shift supervisor"}).json()
        assert record["id"] not in [h["id"] for h in gone["hits"]]  # not true now
        before = http.get(
            "/api/v1/memory/search", params={"q": "night shift supervisor", "at": "2026-11-30T07:59:00Z"}
        ).json()
        assert record["id"] in [h["id"] for h in before["hits"]]  # still true at an earlier time
    kinds = [e.kind for e in served.store.read("memory:default")]
    assert kinds == ["memory.added", "memory.invalidated"]
    invalidated = served.store.read("memory:default")[-1].data
    assert "service:human:ada" in str(invalidated)


def test_refusals_are_problem_details_and_change_nothing(served: Served) -> None:
    record = _add(served, text=NOWAK).json()["record"]
    heads = served.heads()
    with served.client("abe") as http:  # an approver is not an admin
        refused = http.post(f"/api/v1/memory/records/{record['id']}/forget", json={"reason": "no"})
        assert refused.status_code == 403 and refused.json()["type"].endswith("/role-not-allowed")
    with served.client("vic") as http:  # a read token adds nothing
        assert http.post("/api/v1/memory/records", json={"text": "x is y"}).status_code == 403
        unknown = http.get("/api/v1/memory/records/m-0000000000000000")
        assert unknown.status_code == 404 and unknown.json()["type"].endswith("/unknown-record")
        assert "search" in unknown.json()["detail"]
        long = http.get("/api/v1/memory/search", params={"q": "x" * 4001})
        assert long.status_code == 422 and long.json()["type"].endswith("/invalid-input")
        assert http.get("/api/v1/memory/search", params={"q": "x", "project": "../etc"}).status_code == 422
        assert http.get("/api/v1/memory/graph", params={"node": "Nobody Here"}).status_code == 404
    with served.client(None) as http:
        assert http.get("/api/v1/memory/search", params={"q": "x"}).status_code == 401
    with served.client("ada") as http:
        instruction = http.post("/api/v1/memory/records", json={"text": "obey", "trust": "instruction"})
        assert instruction.status_code == 422  # no field lets a person write an instruction
        twice = http.post(f"/api/v1/memory/records/{record['id']}/forget", json={"reason": "a"})
        assert twice.status_code == 200
        again = http.post(f"/api/v1/memory/records/{record['id']}/forget", json={"reason": "b"})
        assert again.status_code == 422 and "already" in again.json()["detail"]
    assert [e.kind for e in served.store.read("memory:default")] == ["memory.added", "memory.invalidated"]
    assert {k: v for k, v in served.heads().items() if k != "memory:default"} == {
        k: v for k, v in heads.items() if k != "memory:default"
    }


def test_a_home_without_memory_answers_empty_and_creates_nothing(served: Served) -> None:
    with served.client("vic") as http:
        found = http.get("/api/v1/memory/search", params={"q": "anything"})
        assert found.status_code == 200 and found.json()["hits"] == []
        missing = http.get("/api/v1/memory/records/m-0000000000000000")
        assert missing.status_code == 404 and missing.json()["type"].endswith("/no-memory")
    assert not (served.home / "memory.db").exists()
