"""Chats remember: a fact a person states in a chat becomes a record of the project's memory.

"Our night shift supervisor is Piotr Nowak", "Naszym kierownikiem nocnej zmiany jest Piotr Nowak", "Руководитель
ночной смены — Пётр Новак": each is stored as a `fact` with the provenance `human` (a pointer to the journaled
message, `journal:conv-…#SEQ`, and the person's id in its note), through the memory store's write gate (a repeat
merges, the same subject with another value is a recorded contradiction). A later question in a chat ("Who is our
night shift supervisor?") is answered by Core's questions-from-memory path (alicorn.core.understand), which cites
the record.

What counts as a statement of fact is decided without a model, so a turn costs no model call: the surface cues
Core's classifier uses (alicorn.models.intent.cues) must say "a statement without a request" (so no question, no
request, no greeting, no alarm is ever stored), and the sentence must have the shape of a fact: a copula or a
dash between a subject and what is said of it ("X is Y", "X jest Y", "X — Y"), or an explicit "remember that …"
("zapamiętaj, że …", "запомни, что …"). The subject gives the record's key (`said/<subject words>`), so a later
"our night shift supervisor is Jan Kowalski" contradicts the first instead of silently sitting beside it; names
(two or more capitalised words) become the record's entities, so the entity graph grows from chats too.

The hook (`Remembering`) observes the service's own journal: when a person's first message of a conversation
(`intent.received`) or a message after a report (`message.received`) is appended, remembering it is queued on the
conversation's key of the worker pool, so it runs before Core advances the conversation (a question asked in the
same conversation afterwards already finds it). Answers to Core's clarifying questions are never stored: they
answer Core, they do not tell the project anything. Nothing here changes Core.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from alicorn.models.intent.cues import kind_cue

if TYPE_CHECKING:
    from alicorn.journal.events import Event
    from alicorn.journal.store import JournalStore
    from alicorn.service.memory_api import HomeMemory

_log = logging.getLogger("alicorn.service.remember")

#: The longest message read as a fact: a longer text is a document, not something said in passing.
MAX_FACT = 500
#: Model calls a chat turn may spend on remembering: none (the detector is deterministic).
MODEL_CALLS_PER_TURN = 0

_REMEMBER = re.compile(
    r"^\s*(?:please\s+)?(?:remember|note)(?:\s+that)?[:,]?\s+"
    r"|^\s*(?:proszę\s+)?(?:zapamiętaj|zanotuj)(?:\s*,?\s*że)?[:,]?\s+"
    r"|^\s*(?:пожалуйста,?\s+)?(?:запомни|запиши)(?:\s*,?\s*что)?[:,]?\s+",
    re.IGNORECASE,
)
#: Between a subject and what is said of it. Russian often has no copula: a dash stands for it.
_COPULA = re.compile(
    r"\s(?:is|are|was|were|has|have|lives|works|sits|stays|keeps|opens|closes|starts|ends)\s"
    r"|\s(?:jest|są|to|był|była|było|były|ma|mają|znajduje się|znajdują się|leży|stoi|pracuje|mieszka)\s"
    r"|\s(?:—|–|-)\s|\s(?:это|является|являются|есть|находится|находятся|живёт|живет|работает|стоит|лежит)\s",
    re.IGNORECASE,
)
#: Sentences about the speaker's feelings or opinions, not about the project.
_OPINION = re.compile(r"^(?:i|i'm|im|i've|i'd|ja|jestem|myślę|sądzę|uważam|я|думаю|считаю|мне)\b|^i\s", re.IGNORECASE)
_LEADING = re.compile(
    r"^(?:our|the|my|a|an|this|nasz\w*|mój|moja|moje|ten|ta|to|наш\w*|мой|моя|моё|мое|этот|эта|это)\s+",
    re.IGNORECASE,
)
_NAME = re.compile(r"(?<![\w-])((?:[A-ZĄĆĘŁŃÓŚŹŻА-ЯЁ][\w'-]+)(?:\s+[A-ZĄĆĘŁŃÓŚŹŻА-ЯЁ][\w'-]+)+)")
_WORD = re.compile(r"[\w]+", re.UNICODE)


@dataclass(frozen=True)
class Fact:
    """A statement read as a fact: the text to store, the slot it fills and the names it mentions."""

    text: str
    key: str | None
    entities: tuple[str, ...]


def fact_of(message: str) -> Fact | None:
    """The fact `message` states, or None when it asks, requests, greets or says nothing with a fact's shape."""
    text = " ".join(message.split())
    if not text or len(text) > MAX_FACT or "?" in text:
        return None
    explicit = _REMEMBER.match(text)
    if explicit:
        text = text[explicit.end() :].strip()
        if not text:
            return None
        text = text[0].upper() + text[1:]
    cue = kind_cue(text)
    if cue is None or cue.kind != "conversation" or cue.strong:  # a question, a request, a greeting, an alarm
        return None
    if _OPINION.match(text) or len(_WORD.findall(text)) < 4:
        return None
    copula = _COPULA.search(text)
    if copula is None:
        return None
    subject = _LEADING.sub("", text[: copula.start()].strip().lower())
    words = _WORD.findall(subject)[:6]
    key = ("said/" + "-".join(words))[:200] if words else None
    names = tuple(dict.fromkeys(m.group(1) for m in _NAME.finditer(text)))
    return Fact(text, key, names[:10])


@dataclass(frozen=True)
class Said:
    """A person's message in a conversation: where it was journaled, by whom, in which project."""

    conversation: str
    seq: int
    person: str
    project: str
    text: str


def said_in(stream: str, event: Event, project_of: Callable[[str], str | None]) -> Said | None:
    """The person's message `event` carries, if it is one to read for facts (see the module docstring)."""
    if not stream.startswith("conv-"):
        return None
    if event.kind == "intent.received":
        envelope = event.data.get("envelope") or {}
        if envelope.get("provenance") != "human" or not str(envelope.get("author", "")).startswith("human:"):
            return None
        first = str(envelope.get("project") or "default")
        return Said(stream, event.seq, str(envelope["author"]), first, str(envelope.get("utterance", "")))
    if event.kind == "message.received":
        by = str(event.data.get("by", ""))
        project = project_of(stream)
        if not by.startswith("human:") or project is None:
            return None
        return Said(stream, event.seq, by, project, str(event.data.get("text", "")))
    return None


def remember(memory: HomeMemory, said: Said) -> dict[str, Any] | None:
    """Store the fact `said` states (None when it states none): what the write gate did."""
    from alicorn.memory.models import NewRecord, Provenance
    from alicorn.service.memory_api import added_json

    fact = fact_of(said.text)
    if fact is None:
        return None
    source = Provenance.journal_event(
        said.conversation, said.seq, origin="human", note=f"said by {said.person} in a chat"
    )
    draft = NewRecord(text=fact.text, key=fact.key, entities=fact.entities, provenance=source)
    with memory.open(said.project, create=True) as store:
        return added_json(store.add(draft))


class Remembering:
    """Watches the service's journal for people's chat messages and queues remembering what they state."""

    def __init__(
        self, journal: JournalStore, memory: HomeMemory, submit: Callable[[str, str, Callable[[], object]], None]
    ) -> None:
        self.journal = journal
        self.memory = memory
        self.submit = submit
        #: What each job did, newest last (bounded): for the log and the tests, never the truth (memory is).
        self.done: list[tuple[Said, dict[str, Any] | None]] = []
        self._stop = journal.observe(self._observed)

    def _observed(self, stream: str, events: Sequence[Event]) -> None:
        for event in events:
            said = said_in(stream, event, self._project_of)
            if said is None or fact_of(said.text) is None:
                continue
            try:
                self.submit(said.conversation, f"remember what {said.person} said", functools.partial(self._job, said))
            except Exception as exc:  # a full or closing pool: the chat goes on; the fact is not stored
                _log.warning("alicorn serve: not remembering %s#%s: %s", said.conversation, said.seq, exc)

    def _project_of(self, conversation: str) -> str | None:
        first = self.journal.read(conversation)[:1] if self.journal.head(conversation) else []
        if not first or first[0].kind != "intent.received":
            return None
        return str((first[0].data.get("envelope") or {}).get("project") or "default")

    def _job(self, said: Said) -> None:
        try:
            result = remember(self.memory, said)
        except Exception as exc:  # never the conversation's failure: Core still answers the person
            _log.warning("alicorn serve: could not remember %s#%s: %s", said.conversation, said.seq, exc)
            result = {"status": "refused", "error": str(exc)[:300]}
        self.done = [*self.done[-99:], (said, result)]

    def close(self) -> None:
        self._stop()
