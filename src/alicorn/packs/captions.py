"""Transcripts as meeting tools and people write them: WebVTT captions, SubRip subtitles, plain "Name: words" text.

A recorded call usually leaves a `.vtt` (Teams, Zoom, Meet, Whisper), an `.srt` (Whisper and most subtitle tools) or
minutes typed as `Anna: …` lines, not the notes pack's own JSON (`TranscriptFile`). `read_captions` reads one of
them into segments: who spoke (the cue's `<v Name>` voice, or a `Name:` at the start of the words), when (the cue's
timing, a `[00:01:02]` in text; none for untimed text) and what. It never invents what the file does not say:

- such files record no consent, so every speaker's consent is unknown (Core asks the person before anything runs);
- they carry no ASR confidence, so `confidence` is None (the validator says transcription quality was not measured);
- a cue with no speaker is an unidentified voice (`UNLABELLED`), whose words the pack leaves out, as it does for a
  voice diarization could not attribute.

The date is the one the file's name or its text states, if any (`2026-12-05-call.vtt`, `NOTE 2026-12-05`,
`Date: 05.12.2026`); the caller decides what to say when there is none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Literal

#: The speaker of a cue or line that names none: an unidentified voice.
UNLABELLED = "unlabelled"
#: The longest segment text kept (as `TranscriptFile` allows).
MAX_TEXT = 10_000

CaptionKind = Literal["webvtt", "srt", "text"]

_TIMING = re.compile(
    r"^\s*(?P<start>(?:\d{1,2}:)?\d{1,2}:\d{2}[.,]\d{1,3})\s*-->\s*(?P<end>(?:\d{1,2}:)?\d{1,2}:\d{2}[.,]\d{1,3})"
)
_VOICE = re.compile(r"<v(?:\.[\w.-]+)?\s+([^>]+)>", re.IGNORECASE)
_TAGS = re.compile(r"</?[a-zA-Z][^>]*>|<\d{1,2}:\d{2}[^>]*>")
#: "Anna Kowalczyk: words", "ANNA: words", "Анна: слова" (a name, then a colon, then the words).
_COLON_NAMED = re.compile(r"^\s*(?P<name>[^\W\d_][\w.'’ -]{0,58}[\w.])\s*:\s*(?P<words>.*)$")
#: A timestamp at the start of a line of typed minutes: "[00:01:02]", "(01:02)", "00:01:02 -".
_STAMP = re.compile(r"^\s*[\[(]?(?P<stamp>(?:\d{1,2}:)?\d{1,2}:\d{2})(?:[.,]\d{1,3})?[\])]?\s*[-–—]?\s*")
_ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_DAY_FIRST = re.compile(r"(?<!\d)(\d{1,2})\.(\d{1,2})\.(\d{4})(?!\d)")


@dataclass(frozen=True)
class Cue:
    """One segment: who (a name as written, or UNLABELLED), when (seconds; None for untimed text), what."""

    speaker: str
    start_s: float | None
    end_s: float | None
    text: str


@dataclass(frozen=True)
class Captions:
    """A caption or text transcript read: its kind, its segments in order, and the speakers' names in order of
    first appearance (UNLABELLED not among them)."""

    kind: CaptionKind
    cues: tuple[Cue, ...]
    stated_date: date | None

    @property
    def speakers(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.speaker for c in self.cues if c.speaker != UNLABELLED))


class NotCaptions(ValueError):
    """The text is none of the forms this module reads; the message says what was expected."""


def read_captions(text: str, name: str = "") -> Captions:
    """Read `text` (a file's content; `name` its file name, for the date and the kind) as WebVTT, SubRip or
    "Name: words" lines. Raises NotCaptions when it is none of them, or names no speaker at all."""
    body = text.lstrip("\ufeff")
    lowered = name.lower()
    kind: CaptionKind
    if body.lstrip().startswith("WEBVTT") or lowered.endswith(".vtt"):
        kind, cues = "webvtt", _timed_cues(body, webvtt=True)
    elif lowered.endswith(".srt") or _looks_timed(body):
        kind, cues = "srt", _timed_cues(body, webvtt=False)
    else:
        kind, cues = "text", _text_lines(body)
    if not cues:
        raise NotCaptions("no cue with words was found")
    if all(c.speaker == UNLABELLED for c in cues):
        raise NotCaptions("no speaker is named (a <v Name> voice, or “Name:” before the words)")
    return Captions(kind, tuple(cues), stated_date(name, body))


def stated_date(name: str, text: str) -> date | None:
    """The date the file's name states, else the first one its first lines state (ISO, or day first)."""
    for source in (name, "\n".join(text.splitlines()[:12])):
        for pattern, order in ((_ISO_DATE, (0, 1, 2)), (_DAY_FIRST, (2, 1, 0))):
            for match in pattern.finditer(source):
                parts = [int(g) for g in match.groups()]
                try:
                    return date(parts[order[0]], parts[order[1]], parts[order[2]])
                except ValueError:
                    continue
    return None


def _looks_timed(text: str) -> bool:
    return any(_TIMING.match(line) for line in text.splitlines()[:40])


def _seconds(stamp: str) -> float:
    parts = stamp.replace(",", ".").split(":")
    value = 0.0
    for part in parts:
        value = value * 60 + float(part)
    return round(value, 3)


def _timed_cues(text: str, *, webvtt: bool) -> list[Cue]:
    cues: list[Cue] = []
    blocks = re.split(r"\n\s*\n", text.replace("\r\n", "\n").replace("\r", "\n"))
    for block in blocks:
        lines = [line for line in block.split("\n") if line.strip()]
        found = next(((i, m) for i, line in enumerate(lines) if (m := _TIMING.match(line))), None)
        if found is None:
            continue  # the WEBVTT header, a NOTE, a STYLE or REGION block, or stray text
        timing_at, match = found
        words = lines[timing_at + 1 :]
        if not words:
            continue
        start, end = _seconds(match.group("start")), _seconds(match.group("end"))
        speaker, said = _speaker_of(" ".join(words), webvtt=webvtt)
        if said:
            cues.append(Cue(speaker, start, max(start, end), said[:MAX_TEXT]))
    return _merged(cues)


def _speaker_of(words: str, *, webvtt: bool) -> tuple[str, str]:
    """(speaker, words without markup) of a cue's text."""
    voice = _VOICE.search(words) if webvtt or "<v" in words else None
    said = " ".join(_TAGS.sub("", words).split())
    if voice is not None:
        return " ".join(voice.group(1).split()), said
    named = _COLON_NAMED.match(said)
    if named is not None and _plausible_name(named.group("name")):
        return " ".join(named.group("name").split()), named.group("words").strip()
    return UNLABELLED, said


#: Lower-case words a name may hold ("Ludwig van Beethoven", "María de la Cruz").
_PARTICLES = frozenset({"van", "von", "der", "den", "de", "del", "della", "la", "le", "di", "da", "du", "bin", "al"})


def _plausible_name(name: str) -> bool:
    """A speaker's name: one to four words, each capitalised but a particle ("Note that: …" is not a speaker)."""
    words = name.split()
    if not 0 < len(words) <= 4 or name.endswith((".", "-")):
        return False
    return words[0][0].isupper() and all(w[0].isupper() or w in _PARTICLES for w in words)


def _text_lines(text: str) -> list[Cue]:
    """Typed minutes: each "Name: words" line starts a segment (after an optional timestamp); other lines continue
    the segment before them."""
    cues: list[Cue] = []
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = raw.strip()
        if not line:
            continue
        stamp = _STAMP.match(line)
        start = _seconds(stamp.group("stamp")) if stamp and stamp.group("stamp") else None
        rest = line[stamp.end() :] if stamp else line
        named = _COLON_NAMED.match(rest)
        if named is not None and _plausible_name(named.group("name")) and named.group("words").strip():
            cues.append(Cue(" ".join(named.group("name").split()), start, start, named.group("words").strip()))
        elif cues:
            last = cues[-1]
            cues[-1] = Cue(last.speaker, last.start_s, last.end_s, f"{last.text} {rest}"[:MAX_TEXT])
    return cues


def _merged(cues: list[Cue]) -> list[Cue]:
    """Consecutive cues of one speaker that continue each other (captions split sentences across cues) as one."""
    out: list[Cue] = []
    for cue in cues:
        last = out[-1] if out else None
        if (
            last is not None
            and last.speaker == cue.speaker
            and last.end_s is not None
            and cue.start_s is not None
            and cue.start_s - last.end_s <= 1.0
            and not last.text.endswith((".", "?", "!", "…"))
        ):
            out[-1] = Cue(last.speaker, last.start_s, cue.end_s, f"{last.text} {cue.text}"[:MAX_TEXT])
        else:
            out.append(cue)
    return out


def transcript_of(
    captions: Captions,
    *,
    title: str,
    day: date,
    language: str,
    consents: dict[str, bool],
    consent_at: str,
    source: str,
) -> dict[str, object]:
    """The transcript document the notes pack reads (`TranscriptFile`): speakers as participants `s1`, `s2`… with
    the consent `consents` gives each name (both recording and processing; a name it lacks has none), segments with
    no ASR confidence, an unlabelled cue as the voice `UNLABELLED` (no participant, so its words are left out).
    `source` says where the file and the consents came from; untimed text has every time at 0."""
    ids = {name: f"s{number}" for number, name in enumerate(captions.speakers, start=1)}
    return {
        "title": title[:200] or "Conversation",
        "date": day.isoformat(),
        "language": language,
        "source": {"recording": "", "asr": source[:500]},
        "participants": [
            {
                "id": ids[name],
                "name": name[:120],
                "consent": {
                    "recording": consents.get(name, False),
                    "processing": consents.get(name, False),
                    "consent_at": consent_at,
                },
            }
            for name in captions.speakers
        ],
        "segments": [
            {
                "speaker": ids.get(cue.speaker, UNLABELLED),
                "start_s": cue.start_s or 0.0,
                "end_s": cue.end_s or 0.0,
                "text": cue.text,
            }
            for cue in captions.cues
        ],
    }
