"""Every refusal is an RFC 9457 problem detail, and a refused request journals nothing."""

from __future__ import annotations

import httpx

from tests.service.conftest import Served

PROBLEM = "application/problem+json"


def _problem(response: httpx.Response, status: int, slug: str) -> dict[str, object]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body = response.json()
    assert set(body) >= {"type", "title", "status", "detail", "instance"}
    assert body["status"] == status
    assert body["type"] == f"https://alicorn.dev/problems/{slug}"
    assert body["instance"] == response.request.url.path
    assert isinstance(body["detail"], str) and len(body["detail"]) > 20
    return body


def test_openapi_and_docs_are_served(served: Served) -> None:
    with served.client(None) as client:
        schema = client.get("/openapi.json").json()
        assert {"/api/v1/runs", "/api/v1/runs/{run_id}", "/api/v1/runs/{run_id}/journal"} <= set(schema["paths"])
        assert "/api/v1/runs/{run_id}/events" in schema["paths"]
        docs = client.get("/docs")
        assert docs.status_code == 200 and "swagger" in docs.text.lower()


def test_unknown_route_and_wrong_method(served: Served) -> None:
    with served.client() as client:
        body = _problem(client.get("/api/v1/nothing-here"), 404, "not-found")
        assert "/docs" in str(body["detail"])
        wrong = client.delete("/api/v1/runs")
        _problem(wrong, 405, "method-not-allowed")
        assert "GET" in wrong.headers["allow"]


def test_unknown_run_is_404_and_a_control_stream_is_not_a_run(served: Served) -> None:
    with served.client() as client:
        _problem(client.get("/api/v1/runs/run-nope"), 404, "unknown-run")
        _problem(client.get("/api/v1/runs/..%2F..%2Fetc%2Fpasswd"), 404, "not-found")  # no route reads files
        _problem(client.get("/api/v1/runs/%2E%2E"), 404, "unknown-run")
        for stream in ("control:tokens", "control:people"):
            leaked = client.get(f"/api/v1/runs/{stream}/journal")
            _problem(leaked, 404, "unknown-run")
            assert "sha256" not in leaked.text and "public_key" not in leaked.text


def test_bad_filters_are_422(served: Served) -> None:
    with served.client() as client:
        for query in (
            {"status": "exploded"},
            {"limit": "0"},
            {"limit": "100000"},
            {"since": "yesterday-ish"},
            {"provenance": "robot"},
            {"agent": "no colon here"},
        ):
            body = _problem(client.get("/api/v1/runs", params=query), 422, _slug(query))
            assert next(iter(query)) in str(body["detail"])
        _problem(client.get(f"/api/v1/runs/{served.runs[0]}/journal", params={"after": "-1"}), 422, "invalid-input")


def _slug(query: dict[str, str]) -> str:
    return {"since": "invalid-time", "agent": "invalid-agent"}.get(next(iter(query)), "invalid-input")


def test_malformed_cursor_is_422(served: Served) -> None:
    with served.client() as client:
        for cursor in ("not-base64!!", "bm90IGpzb24", "WzEsMl0"):  # garbage, "not json", [1,2]
            body = _problem(client.get("/api/v1/runs", params={"cursor": cursor}), 422, "invalid-cursor")
            assert "next_cursor" in str(body["detail"])


def test_malformed_json_oversized_and_invalid_bodies_change_nothing(served: Served) -> None:
    before = served.heads()
    with served.client() as client:
        headers = {"content-type": "application/json"}
        _problem(client.post("/api/v1/tokens", content=b'{"person": "vic",', headers=headers), 400, "malformed-json")
        big = b'{"person": "' + b"x" * 70_000 + b'"}'
        _problem(client.post("/api/v1/tokens", content=big, headers=headers), 413, "body-too-large")

        def chunks() -> object:  # no Content-Length: the limit counts what arrives
            for _ in range(70):
                yield b"x" * 1024

        _problem(client.post("/api/v1/tokens", content=chunks(), headers=headers), 413, "body-too-large")  # type: ignore[arg-type]
        _problem(client.post("/api/v1/tokens", json={"person": "vic", "scope": "admin"}), 422, "invalid-input")
        _problem(client.post("/api/v1/tokens", json={"person": "vic", "extra": 1}), 422, "invalid-input")
        _problem(client.post("/api/v1/tokens", json={"person": "agent:planner"}), 422, "token-refused")
    assert served.heads() == before


def test_every_status_a_refusal_has_has_its_own_title() -> None:
    # a 409 (a stale plan hash, a conversation that ended) was titled "Error"
    from alicorn.service.problems import problem_body

    for status, title in ((409, "Conflict"), (415, "Unsupported media type"), (422, "Invalid input")):
        assert problem_body(status, "x", "a sentence long enough to read", "/")["title"] == title
