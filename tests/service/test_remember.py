"""Chats remember: a fact a person states in a chat becomes a memory record (provenance human, through the write
gate, no model call), questions and requests never do, and a later chat question is answered from it with a
citation, in English, Polish and Russian, over real HTTP with the service's workers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from alicorn.service.remember import MODEL_CALLS_PER_TURN, fact_of
from tests.service.acting import Acting, ask, serving, settled, wait_for

STATEMENTS = {
    "Our night shift supervisor is Piotr Nowak.": ("said/night-shift-supervisor", ("Piotr Nowak",)),
    "Naszym kierownikiem nocnej zmiany jest Piotr Nowak.": ("said/kierownikiem-nocnej-zmiany", ("Piotr Nowak",)),
    "Руководитель ночной смены — Пётр Новак.": ("said/руководитель-ночной-смены", ("Пётр Новак",)),
    "Ключ от склада находится у охранника.": ("said/ключ-от-склада", ()),
    "Kamera 7 jest przy bramie północnej.": ("said/kamera-7", ()),
}
NOT_FACTS = [
    "Who is our night shift supervisor?",
    "Kto jest kierownikiem nocnej zmiany?",
    "Кто руководит ночной сменой?",
    "Please send the report to Anna.",
    "Prepare the roster for March.",
    "Przygotuj grafik na marzec.",
    "Подготовь график на март.",
    "Can you tell me who works tonight",
    "Hello!",
    "Thanks, that was great.",
    "I think the report is fine.",
    "Analyse yesterday's alarms and tell me which need a human.",
    "The loading dock gate is broken and someone is trying to get in!",
    "The night was quiet, no alarms.",
    "Is the supervisor Piotr Nowak",
]


@pytest.mark.parametrize("text", list(STATEMENTS))
def test_a_statement_of_fact_is_read_with_its_key_and_names(text: str) -> None:
    fact = fact_of(text)
    assert fact is not None and fact.text == text
    assert (fact.key, fact.entities) == STATEMENTS[text]


@pytest.mark.parametrize("text", NOT_FACTS)
def test_questions_requests_greetings_and_alarms_are_never_facts(text: str) -> None:
    assert fact_of(text) is None


def test_an_explicit_remember_is_read_in_each_language() -> None:
    for said, stored in [
        ("Remember that the forklift key is in drawer 3.", "The forklift key is in drawer 3."),
        ("Zapamiętaj, że kamera 7 jest przy bramie północnej.", "Kamera 7 jest przy bramie północnej."),
        ("Запомни, что ключ от погрузчика лежит в ящике 3.", "Ключ от погрузчика лежит в ящике 3."),
    ]:
        fact = fact_of(said)
        assert fact is not None and fact.text == stored
    assert MODEL_CALLS_PER_TURN == 0  # the detector is deterministic: a turn spends no model call on it


@pytest.fixture
def acting(tmp_path: Path) -> Iterator[Acting]:
    with serving(tmp_path / "home") as served:
        yield served


def _memory_records(acting: Acting) -> list[dict[str, object]]:
    return (
        [e.data for e in acting.store.read("memory:default") if e.kind == "memory.added"]
        if acting.store.head("memory:default")
        else []
    )


@pytest.mark.parametrize(
    ("statement", "question"),
    [
        ("Our night shift supervisor is Piotr Nowak.", "Who is our night shift supervisor?"),
        ("Naszym kierownikiem nocnej zmiany jest Piotr Nowak.", "Kto jest kierownikiem nocnej zmiany?"),
        ("Руководитель ночной смены — Пётр Новак.", "Кто руководит ночной сменой?"),
    ],
)
def test_a_fact_said_in_one_chat_answers_a_question_in_another_with_a_citation(
    acting: Acting, statement: str, question: str
) -> None:
    with acting.client("abe") as http:
        told = ask(http, statement)
        settled(http, told)
        wait_for(lambda: _memory_records(acting), "the remembered record")
        with acting.client("vic") as viewer:
            found = viewer.get("/api/v1/memory/search", params={"q": statement, "k": 5}).json()["hits"]
        fact = next(h for h in found if h["kind"] == "fact")
        assert fact["text"] == statement and fact["trust"] == "data"
        assert fact["provenance"] == {
            "origin": "human", "ref": f"journal:{told}#1", "note": "said by human:abe in a chat"
        }  # fmt: skip
        # the chat's own turn asked no model about the fact (models none: no llm call at all)
        assert not [e for e in acting.store.read(told) if e.kind == "llm.request"]

        asked = ask(http, question)
        body = settled(http, asked, phase="reported")
    given = next(e.data for e in acting.store.read(asked) if e.kind == "answer.given")
    assert given["citations"][0] == fact["id"]
    assert f"[{fact['id']}]" in body["answer"] and ("Nowak" in body["answer"] or "Новак" in body["answer"])
    facts = [r for r in _memory_records(acting) if r["kind"] == "fact"]
    assert [r["record"] for r in facts] == [fact["id"]]  # the question stored nothing


def test_a_repeat_merges_a_new_value_contradicts_and_questions_store_nothing(acting: Acting) -> None:
    with acting.client("ada") as http:
        for text in (
            "Our night shift supervisor is Piotr Nowak.",
            "Who is our night shift supervisor?",
            "Please send the report to Anna.",
            "Our night shift supervisor is Piotr Nowak.",
            "Our night shift supervisor is Jan Kowalski.",
        ):
            settled(http, ask(http, text))
    kinds = [e.kind for e in acting.store.read("memory:default")]
    facts = [
        e.data for e in acting.store.read("memory:default") if e.kind == "memory.added" and e.data["kind"] == "fact"
    ]
    assert len(facts) == 2  # Nowak (said twice: merged) and Kowalski
    assert "memory.merged" in kinds and "memory.contradiction" in kinds
    with acting.client("vic") as viewer:
        hits = viewer.get("/api/v1/memory/search", params={"q": "Anna report", "mode": "text"}).json()["hits"]
    assert not [h for h in hits if "Anna" in h["text"]]


def test_a_message_after_a_report_is_remembered_and_an_answer_to_cores_question_is_not(acting: Acting) -> None:
    with acting.client("ada") as http:
        conv = ask(http, "Analyse the camera alarms and remove duplicates")
        settled(http, conv, waiting="answer")
        answer = "The camera log is the one from yesterday."
        assert fact_of(answer) is not None  # fact-shaped, but it answers Core: not the project's knowledge
        assert http.post(f"/api/v1/conversations/{conv}/messages", json={"text": answer}).status_code == 202
        settled(http, conv, phase="reported")
        assert _memory_records(acting) == []
        later = "The north gate camera is Camera 7."
        assert http.post(f"/api/v1/conversations/{conv}/messages", json={"text": later}).status_code == 202
        settled(http, conv)
    said = next(e for e in acting.store.read(conv) if e.kind == "message.received")
    facts = wait_for(lambda: [r for r in _memory_records(acting) if r["kind"] == "fact"], "the remembered message")
    assert [f["provenance"]["ref"] for f in facts] == [f"journal:{conv}#{said.seq}"]
    assert facts[0]["key"] == "said/north-gate-camera"
