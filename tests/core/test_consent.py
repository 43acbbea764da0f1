"""A transcript that records no consent (captions, typed minutes): Core asks who agreed, reads the answer in
en/pl/ru conservatively, and never uses anyone's words on a guess."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from alicorn.app import open_app
from alicorn.clock import PinnedClock
from alicorn.context.artifacts import ArtifactStore
from alicorn.core.consent import read_consent
from alicorn.core.conversation import fold
from alicorn.core.intake import IntentEnvelope
from alicorn.core.norbi import Norbi
from alicorn.core.turn import Turn
from alicorn.packs.catalog import bundled_workflows

AS_OF = datetime(2026, 12, 1, 7, 30, tzinfo=UTC)
PEOPLE = ["Anna Kowalczyk", "Tom Reyes"]

CALL = """WEBVTT

00:00:01.000 --> 00:00:05.000
<v Anna Kowalczyk>Good morning, let's go through the delivery plan for December.

00:00:06.000 --> 00:00:10.000
<v Tom Reyes>I will send the updated price list to the warehouse by Friday.

00:00:11.000 --> 00:00:16.000
<v Anna Kowalczyk>We decided to move the Gdańsk delivery to the 14th. Tom, please check the truck availability.
"""

ROZMOWA = """1
00:00:01,000 --> 00:00:04,000
Łukasz Wójcik: Dzień dobry, zaczynamy przegląd dostaw.

2
00:00:04,500 --> 00:00:08,000
Marta Nowak: Wyślę cennik do piątku.

3
00:00:08,500 --> 00:00:12,000
Łukasz Wójcik: Zdecydowaliśmy, że dostawa do Gdańska będzie czternastego.
"""


@pytest.mark.parametrize(
    ("answer", "anna", "tom"),
    [
        ("yes", True, True),
        ("Yes, everyone agreed.", True, True),
        ("no", False, False),
        ("nobody agreed", False, False),
        ("not everyone agreed", False, False),
        ("Tom did not agree", True, False),
        ("Anna agreed, Tom didn't", True, False),
        ("Anna agreed but Tom did not", True, False),
        ("yes, except Tom", True, False),
        ("everyone but Tom", True, False),
        ("Only Anna agreed", True, False),  # a speaker the answer leaves out has no consent by default
        ("tak", True, True),
        ("nie", False, False),
        ("Tak, oprócz Toma", True, False),
        ("Anna tak, ale Tom nie", True, False),
        ("да", True, True),
        ("нет", False, False),
        ("все согласились, кроме Тома", True, False),
    ],
)
def test_an_answer_says_who_agreed(answer: str, anna: bool, tom: bool) -> None:
    assert read_consent(answer, PEOPLE) == {"Anna Kowalczyk": anna, "Tom Reyes": tom}


@pytest.mark.parametrize("answer", ["what?", "I will check", "yes except the guest", "да, кроме гостя"])
def test_an_answer_that_names_nobody_clearly_is_no_answer(answer: str) -> None:
    assert read_consent(answer, PEOPLE) is None


def _ask(tmp_path: Path, utterance: str, *files: tuple[str, str]) -> tuple[Norbi, Turn]:
    """Ann's request to a fresh Core with `files` ((path under tmp_path, text), …) written and attached."""
    app = open_app(tmp_path / "home")
    core = Norbi(app, bundled_workflows(), clock=PinnedClock(AS_OF), workdir=tmp_path)
    store = ArtifactStore(app.home / "artifacts")
    attached = []
    for name, text in files:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        attached.append(store.put_file(path).sha256)
    return core, core.receive(IntentEnvelope(utterance=utterance, author="human:ann", attachments=tuple(attached)))


def _note(core: Norbi, conversation: str) -> str:
    state = fold(core.app.store.read(conversation))
    (run,) = state.runs
    return (core.app.home / "workspaces" / run / "conversation-note.md").read_text(encoding="utf-8")


def test_a_webvtt_call_is_the_input_after_its_speakers_consent_is_asked(tmp_path: Path) -> None:
    core, turn = _ask(
        tmp_path, "From this call prepare a note, tasks and a draft reply, but do not send anything", ("call.vtt", CALL)
    )
    assert turn.question is not None and turn.report is None
    assert "call.vtt records no consent" in turn.question and "Anna Kowalczyk, Tom Reyes" in turn.question
    assert not [i for i in core.app.store.streams() if i.stream.startswith("run-")]  # nothing ran before the answer
    done = core.reply(turn.conversation, "Tom did not agree", by="human:ann")
    assert done.report is not None
    note = _note(core, turn.conversation)
    assert "Gdańsk delivery to the 14th" in note  # Anna's words are used
    assert "price list" not in note  # Tom's are not: he did not consent
    assert "Tom Reyes" in note and "no consent" in note
    # a transcript that reports no ASR confidence is never `complete`: its quality was not measured
    assert done.report.outcome == "partial"
    assert any("transcription quality was not measured" in line for line in done.report.missing)
    given = next(line for line in done.report.evidence if "call.vtt" in line)
    assert "webvtt transcript with no ASR confidence" in given
    assert "consent as stated by human:ann: agreed: Anna Kowalczyk; not agreed, words left out: Tom Reyes" in given
    assert "dated 2026-12-01, the day of the request" in given


def test_a_polish_subrip_and_a_polish_answer(tmp_path: Path) -> None:
    core, turn = _ask(
        tmp_path,
        "Z tej rozmowy przygotuj notatkę, zadania i szkic odpowiedzi, ale niczego nie wysyłaj",
        ("2026-11-30-dostawy.srt", ROZMOWA),
    )
    assert turn.question is not None and "nie zawiera zgód" in turn.question
    assert "Marta Nowak, Łukasz Wójcik" in turn.question
    done = core.reply(turn.conversation, "tak, wszyscy się zgodzili", by="human:ann")
    assert done.report is not None and done.report.language == "pl"
    note = _note(core, turn.conversation)
    assert "cennik" in note and "czternastego" in note  # everyone consented: both speakers' words are used
    given = next(line for line in done.report.evidence if "dostawy.srt" in line)
    assert "transkrypcja srt bez pewności rozpoznania mowy" in given
    assert "zgodzili się: Łukasz Wójcik, Marta Nowak" in given
    assert "dnia prośby" not in given and "dzień prośby" not in given  # the file's name states its date


def test_an_unclear_answer_is_asked_again_then_nobodys_words_are_used(tmp_path: Path) -> None:
    core, turn = _ask(tmp_path, "Prepare a note and the tasks from this call", ("call.vtt", CALL))
    again = core.reply(turn.conversation, "what do you mean?", by="human:ann")
    assert again.question is not None and again.question.startswith("I could not tell who agreed")
    done = core.reply(turn.conversation, "hmm", by="human:ann")
    assert done.report is not None and done.report.outcome != "complete"
    note = _note(core, turn.conversation)
    assert "Gdańsk" not in note and "price list" not in note
    assert any("agreed: nobody" in line for line in done.report.evidence)


def test_minutes_naming_no_speaker_are_refused_with_a_question_and_nothing_runs(tmp_path: Path) -> None:
    minutes = ("minutes.txt", "We discussed the budget. Nothing was decided.\n")
    core, turn = _ask(tmp_path, "Prepare a note and the tasks from this call", minutes)
    assert turn.question is not None and "minutes.txt is neither a JSON transcript nor captions" in turn.question
    assert not [i for i in core.app.store.streams() if i.stream.startswith("run-")]


def test_two_transcripts_of_one_name_are_both_staged(tmp_path: Path) -> None:
    core, turn = _ask(
        tmp_path,
        "Prepare a note and the tasks from the call",
        ("2026-11-30-call.vtt", CALL),
        ("other/2026-11-30-call.srt", ROZMOWA),
    )
    assert turn.question is not None and "Anna Kowalczyk" in turn.question and "Marta Nowak" in turn.question
    core.reply(turn.conversation, "yes", by="human:ann")
    state = fold(core.app.store.read(turn.conversation))
    assert state.data is not None
    staged = sorted(p.name for p in Path(state.data["root"]).iterdir())
    assert staged == ["2026-11-30-call-srt.json", "2026-11-30-call.json"]
