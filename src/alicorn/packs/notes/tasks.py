"""`notes.extract_tasks`: action items, decisions, open questions and topics from a transcript, deterministically.

Each usable sentence is classified by `lexicon.read_sentence`. A task's owner is the speaker for a commitment ("I'll
fix the tests"), the participant addressed by name for a request or an action line ("Chloe, can you...", "Marku,
sprawdź proszę...", "Action: Alice to..."), and nobody for a need nobody took. A short reply that only accepts or
takes over the item just said ("Will do.", "Ja to wezmę", "Хорошо, сделаю это завтра") joins that task as further
evidence: it gives an unowned task its owner and a task without a date its due date. Due dates are read from the
sentence and resolved against the day of the meeting. Every item cites the segment indices it comes from; redacted
segments (see `notes.read_transcript`) are never read, so nobody's words are used without their consent.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date
from typing import Literal

from pydantic import Field

from alicorn.ops._common import Model
from alicorn.ops.registry import Operation, OperationContext
from alicorn.packs.notes import lexicon
from alicorn.packs.notes.dates import due_date
from alicorn.packs.notes.model import (
    MAX_ITEMS,
    MAX_PARTICIPANTS,
    MAX_SEGMENTS,
    IsoDate,
    Item,
    Participant,
    Segment,
    Task,
)

#: A reply longer than this many words is a new item, not an acceptance of the previous one.
ATTACH_MAX_WORDS = 10
#: A bare acknowledgement ("Yes, by tomorrow.") has at most this many words.
ACK_MAX_WORDS = 4


class ExtractTasksInputs(Model):
    segments: list[Segment] = Field(max_length=MAX_SEGMENTS)
    participants: list[Participant] = Field(max_length=MAX_PARTICIPANTS)
    date: IsoDate = Field(description="the day of the conversation; relative due dates are resolved against it")
    agenda: list[str] = Field(default_factory=list, max_length=50)


class ExtractTasksOutputs(Model):
    tasks: list[Task] = Field(max_length=MAX_ITEMS)
    decisions: list[Item] = Field(max_length=MAX_ITEMS)
    open_questions: list[Item] = Field(max_length=MAX_ITEMS)
    topics: list[Item] = Field(max_length=50)
    count: int = Field(ge=0, description="number of tasks")
    unowned: int = Field(ge=0, description="tasks nobody was named for")


TaskKind = Literal["commitment", "request", "need", "action"]


@dataclass
class _Draft:
    """A task being assembled: replies that accept it add evidence, an owner, a due date."""

    text: str
    owner: str | None
    kind: TaskKind
    evidence: list[int]
    due: date | None
    due_text: str | None
    segment: int

    def accept(self, index: int, owner: str, due: date | None, due_text: str | None) -> None:
        if index not in self.evidence:
            self.evidence.append(index)
        if self.owner is None:
            self.owner = owner
        if self.due is None and due is not None:
            self.due, self.due_text = due, due_text


def _addressee(sentence: str, people: list[Participant]) -> str | None:
    """The participant a request names: by a name among its first or last two words (a vocative, not an object).
    When several names fit a word ("Tom" and "Tomek" both fit "Tomku"), the longest stem wins."""
    tokens = lexicon.words(lexicon.ACTION.sub(" ", sentence))
    edges = [*tokens[:2], *tokens[-2:]]
    best, best_length = None, 0
    for person in people:
        for stem in lexicon.name_stems(person.name):
            if len(stem) > best_length and any(lexicon.is_name_form(word, [stem]) for word in edges):
                best, best_length = person.id, len(stem)
    return best


def _kind(reading: lexicon.Reading) -> TaskKind:
    if reading.action:
        return "action"
    if reading.commitment:
        return "commitment"
    if reading.request:
        return "request"
    return "need"


def _attaches(reading: lexicon.Reading, target: _Draft, same_segment: bool, owner: str | None) -> bool:
    """Whether a sentence only accepts or takes over `target` (then it is evidence, not a new task)."""
    if reading.ack and reading.length <= ACK_MAX_WORDS and not (reading.need or reading.request):
        return True
    if reading.length > ATTACH_MAX_WORDS:
        return False
    if reading.commitment and reading.anaphoric and not (reading.need or reading.request):
        return True
    # "We need to notify the client. Piotrze, czy możesz...": an unowned need handed to someone at once.
    return same_segment and target.owner is None and owner is not None and target.kind == "need"


def extract_tasks(inputs: ExtractTasksInputs, ctx: OperationContext) -> ExtractTasksOutputs:
    """Find the tasks (with owner, due date and evidence), decisions, open questions and topics of a conversation."""
    day = date.fromisoformat(inputs.date)
    people = [p for p in inputs.participants if p.processing and p.recording]
    known = {p.id for p in people}
    names = {p.id: p.name for p in inputs.participants}
    drafts: list[_Draft] = []
    decisions: list[Item] = []
    questions: list[Item] = []
    previous = -1  # the last usable segment: a reply answers it even across a redacted interjection
    for seg in inputs.segments:
        if seg.redacted or seg.speaker not in known or not seg.text.strip():
            continue
        decided = opened = False
        for sentence in lexicon.sentences(seg.text):
            reading = lexicon.read_sentence(sentence)
            decided = decided or reading.decision
            opened = opened or reading.open_question
            last = drafts[-1] if drafts else None
            recent = last if last is not None and last.evidence[-1] in (seg.index, previous) else None
            if reading.commitment:
                owner: str | None = seg.speaker
            elif reading.request or reading.action or reading.need:
                owner = _addressee(sentence, people)
            else:
                owner = None
            due, due_text = due_date(sentence, day)
            same = recent is not None and recent.segment == seg.index
            if recent is not None and (reading.task or reading.ack) and _attaches(reading, recent, same, owner):
                recent.accept(seg.index, owner or seg.speaker, due, due_text)
                continue
            if reading.task:
                text = lexicon.ACTION.sub("", sentence).strip().rstrip(".!?…").strip()
                drafts.append(_Draft(text, owner, _kind(reading), [seg.index], due, due_text, seg.index))
        previous = seg.index
        if decided:
            decisions.append(Item(text=seg.text.strip(), evidence=[seg.index]))
        elif opened:
            questions.append(Item(text=seg.text.strip(), evidence=[seg.index]))
    tasks = [
        Task(
            id=f"T{n}",
            text=d.text[:2000] or "(no text)",
            owner=d.owner,
            owner_name=names.get(d.owner) if d.owner else None,
            due=d.due.isoformat() if d.due else None,
            due_text=d.due_text,
            kind=d.kind,
            evidence=d.evidence[:64],
        )
        for n, d in enumerate(drafts[:MAX_ITEMS], start=1)
    ]
    return ExtractTasksOutputs(
        tasks=tasks,
        decisions=decisions[:MAX_ITEMS],
        open_questions=questions[:MAX_ITEMS],
        topics=topics(inputs.agenda, inputs.segments, known),
        count=len(tasks),
        unowned=sum(1 for t in tasks if t.owner is None),
    )


def _stems(text: str) -> set[str]:
    return {w[:5] for w in lexicon.words(text) if len(w) >= 4}


def topics(agenda: list[str], segments: list[Segment], known: set[str]) -> list[Item]:
    """Each agenda item with the usable segment that speaks of it most specifically (rare shared word stems weigh
    more), or no evidence when nobody spoke of it."""
    usable = [s for s in segments if not s.redacted and s.speaker in known and s.text]
    spread = Counter(stem for s in usable for stem in _stems(s.text))
    out: list[Item] = []
    for entry in agenda:
        wanted = _stems(entry)
        best, best_score = None, 0.0
        for seg in usable:
            score = sum(1.0 / spread[stem] for stem in wanted & _stems(seg.text))
            if score > best_score:
                best, best_score = seg.index, score
        out.append(Item(text=entry, evidence=[best] if best is not None else []))
    return out


EXTRACT_TASKS = Operation(
    "notes.extract_tasks",
    "Find action items (owner, due date, evidence), decisions, open questions and topics in a transcript "
    "(English, Polish, Russian), using only the words of consenting, identified speakers.",
    ExtractTasksInputs,
    ExtractTasksOutputs,
    "none",
    "repeatable",
    extract_tasks,
    timeout_s=30,
)
