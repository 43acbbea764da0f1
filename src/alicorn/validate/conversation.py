"""Validate a conversation artifact (notes, tasks, a draft reply) against its acceptance criteria.

The seed asks a conversation result for transcription quality, speaker identification, consents and a task list.
Every figure is recomputed from the artifact's own segments and participants, not taken from what the run
reported. Checks (error severity unless noted):

    transcription_quality  mean ASR confidence >= min_confidence, share of segments below it <= the maximum, and
                           the reported quality agrees with the segments
    speakers               no word of an unidentified voice is used: its segments are redacted and cited nowhere;
                           unidentified voices speak no more than max_unknown_share of the segments
    consents               every speaker whose words are used consented to recording and processing; segments of
                           those who did not are redacted and cited nowhere; exclusions are declared and named in
                           the note; the draft addresses only consenting participants
    tasks                  at least one task (when required), each with text, an owner who is an identified
                           participant, and evidence that points at usable segments
    note                   present, and cites the evidence of every task and decision
    draft                  present, addressed to participants, and sent exactly when the criteria say send
    evidence_confidence    (warning) no task or decision rests only on low-confidence segments

A malformed artifact or malformed criteria give `failed` with the reason; nothing here raises.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from alicorn.i18n import N_
from alicorn.validate.base import (
    JOINED,
    ArtifactType,
    CheckResult,
    Severity,
    ValidationReport,
    check,
    parse_artifact,
    phrase,
    problems_check,
)

Phrase = dict[str, Any]

KIND: ArtifactType = "conversation"


class _Open(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class Criteria(_Open):
    min_confidence: float = Field(0.8, ge=0, le=1)
    max_low_confidence_share: float = Field(0.25, ge=0, le=1)
    max_unknown_share: float = Field(0.2, ge=0, le=1)
    require_consent: bool = True
    require_tasks: bool = True
    send: bool = False


class ASegment(_Open):
    index: int = Field(ge=0)
    speaker: str
    confidence: float | None = Field(None, ge=0, le=1)  # None: the transcript reports none
    redacted: bool


class AParticipant(_Open):
    id: str
    name: str
    email: str | None = None
    recording: bool
    processing: bool


class AQuality(_Open):
    mean_confidence: float | None
    low_confidence_share: float


class AExcluded(_Open):
    speaker: str
    name: str | None = None


class ATask(_Open):
    id: str = ""
    text: str = ""
    owner: str | None = None
    evidence: list[int] = Field(default_factory=list)


class AItem(_Open):
    text: str = ""
    evidence: list[int] = Field(default_factory=list)


class ANote(_Open):
    text: str = ""


class ADraft(_Open):
    to: list[str] = Field(default_factory=list)
    subject: str = ""
    body: str = ""
    status: str = "draft"


class ASent(_Open):
    to: list[str] = Field(default_factory=list)
    message_id: str = ""


class ConversationArtifact(_Open):
    participants: list[AParticipant]
    segments: list[ASegment] = Field(min_length=1)
    quality: AQuality
    excluded: list[AExcluded] = Field(default_factory=list)
    tasks: list[ATask] = Field(default_factory=list)
    decisions: list[AItem] = Field(default_factory=list)
    open_questions: list[AItem] = Field(default_factory=list)
    note: ANote | None = None
    draft: ADraft | None = None
    sent: ASent | None = None


def _cited(art: ConversationArtifact) -> dict[int, list[str]]:
    """Segment index -> the items that cite it (tasks by id, decisions and questions by kind and position)."""
    out: dict[int, list[str]] = {}
    for task in art.tasks:
        for i in task.evidence:
            out.setdefault(i, []).append(task.id or "a task")
    for label, items in (("decision", art.decisions), ("open question", art.open_questions)):
        for n, item in enumerate(items, start=1):
            for i in item.evidence:
                out.setdefault(i, []).append(f"{label} {n}")
    return out


def _list(values: list[str] | set[str], limit: int = 5) -> Any:
    """The first `limit` values, comma-separated, and how many more (a phrase then: "and 3 more" is words)."""
    shown = ", ".join(sorted(values)[:limit])
    if len(values) > limit:
        return phrase(N_("{shown} and {more} more"), shown=shown, more=len(values) - limit)
    return shown


def _result(name: str, problems: list[Phrase], ok: Phrase, severity: Severity = "error") -> CheckResult:
    if problems:
        return problems_check(name, problems, severity)
    return check(name, True, ok["message"], severity, **ok["values"])


def _quality(art: ConversationArtifact, c: Criteria) -> CheckResult:
    segs = art.segments
    reported = [s.confidence for s in segs if s.confidence is not None]
    if not reported:  # captions and typed minutes carry no ASR confidence: nothing says how good the words are
        problems = [
            phrase(
                N_(
                    "the transcript reports no ASR confidence for its {segments} segments, so its transcription "
                    "quality was not measured"
                ),
                segments=len(segs),
            )
        ]
        if art.quality.mean_confidence is not None:
            problems.append(
                phrase(
                    N_("the reported mean ASR confidence {reported_mean:.3f} comes from no segment"),
                    reported_mean=art.quality.mean_confidence,
                )
            )
        return _result("transcription_quality", problems, phrase(""))
    mean = sum(reported) / len(reported)
    low = [s.index for s in segs if s.confidence is not None and s.confidence < c.min_confidence]
    share = len(low) / len(segs)
    problems = []
    if mean < c.min_confidence:
        problems.append(
            phrase(N_("mean ASR confidence {mean:.2f} is below {minimum:.2f}"), mean=mean, minimum=c.min_confidence)
        )
    if share > c.max_low_confidence_share:
        problems.append(
            phrase(
                N_("{share:.0%} of segments are below {minimum:.2f} (at most {most:.0%})"),
                share=share,
                minimum=c.min_confidence,
                most=c.max_low_confidence_share,
            )
        )
    reported_mean = art.quality.mean_confidence
    if (
        reported_mean is None
        or abs(reported_mean - mean) > 0.005
        or abs(art.quality.low_confidence_share - share) > 0.005
    ):
        problems.append(
            phrase(
                N_(
                    "the reported quality (mean {reported_mean:.3f}, low share {reported_share:.3f}) does not match "
                    "the segments (mean {mean:.3f}, low share {share:.3f})"
                ),
                reported_mean=reported_mean if reported_mean is not None else float("nan"),
                reported_share=art.quality.low_confidence_share,
                mean=mean,
                share=share,
            )
        )
    ok = phrase(
        N_("mean ASR confidence {mean:.2f} over {segments} segments; {low} below {minimum:.2f} ({share:.0%})"),
        mean=mean,
        segments=len(segs),
        low=len(low),
        minimum=c.min_confidence,
        share=share,
    )
    return _result("transcription_quality", problems, ok)


def _speakers(art: ConversationArtifact, c: Criteria, cited: dict[int, list[str]]) -> CheckResult:
    known = {p.id for p in art.participants}
    unknown = [s for s in art.segments if s.speaker not in known]
    voices = {s.speaker for s in unknown}
    problems = []
    used = sorted({s.speaker for s in unknown if not s.redacted})
    if used:
        problems.append(phrase(N_("words of unidentified voices are used: {voices}"), voices=_list(used)))
    wrongly = sorted({f"#{s.index} ({', '.join(cited[s.index])})" for s in unknown if s.index in cited})
    if wrongly:
        problems.append(phrase(N_("items cite segments of unidentified voices: {segments}"), segments=_list(wrongly)))
    undeclared = voices - {e.speaker for e in art.excluded}
    if undeclared:
        problems.append(
            phrase(N_("unidentified voices are not declared as left out: {voices}"), voices=_list(undeclared))
        )
    share = len(unknown) / len(art.segments)
    if share > c.max_unknown_share:
        problems.append(
            phrase(
                N_("{share:.0%} of segments come from unidentified voices (at most {most:.0%})"),
                share=share,
                most=c.max_unknown_share,
            )
        )
    voiced = (
        phrase(
            N_("unidentified voices {voices} left out ({segments} segments)"),
            voices=_list(voices),
            segments=len(unknown),
        )
        if voices
        else phrase(N_("no unidentified voices"))
    )
    ok = phrase(N_("{known} identified participants; {voices}"), known=len(known), voices=voiced)
    return _result("speakers", problems, ok)


def _consents(art: ConversationArtifact, c: Criteria, cited: dict[int, list[str]]) -> CheckResult:
    people = {p.id: p for p in art.participants}
    refused = {p.id for p in art.participants if not (p.recording and p.processing)}
    spoke = {s.speaker for s in art.segments} & refused
    problems = []
    used = sorted({s.speaker for s in art.segments if s.speaker in refused and not s.redacted})
    if used:
        problems.append(phrase(N_("words of participants without consent are used: {people}"), people=_list(used)))
    wrongly = sorted({f"#{s.index}" for s in art.segments if s.speaker in refused and s.index in cited})
    if wrongly:
        problems.append(
            phrase(N_("items cite segments of participants without consent: {segments}"), segments=_list(wrongly))
        )
    declared = {e.speaker for e in art.excluded}
    undeclared = spoke - declared
    if undeclared:
        problems.append(
            phrase(N_("the exclusion of {people} is not declared in the artifact"), people=_list(undeclared))
        )
    note = art.note.text if art.note is not None else ""
    unnamed = sorted(people[i].name for i in spoke if people[i].name not in note)
    if unnamed and art.note is not None:
        problems.append(
            phrase(N_("the note does not say that the words of {people} were left out"), people=_list(unnamed))
        )
    emails = {p.email: p.id for p in art.participants if p.email}
    addressed = sorted(emails[a] for a in (art.draft.to if art.draft else []) if emails.get(a) in refused)
    if addressed:
        problems.append(
            phrase(N_("the draft is addressed to participants without consent: {people}"), people=_list(addressed))
        )
    left_out = (
        phrase(N_("words of {people} left out"), people=_list([people[i].name for i in refused]))
        if refused
        else phrase(N_("nobody was left out"))
    )
    ok = phrase(
        N_("{consented} of {total} participants consented; {left_out}"),
        consented=len(people) - len(refused),
        total=len(people),
        left_out=left_out,
    )
    return _result("consents", problems, ok, "error" if c.require_consent else "warning")


def _tasks(art: ConversationArtifact, c: Criteria) -> CheckResult:
    known = {p.id for p in art.participants if (p.recording and p.processing) or not c.require_consent}
    usable = {s.index for s in art.segments if not s.redacted}
    problems = []
    if c.require_tasks and not art.tasks:
        problems.append(phrase(N_("no task was found, and the criteria require a task list")))
    untexted = [t.id for t in art.tasks if not t.text.strip()]
    unowned = [t.id for t in art.tasks if t.owner is None]
    strangers = [f"{t.id} ({t.owner})" for t in art.tasks if t.owner is not None and t.owner not in known]
    unproven = [t.id for t in art.tasks if not t.evidence or any(i not in usable for i in t.evidence)]
    stranger = (
        N_("tasks owned by someone who is not a consenting participant: {tasks}")
        if c.require_consent
        else N_("tasks owned by someone who is not a participant: {tasks}")
    )
    for message, ids in (
        (N_("tasks without text: {tasks}"), untexted),
        (N_("tasks without an owner: {tasks}"), unowned),
        (stranger, strangers),
        (N_("tasks without evidence in usable segments: {tasks}"), unproven),
    ):
        if ids:
            problems.append(phrase(message, tasks=_list(ids)))
    ok = phrase(N_("{tasks} tasks, each with text, owner and evidence"), tasks=len(art.tasks))
    return _result("tasks", problems, ok)


def _note(art: ConversationArtifact) -> CheckResult:
    if art.note is None or not art.note.text.strip():
        return check("note", False, N_("no note was written"))
    cited = {int(n) for n in re.findall(r"#(\d+)", art.note.text)}
    evidence = [i for t in art.tasks for i in t.evidence] + [i for d in art.decisions for i in d.evidence]
    missing = sorted({f"#{i}" for i in evidence if i not in cited})
    if missing:
        return check("note", False, N_("the note does not cite segments {segments}"), segments=_list(missing))
    return check("note", True, N_("note of {lines} lines cites every item"), lines=len(art.note.text.splitlines()))


def _draft(art: ConversationArtifact, c: Criteria) -> CheckResult:
    if art.draft is None:
        return check("draft", False, N_("no draft reply was written"))
    d = art.draft
    emails = {p.email for p in art.participants if p.email}
    problems = []
    if not d.to:
        problems.append(phrase(N_("the draft has no recipient")))
    strangers = [a for a in d.to if a not in emails]
    if strangers:
        problems.append(phrase(N_("the draft is addressed to non-participants: {people}"), people=_list(strangers)))
    if not d.subject.strip() or not d.body.strip():
        problems.append(phrase(N_("the draft has no subject or no body")))
    if c.send and art.sent is None:
        problems.append(phrase(N_("the reply was to be sent but was not (no send step ran)")))
    if not c.send and (art.sent is not None or d.status != "draft"):
        problems.append(phrase(N_("the reply was sent although the request said not to send anything")))
    if art.sent is not None and sorted(art.sent.to) != sorted(d.to):
        problems.append(phrase(N_("the sent message's recipients differ from the draft's")))
    ok = (
        phrase(N_("draft to {people} participants, sent"), people=len(d.to))
        if art.sent is not None
        else phrase(N_("draft to {people} participants, not sent"), people=len(d.to))
    )
    return _result("draft", problems, ok)


def _evidence_confidence(art: ConversationArtifact, c: Criteria) -> CheckResult:
    low = {s.index for s in art.segments if s.confidence is not None and s.confidence < c.min_confidence}
    weak = [t.id for t in art.tasks if t.evidence and set(t.evidence) <= low]
    weak += [f"decision {n}" for n, d in enumerate(art.decisions, start=1) if d.evidence and set(d.evidence) <= low]
    shaky = [t.id for t in art.tasks if set(t.evidence) & low and t.id not in weak]
    parts = [
        phrase(N_("resting only on low-confidence segments: {items}"), items=_list(weak))
        if weak
        else phrase(N_("no item rests only on low-confidence segments"))
    ]
    if shaky:
        parts.append(phrase(N_("partly on low-confidence segments: {items}"), items=_list(shaky)))
    return check("evidence_confidence", not weak, JOINED, "warning", problems=parts)


def validate_conversation(artifact: Mapping[str, Any] | None, criteria: Mapping[str, Any]) -> ValidationReport:
    """Check a conversation artifact against `criteria` (see the module docstring); never raises."""
    try:
        c = Criteria.model_validate(dict(criteria or {}))
    except (ValidationError, TypeError, ValueError) as exc:
        return ValidationReport.unreadable_because(
            KIND, N_("the criteria are malformed: {error}"), error=str(exc).splitlines()[0]
        )
    parsed = parse_artifact(ConversationArtifact, artifact, KIND)
    if isinstance(parsed, ValidationReport):
        return parsed
    cited = _cited(parsed)
    return ValidationReport.of(
        KIND,
        (
            _quality(parsed, c),
            _speakers(parsed, c, cited),
            _consents(parsed, c, cited),
            _tasks(parsed, c),
            _note(parsed),
            _draft(parsed, c),
            _evidence_confidence(parsed, c),
        ),
    )
