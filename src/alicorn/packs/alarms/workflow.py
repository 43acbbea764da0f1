"""The camera-alarms template (seed command 5): one day's alarms, duplicates merged, only events that need a human.

Slots: `day` (required; the day the request names, read by `alicorn.periods`: "yesterday", "last night", "wczoraj",
"вчерашние", "29 listopada", an ISO or dd.mm.yyyy date — resolved against the intake time), `min_confidence` for
person/vehicle detections, `window_s` for merging repeats of one camera and type.
The plan uses built-in operations only (read, filter, dedupe, sort, render, save); it has no effect beyond writing
its report into the run's workspace.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from alicorn.i18n import N_, tr, tr_marked, trn
from alicorn.packs.inputs import DataInput
from alicorn.packs.workflow import BuiltPlan, LeftOut, ResultSummary, Workflow
from alicorn.periods import InvalidDate, parse_date_answer
from alicorn.plan.dsl import EffectClass, Node
from alicorn.runtime.state import RunState
from alicorn.validate.base import ValidationReport

DATA = Path(__file__).parent
SECTIONS = ("summary", "events needing a human")


class AlarmParameters(BaseModel):
    """The slots of the alarms template."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    day: Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="the day to analyse, YYYY-MM-DD")]
    min_confidence: float = Field(0.6, ge=0, le=1, description="person/vehicle detections below this are noise")
    window_s: int = Field(300, ge=1, le=3600, description="repeats of one camera and type within this are one event")


_WINDOW = re.compile(r"\b(\d{1,4})\s*(s|sec|seconds?|min|minutes?|minut|мин)\b", re.IGNORECASE)


def extract(text: str, language: str, now: datetime) -> dict[str, Any]:
    """`day` from the day the words name (a date that does not exist is left out); `window_s` from "within 10
    minutes" and the like."""
    found: dict[str, Any] = {}
    try:
        day = parse_date_answer(text, language, now, prefer="past")
    except InvalidDate:
        day = None
    if day is not None:
        found["day"] = day.isoformat()
    if (window := _WINDOW.search(text)) is not None:
        amount = int(window.group(1))
        found["window_s"] = amount if window.group(2).lower().startswith("s") else amount * 60
    return found


#: The alarm types the triage knows, and other ways logs write them (matched ignoring case and separators). An
#: alarm of any other type is shown to a person: what the triage cannot judge, it does not hide.
ALARM_TYPES: dict[str, tuple[str, ...]] = {
    "person": (
        "human",
        "people",
        "pedestrian",
        "intruder",
        "osoba",
        "człowiek",
        "czlowiek",
        "ludzie",
        "человек",
        "люди",
        "нарушитель",
    ),
    "vehicle": (
        "car",
        "truck",
        "van",
        "motorbike",
        "auto",
        "samochód",
        "samochod",
        "pojazd",
        "машина",
        "автомобиль",
        "транспорт",
    ),
    "tamper": (
        "tampering",
        "sabotage",
        "obstructed",
        "lens covered",
        "camera covered",
        "sabotaż",
        "sabotaz",
        "zasłonięta",
        "саботаж",
        "закрыта камера",
    ),
    "offline": (
        "video loss",
        "video lost",
        "signal lost",
        "no signal",
        "disconnected",
        "camera offline",
        "utrata sygnału",
        "brak sygnału",
        "нет сигнала",
        "потеря видео",
        "камера отключена",
    ),
    "animal": ("fox", "cat", "dog", "bird", "deer", "zwierzę", "zwierze", "животное"),
    "motion": ("movement", "motion detected", "ruch", "движение"),
    "light_change": (
        "light",
        "lighting change",
        "headlights",
        "zmiana oświetlenia",
        "свет",
        "изменение освещения",
    ),
}


#: The alarm types the triage knows, as a person reads them (a type it does not know is shown as the log wrote it).
TYPE_LABELS = {
    "person": N_("person"),
    "vehicle": N_("vehicle"),
    "tamper": N_("tampering"),
    "offline": N_("camera offline"),
    "animal": N_("animal"),
    "motion": N_("motion"),
    "light_change": N_("light change"),
}


def type_said(kind: str, language: str) -> str:
    """An alarm's type in `language` ("person" → "osoba", "человек"); English keeps the triage's own names."""
    return tr_marked(language, TYPE_LABELS[kind]) if kind in TYPE_LABELS and language != "en" else kind


def _day_period(day: str) -> tuple[date, date]:
    first = date.fromisoformat(day)
    return first, first + timedelta(days=1)


def _check(path: str, op: str, value: Any) -> dict[str, Any]:
    return {"kind": "check", "path": path, "op": op, "value": value}


def _ref(node: str, output: str) -> dict[str, Any]:
    return {"ref": {"node": node, "output": output}}


def build(params: BaseModel, forbidden: frozenset[EffectClass]) -> BuiltPlan:
    """The nodes for one day; the report is saved only when local writes are allowed."""
    p = AlarmParameters.model_validate(params.model_dump())
    day = datetime.strptime(p.day, "%Y-%m-%d")
    start, end = f"{p.day}T00:00:00", f"{(day + timedelta(days=1)).date().isoformat()}T00:00:00"
    night = {"kind": "any", "of": [_check("ts", "lt", f"{p.day}T07:00:00"), _check("ts", "gte", f"{p.day}T20:00:00")]}
    needs_human = {
        "kind": "any",
        "of": [
            _check("type", "in", ["tamper", "offline"]),
            {"kind": "not", "of": _check("type", "in", list(ALARM_TYPES))},
            {
                "kind": "all",
                "of": [
                    _check("type", "in", ["person", "vehicle"]),
                    _check("confidence", "gte", p.min_confidence),
                    {"kind": "not", "of": _check("zone", "eq", "public")},
                    night,
                ],
            },
        ],
    }
    nodes: list[dict[str, Any]] = [
        {
            "node_id": "load",
            "operation": "data.read_csv",
            "description": "Read the camera alarm log with typed id and confidence columns.",
            "inputs": {"path": {"value": "alarms.csv"}, "columns": {"value": {"id": "int", "confidence": "float"}}},
            "completion": _check("count", "gte", 1),
            "critical": True,
            "stop": {"reason": "no alarm data: nothing to analyse", "when": _check("count", "lt", 1)},
        },
        {
            "node_id": "day",
            "operation": "records.filter",
            "description": f"Keep only the alarms of {p.day}.",
            "inputs": {
                "records": _ref("load", "records"),
                "where": {"value": {"kind": "all", "of": [_check("ts", "gte", start), _check("ts", "lt", end)]}},
            },
        },
        {
            "node_id": "dedupe",
            "operation": "records.dedupe",
            "description": f"Merge repeats of one camera and type within {p.window_s} s.",
            "inputs": {
                "records": _ref("day", "records"),
                "keys": {"value": ["camera", "type"]},
                "window": {"value": {"field": "ts", "seconds": p.window_s}},
                "count_field": {"value": "duplicates"},
            },
        },
        {
            "node_id": "triage",
            "operation": "records.filter",
            "description": "Keep tampering, cameras offline, alarms of a type the triage does not know, and "
            "confident night-time people or vehicles outside public zones.",
            "inputs": {"records": _ref("dedupe", "records"), "where": {"value": needs_human}},
        },
        {
            "node_id": "order",
            "operation": "records.sort",
            "inputs": {"records": _ref("triage", "records"), "by": {"value": ["ts", "id"]}},
        },
        {
            "node_id": "render",
            "operation": "report.render_text",
            "inputs": {
                "title": {"value": f"Camera alarms that need a human: {p.day}"},
                "records": _ref("order", "records"),
                "columns": {"value": ["id", "ts", "camera", "zone", "type", "confidence", "duplicates", "note"]},
                "summary": {"value": {"period": p.day}},
                "stat_1_label": {"value": "alarms in the log"},
                "stat_1": _ref("load", "count"),
                "stat_2_label": {"value": "alarms that day"},
                "stat_2": _ref("day", "count"),
                "stat_3_label": {"value": "duplicates merged"},
                "stat_3": _ref("dedupe", "removed"),
                "stat_4_label": {"value": "need a human"},
                "stat_4": _ref("triage", "count"),
                "empty_message": {"value": f"No alarm on {p.day} needs a human."},
            },
        },
    ]
    left_out: list[LeftOut] = []
    if "local_write" in forbidden:
        left_out.append(LeftOut("save", "workspace.write_file", effect="local_write"))
    else:
        nodes.append(
            {
                "node_id": "save",
                "operation": "workspace.write_file",
                "inputs": {"path": {"value": f"alarms-{p.day}.txt"}, "content": _ref("render", "text")},
            }
        )
    return BuiltPlan(tuple(Node.model_validate(n) for n in nodes), tuple(left_out))


def artifact_of(state: RunState) -> dict[str, Any] | None:
    """The triage report as a document: a summary (counts, sourced from the log) and the events with their ids."""
    outputs = {n: state.effective_output(n) for n in ("load", "day", "dedupe", "triage", "render")}
    if any(outputs[n] is None for n in ("day", "dedupe", "triage", "render")):
        return None
    day, dedupe, triage = outputs["day"] or {}, outputs["dedupe"] or {}, outputs["triage"] or {}
    events = triage.get("records", [])
    summary = (
        f"{day.get('count', 0)} alarms that day; {dedupe.get('removed', 0)} duplicates merged; "
        f"{triage.get('count', 0)} need a human."
    )
    return {
        "title": str((outputs["render"] or {}).get("text", "")).splitlines()[0] if outputs["render"] else "",
        "sections": [
            {"heading": "summary", "text": summary, "sources": ["alarms.csv"]},
            {
                "heading": "events needing a human",
                "text": str((outputs["render"] or {}).get("text", "")),
                "sources": [f"alarm {r.get('id')}" for r in events] or ["alarms.csv"],
            },
        ],
        "events": [
            {k: r.get(k) for k in ("id", "ts", "camera", "zone", "type", "confidence", "duplicates")} for r in events
        ],
        "counts": {
            "day": day.get("count", 0),
            "merged": dedupe.get("removed", 0),
            "kept": dedupe.get("count", 0),
            "need_human": triage.get("count", 0),
        },
    }


def criteria(params: BaseModel) -> dict[str, Any]:
    return {"required_sections": list(SECTIONS), "require_sources": True}


def validate(artifact: Mapping[str, Any] | None, wanted: Mapping[str, Any]) -> ValidationReport:
    from alicorn.validate.document import validate_document

    return validate_document(artifact, wanted)


def summarize(artifact: Mapping[str, Any] | None, report: ValidationReport, language: str = "en") -> ResultSummary:
    """The headline (how many events need a human), then one line per event, in `language`."""
    counts = (artifact or {}).get("counts", {})
    lines = (
        trn(
            language,
            "{n} event needs a human, of {alarms} alarms ({merged} duplicates merged)",
            "{n} events need a human, of {alarms} alarms ({merged} duplicates merged)",
            int(counts.get("need_human", 0)),
            alarms=counts.get("day", 0),
            merged=counts.get("merged", 0),
        ),
    )
    events = (artifact or {}).get("events", [])
    shown = tuple(
        tr(
            language,
            "alarm {id} at {ts}: {type} on {camera} ({zone})",
            id=e.get("id"),
            ts=e.get("ts"),
            type=type_said(str(e.get("type")), language),
            camera=e.get("camera"),
            zone=e.get("zone"),
        )
        + (
            trn(language, ", {n} repeat merged into it", ", {n} repeats merged into it", int(e["duplicates"]))
            if e.get("duplicates")
            else ""
        )
        for e in events
    )
    return ResultSummary((*lines, *shown), dict(counts), ())


WORKFLOW = Workflow(
    id="alarms",
    title=N_("camera alarm triage"),
    summary="analyse one day's camera alarms, merge duplicates, keep only events that need a human",
    artifact="document",
    parameters=AlarmParameters,
    operations=(),
    vocabulary=tuple(
        (
            "cctv tamper camera-alarm alarm-log camera-alert alarmy-z-kamer alarmów-z-kamer "
            "alarmy-kamer тревоги-камер тревог-камер срабатывания-камер видеонаблюден журнал-тревог "
            "тревог-с-камер журнал-охранн powiadom-z-monitoring zdarze-z-kamer alarm-z-monitoring ~alarm ~alert "
            "~monitoring ~тревог ~сигнализац ~срабатыван ~intrusion ~surveillance ~naruszen ~wtargn "
            "~вторжен ~kamer ~camera ~камер ~duplicat ~duplikat ~дубликат ~powtórz ~повтор "
            # sensors and their repeats: "bed-exit sensors … full of repeats", "czujników upadku", "убери дубли"
            "~sensor ~czujnik ~czujk ~датчик ~=repeats ~дубл !alarm-clock "
            "!set-an-alarm !set-alarm !nastaw-alarm !budzik !будильник !поставь-будильник"
        ).split()
    ),
    product_stems=tuple("~alarm ~alert ~тревог ~сигнализац ~срабатыван ~intrusion ~вторжен ~wtargn".split()),
    examples={
        "en": (
            "Analyse yesterday's camera alarms, remove duplicates and show only events that need a human.",
            "Go through the camera alerts from yesterday and tell me which ones someone has to check.",
            "Which CCTV alarms from today need a person to look at them? Skip the duplicates.",
            "Triage the security camera events of 2026-11-29 and drop repeated alerts.",
        ),
        "pl": (
            "Przeanalizuj wczorajsze alarmy z kamer, usuń duplikaty i pokaż tylko zdarzenia wymagające człowieka.",
            "Przejrzyj alarmy z monitoringu z wczoraj i wskaż te, które musi sprawdzić człowiek.",
            "Które alarmy kamer z dzisiaj wymagają reakcji operatora? Pomiń powtórzenia.",
            "Zrób przegląd zdarzeń z kamer bezpieczeństwa i odfiltruj duplikaty alarmów.",
        ),
        "ru": (
            "Проанализируй вчерашние тревоги камер, удали дубликаты и покажи только события, требующие человека.",
            "Разбери вчерашние срабатывания видеонаблюдения и покажи, что должен проверить оператор.",
            "Какие тревоги с камер за сегодня требуют внимания человека? Повторы убери.",
            "Отфильтруй события камер безопасности, убери повторяющиеся тревоги.",
        ),
    },
    data_dir=DATA,
    extract=extract,
    questions={
        "day": {
            "en": "Which day's alarms should I analyse (for example yesterday, or 2026-11-29)?",
            "pl": "Alarmy z którego dnia mam przeanalizować (na przykład wczoraj albo 2026-11-29)?",
            "ru": "Тревоги за какой день проанализировать (например, вчера или 2026-11-29)?",
        }
    },
    build=build,
    artifact_of=artifact_of,
    criteria=criteria,
    validator=validate,
    summarize=summarize,
    inputs=(
        DataInput(
            name="alarms",
            what={
                "en": "a camera alarm log (CSV)",
                "pl": "dziennik alarmów z kamer (CSV)",
                "ru": "журнал тревог камер (CSV)",
            },
            file="alarms.csv",
            format="csv",
            fields=("id", "ts", "camera", "zone", "type", "confidence"),
            span_field="ts",
            aliases={
                "id": ("alarm_id", "event_id", "alarm", "no", "nr", "number", "lp", "номер"),
                "ts": (
                    "timestamp",
                    "time",
                    "datetime",
                    "date_time",
                    "time_stamp",
                    "event_time",
                    "occurred_at",
                    "czas",
                    "data_i_czas",
                    "data_czas",
                    "время",
                    "дата_время",
                    "дата_и_время",
                ),
                "camera": ("cam", "camera_id", "camera_name", "device", "kamera", "камера"),
                "zone": ("area", "location", "region", "strefa", "obszar", "зона", "участок"),
                "type": (
                    "event",
                    "event_type",
                    "kind",
                    "class",
                    "label",
                    "category",
                    "typ",
                    "rodzaj",
                    "zdarzenie",
                    "тип",
                    "событие",
                ),
                "confidence": (
                    "score",
                    "conf",
                    "probability",
                    "certainty",
                    "pewność",
                    "pewnosc",
                    "уверенность",
                    "вероятность",
                ),
            },
            numbered="id",
            values={"type": ALARM_TYPES},
            number_fields=("confidence",),
        ),
    ),
    period=lambda p: _day_period(str(p["day"])),
)
