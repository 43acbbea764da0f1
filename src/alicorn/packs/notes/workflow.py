"""The notes template: from a recorded conversation to a note, a task list and a draft reply; sending only on request.

    read ─► extract ─┬► note ──► save_note           (workspace.write_file: conversation-note.md)
                     └► draft ─► save_draft ─► send  (send only when `send_reply` and external transmission is
                                                      not forbidden; it writes the workspace's outbox/)

`artifact_of` gathers the run's outputs into the `conversation` artifact (quality, speakers, consents, tasks, note,
draft, whether anything was sent; segment texts are left out of it), which `validate_conversation` checks against
`criteria(params)`. `summarize` turns artifact and report into the lines, figures and conflicts a person reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from alicorn.i18n import N_, tr, tr_marked, trn
from alicorn.ops.workspace import WRITE_FILE
from alicorn.packs.notes.compose import DRAFT_REPLY, WRITE_NOTE
from alicorn.packs.notes.send import SEND_REPLY
from alicorn.packs.notes.slots import NotesParams
from alicorn.packs.notes.tasks import EXTRACT_TASKS
from alicorn.packs.notes.transcript import READ_TRANSCRIPT
from alicorn.packs.workflow import BuiltPlan, LeftOut, ResultSummary
from alicorn.plan.dsl import Check, EffectClass, Node, StopCondition
from alicorn.runtime.state import RunState
from alicorn.validate.base import ValidationReport

NOTE_PATH = "conversation-note.md"
DRAFT_PATH = "reply-draft.txt"
#: Below this ASR confidence a segment is low-confidence; the mean must reach it too.
MIN_CONFIDENCE = 0.8

# The effect class of each operation the template uses, as their declarations say.
_EFFECTS: dict[str, EffectClass] = {
    op.name: op.effect for op in (READ_TRANSCRIPT, EXTRACT_TASKS, WRITE_NOTE, DRAFT_REPLY, SEND_REPLY, WRITE_FILE)
}


def _ref(node: str, output: str) -> dict[str, Any]:
    return {"ref": {"node": node, "output": output}}


def _val(value: Any) -> dict[str, Any]:
    return {"value": value}


def _nodes(p: NotesParams) -> list[Node]:
    read = {k: _ref("read", k) for k in ("title", "date", "participants")}
    found = {k: _ref("extract", k) for k in ("tasks", "decisions", "open_questions")}
    specs: list[dict[str, Any]] = [
        {
            "node_id": "read",
            "operation": "notes.read_transcript",
            "description": "Read the conversation, measure its transcription quality, and remove the words of "
            "speakers without consent or identity.",
            "inputs": {"conversation": _val(p.conversation), "min_confidence": _val(MIN_CONFIDENCE)},
            "expected_outputs": ["segments", "participants", "quality", "excluded"],
            "completion": Check(path="quality.segments", op="gte", value=1),
            "critical": True,
            "stop": StopCondition(reason="no readable transcript: there is nothing to take notes from"),
        },
        {
            "node_id": "extract",
            "operation": "notes.extract_tasks",
            "description": "Find tasks (owner, due date, evidence), decisions, open questions and topics.",
            "inputs": {
                "segments": _ref("read", "segments"),
                "participants": _ref("read", "participants"),
                "date": _ref("read", "date"),
                "agenda": _ref("read", "agenda"),
            },
            "expected_outputs": ["tasks", "decisions", "open_questions", "topics"],
        },
        {
            "node_id": "note",
            "operation": "notes.write_note",
            "description": "Render the note; every item cites its segments.",
            "inputs": {
                **read,
                **found,
                "file": _ref("read", "file"),
                "language": _ref("read", "language"),
                "quality": _ref("read", "quality"),
                "excluded": _ref("read", "excluded"),
                "topics": _ref("extract", "topics"),
            },
            "expected_outputs": ["text", "citations"],
            "completion": Check(path="lines", op="gte", value=5),
        },
        {
            "node_id": "draft",
            "operation": "notes.draft_reply",
            "description": "Draft a reply to the consenting participants; a draft only, nothing is sent here.",
            "inputs": {
                **read,
                **found,
                "language": _val(p.reply_language),
                "conversation_language": _ref("read", "language"),
            },
            "expected_outputs": ["to", "subject", "body", "text"],
        },
        {
            "node_id": "save_note",
            "operation": "workspace.write_file",
            "description": "Save the note in the run's workspace.",
            "inputs": {"path": _val(NOTE_PATH), "content": _ref("note", "text")},
            "expected_outputs": ["path", "bytes"],
            "completion": Check(path="bytes", op="gte", value=1),
        },
        {
            "node_id": "save_draft",
            "operation": "workspace.write_file",
            "description": "Save the draft reply in the run's workspace.",
            "inputs": {"path": _val(DRAFT_PATH), "content": _ref("draft", "text")},
            "expected_outputs": ["path", "bytes"],
            "completion": Check(path="bytes", op="gte", value=1),
        },
    ]
    if p.send_reply:
        specs.append(
            {
                "node_id": "send",
                "operation": "notes.send_reply",
                "description": N_("Send the drafted reply to the participants (asked for in the request)."),
                "inputs": {
                    "to": _ref("draft", "to"),
                    "subject": _ref("draft", "subject"),
                    "body": _ref("draft", "body"),
                },
                "expected_outputs": ["message_id", "to"],
                "depends_on": ["save_draft", "save_note"],
            }
        )
    return [Node.model_validate(spec) for spec in specs]


def build(params: BaseModel, forbidden: frozenset[EffectClass]) -> BuiltPlan:
    """The template's nodes for `params`; a node whose effect class is forbidden is left out, with every node that
    needs its output (a node that only waited for it keeps running), and each removal is said in `left_out`."""
    p = params if isinstance(params, NotesParams) else NotesParams.model_validate(params.model_dump())
    nodes = _nodes(p)
    dropped: dict[str, LeftOut] = {}
    for node in nodes:  # in order, so a node's sources are decided before it
        effect = _EFFECTS[node.operation]
        if effect in forbidden:
            dropped[node.node_id] = LeftOut(node.node_id, node.operation, effect=effect)
        elif needs := sorted({r.node for r in node.refs()} & set(dropped)):
            dropped[node.node_id] = LeftOut(node.node_id, node.operation, needs=tuple(needs))
    kept = [
        n.model_copy(update={"depends_on": [d for d in n.depends_on if d not in dropped]})
        for n in nodes
        if n.node_id not in dropped
    ]
    return BuiltPlan(nodes=tuple(kept), left_out=tuple(dropped.values()))


def criteria(params: BaseModel) -> dict[str, Any]:
    """The acceptance criteria of the outcome contract."""
    send = bool(getattr(params, "send_reply", False))
    return {
        "min_confidence": MIN_CONFIDENCE,
        "max_low_confidence_share": 0.25,
        "max_unknown_share": 0.2,
        "require_consent": True,
        "require_tasks": True,
        "send": send,
    }


_SEGMENT_FIELDS = ("index", "speaker", "start_s", "end_s", "confidence", "low_confidence", "redacted", "reason")


def artifact_of(state: RunState) -> dict[str, Any] | None:
    """The conversation artifact from the run's node outputs (None when the transcript was never read)."""

    def out(node_id: str) -> dict[str, Any] | None:
        return state.effective_output(node_id) if node_id in state.nodes else None

    read = out("read")
    if read is None:
        return None
    found = out("extract") or {}
    note, draft, sent = out("note"), out("draft"), out("send")
    saved_note, saved_draft = out("save_note") or {}, out("save_draft") or {}
    return {
        "conversation": {k: read.get(k) for k in ("file", "title", "date", "language")},
        "participants": read.get("participants", []),
        "segments": [{k: s.get(k) for k in _SEGMENT_FIELDS} for s in read.get("segments", [])],
        "quality": read.get("quality"),
        "excluded": read.get("excluded", []),
        "tasks": found.get("tasks", []),
        "decisions": found.get("decisions", []),
        "open_questions": found.get("open_questions", []),
        "topics": found.get("topics", []),
        "note": None
        if note is None
        else {"text": note.get("text", ""), "left_out": note.get("left_out", []), "path": saved_note.get("path")},
        "draft": None
        if draft is None
        else {
            **{k: draft.get(k) for k in ("to", "subject", "body", "language", "status", "not_addressed")},
            "path": saved_draft.get("path"),
        },
        "sent": None if sent is None else {k: sent.get(k) for k in ("message_id", "to", "path")},
    }


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _items(artifact: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
    value = artifact.get(key)
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


#: Why a speaker's words were left out, as the summary says it.
REASON_LABELS = {
    "no recording consent": N_("no recording consent"),
    "no processing consent": N_("no processing consent"),
    "unidentified speaker": N_("unidentified speaker"),
}


def summarize(artifact: Mapping[str, Any] | None, report: ValidationReport, language: str = "en") -> ResultSummary:
    """Headline (tasks, participants, draft state), figures, and conflicts: low-confidence evidence, missing consents,
    tasks without an owner, failed checks; its sentences in `language`."""
    lang = language
    if not isinstance(artifact, Mapping):
        why = report.summary_in(lang)
        return ResultSummary(lines=(tr(lang, "No conversation notes: {why}", why=why),), conflicts=(why,))
    conv = _mapping(artifact.get("conversation"))
    tasks, people = _items(artifact, "tasks"), _items(artifact, "participants")
    segments = {s.get("index"): s for s in _items(artifact, "segments")}
    quality = _mapping(artifact.get("quality"))
    draft, sent = artifact.get("draft"), artifact.get("sent")
    excluded = _items(artifact, "excluded")
    lines = [
        tr(
            lang,
            "{title} ({date}, {language}): {tasks} tasks, {decisions} decisions, {questions} open questions; "
            "{people} participants",
            title=conv.get("title", "?"),
            date=conv.get("date", "?"),
            language=conv.get("language", "?"),
            tasks=len(tasks),
            decisions=len(_items(artifact, "decisions")),
            questions=len(_items(artifact, "open_questions")),
            people=len(people),
        )
    ]
    if isinstance(draft, dict):
        state = (
            tr(lang, "sent ({message})", message=sent.get("message_id"))
            if isinstance(sent, dict)
            else tr(lang, "ready, not sent")
        )
        count = len(draft.get("to") or [])
        lines.append(
            trn(
                lang,
                "Draft reply to {n} participant: {state}",
                "Draft reply to {n} participants: {state}",
                count,
                state=state,
            )
        )
    else:
        lines.append(tr(lang, "No draft reply"))
    if excluded:
        reasons = {k: tr_marked(lang, v) for k, v in REASON_LABELS.items()}
        who = "; ".join(
            f"{e.get('name') or e.get('speaker')} ({reasons.get(str(e.get('reason')), e.get('reason'))})"
            for e in excluded
        )
        lines.append(tr(lang, "Left out: {who}", who=who))
    lines.append(report.summary_in(lang))
    conflicts: list[str] = []
    for task in tasks:
        weak = [i for i in task.get("evidence", []) if segments.get(i, {}).get("low_confidence")]
        if weak:
            shown = ", ".join(f"#{i} ({segments[i].get('confidence')})" for i in weak)
            conflicts.append(
                tr(
                    lang,
                    "{task} rests on low-confidence segments {segments}: check the recording",
                    task=task.get("id"),
                    segments=shown,
                )
            )
        if task.get("owner") is None:
            text = repr(str(task.get("text", ""))[:80])
            conflicts.append(tr(lang, "{task} has no owner: {text}", task=task.get("id"), text=text))
    for person in people:
        if not (person.get("recording") and person.get("processing")):
            name = person.get("name")
            if not person.get("recording"):
                conflicts.append(tr(lang, "{name} did not consent to recording: their words are left out", name=name))
            else:
                conflicts.append(tr(lang, "{name} did not consent to processing: their words are left out", name=name))
    conflicts += [f"{c.title(lang)}: {c.sentence(lang)}" for c in report.failures]
    metrics = {
        "status": report.status,
        "tasks": len(tasks),
        "tasks_without_owner": sum(1 for t in tasks if t.get("owner") is None),
        "decisions": len(_items(artifact, "decisions")),
        "open_questions": len(_items(artifact, "open_questions")),
        "participants": len(people),
        "segments": len(segments),
        "mean_confidence": quality.get("mean_confidence"),
        "low_confidence_share": quality.get("low_confidence_share"),
        "unknown_speakers": len(quality.get("unknown_speakers") or []),
        "excluded_speakers": len(excluded),
        "draft_ready": isinstance(draft, dict),
        "sent": isinstance(sent, dict),
    }
    return ResultSummary(lines=tuple(lines), metrics=metrics, conflicts=tuple(conflicts))
