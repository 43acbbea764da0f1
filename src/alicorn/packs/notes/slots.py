"""The notes template's slots, and finding their values in a request in English, Polish or Russian.

- `conversation`: `latest`, or the bundled conversation the request points at by date ("yesterday's call",
  "z rozmowy 27 listopada", "пятничного разговора") or by name ("the planning meeting", "o dostawie", "о переезде").
  A date or name is returned only when it matches exactly one file; otherwise nothing is returned.
- `send_reply`: True only for an affirmative request to send that no negation governs. "do not send anything",
  "nic nie wysyłaj", "ничего не отправляй", "without sending" give False; "send me the note" asks for the note, not
  for a mail to the participants, and gives nothing. Any negated send wins over an affirmative one.
- `reply_language`: "in English", "po polsku", "по-русски", "w tym samym języku"...
"""

from __future__ import annotations

import contextlib
import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from alicorn.packs.notes import lexicon
from alicorn.packs.notes.dates import past_days

DATA_DIR = Path(__file__).parent / "data"


class NotesParams(BaseModel):
    """Which conversation, whether to send the drafted reply, and in which language to write it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    conversation: str = Field(
        "latest",
        min_length=1,
        max_length=200,
        description="'latest' or a conversation file under the data root (YYYY-MM-DD-name.json)",
    )
    send_reply: bool = Field(False, description="send the drafted reply (only when the request asks to send it)")
    reply_language: Literal["same", "en", "pl", "ru"] = Field("same", description="language of the draft reply")


_SEND = re.compile(
    r"(?:send|sending|sent|e-?mail|mail)|"
    r"(?:wy[sś]l\w*|wysł\w*|wysył\w*|prze[sś]l\w*|przesł\w*|przesył\w*|roze[sś]l\w*|rozesł\w*|rozsył\w*)|"
    r"(?:отправ\w*|отсыла\w*|высла\w*|вышли\w*|разошл\w*|рассыл\w*)",
    re.IGNORECASE,
)
# Words that, shortly before a send verb in the same clause, negate it ("do not send", "nie wysyłaj", "не отправляй").
_NEGATORS = frozenset(
    "not don't dont never no without nothing nor nie ani bez nic niczego nigdy не ни без ничего никому никогда".split()
)
#: How many words before a send verb a negation still governs it.
NEGATION_WINDOW = 5
# "send nothing", "wysyłaj niczego", "отправлять ничего не надо": a negation right after the verb.
_AFTER = frozenset("nothing nic niczego ничего никому".split())
# Sending to the requester ("send me the note") presents the result; it is not the reply to the participants.
_TO_REQUESTER = frozenset("me mi mnie мне".split())
# "mail" and "email" are verbs only at the start of a clause or after these words ("draft an email" is a noun).
_VERB_CUES = frozenset("and then please to also just".split())
_CLAUSES = re.compile(r"[,.;:!?\n]+")

_LANG_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"\b(?:in|into) the same language\b|\bw tym samym języku\b|(?<!\w)на том же языке(?!\w)", "same"),
    (r"\b(?:in|into) english\b|\bpo angielsku\b|\bw języku angielskim\b|(?<!\w)(?:по-?английски|на английском)", "en"),
    (r"\b(?:in|into) polish\b|\bpo polsku\b|\bw języku polskim\b|(?<!\w)(?:по-?польски|на польском)", "pl"),
    (r"\b(?:in|into) russian\b|\bpo rosyjsku\b|\bw języku rosyjskim\b|(?<!\w)(?:по-?русски|на русском)", "ru"),
)
_LATEST = re.compile(
    r"\b(?:latest|last|most recent|recent)\b|\bostatni\w*|(?<!\w)(?:последн\w*|недавн\w*)", re.IGNORECASE
)
# Words that name any conversation, not one in particular.
_GENERIC = frozenset(
    "meeting meetings conversation call calls recording transcript notes note reply draft tasks task "
    "spotkanie spotkania spotkaniu rozmowa rozmowy rozmowie nagranie notatka notatkę zadania odpowiedź "
    "встреча встречи встрече разговор разговора разговоре запись заметку задачи ответ созвон созвона".split()
)


def _send_value(text: str) -> bool | None:
    found: bool | None = None
    for clause in _CLAUSES.split(text):
        tokens = lexicon.words(clause)
        for i, token in enumerate(tokens):
            if not _SEND.fullmatch(token):
                continue
            before = tokens[max(0, i - NEGATION_WINDOW) : i]
            after = tokens[i + 1 : i + 2]
            if "mail" in token and before and before[-1] not in _VERB_CUES and before[-1] not in _NEGATORS:
                continue  # "an email", "the mail": a noun, not a request to mail
            if any(w in _NEGATORS for w in before) or any(w in _AFTER for w in after):
                return False  # a negated send anywhere forbids sending, whatever else the request says
            if after and after[0] in _TO_REQUESTER:
                continue
            found = True
    return found


def _language(text: str) -> str | None:
    lowered = text.lower()
    for pattern, code in _LANG_PATTERNS:
        for m in re.finditer(pattern, lowered):
            before = lexicon.words(lowered[: m.start()])[-2:]
            if not any(w in ("not", "nie", "не") for w in before):
                return code
    return None


def _catalog(root: Path) -> list[tuple[str, str, set[str]]]:
    """(date, file name, name stems) of every bundled conversation: stems of the file's name and its title."""
    out = []
    for path in sorted(root.glob("*.json")):
        m = re.match(r"^(\d{4}-\d{2}-\d{2})[-_]?(.*)\.json$", path.name)
        if not m:
            continue
        title = ""
        # An unreadable file is still matched by its name; reading it properly is the run's job.
        with contextlib.suppress(OSError, ValueError, AttributeError):
            title = str(json.loads(path.read_text(encoding="utf-8")).get("title", ""))
        stems = {w[:5] for w in lexicon.words(f"{m.group(2)} {title}") if len(w) >= 4 and w not in _GENERIC}
        out.append((m.group(1), path.name, stems))
    return out


def _conversation(text: str, language: str, now: datetime, root: Path) -> str | None:
    files = _catalog(root)
    days = {d.isoformat() for d in past_days(text, language, now)}
    said = {w[:5] for w in lexicon.words(text) if len(w) >= 4 and w not in _GENERIC}
    by_date = {name for day, name, _ in files if day in days}
    by_name = {name for _, name, stems in files if stems & said}
    for candidates in (by_date & by_name, by_date if not by_name else set(), by_name if not days else set()):
        if len(candidates) == 1:
            return next(iter(candidates))
    if not days and not by_name and _LATEST.search(text):
        return "latest"
    return None


def extract(text: str, language: str, now: datetime, root: Path = DATA_DIR) -> dict[str, Any]:
    """Slot values found in the request (only those found). `now` resolves "yesterday" and weekdays."""
    found: dict[str, Any] = {}
    send = _send_value(text)
    if send is not None:
        found["send_reply"] = send
    reply_language = _language(text)
    if reply_language is not None:
        found["reply_language"] = reply_language
    conversation = _conversation(text, language, now, root)
    if conversation in (None, "latest") and root != DATA_DIR:
        conversation = _latest(root, language, now) or conversation  # the user's data: the best "latest"
    if conversation is not None:
        found["conversation"] = conversation
    return found


def _latest(root: Path, language: str, now: datetime) -> str | None:
    """The newest transcript dated on or before the request's day, preferring one in the request's language."""
    best: tuple[bool, str, str] | None = None
    for path in sorted(root.glob("*.json")):
        m = re.match(r"^(\d{4}-\d{2}-\d{2})", path.name)
        if not m or m.group(1) > now.date().isoformat():
            continue
        spoken = ""
        with contextlib.suppress(OSError, ValueError, AttributeError):
            spoken = str(json.loads(path.read_text(encoding="utf-8")).get("language", ""))
        key = (spoken == language, m.group(1), path.name)
        if best is None or key > best:
            best = key
    return best[2] if best is not None else None


def extract_from_data(text: str, language: str, now: datetime, root: Path) -> dict[str, Any]:
    """`extract` over the user's staged transcripts: names and dates are matched against *their* files."""
    return extract(text, language, now, root=root)


QUESTIONS: dict[str, dict[str, str]] = {
    "conversation": {
        "en": "Which conversation should I take notes from (a date or a name; by default the latest)?",
        "pl": "Z której rozmowy mam przygotować notatkę (data lub nazwa; domyślnie ostatnia)?",
        "ru": "По какому разговору подготовить заметку (дата или название; по умолчанию последний)?",
    },
}

EXAMPLES: dict[str, tuple[str, ...]] = {
    "en": (
        "From the conversation, prepare a note, tasks and a draft reply, but do not send anything.",
        "Summarise yesterday's meeting recording and list the action items with owners.",
        "Take minutes of the planning call and draft a follow-up email to the participants.",
        "Go through the call transcript, pull out who promised what by when, and write a reply draft.",
        "Make meeting notes from the latest recording and send the summary to everyone.",
    ),
    "pl": (
        "Z rozmowy przygotuj notatkę, zadania i projekt odpowiedzi, ale nic nie wysyłaj.",
        "Zrób notatkę z wczorajszego spotkania i wypisz zadania z osobami odpowiedzialnymi.",
        "Przejrzyj nagranie rozmowy o dostawie i przygotuj szkic maila do uczestników.",
        "Spisz ustalenia i zadania z ostatniego spotkania, odpowiedź tylko jako szkic.",
        "Podsumuj spotkanie zespołu i roześlij uczestnikom listę zadań.",
    ),
    "ru": (
        "По разговору подготовь заметку, задачи и черновик ответа, но ничего не отправляй.",
        "Составь протокол вчерашней встречи и список задач с ответственными.",
        "Разбери запись созвона о переезде и подготовь черновик письма участникам.",
        "Сделай конспект последнего совещания: решения, задачи, сроки.",
        "Подведи итоги встречи и разошли участникам письмо с задачами.",
    ),
}
