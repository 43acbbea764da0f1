"""`notes.write_note` and `notes.draft_reply`: the meeting note and a reply email, as text, in the meeting's language.

Both are pure renderings of the extracted items (effect none): the note cites the segment indices of every item
(`[#4, #10]`), marks evidence of low ASR confidence, and says whose words were left out and why; the draft
summarises decisions, tasks and open questions for the participants who consented to processing. A draft is only a
draft: sending is `notes.send_reply`, a separate effect. Quoted items stay in the words they were said in; only the
frame (headings, greeting) follows the chosen language.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import Field

from alicorn.ops._common import Model
from alicorn.ops.registry import Operation, OperationContext
from alicorn.packs.notes.model import (
    MAX_ITEMS,
    MAX_PARTICIPANTS,
    Email,
    Excluded,
    IsoDate,
    Item,
    Language,
    Participant,
    Quality,
    Task,
)

ReplyLanguage = Literal["same", "en", "pl", "ru"]

_LABELS: dict[str, dict[str, str]] = {
    "en": {
        "participants": "Participants",
        "topics": "Topics",
        "decisions": "Decisions",
        "tasks": "Tasks",
        "questions": "Open questions",
        "quality": "Transcript quality",
        "privacy": "Left out",
        "owner_none": "no owner named",
        "due": "due",
        "none": "none",
        "not_discussed": "not discussed",
        "low": "low ASR confidence",
        "mean": "mean ASR confidence",
        "unreported": "not reported by the transcript",
        "low_segments": "low-confidence segments",
        "unknown": "unidentified voices",
        "words_left_out": "words left out of this note and of the draft",
        "unidentified": "unidentified speaker",
        "no recording consent": "no consent to recording",
        "no processing consent": "no consent to processing",
        "unidentified speaker": "speaker not identified, no consent on record",
        "subject": "Summary and next steps",
        "hello": "Hello everyone,",
        "thanks": "thank you for the meeting on {date}. Here is a summary of what we agreed.",
        "bye": "Best regards",
        "draft": "DRAFT - not sent",
    },
    "pl": {
        "participants": "Uczestnicy",
        "topics": "Tematy",
        "decisions": "Decyzje",
        "tasks": "Zadania",
        "questions": "Otwarte kwestie",
        "quality": "Jakość transkrypcji",
        "privacy": "Pominięte",
        "owner_none": "brak osoby odpowiedzialnej",
        "due": "termin",
        "none": "brak",
        "not_discussed": "nie omawiano",
        "low": "niska pewność rozpoznania mowy",
        "mean": "średnia pewność rozpoznania mowy",
        "unreported": "transkrypcja jej nie podaje",
        "low_segments": "fragmenty o niskiej pewności",
        "unknown": "niezidentyfikowane głosy",
        "words_left_out": "wypowiedzi pominięte w notatce i w projekcie odpowiedzi",
        "unidentified": "niezidentyfikowany rozmówca",
        "no recording consent": "brak zgody na nagrywanie",
        "no processing consent": "brak zgody na przetwarzanie",
        "unidentified speaker": "rozmówca niezidentyfikowany, brak zgody",
        "subject": "Podsumowanie i dalsze kroki",
        "hello": "Dzień dobry,",
        "thanks": "dziękuję za spotkanie {date}. Poniżej podsumowanie ustaleń.",
        "bye": "Pozdrawiam",
        "draft": "PROJEKT - nie wysłano",
    },
    "ru": {
        "participants": "Участники",
        "topics": "Темы",
        "decisions": "Решения",
        "tasks": "Задачи",
        "questions": "Открытые вопросы",
        "quality": "Качество расшифровки",
        "privacy": "Исключено",
        "owner_none": "ответственный не назначен",
        "due": "срок",
        "none": "нет",
        "not_discussed": "не обсуждалось",
        "low": "низкая уверенность распознавания",
        "mean": "средняя уверенность распознавания",
        "unreported": "в расшифровке не указана",
        "low_segments": "фрагменты с низкой уверенностью",
        "unknown": "неопознанные голоса",
        "words_left_out": "высказывания исключены из заметки и черновика",
        "unidentified": "неопознанный участник",
        "no recording consent": "нет согласия на запись",
        "no processing consent": "нет согласия на обработку",
        "unidentified speaker": "участник не опознан, согласия нет",
        "subject": "Итоги и следующие шаги",
        "hello": "Добрый день, коллеги!",
        "thanks": "Спасибо за встречу {date}. Ниже итоги и договорённости.",
        "bye": "С уважением",
        "draft": "ЧЕРНОВИК - не отправлено",
    },
}


def cite(indices: list[int]) -> str:
    """The citation of segments: `[#4, #10]` (empty when there is no evidence)."""
    return "[" + ", ".join(f"#{i}" for i in indices) + "]" if indices else ""


def _task_line(task: Task, label: dict[str, str], low: set[int]) -> str:
    owner = task.owner_name or task.owner or label["owner_none"]
    due = f"; {label['due']} {task.due}" if task.due else ""
    flag = f" ({label['low']})" if low & set(task.evidence) else ""
    return f"{task.id}. {owner}: {task.text}{due} {cite(task.evidence)}{flag}"


def _item_line(item: Item, label: dict[str, str], low: set[int]) -> str:
    flag = f" ({label['low']})" if low & set(item.evidence) else ""
    return f"- {item.text} {cite(item.evidence)}{flag}".rstrip()


class WriteNoteInputs(Model):
    file: str = Field(min_length=1, max_length=300)
    title: str = Field(min_length=1, max_length=200)
    date: IsoDate
    language: Language
    participants: list[Participant] = Field(max_length=MAX_PARTICIPANTS)
    quality: Quality
    excluded: list[Excluded] = Field(max_length=MAX_PARTICIPANTS)
    tasks: list[Task] = Field(max_length=MAX_ITEMS)
    decisions: list[Item] = Field(max_length=MAX_ITEMS)
    open_questions: list[Item] = Field(max_length=MAX_ITEMS)
    topics: list[Item] = Field(default_factory=list, max_length=50)


class WriteNoteOutputs(Model):
    text: str
    lines: int = Field(ge=0)
    citations: list[int] = Field(max_length=5000, description="every segment index the note cites, sorted")
    left_out: list[str] = Field(max_length=MAX_PARTICIPANTS, description="speakers whose words were left out")


def write_note(inputs: WriteNoteInputs, ctx: OperationContext) -> WriteNoteOutputs:
    """The meeting note (Markdown): participants, topics, decisions, tasks, open questions, quality, exclusions."""
    label = _LABELS[inputs.language]
    q = inputs.quality
    low = set(q.low_confidence_segments)
    left = {e.speaker: e for e in inputs.excluded}
    out = [f"# {inputs.title} ({inputs.date})", "", f"{inputs.file}", "", f"## {label['participants']}"]
    for person in inputs.participants:
        mark = f" - {label[left[person.id].reason]}" if person.id in left else ""
        out.append(f"- {person.name}{mark}")
    for voice in (e for e in inputs.excluded if e.speaker not in {p.id for p in inputs.participants}):
        out.append(f"- {label['unidentified']} {voice.speaker} {cite(voice.segments)}")
    out += ["", f"## {label['topics']}"]
    out += [
        _item_line(t, label, low) if t.evidence else f"- {t.text} ({label['not_discussed']})" for t in inputs.topics
    ]
    out += ["", f"## {label['decisions']}"]
    out += [_item_line(d, label, low) for d in inputs.decisions] or [f"- {label['none']}"]
    out += ["", f"## {label['tasks']}"]
    out += [_task_line(t, label, low) for t in inputs.tasks] or [f"- {label['none']}"]
    out += ["", f"## {label['questions']}"]
    out += [_item_line(o, label, low) for o in inputs.open_questions] or [f"- {label['none']}"]
    out += [
        "",
        f"## {label['quality']}",
        f"- {label['mean']}: {_mean(q.mean_confidence, label)} ({q.segments})",
        f"- {label['low_segments']}: {len(q.low_confidence_segments)} {cite(q.low_confidence_segments)}".rstrip(),
        f"- {label['unknown']}: {', '.join(q.unknown_speakers) or label['none']}",
    ]
    left_out = []
    if inputs.excluded:
        out += ["", f"## {label['privacy']}"]
        for entry in inputs.excluded:
            who = entry.name or f"{label['unidentified']} {entry.speaker}"
            left_out.append(who)
            out.append(f"- {who}: {label[entry.reason]}; {label['words_left_out']} {cite(entry.segments)}")
    cited = sorted(
        {i for t in inputs.tasks for i in t.evidence}
        | {i for item in (*inputs.decisions, *inputs.open_questions, *inputs.topics) for i in item.evidence}
    )
    text = "\n".join(out) + "\n"
    return WriteNoteOutputs(text=text, lines=text.count("\n"), citations=cited, left_out=left_out)


class DraftReplyInputs(Model):
    title: str = Field(min_length=1, max_length=200)
    date: IsoDate
    language: ReplyLanguage = Field("same", description="'same' writes in the conversation's language")
    conversation_language: Language
    participants: list[Participant] = Field(max_length=MAX_PARTICIPANTS)
    tasks: list[Task] = Field(max_length=MAX_ITEMS)
    decisions: list[Item] = Field(max_length=MAX_ITEMS)
    open_questions: list[Item] = Field(max_length=MAX_ITEMS)


class DraftReplyOutputs(Model):
    to: list[Email] = Field(max_length=MAX_PARTICIPANTS)
    not_addressed: list[str] = Field(max_length=MAX_PARTICIPANTS, description="participant ids left off, and why")
    subject: str
    body: str
    text: str = Field(description="the draft as a plain-text email: headers, a blank line, the body")
    language: Language
    status: Literal["draft"] = "draft"


def draft_reply(inputs: DraftReplyInputs, ctx: OperationContext) -> DraftReplyOutputs:
    """A reply email to the participants who consented to processing; never sent by this operation."""
    language: Language = inputs.conversation_language if inputs.language == "same" else inputs.language
    label = _LABELS[language]
    to: list[str] = []
    not_addressed: list[str] = []
    for person in inputs.participants:
        if not (person.processing and person.recording):
            not_addressed.append(f"{person.id}: no consent")
        elif person.email is None:
            not_addressed.append(f"{person.id}: no email address")
        elif person.email not in to:
            to.append(person.email)
    subject = f"{label['subject']}: {inputs.title} ({inputs.date})"
    body = [label["hello"], "", label["thanks"].format(date=inputs.date), "", f"{label['decisions']}:"]
    body += [f"- {d.text}" for d in inputs.decisions] or [f"- {label['none']}"]
    body += ["", f"{label['tasks']}:"]
    for task in inputs.tasks:
        owner = task.owner_name or label["owner_none"]
        due = f" ({label['due']} {task.due})" if task.due else ""
        body.append(f"- {owner}: {task.text}{due}")
    if not inputs.tasks:
        body.append(f"- {label['none']}")
    if inputs.open_questions:
        body += ["", f"{label['questions']}:"] + [f"- {o.text}" for o in inputs.open_questions]
    body += ["", label["bye"]]
    body_text = "\n".join(body) + "\n"
    headers = [f"X-Status: {label['draft']}", f"To: {', '.join(to)}", f"Subject: {subject}"]
    return DraftReplyOutputs(
        to=to,
        not_addressed=not_addressed,
        subject=subject,
        body=body_text,
        text="\n".join(headers) + "\n\n" + body_text,
        language=language,
    )


WRITE_NOTE = Operation(
    "notes.write_note",
    "Render the meeting note: participants, topics, decisions, tasks and open questions, each citing its segments, "
    "with the transcript's quality and whose words were left out.",
    WriteNoteInputs,
    WriteNoteOutputs,
    "none",
    "repeatable",
    write_note,
    timeout_s=30,
)

DRAFT_REPLY = Operation(
    "notes.draft_reply",
    "Draft (not send) a reply email to the consenting participants summarising decisions, tasks and open questions.",
    DraftReplyInputs,
    DraftReplyOutputs,
    "none",
    "repeatable",
    draft_reply,
    timeout_s=30,
)


def _mean(value: float | None, label: Mapping[str, str]) -> str:
    """The mean ASR confidence as the note prints it; a transcript reporting none (captions, minutes) says so."""
    return f"{value:.2f}" if value is not None else label["unreported"]
