"""Polish typed without diacritics is read as the same message (issue 11: other phrasings of one request).

Each case is a message written with Polish letters; the test folds it (ą→a, ł→l, ż→z …) and requires the folded
message to forbid exactly what the original forbids. The cases name the readers' Polish words that carry a
diacritic ("żeby", "zostało", "grę", "odłącz-", "rękach"), so those fail when the words are not restored.
"""

from __future__ import annotations

import pytest

from alicorn.models.intent.diacritics import fold, restored
from alicorn.models.intent.forbidden import forbidden_effects
from alicorn.models.intent.lexicon import words_of
from tests.models.support import INST, F, P, X

#: Each of these is read wrong once folded unless its words get their marks back (checked: with `restored` switched
#: off, every one of them fails).
NEEDS_RESTORING = [
    ("Nie ma powodu, żeby raportu nie wysłać.", []),  # "żeby" opens the lifting complement
    ("Zestawienie nie zostało wysłane we wtorek.", []),  # "zostało": a passive describes
    ("Publikacja na stronie nie wchodzi w grę.", [P]),  # "grę": a refusal predicate
    ("Wysyłka do klienta nie wchodzi w grę.", [X]),
    ("Nie odłączaj chłodziarki od zasilania.", [F]),  # "odłącz-": a device verb
    ("Chłodnie zostają w rękach technika.", [F]),  # "rękach": someone else's domain
    ("Czy nie zainstalowaliśmy już tej wersji na serwerze?", []),  # "-liśmy": a past tense asks, it forbids nothing
    ("Czy nie opublikowałaś już grafiku?", []),  # "-łaś"
]
#: Read right folded already; they must stay so.
READ_EITHER_WAY = [
    ("Przygotuj zestawienie, ale nie wysyłaj go jeszcze klientowi.", [X]),
    ("Żadnych instalacji na telefonach testowych w tym tygodniu.", [INST]),
    ("Z publikacją grafiku wstrzymaj się do piątku.", [P]),
    ("Rozsyłanie grafików do ludzi to moja działka.", [X]),
    ("Sterowników na hali nie aktualizuj, dopóki nie wrócę.", [INST]),
    ("Przeanalizuj wczorajsze alarmy i powiedz, które wymagają reakcji.", []),
    ("Maila do klienta na razie wstrzymaj.", [X]),  # "maila" is no past tense of "mail"
]


@pytest.mark.parametrize(("text", "effects"), NEEDS_RESTORING + READ_EITHER_WAY)
def test_a_message_without_diacritics_forbids_what_the_original_forbids(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)  # the original, as written
    assert forbidden_effects(fold(text.lower())) == sorted(effects)


def test_only_a_message_without_any_polish_letter_is_restored() -> None:
    assert restored(words_of("nie wysylaj zadnych raportow")) == ["nie", "wysyłaj", "żadnych", "raportow"]
    # one Polish letter says the writer has them: the other words are left as written
    assert restored(words_of("nie wysylaj żadnych raportów")) == words_of("nie wysylaj żadnych raportów")


def test_short_and_ambiguous_words_are_left_alone() -> None:
    # "ze" is "że" or the preposition "ze"; a two-letter word is never restored
    words = restored(words_of("ze wzgledu na to, ze jutro"))
    assert (words[0], words[-2]) == ("ze", "ze")
    assert restored(["ze", "sa"]) == ["ze", "sa"]
    # digits and punctuation pass through
    assert restored(["2026", ",", "nie"]) == ["2026", ",", "nie"]


def test_a_verb_prefix_is_kept_in_front_of_the_restored_stem() -> None:
    (word,) = restored(["przeslij"])
    assert word.startswith("prze") and fold(word) == "przeslij"


def test_a_stem_restored_in_front_of_an_ending_alternates_as_polish_writes_it() -> None:
    # "zostań" is a word of the readers, "zostanie" is not a misspelt "zostańie"; "testów" but "testowych"
    assert restored(["zostan", "zostanie", "testow", "testowych"])[1:] == ["zostanie", "testów", "testowych"]
    assert restored(["wysylaj", "wlaczaj"]) == ["wysyłaj", "włączaj"]


def test_a_past_ending_is_written_back_only_after_an_actions_stem() -> None:
    assert restored(["opublikowalismy", "wysylala", "zainstalowaly"]) == [
        "opublikowaliśmy",
        "wysyłała",
        "zainstalowały",
    ]
    assert restored(["maila", "sala", "publikacja"]) == ["maila", "sala", "publikacja"]
