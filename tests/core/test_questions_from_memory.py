"""A question is answered from the project's Pegas Memory: a journaled `memory.search` run, then with a model an
answer that cites only records it was given (others rejected, repaired once, then the records instead), without a
model the records themselves, and "I don't know" in the request's language when nothing is close enough."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from alicorn.app import App
from alicorn.core import understand
from alicorn.core.conversation import run_id_for
from alicorn.core.intake import IntentEnvelope
from alicorn.i18n import tr
from alicorn.models.structured import validate_answer
from tests.core.support import core, label, memory_home, scripted

FACTS = {
    "battery": "Forklift batteries are charged in the north annex, never inside the main hall.",
    "cold": "Magazyn chłodniczy w Gdyni utrzymuje temperaturę od 2 do 6 stopni Celsjusza.",
    "badge": "Посетители получают оранжевый бейдж на стойке регистрации.",
}


def _home(tmp_path: Path) -> tuple[App, dict[str, str]]:
    """A home whose memory holds FACTS (ids m-000…1, 2, 3), with the memory operations registered."""
    return memory_home(tmp_path, FACTS)


def _ask(text: str, **fields: Any) -> IntentEnvelope:
    return IntentEnvelope(utterance=text, author="human:ann", **fields)


def _given(app: App, conversation: str) -> dict[str, Any]:
    return next(e.data for e in app.store.read(conversation) if e.kind == "answer.given")


def _kinds(app: App, stream: str) -> list[str]:
    return [e.kind for e in app.store.read(stream)]


def _cited(answer: str, *ids: str) -> str:
    return json.dumps({"answer": answer, "citations": list(ids)})


def test_a_question_is_answered_by_the_model_citing_the_records_it_was_given(tmp_path: Path) -> None:
    app, ids = _home(tmp_path)
    models, provider = scripted([label("question"), _cited("In the north annex.", ids["battery"])])
    turn = core(app, models=models).receive(_ask("Where are forklift batteries charged?"))
    assert turn.phase == "reported" and turn.answer is not None
    assert turn.answer.startswith("In the north annex.") and f"[{ids['battery']}]" in turn.answer
    given = _given(app, turn.conversation)
    assert given["citations"] == [ids["battery"]] and given["by"] == "scripted-small" and given["rejected"] == []
    # the search ran as an operation of a run of its own, journaled as a tool call and its result
    run = run_id_for(turn.conversation, 0)
    assert given["run"] == run
    calls = [e.data for e in app.store.read(run) if e.kind == "tool.call"]
    assert [(c["op"], c["effect"], c["inputs"]["query"]) for c in calls] == [
        ("memory.search", "read", "Where are forklift batteries charged?")
    ]
    result = next(e.data for e in app.store.read(run) if e.kind == "tool.result")
    assert ids["battery"] in json.dumps(result)
    checks = [e.data for e in app.store.read(run) if e.kind == "anvil.check"]
    assert [(c["operation"], c["decision"]) for c in checks] == [("memory.search", "allow")]
    # the model's context was built by the context builder, journaled, and the records went as fenced data
    kinds = _kinds(app, turn.conversation)
    assert kinds.index("context.built") < len(kinds) - 1 - kinds[::-1].index("llm.request")
    built = next(e.data for e in app.store.read(turn.conversation) if e.kind == "context.built")
    assert ids["battery"] in json.dumps(built)
    system, user = (m.content for m in provider.requests[-1].messages)
    assert f'<data id="{ids["battery"]}"' in user and FACTS["battery"] not in system


def test_an_answer_citing_an_id_it_was_not_given_is_rejected_and_repaired(tmp_path: Path) -> None:
    app, ids = _home(tmp_path)
    script = [label("question"), _cited("Main hall.", "m-ffffffffffffffff"), _cited("North annex.", ids["battery"])]
    models, provider = scripted(script)
    turn = core(app, models=models).receive(_ask("Where are forklift batteries charged?"))
    given = _given(app, turn.conversation)
    assert given["citations"] == [ids["battery"]] and len(given["rejected"]) == 1
    assert "m-ffffffffffffffff" in given["rejected"][0]  # the error fed back names the refused citation
    purposes = [e.data["purpose"] for e in app.store.read(turn.conversation) if e.kind == "llm.request"]
    assert purposes[-2:] == ["answer", "answer:repair1"] and provider.remaining == 0


def test_an_answer_that_cites_nothing_it_retrieved_twice_falls_back_to_the_records(tmp_path: Path) -> None:
    app, ids = _home(tmp_path)
    script = [label("question"), _cited("In the main hall."), _cited("In the main hall.", "m-0000000000000999")]
    models, _ = scripted(script)
    turn = core(app, models=models).receive(_ask("Where are forklift batteries charged?"))
    given = _given(app, turn.conversation)
    assert given["by"] == "memory" and "model_error" in given
    assert (turn.answer or "").startswith(tr("en", "From this project's memory (most relevant first):"))
    assert given["citations"][0] == ids["battery"] and FACTS["battery"] in (turn.answer or "")


@pytest.mark.parametrize(
    ("citations", "accepted"),
    [
        (["A"], True),
        (["A", "B"], True),
        ([], False),  # cites nothing
        (["Z"], False),  # an id it was not given
        (["A", "Z"], False),  # one good, one foreign: the whole answer is refused
    ],
)
def test_the_answer_schema_accepts_only_citations_of_given_records(citations: list[str], accepted: bool) -> None:
    schema = understand.cited_answer_schema(["A", "B"])
    text = json.dumps({"answer": "x", "citations": citations})
    if accepted:
        assert validate_answer(text, schema).citations == citations
    else:
        with pytest.raises(ValueError, match="citations"):
            validate_answer(text, schema)


def test_without_a_model_the_most_relevant_records_are_the_answer_with_their_ids(tmp_path: Path) -> None:
    app, ids = _home(tmp_path)
    turn = core(app).receive(_ask("Jaka temperatura jest w chłodni w Gdyni?"))
    given = _given(app, turn.conversation)
    assert given["by"] == "memory" and given["citations"][0] == ids["cold"]
    assert turn.answer is not None
    assert turn.answer.splitlines()[0] == tr("pl", "From this project's memory (most relevant first):")
    assert f"- [{ids['cold']}] {FACTS['cold']}" in turn.answer.splitlines()
    assert "tool.result" in _kinds(app, given["run"])


@pytest.mark.parametrize(
    ("question", "language", "expected"),
    [
        ("What is the capital of Australia?", "en", "I don't know"),
        ("Jaka jest stolica Australii?", "pl", "Nie wiem"),
        ("Какая столица Австралии?", "ru", "Не знаю"),
    ],
)
def test_nothing_relevant_is_i_dont_know_in_the_request_language(
    tmp_path: Path, question: str, language: str, expected: str
) -> None:
    app, _ = _home(tmp_path)
    turn = core(app).receive(_ask(question, language=language))
    given = _given(app, turn.conversation)
    assert (turn.answer or "").startswith(expected + ":") and given["citations"] == []
    assert given["retrieved"] and all(h["similarity"] < understand.MIN_SIMILARITY for h in given["retrieved"])


def test_the_search_run_is_found_not_repeated_when_the_question_is_asked_again(tmp_path: Path) -> None:
    app, _ = _home(tmp_path)
    intent = _ask("Where are forklift batteries charged?")
    first = understand.recall(app, "conv-x", intent, "agent:planner")
    again = understand.recall(app, "conv-x", intent, "agent:planner")
    assert first is not None and again == first and first.hits
    assert _kinds(app, first.run).count("tool.call") == 1


def test_a_home_without_memory_is_not_searched(tmp_path: Path) -> None:
    app, _ = _home(tmp_path)
    (tmp_path / "memory.db").unlink()
    assert understand.recall(app, "conv-y", _ask("Where are forklift batteries charged?"), "agent:planner") is None
    assert not (tmp_path / "memory.db").exists()  # asking never creates a store


def test_a_memory_that_cannot_be_read_is_said_plainly(tmp_path: Path) -> None:
    app, _ = _home(tmp_path)
    (tmp_path / "memory.db").write_bytes(b"not a database at all" * 100)
    turn = core(app).receive(_ask("Where are forklift batteries charged?"))
    given = _given(app, turn.conversation)
    assert "memory_error" in given and given["citations"] == []
    assert (turn.answer or "").startswith("I could not search this project's memory (")
