"""`notes.read_transcript`: read one recorded conversation under the data root, check it, and keep private words out.

The conversation is named by file (`2026-11-27-planning.json`, or without `.json`), by date (`2026-11-27`, when one
file has it), or `latest`: the newest by the date its file name starts with. The file is validated against
`TranscriptFile`; every problem is an OperationError naming the file and the field. Privacy is applied here, at
the first step, so no later step (nor the journal of their outputs) ever holds the words of a speaker who did not
consent to recording and processing, or of a voice diarization could not attribute to a participant: such segments
keep their timing and confidence but lose their text, and `excluded` says whose words were left out and why.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError

from alicorn.errors import OperationError
from alicorn.ops._common import Model
from alicorn.ops.paths import read_path
from alicorn.ops.registry import Operation, OperationContext
from alicorn.packs.notes.model import (
    MAX_PARTICIPANTS,
    MAX_SEGMENTS,
    Excluded,
    ExclusionReason,
    IsoDate,
    Language,
    Participant,
    Quality,
    Segment,
    TranscriptFile,
)

MAX_TRANSCRIPT_BYTES = 4 * 1024 * 1024
_DATED = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:[-_].*)?\.json$")


class ReadTranscriptInputs(Model):
    conversation: str = Field(
        "latest",
        min_length=1,
        max_length=300,
        description="'latest', a file name under the data root (.json optional), or a date YYYY-MM-DD",
    )
    min_confidence: float = Field(0.8, ge=0, le=1, description="segments below this ASR confidence are flagged")


class ReadTranscriptOutputs(Model):
    file: str
    title: str
    date: IsoDate
    language: Language
    agenda: list[str] = Field(max_length=50)
    participants: list[Participant] = Field(max_length=MAX_PARTICIPANTS)
    segments: list[Segment] = Field(max_length=MAX_SEGMENTS)
    quality: Quality
    excluded: list[Excluded] = Field(max_length=MAX_PARTICIPANTS)


def _dated_files(root: Path) -> list[tuple[str, str]]:
    """(date, name) of every transcript directly under the data root whose name starts with a date."""
    try:
        names = sorted(p.name for p in root.iterdir() if p.is_file())
    except OSError as exc:
        raise OperationError(f"cannot list the data root {str(root)!r}: {exc.strerror or exc}") from None
    return [(m.group(1), name) for name in names if (m := _DATED.match(name))]


def resolve_conversation(root: Path, conversation: str) -> str:
    """The file name (relative to `root`) that `conversation` names; OperationError listing what exists if none."""
    wanted = conversation.strip()
    if wanted.lower() == "latest" or re.fullmatch(r"\d{4}-\d{2}-\d{2}", wanted):
        files = _dated_files(root)
        if wanted.lower() != "latest":
            files = [(d, n) for d, n in files if d == wanted]
        if len(files) > 1 and wanted.lower() != "latest":
            raise OperationError(
                f"{len(files)} conversations are dated {wanted} ({', '.join(n for _, n in files)}); name the file"
            )
        if not files:
            known = ", ".join(n for _, n in _dated_files(root)) or "none"
            raise OperationError(
                f"no conversation {'at all' if wanted.lower() == 'latest' else 'dated ' + wanted} under the data root "
                f"{str(root)!r} (files named YYYY-MM-DD-<name>.json); found: {known}"
            )
        return max(files)[1]
    if not wanted.endswith(".json"):
        wanted += ".json"
    return wanted


def _load(path: Path, shown: str) -> TranscriptFile:
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_TRANSCRIPT_BYTES + 1)
    except FileNotFoundError:
        raise OperationError(f"no conversation file {shown!r} under the data root; check the name") from None
    except IsADirectoryError:
        raise OperationError(f"{shown!r} is a directory, not a conversation file") from None
    except OSError as exc:
        raise OperationError(f"cannot read {shown!r}: {exc.strerror or exc}", retryable=True) from None
    if len(data) > MAX_TRANSCRIPT_BYTES:
        raise OperationError(f"{shown!r} is larger than {MAX_TRANSCRIPT_BYTES} bytes; split the transcript")
    try:
        document: Any = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise OperationError(f"{shown!r} is not UTF-8 text; re-encode it as UTF-8") from None
    except ValueError as exc:
        raise OperationError(f"{shown!r} is not valid JSON: {exc}") from None
    try:
        return TranscriptFile.model_validate(document)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(document)'}: {e['msg']}" for e in exc.errors()[:3]
        )
        raise OperationError(f"{shown!r} is not a valid transcript: {problems}") from None


def _reason(speaker: str, people: dict[str, Participant]) -> ExclusionReason | None:
    person = people.get(speaker)
    if person is None:
        return "unidentified speaker"
    if not person.recording:
        return "no recording consent"
    if not person.processing:
        return "no processing consent"
    return None


def read_transcript(inputs: ReadTranscriptInputs, ctx: OperationContext) -> ReadTranscriptOutputs:
    """Read and check a transcript; flag low-confidence segments; remove the words of speakers who may not be used."""
    name = resolve_conversation(ctx.data_root, inputs.conversation)
    transcript = _load(read_path(ctx, name), name)
    participants = [
        Participant(id=p.id, name=p.name, email=p.email, **p.consent.model_dump()) for p in transcript.participants
    ]
    people = {p.id: p for p in participants}
    segments: list[Segment] = []
    for index, seg in enumerate(transcript.segments):
        reason = _reason(seg.speaker, people)
        segments.append(
            Segment(
                index=index,
                speaker=seg.speaker,
                start_s=seg.start_s,
                end_s=seg.end_s,
                text="" if reason else seg.text,
                confidence=seg.confidence,
                low_confidence=seg.confidence is not None and seg.confidence < inputs.min_confidence,
                redacted=reason is not None,
                reason=reason,
            )
        )
    excluded: dict[str, Excluded] = {}
    for kept in segments:
        if kept.reason is not None:
            known = people.get(kept.speaker)
            previous = excluded.get(kept.speaker)
            indices = [*(previous.segments if previous else []), kept.index]
            excluded[kept.speaker] = Excluded(
                speaker=kept.speaker, name=known.name if known else None, reason=kept.reason, segments=indices
            )
    return ReadTranscriptOutputs(
        file=name,
        title=transcript.title,
        date=transcript.date,
        language=transcript.language,
        agenda=list(transcript.agenda),
        participants=participants,
        segments=segments,
        quality=measure(segments, inputs.min_confidence, set(people)),
        excluded=[excluded[k] for k in sorted(excluded)],
    )


def measure(segments: list[Segment], min_confidence: float, known: set[str]) -> Quality:
    """Transcript quality: mean ASR confidence (over the segments that report one: None when none does), low-confidence
    segments and their share, unidentified voices."""
    count = len(segments)
    reported = [s.confidence for s in segments if s.confidence is not None]
    low = [s.index for s in segments if s.confidence is not None and s.confidence < min_confidence]
    unknown = [s for s in segments if s.speaker not in known]
    mean = round(sum(reported) / len(reported), 4) if reported else (0.0 if not count else None)
    return Quality(
        segments=count,
        mean_confidence=mean,
        min_confidence=min_confidence,
        low_confidence_segments=low,
        low_confidence_share=round(len(low) / count, 4) if count else 0.0,
        unknown_speakers=sorted({s.speaker for s in unknown}),
        unknown_share=round(len(unknown) / count, 4) if count else 0.0,
        duration_s=round(max((s.end_s for s in segments), default=0.0), 1),
    )


def conversation_files(conversation: str) -> tuple[str, ...]:
    """What a `conversation` may lead `resolve_conversation` to read, as glob patterns under the data root (the
    operation's `selects`, for data labels): every dated transcript for 'latest', that day's for a date, else the
    file it names."""
    wanted = conversation.strip()
    if wanted.lower() == "latest":
        return ("????-??-??*.json",)
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", wanted):
        return (f"{wanted}*.json",)
    return (wanted if wanted.endswith(".json") else f"{wanted}.json",)


READ_TRANSCRIPT = Operation(
    "notes.read_transcript",
    "Read a recorded conversation (latest, by file or by date) under the data root; check it, measure its "
    "transcription quality, and remove the words of speakers without consent or identity.",
    ReadTranscriptInputs,
    ReadTranscriptOutputs,
    "read",
    "repeatable",
    read_transcript,
    timeout_s=30,
    path_input="conversation",
    selects=conversation_files,
)
