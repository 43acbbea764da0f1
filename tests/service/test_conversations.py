"""Conversations with Core over real HTTP: requests go to the workers (202), the folded state shows each step, and
refusals change nothing."""

from __future__ import annotations

import pytest

from alicorn.core.conversation import fold as fold_conversation
from tests.service.acting import (
    ALARMS,
    SEND,
    Acting,
    acting_on_each_engine,
    ask,
    conversation,
    count_reads,
    run_status,
    settled,
    wait_for,
)

acting = acting_on_each_engine  # the acting service on each journal engine


def test_a_request_is_taken_at_once_and_advanced_by_the_workers_to_its_report(acting: Acting) -> None:
    with acting.client("ada") as client:
        conv = ask(client, ALARMS)
        body = settled(client, conv, phase="reported")
    assert body["author"] == "human:ada" and body["text"] == ALARMS and body["project"] == "default"
    assert body["report"]["outcome"] == "complete" and "8 events need a human" in body["report"]["headline"]
    assert body["understood"]["classification"]["kind"] == "task"
    assert body["understood"]["workflow"]["workflow"] == "alarms"
    assert any(line.startswith("goal:") for line in body["contract_sentences"])
    assert body["plan"]["goal_hash"] == body["goal_hash"] == body["report"]["goal_hash"]
    assert body["run_state"]["status"] == "succeeded" and body["waiting_for"] is None
    # Exactly what the journal folds to: the service keeps nothing of its own.
    state = fold_conversation(acting.store.read(conv))
    envelope = state.envelope
    assert (envelope["author"], envelope["provenance"], envelope["channel"]) == ("human:ada", "human", "api")
    assert body["last_seq"] == state.last_seq and body["runs"] == state.runs


def test_talking_to_core_needs_the_requester_role(acting: Acting) -> None:
    """A viewer with a write token is refused (403, the role named, nothing journaled); a requester asks, and is
    journaled as the request's author, but may not approve what it leads to."""
    before = acting.heads()
    with acting.client("vic") as client:
        refused = client.post("/api/v1/conversations", json={"text": ALARMS})
    assert refused.status_code == 403 and refused.json()["type"].endswith("/role-not-allowed")
    assert "human:vic is a viewer, and to talk to Core needs the role requester" in refused.json()["detail"]
    assert "--role requester" in refused.json()["detail"]
    assert acting.heads() == before
    with acting.client("rita") as client:
        conv = ask(client, SEND)
        body = settled(client, conv, waiting="approval")
        assert body["author"] == "human:rita"
        before = acting.heads()
        approving = client.post(
            f"/api/v1/proposals/{body['run']}/approve", json={"plan_hash": body["proposal"]["plan_hash"]}
        )
    assert approving.status_code == 403 and "needs the role approver" in approving.json()["detail"]
    assert acting.heads() == before


def test_a_plan_with_an_outside_effect_waits_and_a_message_cannot_skip_the_approval(acting: Acting) -> None:
    with acting.client("ada") as client:
        conv = ask(client, SEND)
        body = settled(client, conv, waiting="approval")
        proposal = body["proposal"]
        assert proposal["classes"] and "external_transmission" in proposal["classes"]
        assert proposal["plan_hash"] == body["run_state"]["plan_hash"]
        before = acting.heads()
        refused = client.post(f"/api/v1/conversations/{conv}/messages", json={"text": "go ahead"})
        assert refused.status_code == 409 and f"/proposals/{body['run']}/approve" in refused.json()["detail"]
        assert acting.heads() == before


def test_the_chat_says_why_a_plan_waits_in_the_requests_language(acting: Acting) -> None:
    with acting.client("ada") as client:
        conv = ask(client, "Z rozmowy przygotuj notatkę i zadania, i wyślij projekt odpowiedzi uczestnikom")
        body = settled(client, conv, waiting="approval")
    assert body["language"] == "pl"
    reasons = body["proposal"]["reasons"]
    assert reasons and all(r.startswith("Wymaga zatwierdzenia przez człowieka: ") for r in reasons)
    journaled = [e.data["sentence"] for e in acting.store.read(body["run"]) if e.kind == "anvil.check"]
    assert any(s.startswith("Needs a human approval: ") for s in journaled)


def test_closing_withdraws_the_waiting_plan_and_reports(acting: Acting) -> None:
    with acting.client("ada") as client:
        conv = ask(client, SEND)
        run = settled(client, conv, waiting="approval")["run"]
        response = client.post(f"/api/v1/conversations/{conv}/close", json={"reason": "not today"})
        assert response.status_code == 202
        body = settled(client, conv, phase="reported")
        assert run_status(acting, run) == "withdrawn"
        assert body["report"]["outcome"] == "stopped_safely" and body["waiting_for"] is None
        again = client.post(f"/api/v1/conversations/{conv}/close", json={})
        assert again.status_code == 409 and "already ended" in again.json()["detail"]


def test_after_a_report_the_conversation_goes_on(acting: Acting) -> None:
    with acting.client("ada") as client:
        conv = ask(client, ALARMS)
        first = settled(client, conv, phase="reported")
        response = client.post(f"/api/v1/conversations/{conv}/messages", json={"text": "thanks, what next?"})
        assert response.status_code == 202
        wait_for(lambda: conversation(client, conv)["last_seq"] > first["last_seq"], "the message to be taken")
        body = settled(client, conv)
    kinds = [e.kind for e in acting.store.read(conv)]
    assert "message.received" in kinds and body["phase"] in ("reported", "following", "running")
    said = next(e for e in acting.store.read(conv) if e.kind == "message.received").data
    assert said == {"text": "thanks, what next?", "by": "human:ada"}


def test_the_list_is_paged_newest_first_from_the_index(acting: Acting, monkeypatch: pytest.MonkeyPatch) -> None:
    with acting.client("ada") as client:
        made = []
        for _ in range(3):
            made.append(ask(client, ALARMS))
            acting.clock.advance(minutes=1)
        for conv in made:
            settled(client, conv, phase="reported")
        first = client.get("/api/v1/conversations", params={"limit": 1}).json()["conversations"][0]
        state = fold_conversation(acting.store.read(made[-1]))
        assert first == {
            "conversation": made[-1], "phase": "reported", "received_at": state.received_at, "author": "human:ada",
            "project": "default", "text": ALARMS, "run": state.run, "outcome": "complete",
        }  # fmt: skip
        reads = count_reads(monkeypatch)
        pages, cursor = [], None
        for _ in range(5):
            params = {"limit": 2, **({"cursor": cursor} if cursor else {})}
            page = client.get("/api/v1/conversations", params=params).json()
            pages.extend(c["conversation"] for c in page["conversations"])
            cursor = page["next_cursor"]
            if cursor is None:
                break
        assert pages == list(reversed(made))
        assert reads == []  # nothing changed since the index saw it: no stream is read
        bad = client.get("/api/v1/conversations", params={"cursor": "nonsense!"})
        assert bad.status_code == 422


def test_refusals_are_problem_details_and_change_nothing(acting: Acting) -> None:
    with acting.client("ada") as client:
        conv = ask(client, ALARMS)
        settled(client, conv, phase="reported")
    before = acting.heads()
    cases = [
        (None, "post", "/api/v1/conversations", {"json": {"text": "hello"}}, 401),
        ("vic-read", "post", "/api/v1/conversations", {"json": {"text": "hello"}}, 403),  # a read token
        ("vic", "post", "/api/v1/conversations", {"json": {"text": "hello"}}, 403),  # a viewer, with a write token
        ("vic", "post", f"/api/v1/conversations/{conv}/messages", {"json": {"text": "again"}}, 403),
        ("vic", "post", f"/api/v1/conversations/{conv}/close", {"json": {}}, 403),
        ("rita-read", "post", "/api/v1/conversations", {"json": {"text": "hello"}}, 403),
        ("ada-read", "post", "/api/v1/conversations", {"json": {"text": "hello"}}, 403),
        ("ada", "post", "/api/v1/conversations", {"content": b'{"text": "unclosed', "headers": _json}, 400),
        ("ada", "post", "/api/v1/conversations", {"json": {"text": ""}}, 422),
        ("ada", "post", "/api/v1/conversations", {"json": {"text": "hi", "project": "Not A Project"}}, 422),
        ("ada", "post", "/api/v1/conversations", {"json": {"text": "hi", "extra": 1}}, 422),
        ("ada", "post", "/api/v1/conversations", {"json": {"text": "x" * 70_000}}, 413),
        ("ada", "get", "/api/v1/conversations/conv-20261130-000000000000", {}, 404),
        ("ada", "get", "/api/v1/conversations/..%2Fetc", {}, 404),
        ("ada", "post", "/api/v1/conversations/conv-20261130-000000000000/messages", {"json": {"text": "a"}}, 404),
        ("vic", "get", f"/api/v1/conversations/{conv}", {}, 200),  # a viewer reads
        (None, "get", f"/api/v1/conversations/{conv}", {}, 401),
        ("ada", "post", f"/api/v1/conversations/{conv}/close", {"json": {}}, 409),  # it already ended
    ]
    for who, method, path, options, status in cases:
        with acting.client(who) as client:
            response = getattr(client, method)(path, **options)
        assert response.status_code == status, (who, path, response.text)
        if status >= 400:
            assert response.headers["content-type"].startswith("application/problem+json")
            assert response.json()["detail"]
        assert acting.heads() == before, (who, path)


_json = {"Content-Type": "application/json"}


def test_the_event_stream_resumes_from_last_event_id_without_loss_or_repeat(acting: Acting) -> None:
    with acting.client("ada") as client:
        conv = ask(client, ALARMS)
        settled(client, conv, phase="reported")
    expected = [e.seq for e in acting.store.read(conv)]

    def ids(after: int | None) -> list[int]:
        headers = {"Last-Event-ID": str(after)} if after is not None else {}
        seen: list[int] = []
        with (
            acting.client("vic-read") as client,
            client.stream("GET", f"/api/v1/conversations/{conv}/events", headers=headers) as response,
        ):
            assert response.status_code == 200
            for line in response.iter_lines():
                if line.startswith("id: "):
                    seen.append(int(line[4:]))
                if seen and seen[-1] == expected[-1]:
                    return seen
        return seen

    first = ids(None)
    assert first == expected
    middle = expected[len(expected) // 2]
    assert ids(middle) == [s for s in expected if s > middle]
    # `?after=` as a run's stream takes it (it was ignored: the stream started again at #1)
    with (
        acting.client("vic-read") as client,
        client.stream("GET", f"/api/v1/conversations/{conv}/events", params={"after": middle}) as response,
    ):
        first_id = next(int(line[4:]) for line in response.iter_lines() if line.startswith("id: "))
    assert first_id == middle + 1
    with acting.client("vic-read") as client:
        assert client.get(f"/api/v1/conversations/{conv}/events", params={"after": -1}).status_code == 422


def test_a_question_is_answered_by_a_message_and_core_goes_on(acting: Acting) -> None:
    with acting.client("ada") as client:
        conv = ask(client, "Analyse the camera alarms and remove duplicates")
        asking = settled(client, conv, waiting="answer")
        assert asking["phase"] == "asking" and asking["question"]
        response = client.post(f"/api/v1/conversations/{conv}/messages", json={"text": "  yesterday  "})
        assert response.status_code == 202
        body = settled(client, conv, phase="reported")
    assert body["report"]["outcome"] == "complete" and body["question"] is None
    answered = next(e.data for e in acting.store.read(conv) if e.kind == "clarification.answered")
    assert answered == {"text": "yesterday", "by": "human:ada"}
