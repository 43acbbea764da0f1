"""The shapes the notes pack reads and passes between its operations.

`TranscriptFile` is the recorded conversation as stored under the data root (what an ASR + diarization step
produces, with the participants' consents from the meeting invitation). The other models are the typed values the
operations hand each other: segments (with the words of speakers who may not be processed already removed),
participants, tasks and cited items. Every list is bounded, every model frozen and closed to unknown fields.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from alicorn.ops._common import Model

Language = Literal["en", "pl", "ru"]
SpeakerId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")]
IsoDate = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$")]
Email = Annotated[str, Field(min_length=3, max_length=254, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")]
Evidence = Annotated[list[Annotated[int, Field(ge=0)]], Field(max_length=64)]
Indices = Annotated[list[Annotated[int, Field(ge=0)]], Field(max_length=5000)]

MAX_SEGMENTS = 5000
MAX_PARTICIPANTS = 200
MAX_ITEMS = 500

#: Why a segment's words were left out.
ExclusionReason = Literal["no recording consent", "no processing consent", "unidentified speaker"]


# ---------------------------------------------------------------------------------------------- the stored file


class Consent(Model):
    """What a participant agreed to: being recorded, and having the recording processed (notes, summaries)."""

    recording: bool
    processing: bool
    consent_at: str | None = Field(None, max_length=40, description="when consent was given (ISO 8601)")


class FileParticipant(Model):
    id: SpeakerId
    name: str = Field(min_length=1, max_length=120)
    email: Email | None = None
    consent: Consent


class FileSegment(Model):
    speaker: SpeakerId = Field(description="a participant id, or a diarization label for an unidentified voice")
    start_s: float = Field(ge=0, le=86400)
    end_s: float = Field(ge=0, le=86400)
    text: str = Field(max_length=10_000)
    confidence: float | None = Field(
        None, ge=0, le=1, description="ASR confidence of the segment, 0-1; None where the source reports none"
    )

    @model_validator(mode="after")
    def _ordered(self) -> FileSegment:
        if self.end_s < self.start_s:
            raise ValueError(f"end_s {self.end_s} is before start_s {self.start_s}")
        return self


class FileSource(Model):
    recording: str = Field("", max_length=500)
    asr: str = Field("", max_length=500)


class TranscriptFile(Model):
    """A recorded conversation, transcribed and diarized, with its participants and their consents."""

    title: str = Field(min_length=1, max_length=200)
    date: IsoDate
    language: Language
    source: FileSource = FileSource()
    agenda: list[Annotated[str, Field(min_length=1, max_length=200)]] = Field(default_factory=list, max_length=50)
    participants: list[FileParticipant] = Field(min_length=1, max_length=MAX_PARTICIPANTS)
    segments: list[FileSegment] = Field(min_length=1, max_length=MAX_SEGMENTS)

    @model_validator(mode="after")
    def _unique_ids(self) -> TranscriptFile:
        ids = [p.id for p in self.participants]
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise ValueError(f"participant ids must be unique; repeated: {', '.join(repeated)}")
        return self


# ------------------------------------------------------------------------------------------- passed between ops


class Participant(Model):
    """A participant and their consents, as the operations pass them on."""

    id: SpeakerId
    name: str = Field(min_length=1, max_length=120)
    email: Email | None = None
    recording: bool
    processing: bool
    consent_at: str | None = Field(None, max_length=40)


class Segment(Model):
    """One transcript segment; `redacted` ones carry no text (their speaker's words may not be used)."""

    index: int = Field(ge=0)
    speaker: SpeakerId
    start_s: float = Field(ge=0)
    end_s: float = Field(ge=0)
    text: str = Field(max_length=10_000)
    confidence: float | None = Field(ge=0, le=1, description="None: the transcript reports no ASR confidence")
    low_confidence: bool
    redacted: bool
    reason: ExclusionReason | None = None


class Excluded(Model):
    """A speaker whose words were left out, why, and which segments that removed."""

    speaker: SpeakerId
    name: str | None = Field(None, description="the participant's name; None for an unidentified voice")
    reason: ExclusionReason
    segments: Indices


class Quality(Model):
    """How trustworthy the transcript is, as the ASR and diarization reported it."""

    segments: int = Field(ge=0)
    mean_confidence: float | None = Field(
        ge=0, le=1, description="over the segments that report one; None when none does (captions, typed minutes)"
    )
    min_confidence: float = Field(ge=0, le=1, description="the threshold below which a segment is low-confidence")
    low_confidence_segments: Indices
    low_confidence_share: float = Field(ge=0, le=1)
    unknown_speakers: list[SpeakerId] = Field(max_length=MAX_PARTICIPANTS)
    unknown_share: float = Field(ge=0, le=1, description="share of segments spoken by unidentified voices")
    duration_s: float = Field(ge=0)


class Task(Model):
    """An action item: what, who (a participant id, or None when nobody was named), by when, and where it was said."""

    id: str = Field(pattern=r"^T\d{1,4}$")
    text: str = Field(min_length=1, max_length=2000)
    owner: SpeakerId | None
    owner_name: str | None = None
    due: IsoDate | None = None
    due_text: str | None = Field(None, max_length=100, description="the words the due date was read from")
    kind: Literal["commitment", "request", "need", "action"]
    evidence: Evidence = Field(min_length=1)


class Item(Model):
    """A decision, an open question or a topic, with the segments it comes from."""

    text: str = Field(min_length=1, max_length=2000)
    evidence: Evidence
