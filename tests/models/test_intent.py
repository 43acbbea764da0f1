"""Intent classification: language identification, the forbidden-action lexicon, cues, and the combination."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from alicorn.models.intent.classifier import IntentClassifier, IntentLabel
from alicorn.models.intent.cues import kind_cue
from alicorn.models.intent.embed import Example, NearestExamples, cosine, embed
from alicorn.models.intent.langid import identify
from alicorn.models.intent.lexicon import forbidden_effects
from alicorn.models.providers.scripted import ScriptedProvider
from alicorn.models.recorder import ModelClient
from tests.models.support import profile

BENCH = Path(__file__).parents[2] / "bench" / "data" / "utterances.jsonl"
SEEDS = [json.loads(line) for line in BENCH.read_text(encoding="utf-8").splitlines() if '"seed-' in line]


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Prepare the report", "en"),
        ("Przygotuj raport", "pl"),
        ("nie wysylaj tego do klienta", "pl"),  # Polish without diacritics
        ("Подготовь отчёт", "ru"),
        ("Підготуй звіт і надішли його", "other"),  # Ukrainian
        ("12345 !!!", "other"),
    ],
)
def test_language(text: str, language: str) -> None:
    assert identify(text).language == language


@pytest.mark.parametrize("row", SEEDS, ids=[r["id"] for r in SEEDS])
def test_the_seed_commands_in_three_languages(row: dict[str, object]) -> None:
    result = IntentClassifier().classify(str(row["text"]))
    assert (result.kind, result.language, list(result.forbidden)) == (row["kind"], row["language"], row["forbidden"])


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        ("Don't publish it or email it to anyone.", ["external_transmission", "publication"]),
        ("nie opublikujesz tego, prawda? Nie wysyłać niczego!", ["external_transmission", "publication"]),
        ("Ничего не отправлять и не выкладывать.", ["external_transmission", "publication"]),
        ("Przed wdrożeniem zatrzymaj się i zapytaj.", ["installation"]),
        ("Ask me before sending anything.", ["external_transmission"]),
        ("Спроси меня перед установкой.", ["installation"]),
        ("without publishing the changes", ["publication"]),
        ("bez publikacji", ["publication"]),
        ("Don't open the gate.", ["physical"]),
        ("Nie wyłączaj ogrzewania.", ["physical"]),
        ("Do not delete any files.", ["local_write"]),
        # descriptions, not prohibitions
        ("He did not send the report.", []),
        ("Он не отправил письмо.", []),
        ("Nie wysłał maila.", []),
        ("База данных не отвечает.", []),
        ("Publish the schedule.", []),
        ("Send nothing to the client.", ["external_transmission"]),
    ],
)
def test_forbidden_actions(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == effects


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Every Monday, send me the alarm summary.", "process"),
        ("Codziennie rano sprawdzaj logi.", "process"),
        ("Пожар в серверной!", "alarm"),
        ("Analyse yesterday's camera alarms.", "task"),
        ("Thanks, great work!", "conversation"),
        ("Could you draft the minutes?", "task"),
        ("Why is the build slow?", "question"),
        ("Czy grafik jest gotowy?", "question"),
    ],
)
def test_cues(text: str, kind: str) -> None:
    cue = kind_cue(text)
    assert cue is not None and cue.kind == kind


def test_nearest_examples() -> None:
    examples = NearestExamples(
        [Example("the server is down", "alarm", "en"), Example("hello friend", "conversation", "en")]
    )
    kind, share, similarity, _ = examples.vote("the database server is down!")
    assert kind == "alarm" and similarity > 0.3 and share > 0.5
    assert cosine(embed("abc"), embed("abc")) == pytest.approx(1.0)


def test_the_model_decides_only_when_signals_are_silent_and_disagreements_are_recorded() -> None:
    answer = json.dumps({"kind": "alarm", "language": "en", "forbidden": ["physical", "publication"]})
    client = ModelClient(profile(), ScriptedProvider([answer]))
    result = IntentClassifier(client, schema="list").classify("Prepare the report and do not publish it.")
    assert (result.kind, result.forbidden) == ("task", ("publication",))
    assert result.decided_by == {"language": "langid", "forbidden": "lexicon", "kind": "rules"}
    by_signal = {(s.field, s.signal): s.value for s in result.signals}
    assert by_signal[("kind", "model")] == "alarm" and by_signal[("forbidden", "model")] == ["physical", "publication"]
    assert result.model is not None and result.model.valid_first_try


def test_a_model_that_never_answers_validly_leaves_the_deterministic_signals() -> None:
    client = ModelClient(
        profile(), ScriptedProvider(['{"kind": "task", "language": "en", "forbidden": ["a","a"]}'] * 3)
    )
    result = IntentClassifier(client, schema="list").classify("Prepare the report.")
    assert (
        result.model is not None
        and result.model.label is None
        and "StructuredOutputError" in (result.model.error or "")
    )
    assert result.kind == "task" and result.decided_by["kind"] == "rules"


def test_label_schema_is_bounded() -> None:
    schema = IntentLabel.model_json_schema()["properties"]["forbidden"]
    assert schema["maxItems"] == 3 and schema["uniqueItems"] is True
    with pytest.raises(ValueError, match="each forbidden effect once"):
        IntentLabel.model_validate({"kind": "task", "language": "en", "forbidden": ["physical", "physical"]})


def test_flags_schema_cannot_repeat_items_and_maps_back_to_a_label() -> None:
    flags = {"publication": True, "external_transmission": False, "installation": False, "physical": False}
    answer = json.dumps({"kind": "task", "language": "pl", "forbidden": {**flags, "local_write": True}})
    provider = ScriptedProvider([answer])
    result = IntentClassifier(ModelClient(profile(), provider)).classify("Przygotuj notatkę.")
    assert result.model is not None and result.model.label is not None
    assert result.model.label.forbidden == ["publication", "local_write"]
    schema = provider.requests[0].json_schema or {}
    assert "ForbiddenFlags" in json.dumps(schema)


def test_flags_may_forbid_every_effect_without_crashing() -> None:
    every = dict.fromkeys(["publication", "external_transmission", "installation", "physical", "local_write"], True)
    answer = json.dumps({"kind": "task", "language": "en", "forbidden": every})
    result = IntentClassifier(ModelClient(profile(), ScriptedProvider([answer]))).classify("Prepare it.")
    assert result.model is not None and result.model.label is not None and len(result.model.label.forbidden) == 5
    assert result.forbidden == ()  # the lexicon decides; the model's flags are only recorded
