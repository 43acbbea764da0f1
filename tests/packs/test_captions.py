"""Transcripts as meeting tools and people write them (WebVTT, SubRip, "Name: words" minutes) read into segments,
and staged as the notes pack's transcript without inventing what the file does not say."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from alicorn.packs.captions import UNLABELLED, NotCaptions, read_captions, stated_date, transcript_of
from alicorn.packs.inputs import inspect
from alicorn.packs.notes import WORKFLOW
from alicorn.packs.notes.model import TranscriptFile

VTT = """WEBVTT
Kind: captions

NOTE recorded 2026-11-30

1
00:00:01.000 --> 00:00:04.000
<v Iga Nowak>We start with the budget

00:00:04.200 --> 00:00:06.000
<v Iga Nowak>for the first quarter.

00:00:07.000 --> 00:00:09.500 align:start
<v.loud Piotr Zieliński>I will send the numbers by <b>Friday</b>.

00:00:10.000 --> 00:00:11.000
Someone in the room coughs and says hello.
"""

SRT = """1
00:00:01,000 --> 00:00:03,500
Олег: Доброе утро, начнём.

2
00:00:04,000 --> 00:00:06,000
Мария: Я подготовлю отчёт к среде.
"""

MINUTES = """Weekly sync, 05.12.2026
[00:00:05] Ana Lima: Welcome everyone.
[00:01:10] Bo Chen: I will fix the login bug.
It should be done tomorrow.
Note that: the release waits for it.
"""


def test_webvtt_voices_timings_markup_and_a_cue_nobody_said() -> None:
    read = read_captions(VTT, "budget.vtt")
    assert read.kind == "webvtt" and read.speakers == ("Iga Nowak", "Piotr Zieliński")
    first, second, third = read.cues
    # a sentence split across two cues of one voice is one segment; markup and cue settings are dropped
    assert (first.speaker, first.start_s, first.end_s) == ("Iga Nowak", 1.0, 6.0)
    assert first.text == "We start with the budget for the first quarter."
    assert second.text == "I will send the numbers by Friday."
    assert third.speaker == UNLABELLED  # nobody named: an unidentified voice, never guessed
    assert read.stated_date == date(2026, 11, 30)


def test_subrip_with_names_before_the_words() -> None:
    read = read_captions(SRT, "call.srt")
    assert read.kind == "srt" and read.speakers == ("Олег", "Мария")
    assert [c.text for c in read.cues] == ["Доброе утро, начнём.", "Я подготовлю отчёт к среде."]
    assert read.cues[1].start_s == 4.0 and read.stated_date is None


def test_typed_minutes_continue_the_speaker_and_a_sentence_is_no_name() -> None:
    read = read_captions(MINUTES, "minutes.txt")
    assert read.kind == "text" and read.speakers == ("Ana Lima", "Bo Chen")
    assert read.cues[1].start_s == 70.0
    assert (
        read.cues[1].text
        == "I will fix the login bug. It should be done tomorrow. Note that: the release waits for it."
    )
    assert read.stated_date == date(2026, 12, 5)  # day first, from the first lines


@pytest.mark.parametrize(
    "text",
    ["", "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nno speaker here\n", "just a paragraph of prose.\nand more."],
)
def test_text_that_names_no_speaker_is_not_a_transcript(text: str) -> None:
    with pytest.raises(NotCaptions):
        read_captions(text, "x.vtt" if text.startswith("WEBVTT") else "x.txt")


def test_a_date_that_does_not_exist_is_not_stated() -> None:
    assert stated_date("2026-02-30-call.vtt", "") is None
    assert stated_date("call.vtt", "31.11.2026 then 2026-12-01") == date(2026, 12, 1)


def test_staged_document_is_a_valid_transcript_with_consents_and_no_confidence() -> None:
    read = read_captions(VTT, "budget.vtt")
    document = transcript_of(
        read,
        title="budget",
        day=date(2026, 11, 30),
        language="en",
        consents={"Iga Nowak": True},
        consent_at="2026-12-01T08:00:00Z",
        source="budget.vtt",
    )
    transcript = TranscriptFile.model_validate(document)
    consent = {p.name: (p.consent.recording, p.consent.processing) for p in transcript.participants}
    assert consent == {"Iga Nowak": (True, True), "Piotr Zieliński": (False, False)}  # unnamed: no consent
    assert all(s.confidence is None for s in transcript.segments)
    assert transcript.segments[-1].speaker == UNLABELLED
    assert UNLABELLED not in {p.id for p in transcript.participants}


def test_the_notes_input_takes_captions_and_names_their_speakers(tmp_path: Path) -> None:
    (want,) = WORKFLOW.inputs
    path = tmp_path / "budget.vtt"
    path.write_text(VTT, encoding="utf-8")
    finding = inspect(path, want)
    assert finding.fits and finding.transcript is not None and finding.rows == 3
    assert finding.transcript.kind == "webvtt"
    assert finding.transcript.speakers == ("Iga Nowak", "Piotr Zieliński") and finding.first == date(2026, 11, 30)
    prose = tmp_path / "notes.txt"
    prose.write_text("we talked about the budget and agreed on nothing.\n", encoding="utf-8")
    refused = inspect(prose, want)
    assert not refused.fits and refused.problem is not None and "naming who speaks" in refused.problem.english()
