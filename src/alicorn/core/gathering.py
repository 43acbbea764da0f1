"""Core's data step: between the filled slots and the contract, the user's data is found, checked and staged.

    workflow chosen ─► each declared input located (alicorn.core.data) ─► any required one missing or unfit?
                      │                                                   └► clarification.asked (what is missing,
                      │                                                      what was wrong, how to give it)
                      ▼
                  staged under <home>/inputs/<conversation>/ ─► data.found (files, digests, rows, span; the
                      │                                                  files offered but not read, with why)
                      ▼
                  slots filled (a pack may read the staged data: the latest transcript in the request's language)
                      ▼
                  the request's period against the data's span ─► data.checked; none of it covered: report
                                                                   `missing_data` (the span that was found), no run

The run's data root is the staged folder; the report's evidence names every file read, with its digest.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

from alicorn.app import App
from alicorn.clock import parse_time
from alicorn.context.artifacts import ArtifactStore
from alicorn.context.tap import JournalTap
from alicorn.core.advice import how_to_attach
from alicorn.core.consent import consent_question, read_consent
from alicorn.core.conversation import ConversationState
from alicorn.core.data import DataSources, Located, evidence, locate, skipped_files, stage
from alicorn.core.intake import IntentEnvelope
from alicorn.core.report import Report
from alicorn.i18n import tr, tr_marked
from alicorn.models.intent.langid import identify
from alicorn.packs.captions import Captions, transcript_of
from alicorn.packs.inputs import Finding, Problem
from alicorn.packs.workflow import Workflow
from alicorn.periods import Period, coverage

#: How often Core asks for data before it stops asking and reports what is missing.
MAX_DATA_QUESTIONS = 3
#: How often Core asks for the consent a transcript does not record before it takes nobody's as given.
MAX_CONSENT_QUESTIONS = 2


def sources_for(app: App, state: ConversationState, intent: IntentEnvelope, samples: Path | None) -> DataSources:
    """Where this request's data may come from: its attachments (the request's and those sent with answers to
    Core's questions), its `--data` paths, the project's sources and
    roots (alicorn.toml), the folder the request was made in, and the samples when Core is allowed them; with the
    home's `[data]` labels, and the home itself, which is never read as data."""
    attachments = []
    origins: dict[Path, tuple[Path, ...]] = {}
    store = ArtifactStore(app.artifacts(intent.project))
    answered = [sha for answer in state.answers for sha in answer.get("attachments", ())]  # files sent as answers
    for sha in dict.fromkeys([*intent.attachments, *answered]):
        stored = store.path(sha)
        try:
            meta = json.loads(stored.with_suffix(".json").read_text(encoding="utf-8"))
            name = str(meta.get("name") or sha)
            origins[stored] = tuple(Path(str(o)) for o in meta.get("origins") or ())
        except (OSError, ValueError, AttributeError):
            name = sha
        attachments.append((name, stored))
    project = app.config.projects.get(intent.project)
    workdir = Path(state.workdir) if state.workdir else None
    roots = [*(project.roots if project else ()), *([workdir] if workdir else [])]
    given: list[tuple[str | None, Path]] = []
    for item in intent.data:
        name, sep, path = item.partition("=")
        if sep and name.isidentifier():
            given.append((name, _absolute(Path(path), workdir)))
        else:
            given.append((None, _absolute(Path(item), workdir)))
    return DataSources(
        attachments=tuple(attachments),
        origins=origins,
        given=tuple(given),
        project=dict(project.sources) if project else {},
        roots=tuple(roots),
        samples=samples,
        labels=app.config.data,  # a staged copy is labelled as its original is
        hidden=(app.home,),  # the home's journal, keys and runs' files are nobody's data
    )


def _absolute(path: Path, workdir: Path | None) -> Path:
    path = path.expanduser()
    return path if path.is_absolute() or workdir is None else workdir / path


def data_question(
    workflow: Workflow, located: Sequence[Located], language: str, *, channel: str = "cli", conversation: str = ""
) -> str:
    """What is missing, what was wrong with what was found, and how to give it, in the request's language and
    worded for the channel the request came through (alicorn.core.advice: a command, the upload field, a route)."""
    lines = []
    missing = [item for item in located if not item.found and item.input.required]
    # inputs simply not found are named in one sentence, and so are those found only outside the project (each such
    # path said once after them); one that was found wrong gets its own sentence, with why
    plain = [item for item in missing if not item.problems]
    if plain:
        lines.append(
            tr(
                language,
                "For “{workflow}” I need: {what}.",
                what="; ".join(item.input.called(language) for item in plain),
                workflow=tr_marked(language, workflow.title),
            )
        )
    outside = dict.fromkeys(path for item in plain for path in item.refused[:3])
    lines.extend(_outside_sentence(path, language) for path in outside)
    # inputs held up by the same files (a folder's unreadable CSV is a candidate of each CSV input; a --data path
    # that is not there, of each input) are named in one sentence, and each file's problem is said once
    groups: dict[tuple[str, ...], list[Located]] = {}
    for item in missing:
        if item not in plain:
            said = (_problem_sentence(f.problem, language) for f in item.problems if f.problem is not None)
            groups.setdefault(tuple(dict.fromkeys(said))[:3], []).append(item)
    told: set[str] = set()
    for sentences, items in groups.items():
        lines.append(
            tr(
                language,
                "I need {what} for “{workflow}”.",
                what="; ".join(item.input.called(language) for item in items),
                workflow=tr_marked(language, workflow.title),
            )
        )
        lines.extend(sentence for sentence in sentences if sentence not in told)
        told.update(sentences)
        refused = dict.fromkeys(path for item in items for path in item.refused[:3] if path not in outside)
        lines.extend(_outside_sentence(path, language) for path in refused)
        outside.update(refused)
    lines.append(how_to_attach(language, channel, conversation))
    return " ".join(lines)


def _problem_sentence(problem: Problem, language: str) -> str:
    """A candidate's problem as a sentence ("There is no file logs/nope.csv."; one opening with a file name keeps
    the name as written)."""
    text = tr_marked(language, problem.message, **dict(problem.values)).rstrip(".") + "."
    return text[:1].upper() + text[1:] if problem.message[:1].isalpha() else text


def _outside_sentence(path: object, language: str) -> str:
    return tr(
        language,
        "{path} is outside the project's folders; move it there or add its folder to roots in alicorn.toml.",
        path=path,
    )


def coverage_of(
    workflow: Workflow, values: dict[str, Any], data: dict[str, Any], now: datetime
) -> dict[str, Any] | None:
    """The request's period against the data's span (the dated files of `data.found`): covered, partial or none.

    `now` is the request's time: data cannot hold what had not happened yet, so a period still running then ("today"
    asked at 09:00) is partial at best, and says so (`running`, with `as_of`)."""
    if workflow.period is None:
        return None
    period = workflow.period(values)
    if period is None:
        return None
    start, end = period
    spans = [
        (date.fromisoformat(f["first"]), date.fromisoformat(f["last"]))
        for item in data.get("inputs", [])
        for f in item["files"]
        if f.get("first") and f.get("last")
    ]
    if not spans:
        return None
    first, last = min(s for s, _ in spans), max(e for _, e in spans)
    found = coverage(Period(start, end, "", "range"), first, last, now=now)
    return {
        "status": found.status,
        "asked": _span(start, found.period.last),
        "found": _span(first, last),
        "missing_days": found.missing_days,
        **({"running": True, "as_of": f"{now:%Y-%m-%d %H:%M %Z}".strip()} if found.running else {}),
    }


def _span(first: date, last: date) -> str:
    return first.isoformat() if first == last else f"{first.isoformat()} – {last.isoformat()}"


def coverage_sentence(coverage: dict[str, Any], language: str) -> str:
    if coverage["status"] == "covered":
        return tr(language, "the data covers the period asked ({asked})", asked=coverage["asked"])
    return tr(
        language,
        "the data covers {found} only; the request asks about {asked}",
        found=coverage["found"],
        asked=coverage["asked"],
    )


def gather(
    app: App,
    state: ConversationState,
    intent: IntentEnvelope,
    workflow: Workflow,
    texts: Sequence[str],
    tap: JournalTap,
    *,
    samples: bool,
    language: str,
) -> Report | bool:
    """Find, check and stage `workflow`'s data. True: data.found was journaled; False: a question was asked; a
    Report: the conversation ends (the data was asked for too often). Nothing is run here."""
    sources = sources_for(app, state, intent, workflow.data_dir if samples else None)
    located = [locate(want, sources, texts) for want in workflow.inputs]
    if any(item.input.required and not item.found for item in located):
        asked = sum(1 for q in state.questions if q.get("data"))
        missing = [i.input.name for i in located if i.input.required and not i.found]
        question = data_question(workflow, located, language, channel=intent.channel, conversation=state.id)
        if asked >= MAX_DATA_QUESTIONS:
            return Report(
                conversation=state.id,
                outcome="missing_data",
                headline=tr(language, "missing data: {inputs}", inputs=", ".join(missing)),
                known=[tr(language, "the request: {text}", text=intent.utterance)],
                missing=[question],
                pending_effects=[tr(language, "none: nothing was run")],
                language=language,
            )
        tap.append("clarification.asked", {"question": question, "data": missing})
        return False
    captioned = {_shown(f): (f.path, f.transcript) for item in located for f in item.chosen if f.transcript}
    documents: dict[Path, tuple[str, str]] = {}
    stated: dict[str, Any] = {}
    if captioned:
        stated_consent = _consents(state, captioned, tap, language)
        if stated_consent is None:
            return False
        consents, by = stated_consent
        documents, stated = _caption_documents(state, captioned, consents, by, tap.now(), language)
    root = stage(located, app.home / "inputs" / state.id, documents, sources)
    found = evidence(located)
    for item in found:
        for file in item["files"]:
            file.update(stated.get(file["name"], {}))
    skipped = skipped_files(located)  # what the sources offered that was not read, with why
    tap.append(
        "data.found",
        {
            "workflow": workflow.id,
            "root": str(root.resolve()),
            "inputs": found,
            **({"skipped": skipped} if skipped else {}),
        },
    )
    return True


def _shown(finding: Finding) -> str:
    return finding.files[0] if finding.files else finding.path.name


def _consents(
    state: ConversationState, captioned: dict[str, tuple[Path, Captions]], tap: JournalTap, language: str
) -> tuple[dict[str, bool], str] | None:
    """Each speaker's consent and who stated it, from the answer to Core's consent question; None when the question
    was asked (again) now. A second answer that says nothing clear counts as nobody's consent."""
    speakers = list(dict.fromkeys(name for _path, c in captioned.values() for name in c.speakers))
    asked = [i for i, q in enumerate(state.questions) if q.get("consent")]
    answer = state.answers[asked[-1]] if asked and len(state.answers) > asked[-1] else None
    if answer is not None:
        read = read_consent(str(answer.get("text", "")), speakers)
        by = str(answer.get("by") or "the person asked")
        if read is not None:
            return read, by
        if len(asked) >= MAX_CONSENT_QUESTIONS:
            return dict.fromkeys(speakers, False), by
    asked_about = {name: list(c.speakers) for name, (_path, c) in captioned.items()}
    question = consent_question(asked_about, language)
    if answer is not None:
        question = tr(language, "I could not tell who agreed from “{answer}”.", answer=str(answer["text"])[:200]) + (
            " " + question
        )
    tap.append("clarification.asked", {"question": question, "consent": asked_about})
    return None


def _caption_documents(
    state: ConversationState,
    captioned: dict[str, tuple[Path, Captions]],
    consents: dict[str, bool],
    by: str,
    now: str,
    language: str,
) -> tuple[dict[Path, tuple[str, str]], dict[str, dict[str, Any]]]:
    """Each caption transcript as the pack's JSON (under a dated name), from the text `inspect` read and digested
    (the file is not read again), and what the report says of it."""
    documents: dict[Path, tuple[str, str]] = {}
    stated: dict[str, dict[str, Any]] = {}
    for shown, (path, captions) in captioned.items():
        day = captions.stated_date or date.fromisoformat(state.received_at[:10])
        guessed = identify(" ".join(cue.text for cue in captions.cues[:200])).language
        spoken = guessed if guessed in ("en", "pl", "ru") else language
        own = {name: consents.get(name, False) for name in captions.speakers}
        stem = Path(shown).stem
        document = transcript_of(
            captions,
            title=re.sub(r"^\d{4}-\d{2}-\d{2}[-_ ]*", "", stem) or stem,
            day=day,
            language=spoken,
            consents=own,
            consent_at=now,
            source=f"{shown}: {captions.kind} transcript with no ASR confidence; consent stated by {by} at {now}",
        )
        name = f"{stem}.json" if stem[:10] == day.isoformat() else f"{day.isoformat()}-{stem}.json"
        if name in {staged for staged, _text in documents.values()} or name in captioned:
            name = f"{name[:-5]}-{Path(shown).suffix.lstrip('.') or 'text'}.json"  # call.vtt and call.srt: both kept
        documents[path] = (name, json.dumps(document, ensure_ascii=False, indent=1))
        stated[shown] = {
            "consent": {
                "by": by,
                "agreed": [n for n, ok in own.items() if ok],
                "not": [n for n, ok in own.items() if not ok],
            },
            "dated": "stated" if captions.stated_date else "request",
            "staged_as": name,
            "transcript_language": spoken,
        }
    return documents, stated


def check_coverage(
    state: ConversationState,
    intent: IntentEnvelope,
    workflow: Workflow,
    values: dict[str, Any],
    tap: JournalTap,
    language: str,
) -> Report | None:
    """Journal the request's period against the data's span (`data.checked`); a Report when none of the period is
    covered (missing data, with the span that was found), else None."""
    data = state.data or {}
    coverage = coverage_of(workflow, values, data, parse_time(state.received_at))
    tap.append("data.checked", {"coverage": coverage})
    if coverage is None or coverage["status"] != "none":
        return None
    files = [
        f"{f.get('name') or f['path']} (sha256 {f['sha256'][:16]}…, {f['rows']} rows, {f['first']} – {f['last']})"
        for i in data.get("inputs", [])
        for f in i["files"]
    ]
    return Report(
        conversation=state.id,
        outcome="missing_data",
        headline=tr(language, "missing data: {sentence}", sentence=coverage_sentence(coverage, language)),
        known=[tr(language, "the request: {text}", text=intent.utterance), *files],
        missing=[tr(language, "data for {asked}", asked=coverage["asked"])],
        evidence=[tr(language, "read: {file}", file=f) for f in files],
        pending_effects=[tr(language, "none: nothing was run")],
        language=language,
    )
