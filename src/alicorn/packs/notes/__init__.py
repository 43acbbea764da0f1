"""The notes pack (seed command 3): "From the conversation, prepare a note, tasks and a draft reply, but do not send
anything."

A recorded conversation (transcript with speakers, ASR confidence and consents, under `data/`) becomes a note, a
task list with owners, due dates and cited evidence, and a draft reply; the reply is sent only when the request asks
for it in words and external transmission is not forbidden. Words of speakers who did not consent, or whom
diarization could not identify, are removed at the first step and never used. Modules: `model` (shapes),
`transcript` (notes.read_transcript), `tasks` (notes.extract_tasks), `compose` (notes.write_note,
notes.draft_reply), `send` (notes.send_reply), `lexicon` and `dates` (the en/pl/ru words), `slots` (parameters
and their extraction), `workflow` (build, artifact, criteria, summary).
"""

from __future__ import annotations

from alicorn.i18n import N_
from alicorn.packs.inputs import DataInput
from alicorn.packs.notes.compose import DRAFT_REPLY, WRITE_NOTE
from alicorn.packs.notes.send import SEND_REPLY
from alicorn.packs.notes.slots import DATA_DIR, EXAMPLES, QUESTIONS, NotesParams, extract, extract_from_data
from alicorn.packs.notes.tasks import EXTRACT_TASKS
from alicorn.packs.notes.transcript import READ_TRANSCRIPT
from alicorn.packs.notes.workflow import artifact_of, build, criteria, summarize
from alicorn.packs.workflow import Workflow
from alicorn.validate.conversation import validate_conversation

OPERATIONS = (READ_TRANSCRIPT, EXTRACT_TASKS, WRITE_NOTE, DRAFT_REPLY, SEND_REPLY)

WORKFLOW = Workflow(
    id="notes",
    title=N_("Conversation notes, tasks and a draft reply"),
    summary="From a recorded conversation: a note, the task list (owners, due dates, evidence) and a draft reply "
    "to the participants; sent only when asked.",
    artifact="conversation",
    parameters=NotesParams,
    operations=OPERATIONS,
    vocabulary=tuple(
        (
            "transcript minutes transkryp protokół protokol расшифровк протокол совещан narad конспект "
            # a call and notes have other senses ("запланируй созвон", "заметки с курсов"), as in English
            "~созвон ~conversation ~rozmow ~разговор zapisk ~заметк ~notatk ~=note ~=notes ~summary ~podsumowan "
            "~итог ~meeting ~spotkan ~встреч ~планёрк ~планерк ~=call ~=calls ~recording ~discussion "
            "~nagran ~звонк ~звонок ~запис ~обсужден "
            # notes of a software release are no meeting's minutes
            "!release-notes !patch-notes !заметки-к-релизу !заметки-к-выпуску !notatki-do-wydania !notatki-wydania "
            "!update-notes !заметки-к-обновлению !заметки-по-обновлению !notatki-do-aktualizacji "
            # a protocol of damage, of acceptance or of a test is a form, not a meeting's minutes
            "!protokół-szkody !protokołu-szkody !protokół-szkód !protokołu-szkód !protokol-szkody !protokolu-szkody "
            "!protokół-odbioru !protokołu-odbioru !protokol-odbioru !protokolu-odbioru !protokół-reklamacyjny "
            "!protokołu-reklamacyjnego !protokół-kontroli !protokołu-kontroli !протокол-осмотра !протокола-осмотра "
            "!протокол-разногласий !протокола-разногласий !протокол-испытаний !протокола-испытаний "
            "!протокол-повреждений !протокола-повреждений"
        ).split()
    ),
    product_stems=tuple("~notatk ~заметк ~=note ~=notes ~summary ~podsumowan ~итог ~планёрк ~планерк".split()),
    examples=EXAMPLES,
    data_dir=DATA_DIR,
    extract=extract,
    extract_from_data=extract_from_data,
    questions=QUESTIONS,
    build=build,
    artifact_of=artifact_of,
    criteria=criteria,
    validator=validate_conversation,
    summarize=summarize,
    inputs=(
        DataInput(
            name="transcripts",
            what={
                "en": "a conversation transcript (WebVTT .vtt, SubRip .srt, “Name: words” text, or JSON: title, date, "
                "participants, segments)",
                "pl": "transkrypcja rozmowy (WebVTT .vtt, SubRip .srt, tekst „Imię: słowa” lub JSON: title, date, "
                "participants, segments)",
                "ru": "расшифровка разговора (WebVTT .vtt, SubRip .srt, текст «Имя: слова» или JSON: title, date, "
                "participants, segments)",
            },
            file=".",
            format="json_files",
            fields=("date", "participants", "segments"),
            span_field="date",
            captions=True,
        ),
    ),
)

__all__ = ["OPERATIONS", "WORKFLOW", "NotesParams"]
