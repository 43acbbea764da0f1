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

from alicorn.validate.base import ArtifactType, CheckResult, ValidationReport, parse_artifact

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
    confidence: float = Field(ge=0, le=1)
    redacted: bool


class AParticipant(_Open):
    id: str
    name: str
    email: str | None = None
    recording: bool
    processing: bool


class AQuality(_Open):
    mean_confidence: float
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


def _list(values: list[str] | set[str], limit: int = 5) -> str:
    shown = sorted(values)[:limit]
    return ", ".join(shown) + (f" and {len(values) - limit} more" if len(values) > limit else "")


def _quality(art: ConversationArtifact, c: Criteria) -> CheckResult:
    segs = art.segments
    mean = sum(s.confidence for s in segs) / len(segs)
    low = [s.index for s in segs if s.confidence < c.min_confidence]
    share = len(low) / len(segs)
    problems = []
    if mean < c.min_confidence:
        problems.append(f"mean ASR confidence {mean:.2f} is below {c.min_confidence:.2f}")
    if share > c.max_low_confidence_share:
        problems.append(
            f"{share:.0%} of segments are below {c.min_confidence:.2f} (at most {c.max_low_confidence_share:.0%})"
        )
    if abs(art.quality.mean_confidence - mean) > 0.005 or abs(art.quality.low_confidence_share - share) > 0.005:
        problems.append(
            f"the reported quality (mean {art.quality.mean_confidence:.3f}, low share "
            f"{art.quality.low_confidence_share:.3f}) does not match the segments "
            f"(mean {mean:.3f}, low share {share:.3f})"
        )
    detail = "; ".join(problems) or (
        f"mean ASR confidence {mean:.2f} over {len(segs)} segments; "
        f"{len(low)} below {c.min_confidence:.2f} ({share:.0%})"
    )
    return CheckResult(name="transcription_quality", passed=not problems, detail=detail)


def _speakers(art: ConversationArtifact, c: Criteria, cited: dict[int, list[str]]) -> CheckResult:
    known = {p.id for p in art.participants}
    unknown = [s for s in art.segments if s.speaker not in known]
    voices = {s.speaker for s in unknown}
    problems = []
    used = sorted({s.speaker for s in unknown if not s.redacted})
    if used:
        problems.append(f"words of unidentified voices are used: {_list(used)}")
    wrongly = sorted({f"#{s.index} ({', '.join(cited[s.index])})" for s in unknown if s.index in cited})
    if wrongly:
        problems.append(f"items cite segments of unidentified voices: {_list(wrongly)}")
    undeclared = voices - {e.speaker for e in art.excluded}
    if undeclared:
        problems.append(f"unidentified voices are not declared as left out: {_list(undeclared)}")
    share = len(unknown) / len(art.segments)
    if share > c.max_unknown_share:
        problems.append(f"{share:.0%} of segments come from unidentified voices (at most {c.max_unknown_share:.0%})")
    detail = "; ".join(problems) or (
        f"{len(known)} identified participants; "
        + (
            f"unidentified voices {_list(voices)} left out ({len(unknown)} segments)"
            if voices
            else "no unidentified voices"
        )
    )
    return CheckResult(name="speakers", passed=not problems, detail=detail)


def _consents(art: ConversationArtifact, c: Criteria, cited: dict[int, list[str]]) -> CheckResult:
    people = {p.id: p for p in art.participants}
    refused = {p.id for p in art.participants if not (p.recording and p.processing)}
    spoke = {s.speaker for s in art.segments} & refused
    problems = []
    used = sorted({s.speaker for s in art.segments if s.speaker in refused and not s.redacted})
    if used:
        problems.append(f"words of participants without consent are used: {_list(used)}")
    wrongly = sorted({f"#{s.index}" for s in art.segments if s.speaker in refused and s.index in cited})
    if wrongly:
        problems.append(f"items cite segments of participants without consent: {_list(wrongly)}")
    declared = {e.speaker for e in art.excluded}
    undeclared = spoke - declared
    if undeclared:
        problems.append(f"the exclusion of {_list(undeclared)} is not declared in the artifact")
    note = art.note.text if art.note is not None else ""
    unnamed = sorted(people[i].name for i in spoke if people[i].name not in note)
    if unnamed and art.note is not None:
        problems.append(f"the note does not say that the words of {_list(unnamed)} were left out")
    emails = {p.email: p.id for p in art.participants if p.email}
    addressed = sorted(emails[a] for a in (art.draft.to if art.draft else []) if emails.get(a) in refused)
    if addressed:
        problems.append(f"the draft is addressed to participants without consent: {_list(addressed)}")
    detail = "; ".join(problems) or (
        f"{len(people) - len(refused)} of {len(people)} participants consented; "
        + (f"words of {_list([people[i].name for i in refused])} left out" if refused else "nobody was left out")
    )
    return CheckResult(
        name="consents", passed=not problems, detail=detail, severity="error" if c.require_consent else "warning"
    )


def _tasks(art: ConversationArtifact, c: Criteria) -> CheckResult:
    known = {p.id for p in art.participants if (p.recording and p.processing) or not c.require_consent}
    usable = {s.index for s in art.segments if not s.redacted}
    problems = []
    if c.require_tasks and not art.tasks:
        problems.append("no task was found, and the criteria require a task list")
    untexted = [t.id for t in art.tasks if not t.text.strip()]
    unowned = [t.id for t in art.tasks if t.owner is None]
    strangers = [f"{t.id} ({t.owner})" for t in art.tasks if t.owner is not None and t.owner not in known]
    unproven = [t.id for t in art.tasks if not t.evidence or any(i not in usable for i in t.evidence)]
    for label, ids in (
        ("without text", untexted),
        ("without an owner", unowned),
        ("owned by someone who is not a " + ("consenting " if c.require_consent else "") + "participant", strangers),
        ("without evidence in usable segments", unproven),
    ):
        if ids:
            problems.append(f"tasks {label}: {_list(ids)}")
    detail = "; ".join(problems) or f"{len(art.tasks)} tasks, each with text, owner and evidence"
    return CheckResult(name="tasks", passed=not problems, detail=detail)


def _note(art: ConversationArtifact) -> CheckResult:
    if art.note is None or not art.note.text.strip():
        return CheckResult(name="note", passed=False, detail="no note was written")
    cited = {int(n) for n in re.findall(r"#(\d+)", art.note.text)}
    evidence = [i for t in art.tasks for i in t.evidence] + [i for d in art.decisions for i in d.evidence]
    missing = sorted({f"#{i}" for i in evidence if i not in cited})
    if missing:
        return CheckResult(name="note", passed=False, detail=f"the note does not cite segments {_list(missing)}")
    return CheckResult(
        name="note", passed=True, detail=f"note of {len(art.note.text.splitlines())} lines cites every item"
    )


def _draft(art: ConversationArtifact, c: Criteria) -> CheckResult:
    if art.draft is None:
        return CheckResult(name="draft", passed=False, detail="no draft reply was written")
    d = art.draft
    emails = {p.email for p in art.participants if p.email}
    problems = []
    if not d.to:
        problems.append("the draft has no recipient")
    strangers = [a for a in d.to if a not in emails]
    if strangers:
        problems.append(f"the draft is addressed to non-participants: {_list(strangers)}")
    if not d.subject.strip() or not d.body.strip():
        problems.append("the draft has no subject or no body")
    if c.send and art.sent is None:
        problems.append("the reply was to be sent but was not (no send step ran)")
    if not c.send and (art.sent is not None or d.status != "draft"):
        problems.append("the reply was sent although the request said not to send anything")
    if art.sent is not None and sorted(art.sent.to) != sorted(d.to):
        problems.append("the sent message's recipients differ from the draft's")
    state = "sent" if art.sent is not None else "not sent"
    detail = "; ".join(problems) or f"draft to {len(d.to)} participants, {state}"
    return CheckResult(name="draft", passed=not problems, detail=detail)


def _evidence_confidence(art: ConversationArtifact, c: Criteria) -> CheckResult:
    low = {s.index for s in art.segments if s.confidence < c.min_confidence}
    weak = [t.id for t in art.tasks if t.evidence and set(t.evidence) <= low]
    weak += [f"decision {n}" for n, d in enumerate(art.decisions, start=1) if d.evidence and set(d.evidence) <= low]
    shaky = [t.id for t in art.tasks if set(t.evidence) & low and t.id not in weak]
    detail = (
        f"resting only on low-confidence segments: {_list(weak)}"
        if weak
        else "no item rests only on low-confidence segments"
    )
    if shaky:
        detail += f"; partly on low-confidence segments: {_list(shaky)}"
    return CheckResult(name="evidence_confidence", passed=not weak, detail=detail, severity="warning")


def validate_conversation(artifact: Mapping[str, Any] | None, criteria: Mapping[str, Any]) -> ValidationReport:
    """Check a conversation artifact against `criteria` (see the module docstring); never raises."""
    try:
        c = Criteria.model_validate(dict(criteria or {}))
    except (ValidationError, TypeError, ValueError) as exc:
        return ValidationReport.unreadable(KIND, f"the criteria are malformed: {str(exc).splitlines()[0]}")
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
