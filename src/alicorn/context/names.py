"""Finding people's names in English, Polish and Russian text, for redaction.

Four signals, each cheap and offline:

1. names the project knows (staff lists, conversation participants), matched in inflected forms: Polish and Russian
   decline names ("Anna Kowalska" → "Anny Kowalskiej", "Иван Петров" → "Ивану Петрову"), so each word is matched
   by its stem plus a short ending;
2. a title before capitalised words (Mr, Dr, Pani, Pan, господин, г-жа...);
3. an introduction before capitalised words ("my name is", "nazywam się", "меня зовут");
4. two capitalised words where the first is a common first name or the second has a surname ending
   (-ski, -wicz, -ов, -ова, -son...).

It over-redacts on purpose ("Anna Street" goes too); names it cannot recognise by any of these are missed, which is
why a project should pass its people's names.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

_WORD = r"[A-ZА-ЯЁŁŚŻŹĆŃÓĘĄ][a-zа-яёąćęłńóśźż]+(?:-[A-ZА-ЯЁ][a-zа-яё]+)?"
_TITLES = (
    r"(?:Mr|Mrs|Ms|Miss|Dr|Prof|Sir|Madam|Pan|Pani|Pana|Panu|Panem|Panią|Państwo|dr|prof|mgr|inż"
    r"|господин|госпожа|господина|госпоже|г-н|г-жа|товарищ|доктор|профессор)\.?"
)
_INTRO = (
    r"(?:my name is|i am|i'm|named|called|this is|nazywam się|mam na imię|ma na imię|nazywa się|jestem"
    r"|меня зовут|его зовут|её зовут|ее зовут|зовут|это)"
)


@functools.cache
def _shapes() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The shapes of a name: after a title, after an introduction, a first name and a surname, a lone first name.
    Compiled on the first search, so importing this module (every command does, through the journal) is cheap."""
    return (
        re.compile(rf"\b{_TITLES}\s+({_WORD}(?:\s+{_WORD})?)"),
        re.compile(rf"(?i:\b{_INTRO})\s+({_WORD}(?:\s+{_WORD})?)"),
        re.compile(rf"(?<![\w-])({_WORD})\s+({_WORD})(?![\w-])"),
        re.compile(rf"(?<![\w-])({_WORD})(?![\w-])"),
    )


# fmt: off
_SURNAME_ENDINGS = (
    "ski", "ska", "skiego", "skiej", "cki", "cka", "dzki", "dzka", "wicz", "owicz", "ewicz", "czyk", "czak", "iak",
    "son", "sen", "ова", "ева", "ина", "ов", "ев", "ин", "ский", "ская", "цкий", "цкая", "ович", "евич", "енко",
    "ову", "еву", "овой", "евой", "овым", "евым", "ской", "ского",
)
_FIRST_NAMES = frozenset({
    "john", "james", "robert", "michael", "william", "david", "richard", "joseph", "thomas", "charles", "mary",
    "patricia", "jennifer", "linda", "elizabeth", "barbara", "susan", "jessica", "sarah", "karen", "emma", "olivia",
    "sophia", "alice", "bob", "peter", "paul", "mark", "george", "anne", "kate",
    "anna", "maria", "katarzyna", "małgorzata", "agnieszka", "krystyna", "ewa", "zofia", "magdalena", "joanna",
    "piotr", "krzysztof", "andrzej", "tomasz", "paweł", "marcin", "michał", "jakub", "kamil", "łukasz", "marek",
    "grzegorz", "adam", "wojciech", "jan", "stanisław", "józef", "monika", "beata", "ola",
    "иван", "сергей", "андрей", "алексей", "дмитрий", "михаил", "николай", "владимир", "павел", "пётр", "петр",
    "александр", "анна", "мария", "елена", "ольга", "наталья", "татьяна", "ирина", "светлана", "екатерина", "юлия",
})
_NOT_NAMES = frozenset({
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january", "february", "march",
    "april", "may", "june", "july", "august", "september", "october", "november", "december", "please", "prepare",
    "build", "find", "analyse", "analyze", "show", "send", "do", "not", "the", "this", "market", "marketing",
    "poniedziałek", "wtorek", "środa", "czwartek", "piątek", "sobota", "niedziela", "przygotuj", "zbuduj", "znajdź",
    "pokaż", "nie", "понедельник", "вторник", "среда", "четверг", "пятница", "суббота", "воскресенье",
    "подготовь", "собери", "найди", "покажи", "не",
})
# fmt: on
_FIRST_STEMS = tuple(sorted({n[:-2] if len(n) >= 5 else n[:-1] for n in _FIRST_NAMES if len(n) >= 4}))


def is_first_name(word: str) -> bool:
    """A common first name, also declined ("Piotra", "Marka", "Ивану", "Anny")."""
    lowered = word.lower()
    if lowered in _FIRST_NAMES:
        return True
    if lowered in _NOT_NAMES or len(lowered) < 4:
        return False
    return any(lowered.startswith(stem) and len(lowered) - len(stem) <= 3 for stem in _FIRST_STEMS)


def _stem(word: str) -> str:
    lowered = word.lower()
    if len(lowered) >= 7:
        return lowered[:-2]
    if len(lowered) >= 4:
        return lowered[:-1]
    return lowered


def _known_patterns(known: Iterable[str]) -> list[re.Pattern[str]]:
    patterns: list[re.Pattern[str]] = []
    for name in known:
        words = [w for w in re.split(r"\s+", name.strip()) if w]
        if not words:
            continue
        stems = [re.escape(_stem(w)) + r"\w{0,4}" for w in words]
        patterns.append(re.compile(r"(?<!\w)" + r"\s+".join(stems) + r"(?!\w)", re.IGNORECASE))
        # The surname alone ("Kowalskiej"), when distinctive enough.
        if len(words) > 1 and len(words[-1]) >= 4:
            patterns.append(re.compile(r"(?<!\w)" + stems[-1] + r"(?!\w)", re.IGNORECASE))
    return patterns


def _looks_like_name(first: str, second: str) -> bool:
    a, b = first.lower(), second.lower()
    if a in _NOT_NAMES or b in _NOT_NAMES:
        return False
    return is_first_name(a) or (b.endswith(_SURNAME_ENDINGS) and len(b) > 4)


def find_names(text: str, known: Iterable[str] = ()) -> list[tuple[int, int]]:
    """Spans of `text` that are (probably) people's names."""
    spans: list[tuple[int, int]] = []
    for pattern in _known_patterns(known):
        spans.extend(m.span() for m in pattern.finditer(text))
    titled, introduced, paired, alone = _shapes()
    for match in titled.finditer(text):
        spans.append(match.span(1))
    for match in introduced.finditer(text):
        if match.group(1).split()[0].lower() not in _NOT_NAMES:
            spans.append(match.span(1))
    for match in paired.finditer(text):
        if _looks_like_name(match.group(1), match.group(2)):
            spans.append(match.span())
    # A lone first name from the list, capitalised ("ask Anna", "спроси Ивана").
    for match in alone.finditer(text):
        if is_first_name(match.group(1)):
            spans.append(match.span())
    return spans
