"""Prohibitions said as a judgement on the action rather than a command about it, in en/pl/ru.

    a refusal predicate     "Publishing it is off the table", "emailing them is out of the question", "not on the
                            cards", "Publikacja odpada", "Wysyłka nie wchodzi w grę", "O publikowaniu nie ma mowy",
                            "Отправка исключена", "О публикации и речи нет": the action named in the clause is refused.
    someone else's domain   "The upgrade is Mark's job", "to jego działka", "это его зона", "stays under the
                            gardener's control", "zostają w rękach technika", "остаются в ведении техника": what the
                            sentence names (an action, or a device, document, venue or server) is not for us to do.
    kept in-house           "Zestawienie zostaje w firmie", "Сводка остаётся у нас", "the figures stay in-house":
                            the thing named is not to leave (external transmission).
    a negative passive      "nothing gets installed or run", "nothing is to be deleted", "no file gets moved": each
                            coordinated participle is forbidden.

Each is read from the clause or sentence structure (a predicate and what it is said of), not from the action word
alone; a question states nothing, so none of them reads one.
"""

from __future__ import annotations

from alicorn.models.intent.lexicon import (
    _CLAUSE_BREAK,
    _CONTINUE,
    _DATA_OBJECTS,
    _SERVERS,
    _VENUES,
    ForbiddenAction,
    _device,
    _sentences,
    _whole,
    action_of,
)
from alicorn.plan.dsl import EffectClass

# fmt: off
#: Refusal predicates, as token sequences; said of the action in their clause.
_REFUSALS: tuple[tuple[str, ...], ...] = (
    ("off", "the", "table"), ("out", "of", "the", "question"), ("not", "on", "the", "cards"), ("not", "an", "option"),
    ("no", "go"), ("ruled", "out"), ("not", "happening"), ("off", "limits"), ("hands", "off"), ("out", "of", "bounds"),
    ("ręce", "precz"), ("руки", "прочь"), ("ни", "-", "ни"), ("no", "-", "go"), ("под", "запретом"), ("pod",
    "zakazem"), ("tabu",),
    ("табу",),
    ("odpada",), ("odpadają",), ("nie", "wchodzi", "w", "grę"), ("nie", "wchodzą", "w", "grę"), ("nie", "ma", "mowy"),
    ("wykluczone",), ("wykluczona",), ("wykluczony",), ("nie", "ma", "opcji"), ("nie", "ma", "takiej", "opcji"),
    ("исключено",), ("исключена",), ("исключен",), ("исключены",), ("и", "речи", "нет"), ("речи", "нет"),
    ("речи", "быть", "не", "может"), ("не", "обсуждается"), ("не", "вариант"), ("отпадает",),
)
#: Nouns of a domain someone owns: "Mark's job", "jego działka", "его зона".
_DOMAIN_NOUNS = (
    "=job", "=responsibility", "=call", "=area", "=department", "=territory", "=remit", "=domain", "=task",
    "działka", "działką", "sprawa", "zadanie", "broszka", "działce", "зона", "дело", "задача", "епархия",
    "ответственность", "вотчина",
)
_COPULAS = {"is", "are", "it's", "that's", "remains", "to", "jest", "są", "это", "—", "-"}
_POSSESSIVES = {
    "his", "her", "their", "my", "our", "jego", "jej", "ich", "moja", "moje", "nasza", "nasze", "его", "ее", "их",
    "моя", "мое", "наша", "наше",
}
#: Being in someone's hands: "under the gardener's control", "w rękach technika", "в ведении техника".
_HANDS: tuple[tuple[str, ...], ...] = (
    ("under",), ("in", "the", "hands"), ("w", "rękach"), ("w", "gestii"), ("pod", "kontrolą"), ("в", "ведении"),
    ("в", "руках"), ("под", "контролем"), ("на", "совести"),
)
_STAYING = (
    "=stay", "=remain", "=stays", "=remains", "zostaje", "zostają", "zostanie", "zostaną", "pozostaje", "pozostają",
    "pozostanie", "остается", "остаются", "останется", "останутся", "zostaja", "zostana", "pozostaja",
)
#: Keeping verbs take an object before the place: "Keep the findings in-house", "trzymaj wyniki u nas".
_KEEPING_INSIDE = ("=keep", "trzymaj", "zatrzymaj", "zachowaj", "держи", "держите", "оставь", "оставьте")
#: Your own domain, negated: "Publishing them is not your job", "to nie twoja działka", "это не твоя задача".
_YOURS = {"your", "twoja", "twoje", "twój", "twoim", "twoją", "твоя", "твое", "твой", "ваша", "ваше", "wasza", "wasze"}
_NOT = {"not", "isn't", "nie", "не"}
_MINE = {"mine", "ours", "moje", "moja", "mój", "nasze", "моё", "мое", "моя", "мой", "наше"}
#: Places that keep a thing inside: "w firmie", "u nas", "у нас", "in-house".
_INSIDE: tuple[tuple[str, ...], ...] = (
    ("in", "-", "house"), ("in", "house"), ("with", "us"), ("inside", "the", "company"), ("within", "the", "company"),
    ("w", "firmie"), ("u", "nas"), ("w", "domu"), ("w", "zespole"), ("у", "нас"), ("в", "компании"),
    ("в", "фирме"), ("внутри", "компании"), ("в", "команде"),
    ("wewnątrz",), ("wewnatrz",), ("w", "obrębie"), ("внутри",), ("inside",), ("within",), ("in", "the", "drawer"),
    ("w", "szufladzie"), ("в", "столе"), ("в", "ящике"), ("u", "mnie"), ("у", "меня"), ("w", "dziale"), ("в", "отделе"),
    ("in", "the", "department"), ("within", "the", "team"),
)
_NEGATIVE_SUBJECTS = {"nothing", "no", "none", "nic", "żaden", "żadna", "żadne", "ничего", "ничто", "никакой"}
_PASSIVE_AUX = (
    ("gets",), ("get",), ("is", "to", "be"), ("are", "to", "be"), ("should", "be"), ("must", "be"), ("will", "be"),
    ("may", "be"), ("can", "be"),
)
#: Verbs whose English participle is its base: "nothing gets run".
_BARE_PARTICIPLES: dict[str, EffectClass] = {
    "run": "code_execution", "rerun": "code_execution", "sent": "external_transmission",
}
# fmt: on


def judged(words: list[str], language: str) -> list[tuple[int, ForbiddenAction]]:
    """(position, reading) for every prohibition of the forms above in the tokens `words`."""
    sentence = _sentences(words)
    questions = {sentence[k] for k, w in enumerate(words) if w == "?"}
    found: list[tuple[int, ForbiddenAction]] = []
    for reader in (_refused, _owned_elsewhere, _kept_inside, _negative_passive):
        found.extend(item for item in reader(words, sentence) if sentence[item[0]] not in questions)
    return found


def _at(words: list[str], index: int, phrase: tuple[str, ...]) -> bool:
    return tuple(words[index : index + len(phrase)]) == phrase


def _clause(words: list[str], index: int) -> tuple[int, int]:
    start = next((k + 1 for k in range(index - 1, -1, -1) if words[k] in _CLAUSE_BREAK), 0)
    end = next((k for k in range(index, len(words)) if words[k] in _CLAUSE_BREAK), len(words))
    return start, end


def _named(words: list[str], start: int, end: int) -> list[tuple[int, EffectClass]]:
    """The actions in [start, end), else what a change to the things named there would be."""
    actions = [(j, e) for j in range(start, end) if words[j][0].isalpha() and (e := action_of(words, j))]
    if actions:
        return actions
    named: list[tuple[int, EffectClass]] = []
    for j in range(start, end):
        word = words[j]
        if not word[0].isalpha():
            continue
        if _device(word):
            named.append((j, "physical"))
        elif _whole(_VENUES, word):
            named.append((j, "publication"))
        elif _whole(_SERVERS, word):
            named.append((j, "installation"))
        elif _whole(_DATA_OBJECTS, word):
            named.append((j, "local_write"))
    return named


def _refused(words: list[str], sentence: list[int]) -> list[tuple[int, ForbiddenAction]]:
    """ "Publishing it is off the table", "Wysyłka nie wchodzi w grę", "О публикации и речи нет"."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index in range(len(words)):
        phrase = next((p for p in _REFUSALS if _at(words, index, p)), None)
        if phrase is None:
            continue
        start, end = _clause(words, index)
        named = _named(words, start, end)
        if not named and start > 0 and words[start - 1] in (":", "—", "–", "-"):
            # "The barrier itself: hands off", "Szlaban — ręce precz": what is refused stands before the colon
            start = _clause(words, start - 1)[0]
            named = _named(words, start, end)
        for j, effect in named:
            if not start <= j < index and not index + len(phrase) <= j < end:
                continue
            found.append((j, ForbiddenAction(effect, f"{' '.join(phrase)} (refused)", words[j])))
    return found


def _owned_elsewhere(words: list[str], sentence: list[int]) -> list[tuple[int, ForbiddenAction]]:
    """ "The upgrade is Mark's job", "to jego działka", "stays under the gardener's control", "в ведении техника"."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index, word in enumerate(words):
        owner = False
        if _whole(_DOMAIN_NOUNS, word) and index:
            before = words[max(0, index - 4) : index]
            # predicative only ("is Mark's job", "to jego działka", "это его зона"; not "this morning's call")
            owner = any(w in _POSSESSIVES or w.endswith("'s") for w in before) and any(w in _COPULAS for w in before)
            # "not your job": the agent's own domain, denied ("it is your job" asks for it)
            owner = owner or (any(w in _YOURS for w in before) and any(w in _NOT for w in before))
        if word in ("yours", "twoje", "twoja", "twój", "твое", "твоя", "твой", "ваше") and any(
            w in _NOT for w in words[max(0, index - 2) : index]
        ):
            owner = True  # "the heating settings are not yours to play with", "to nie twoje", "это не твоё"
        if word in _MINE and index and (words[index - 1] in _COPULAS or words[index - 1] in ("all", "cała", "całe")):
            owner = True  # "but that pleasure is all mine", "это моё", "to już moje": the speaker keeps it
        hands = next((p for p in _HANDS if _at(words, index, p)), None)
        if hands is not None:
            staying = any(_whole(_STAYING, w) for w in words[max(0, index - 4) : index])
            owner = staying and (hands != ("under",) or any(w.endswith("'s") for w in words[index : index + 4]))
        if not owner:
            continue
        members = [k for k in range(len(words)) if sentence[k] == sentence[index]]
        scope = [k for k in members if k < index] or members
        for j, effect in _named(words, scope[0], scope[-1] + 1):
            found.append((j, ForbiddenAction(effect, f"{word} (someone else's)", words[j])))
    return found


def _kept_inside(words: list[str], sentence: list[int]) -> list[tuple[int, ForbiddenAction]]:
    """ "Zestawienie zostaje w firmie", "Сводка остаётся у нас", "the figures stay in-house"."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index, word in enumerate(words):
        keeping = _whole(_KEEPING_INSIDE, word)
        if not _whole(_STAYING, word) and not keeping:
            continue
        _, end = _clause(words, index)
        for j in range(index + 1, min(end, index + (6 if keeping else 3))):
            phrase = next((p for p in _INSIDE if _at(words, j, p)), None)
            if phrase is not None:
                trigger = f"{word} {' '.join(phrase)} (kept inside)"
                found.append((index, ForbiddenAction("external_transmission", trigger, word)))
                break
    return found


def _negative_passive(words: list[str], sentence: list[int]) -> list[tuple[int, ForbiddenAction]]:
    """ "nothing gets installed or run", "nothing is to be deleted": each coordinated participle."""
    found: list[tuple[int, ForbiddenAction]] = []
    for index, word in enumerate(words):
        if word not in _NEGATIVE_SUBJECTS:
            continue
        j = index + 1 if word in ("nothing", "none", "nic", "ничего", "ничто") else index + 2
        aux = next((p for p in _PASSIVE_AUX if _at(words, j, p)), None)
        if aux is None:
            continue
        k = j + len(aux)
        while k < len(words) and words[k] not in _CLAUSE_BREAK:
            effect = _BARE_PARTICIPLES.get(words[k]) or action_of(words, k)
            if effect is not None:
                found.append((k, ForbiddenAction(effect, f"{word} {' '.join(aux)} (passive)", words[k])))
            elif words[k] not in _CONTINUE and not words[k].endswith("ed"):
                break
            k += 1
    return found
