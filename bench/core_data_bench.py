"""Benchmark of Norbi Core on the user's own data: does it read what it is given, and what does Core itself cost?

Part 1, the seed's five commands on user-supplied data (15 cases: tests/core/test_commands.py's `COMMANDS`, in
English, Polish and Russian). For each case the script generates the user's own data into a temporary folder, with
a seeded random, never the bundled sample files (other content, so other digests):

  schedule    employees.csv, demand.csv, vacations.csv, rules.json derived from the bundled ones with other names
              and ids, some contract hours, costs and demand changed, and the bundled deliberate data problems left
              out (an employee without competences, vacations of an unknown employee, a reversed and an
              overlapping vacation)
  incident    a render job log (job_id, date, host, renderer_version, scene, resolution, frames, cache_hit,
              duration_s) over November, with a slowdown (a new renderer version on most jobs) from a seeded day,
              under a name other than render_jobs.csv
  notes       three conversation transcripts (en, pl, ru; other titles, people and dates), one without a date in
              its file name
  candidate   the bundled application's source tree with report.py and data/items.json changed and a test file
              added
  alarms      a camera alarm log (id, ts, camera, zone, type, confidence, note) for the day before the pinned
              "now" and the day before that, with repeats; in Polish as two files (one per day)

Each request goes through Norbi Core with no model, as a user would give it: `Norbi(app, bundled_workflows(),
clock=PinnedClock(AS_OF), workdir=<folder>)` on a fresh home, the data given as `IntentEnvelope(data=(folder,))`, a
waiting plan approved as `human:bench`. Printed per case: the workflow chosen, the outcome, whether the report's
evidence (its lines starting with "read" or "given" in the request's language) names every file given by its
sha256 prefix and no bundled sample file, and the headline, checked against what the generator made: alarms
(alarms on the day, duplicates merged and events needing a human, simulated from the generated rows), schedule
(the month and the variant count, no data problem), incident (the change day and the hypothesis count), notes (the
latest transcript's title and date), candidate (files copied and tests run, counted in the generated tree).

Part 2, Core's own overhead per request without a model, excluding the workflow's work: for each run, the wall time
of `receive` (+ `approve`) minus the time spent inside operations (the union over the run's nodes of [tool.call
`at`, tool.result `at`] from its journal; the sum is printed too, it differs when nodes run in parallel), over
--reps repetitions. The baseline, measured in the same run right after each request: appending as many events as
the conversation stream holds (its own kinds and payloads, one append per event, as Core's tap does) to a fresh
SQLite journal (`SQLiteStore.append(stream, [Draft], expect=n)`). The ratio says how much of Core's overhead is its
own logic rather than durable journaling.

The script needs no network and never reads the calendar: Core's clock is pinned at the demo's date, and
ALICORN_NOW pins the runtime's default clock to it too; durations come from time.perf_counter. It asserts nothing.

    .venv/bin/python bench/core_data_bench.py                    # 15 cases x 3 repetitions, about 1-2 minutes
    .venv/bin/python bench/core_data_bench.py --quick            # one repetition
    .venv/bin/python bench/core_data_bench.py --commands alarms,notes --langs en --reps 5 --show-reports
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import math
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from core_bench import source_version  # the same record of the checkout as the Core bench

ROOT = Path(__file__).resolve().parent.parent
AUTHOR = "human:bench"
LANGUAGES = ("en", "pl", "ru")
COMMAND_NAMES = ("schedule", "incident", "notes", "candidate", "alarms")
#: The evidence line Core writes per file read (alicorn.core.outcome.read_lines); its first word, translated, starts
#: the lines this benchmark reads.
READ_MSGID = "read {input} ({source}): {path}, sha256 {sha}…, {rows} rows, dates {span}"
#: Of several transcripts the run reads the one its parameters name: the evidence says the others were given.
GIVEN_MSGID = "given {input} ({source}): {path}, sha256 {sha}…, dates {span}"
_SHA16 = re.compile(r"sha256 ([0-9a-f]{16})")
_INT = re.compile(r"\d+")


# ---- digests -----------------------------------------------------------------------------------------------------


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def tree_sha256(path: Path) -> str:
    """A folder's digest as Core's input check computes it (alicorn.packs.inputs): every relative path, NUL, and the
    sha256 of its content, in sorted order (rewritten here, so the check does not read Core's own answer)."""
    digest = hashlib.sha256()
    for item in sorted(path.rglob("*")):
        if item.is_file() and not item.is_symlink():
            digest.update(str(item.relative_to(path)).encode() + b"\0" + hashlib.sha256(item.read_bytes()).digest())
    return digest.hexdigest()


def bundled_digests() -> dict[str, str]:
    """sha256 -> name of every bundled sample file (every file under each pack's data folder) and of each bundled
    folder input (its tree digest)."""
    from alicorn.packs.catalog import bundled_workflows

    found: dict[str, str] = {}
    for workflow in bundled_workflows():
        data = workflow.data_dir
        if data is None or not data.is_dir():
            continue
        for item in sorted(data.rglob("*")):
            if item.is_file() and "__pycache__" not in item.parts:
                found[file_sha256(item)] = f"{workflow.id}: {item.relative_to(data)}"
        for want in workflow.inputs:
            if want.format == "tree" and (data / want.file).is_dir():
                found[tree_sha256(data / want.file)] = f"{workflow.id}: {want.file}/ (tree)"
    return found


# ---- the user's data ---------------------------------------------------------------------------------------------


@dataclass
class Given:
    """What the generator wrote for one case: the files (name -> sha256; a folder input by its tree digest) and the
    figures the report must show."""

    folder: Path
    files: dict[str, str]
    expect: dict[str, Any]


def _write_csv(
    path: Path, header: Sequence[str], rows: Sequence[Mapping[str, Any]], kind: str = "", language: str = "en"
) -> None:
    """Rows as the plan's own CSV form, or (`--shape own`, for `kind` alarms or jobs) as a person's spreadsheet of
    `language` would write them (see OWN_SHAPES)."""
    delimiter = ","
    if SHAPE == "own" and kind in OWN_SHAPES:
        delimiter, names, forms = OWN_SHAPES[kind][language]
        rows = [{names.get(k, k): forms.get(k, str)(v) for k, v in row.items() if k in header} for row in rows]
        header = [names.get(h, h) for h in header if not (kind == "alarms" and h == "id")]  # no ids: Core numbers
        rows = [{k: v for k, v in row.items() if k in header} for row in rows]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(header), lineterminator="\n", delimiter=delimiter)
    writer.writeheader()
    for row in rows:
        writer.writerow(row)
    path.write_text(out.getvalue(), encoding="utf-8")


#: `--shape plain` writes the plans' own form; `--shape own` the forms people's files have (main sets it).
SHAPE = "plain"


def _stamp(pattern: str) -> Callable[[Any], str]:
    return lambda value: datetime.fromisoformat(str(value)).strftime(pattern)


def _decimal_comma(value: Any) -> str:
    return str(value).replace(".", ",")


def _words(mapping: Mapping[str, str]) -> Callable[[Any], str]:
    return lambda value: mapping.get(str(value), str(value))


#: Per kind and language: the separator, the header names and how values are written in a person's own file.
OWN_SHAPES: dict[str, dict[str, tuple[str, dict[str, str], dict[str, Callable[[Any], str]]]]] = {
    "alarms": {
        "en": (",", {"ts": "Timestamp", "camera": "Camera", "zone": "Area", "type": "Event Type", "confidence": "Score",
                     "note": "Note"},
               {"ts": _stamp("%Y-%m-%d %H:%M:%S"), "type": _words({"person": "Person", "vehicle": "Car",
                "offline": "Video Loss", "tamper": "Tampering", "light_change": "Light change"})}),
        "pl": (";", {"ts": "Czas", "camera": "Kamera", "zone": "Strefa", "type": "Typ", "confidence": "Pewność",
                     "note": "Uwagi"},
               {"ts": _stamp("%d.%m.%Y %H:%M:%S"), "confidence": _decimal_comma, "type": _words({"person": "osoba",
                "vehicle": "samochód", "animal": "zwierzę", "motion": "ruch", "tamper": "sabotaż",
                "offline": "brak sygnału", "light_change": "zmiana oświetlenia"})}),
        "ru": (";", {"ts": "Время", "camera": "Камера", "zone": "Зона", "type": "Тип", "confidence": "Уверенность",
                     "note": "Примечание"},
               {"ts": _stamp("%d.%m.%Y %H:%M:%S"), "confidence": _decimal_comma, "type": _words({"person": "человек",
                "vehicle": "машина", "animal": "животное", "motion": "движение", "tamper": "саботаж",
                "offline": "нет сигнала", "light_change": "изменение освещения"})}),
    },
    "jobs": {
        "en": (",", {"job_id": "Job", "date": "Started", "duration_s": "Duration"}, {"date": _stamp("%Y-%m-%d 09:%M")}),
        "pl": (";", {"job_id": "Zadanie", "date": "Data", "duration_s": "czas_s"},
               {"date": _stamp("%d.%m.%Y"), "duration_s": _decimal_comma}),
        "ru": (";", {"job_id": "Задача", "date": "Дата", "duration_s": "Секунды"},
               {"date": _stamp("%d.%m.%Y"), "duration_s": _decimal_comma}),
    },
}  # fmt: skip


def _digests(folder: Path, names: Sequence[str]) -> dict[str, str]:
    return {name: file_sha256(folder / name) for name in names}


# alarms --------------------------------------------------------------------------------------------------------

ALARM_COLUMNS = ("id", "ts", "camera", "zone", "type", "confidence", "note")
CAMERAS = (
    ("cam-yard-east", "perimeter"),
    ("cam-dock-3", "restricted"),
    ("cam-server-room", "restricted"),
    ("cam-entrance-b", "public"),
    ("cam-car-park-1", "public"),
    ("cam-fence-west", "perimeter"),
    ("cam-stairs-2", "restricted"),
)
ALARM_TYPES = (
    ("person", 25),
    ("vehicle", 14),
    ("animal", 10),
    ("motion", 20),
    ("light_change", 15),
    ("tamper", 5),
    ("offline", 4),
)
ALARM_NOTES = ("", "", "", "wind in the trees", "delivery van", "night guard round", "cleaning crew, floor 2",
               "rain on the lens", "cat on the wall", "badge reader beeps, door held open")  # fmt: skip
#: The alarms template's defaults (alicorn.packs.alarms.workflow.AlarmParameters): the seed's words set neither.
MIN_CONFIDENCE, WINDOW_S = 0.6, 300


def make_alarms(folder: Path, rng: random.Random, language: str, today: date) -> Given:
    days = [today - timedelta(days=2), today - timedelta(days=1)]
    kinds, weights = zip(*ALARM_TYPES, strict=True)
    rows: list[dict[str, Any]] = []
    for day in days:
        for _ in range(rng.randint(26, 44)):
            moment = datetime.combine(day, datetime.min.time()) + timedelta(seconds=rng.randrange(86_400))
            camera, zone = rng.choice(CAMERAS)
            kind = rng.choices(kinds, weights)[0]
            confidence = round(rng.uniform(0.2, 0.99), 2)
            rows.append({"ts": moment, "camera": camera, "zone": zone, "type": kind, "confidence": confidence})
            while rng.random() < 0.22 and moment.date() == day:  # the camera fires again: a repeat to merge
                moment += timedelta(seconds=rng.randint(15, 290))
                if moment.date() == day:
                    rows.append({**rows[-1], "ts": moment, "confidence": round(rng.uniform(0.2, 0.99), 2)})
    rows.sort(key=lambda r: r["ts"])
    first_id = rng.randint(20_000, 90_000)
    for i, row in enumerate(rows):
        row["id"] = first_id + i
        row["note"] = rng.choice(ALARM_NOTES)
    written = [{**r, "ts": r["ts"].strftime("%Y-%m-%dT%H:%M:%S")} for r in rows]
    if language == "pl":  # two files, one per day: Core reads both and merges them
        names = [f"kamery-{d.isoformat()}.csv" for d in days]
        for name, day in zip(names, days, strict=True):
            of_day = [r for r in written if r["ts"].startswith(day.isoformat())]
            _write_csv(folder / name, ALARM_COLUMNS, of_day, "alarms", language)
    else:
        names = ["camera-log.csv" if language == "en" else "журнал-камер.csv"]
        _write_csv(folder / names[0], ALARM_COLUMNS, written, "alarms", language)
    return Given(folder, _digests(folder, names), {"day": days[1].isoformat(), **_triage(rows, days[1])})


def _triage(rows: Sequence[Mapping[str, Any]], day: date) -> dict[str, int]:
    """What the alarms plan must find for `day`: its alarms, repeats merged (same camera and type within WINDOW_S of
    the last kept one), and events needing a human (tamper or offline; a confident person or vehicle outside public
    zones at night)."""
    of_day = sorted((r for r in rows if r["ts"].date() == day), key=lambda r: r["ts"])
    last: dict[tuple[str, str], datetime] = {}
    kept = []
    for r in of_day:
        key = (r["camera"], r["type"])
        if key in last and (r["ts"] - last[key]).total_seconds() <= WINDOW_S:
            continue
        last[key] = r["ts"]
        kept.append(r)

    def needs_human(r: Mapping[str, Any]) -> bool:
        night = r["ts"].hour < 7 or r["ts"].hour >= 20
        confident = r["type"] in ("person", "vehicle") and r["confidence"] >= MIN_CONFIDENCE
        return r["type"] in ("tamper", "offline") or (confident and r["zone"] != "public" and night)

    return {"alarms": len(of_day), "merged": len(of_day) - len(kept), "need_human": sum(map(needs_human, kept))}


# schedule ------------------------------------------------------------------------------------------------------

STAFF_NAMES = (
    "Ewa Jabłońska", "Rafał Krawczyk", "Svetlana Orlova", "Grzegorz Pawlak", "Łukasz Michalski", "Nikolai Fedorov",
    "Monika Król", "Bartosz Wieczorek", "Tatiana Morozova", "Adam Jankowski", "Joanna Wróbel", "Yuri Belov",
    "Beata Stępień", "Krzysztof Górski", "Alina Zaitseva",
)  # fmt: skip


def make_schedule(folder: Path, rng: random.Random, language: str, today: date) -> Given:
    from alicorn.packs.schedule import DATA_DIR

    with (DATA_DIR / "employees.csv").open(encoding="utf-8") as f:
        employees = list(csv.DictReader(f))
    prefix = rng.choice(("W", "ST", "K"))
    base = rng.randint(100, 800)
    ids = {row["id"]: f"{prefix}{base + i}" for i, row in enumerate(employees)}
    changed_hours = set(rng.sample(range(len(employees)), 3))
    out = []
    for i, row in enumerate(employees):
        competences = row["competences"] or "picker;first_aid"  # the bundled export's E15 has none
        hours = float(row["contract_hours"])
        if i in changed_hours:
            hours = {40.0: 36.0, 32.0: 40.0, 24.0: 32.0}.get(hours, hours)
        cost = round(float(row["hourly_cost"]) * rng.uniform(0.95, 1.12), 2)
        out.append({"id": ids[row["id"]], "name": STAFF_NAMES[i], "competences": competences,
                    "contract_hours": f"{hours:g}", "hourly_cost": f"{cost:.2f}"})  # fmt: skip
    _write_csv(folder / "employees.csv", ("id", "name", "competences", "contract_hours", "hourly_cost"), out)

    with (DATA_DIR / "vacations.csv").open(encoding="utf-8") as f:
        vacations = list(csv.DictReader(f))
    kept_vacations: list[dict[str, str]] = []
    taken: dict[str, list[tuple[date, date]]] = {}
    for row in vacations:
        first, last = date.fromisoformat(row["from"]), date.fromisoformat(row["to"])
        spans = taken.setdefault(row["employee"], [])
        if row["employee"] not in ids or last < first or any(first <= b and a <= last for a, b in spans):
            continue  # the bundled problems: an unknown employee, reversed dates, an overlapping extension
        spans.append((first, last))
        shift = timedelta(days=rng.randint(-2, 2))
        kept_vacations.append({"employee": ids[row["employee"]], "from": (first + shift).isoformat(),
                               "to": (last + shift).isoformat(), "note": ""})  # fmt: skip
    _write_csv(folder / "vacations.csv", ("employee", "from", "to", "note"), kept_vacations)

    with (DATA_DIR / "demand.csv").open(encoding="utf-8") as f:
        demand = list(csv.DictReader(f))
    site = rng.randint(2, 9)
    for row in demand:
        if not row["day"][0].isdigit() and int(row["required"]) > 1 and rng.random() < 0.5:
            row["required"] = str(int(row["required"]) - 1)  # less demand: the month stays coverable
        row["note"] = "" if not row["note"] else f"{row['note'].split(':')[0]} (site {site})"
    _write_csv(folder / "demand.csv", ("day", "shift", "competence", "required", "note"), demand)

    rules = json.loads((DATA_DIR / "rules.json").read_text(encoding="utf-8"))
    rules["name"] = f"Shift rules of distribution centre {rng.randint(2, 9)}, approved on 2026-09-{rng.randint(10, 28)}"
    (folder / "rules.json").write_text(json.dumps(rules, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    month = (today.replace(day=1) + timedelta(days=32)).replace(day=1)
    names = ["employees.csv", "demand.csv", "vacations.csv", "rules.json"]
    return Given(folder, _digests(folder, names), {"month": f"{month:%Y-%m}", "variants": 3, "data_issues": 0})


# incident ------------------------------------------------------------------------------------------------------

SCENES = {"street": 520.0, "kitchen": 440.0, "harbor": 560.0, "mountain": 610.0, "studio": 400.0}
RESOLUTIONS = {"1080p": 1.0, "1440p": 1.3}


def make_incident(folder: Path, rng: random.Random, language: str, today: date) -> Given:
    first = date(today.year, today.month, 2)
    days = [first + timedelta(days=i) for i in range(26)]
    slow_from = days[rng.randint(10, 16)]
    minor = rng.randint(1, 4)
    old, new = f"7.{minor}", f"7.{minor + 1}"
    rows, number = [], rng.randint(1000, 5000)
    for day in days:
        for _ in range(rng.randint(9, 13)):
            number += 1
            scene = rng.choice(list(SCENES))
            resolution = rng.choices(list(RESOLUTIONS), (7, 3))[0]
            frames = rng.choice((200, 220, 240, 250, 300))
            cache = rng.random() < 0.6
            version = new if day >= slow_from and rng.random() < 0.9 else old
            seconds = SCENES[scene] * RESOLUTIONS[resolution] * frames / 250 * (0.85 if cache else 1.0)
            seconds *= (1.7 if version == new else 1.0) * math.exp(rng.gauss(0, 0.05))
            rows.append({"job_id": f"RJ-{number:05d}", "date": day.isoformat(), "host": f"farm-{rng.randint(1, 8):02d}",
                         "renderer_version": version, "scene": scene, "resolution": resolution, "frames": frames,
                         "cache_hit": "true" if cache else "false", "duration_s": f"{seconds:.1f}"})  # fmt: skip
    name = {"en": "farm-jobs.csv", "pl": "zadania-farmy.csv", "ru": "farm-log-november.csv"}[language]
    header = ("job_id", "date", "host", "renderer_version", "scene", "resolution", "frames", "cache_hit", "duration_s")
    _write_csv(folder / name, header, rows, "jobs", language)
    return Given(folder, _digests(folder, [name]), {"split_date": slow_from.isoformat(), "hypotheses": 3})


# notes ---------------------------------------------------------------------------------------------------------

PEOPLE = {
    "en": (("olivia", "Olivia Grant"), ("sam", "Sam Okafor"), ("priya", "Priya Nair"), ("tom", "Tom Becker")),
    "pl": (("ewa", "Ewa Zając"), ("tomek", "Tomasz Bielski"), ("ola", "Aleksandra Nowicka"), ("jan", "Jan Kruk")),
    "ru": (("sveta", "Светлана Белова"), ("igor", "Игорь Титов"), ("anna", "Анна Лебедева"),
           ("kirill", "Кирилл Орлов")),
}  # fmt: skip
TITLES = {
    "en": ("Quarterly cost review", "Supplier review", "Office move kickoff"),
    "pl": ("Przegląd magazynu", "Inwentaryzacja grudniowa", "Zwroty i reklamacje"),
    "ru": ("Закупки на декабрь", "Обзор поставщиков", "Планирование закупок"),
}


def _script(language: str, names: Sequence[str]) -> list[tuple[int, str]]:
    """(speaker index, sentence): a meeting with decisions, commitments, a request by name and an open question."""
    third = names[2].split()[0]
    if language == "en":
        return [
            (0, "Hello everyone, let's start. Today we review the costs of the quarter."),
            (1, "The invoices came in yesterday; we are about ten percent over plan."),
            (0, "Then we decided: we freeze new spending until the end of the month."),
            (1, "I'll send the revised budget by Friday."),
            (0, f"{third}, can you prepare the supplier comparison by December 4?"),
            (2, "Sure, I'll have it ready."),
            (3, "I will check the contract terms with our lawyers on Monday."),
            (0, "Whether we renegotiate the cleaning contract is still an open question."),
            (2, "I will update the forecast sheet before the next meeting."),
            (0, "Thanks everyone, I'll circulate the notes."),
        ]
    if language == "pl":
        return [
            (0, "Dzień dobry, zaczynamy. Tematem jest stan magazynu po inwentaryzacji."),
            (1, "Inwentaryzacja wykazała braki w trzech regałach."),
            (0, "Ustaliliśmy więc: inwentaryzację powtarzamy w sobotę."),
            (1, "Przygotuję zestawienie braków do poniedziałku."),
            (0, f"{third}, sprawdź proszę, ile palet mamy jeszcze na stanie."),
            (2, "Dobrze, zrobię to do środy."),
            (0, "Czy zamawiamy nowe wózki, to otwarta kwestia."),
            (1, "Zadzwonię do dostawcy wózków w czwartek."),
            (0, "Decyzja: do końca miesiąca nie przyjmujemy zwrotów bez protokołu."),
            (0, "Dziękuję wszystkim, roześlę notatkę jutro."),
        ]
    return [
        (0, "Коллеги, добрый день. Сегодня обсуждаем закупки на декабрь."),
        (1, "Поставщик подтвердил новые цены с первого декабря."),
        (0, "Хорошо. Решили: закупку бумаги переносим на январь."),
        (1, "Я подготовлю сравнение поставщиков до пятницы."),
        (0, f"{third}, пожалуйста, обнови таблицу остатков."),
        (2, "Хорошо, сделаю это завтра."),
        (0, "Кто будет отвечать за приёмку, пока не ясно."),
        (2, "Я проверю договор с перевозчиком до десятого декабря."),
        (0, "Спасибо всем, протокол пришлю сегодня вечером."),
    ]


def _transcript(language: str, title: str, day: date, rng: random.Random) -> dict[str, Any]:
    people = PEOPLE[language]
    company = {"en": "brightfield", "pl": "magazynex", "ru": "zakupki-sever"}[language]
    participants = []
    for i, (ident, name) in enumerate(people):
        at = f"{day.isoformat()}T09:{i + 1:02d}:{rng.randint(0, 59):02d}Z"
        processing = not (language == "en" and i == 3)  # one participant in English did not consent to processing
        participants.append({"id": ident, "name": name, "email": f"{ident}@{company}.example",
                             "consent": {"recording": True, "processing": processing, "consent_at": at}})  # fmt: skip
    segments, clock = [], 0.0
    for speaker, text in _script(language, [n for _, n in people]):
        length = round(1.5 + len(text) / 14 + rng.uniform(0, 1), 1)
        segments.append({"speaker": people[speaker][0], "start_s": round(clock, 1), "end_s": round(clock + length, 1),
                         "text": text, "confidence": round(rng.uniform(0.86, 0.97), 2)})  # fmt: skip
        clock += length + round(rng.uniform(0.3, 0.9), 1)
    return {"title": title, "date": day.isoformat(), "language": language,
            "source": {"recording": f"{day.isoformat()}-meeting.ogg", "asr": "bench generator"},
            "agenda": [title], "participants": participants, "segments": segments}  # fmt: skip


#: `--shape own`: the form each language's transcripts are written in (WebVTT, SubRip, typed minutes).
OWN_TRANSCRIPTS = {"en": "vtt", "pl": "srt", "ru": "txt"}
#: `--shape own`: the answer to Core's consent question (in English, the fourth person did not consent).
CONSENT_ANSWERS = {"en": "yes, except {fourth}", "pl": "tak, wszyscy", "ru": "да, все согласились"}


def _clock(seconds: float, comma: bool = False) -> str:
    whole = int(seconds)
    text = f"{whole // 3600:02d}:{whole % 3600 // 60:02d}:{whole % 60:02d}.{round(seconds % 1 * 1000):03d}"
    return text.replace(".", ",") if comma else text


def _as_written(doc: Mapping[str, Any], kind: str) -> str:
    """A generated transcript as a `.vtt` (voices), an `.srt` ("Name: words") or typed minutes ("[hh:mm:ss] Name:
    words"), with no consent and no confidence: what such files hold."""
    names = {p["id"]: p["name"] for p in doc["participants"]}
    lines = ["WEBVTT", ""] if kind == "vtt" else [f"{doc['title']}, {doc['date']}"] if kind == "txt" else []
    for number, seg in enumerate(doc["segments"], start=1):
        who, text = names[seg["speaker"]], seg["text"]
        if kind == "vtt":
            lines += [f"{_clock(seg['start_s'])} --> {_clock(seg['end_s'])}", f"<v {who}>{text}", ""]
        elif kind == "srt":
            timing = f"{_clock(seg['start_s'], True)} --> {_clock(seg['end_s'], True)}"
            lines += [str(number), timing, f"{who}: {text}", ""]
        else:
            lines.append(f"[{_clock(seg['start_s'])[:8]}] {who}: {text}")
    return "\n".join(lines) + "\n"


def make_notes(folder: Path, rng: random.Random, language: str, today: date) -> Given:
    """A transcript in each language, and a second one in the request's language: Core takes the newest one in the
    request's language (alicorn.packs.notes.slots._latest), so that is the one the report must be about."""
    langs = [*LANGUAGES, language]
    days = rng.sample([today - timedelta(days=d) for d in range(2, 15)], len(langs))
    if language == "pl" and days[1] < days[3]:  # the newest Polish transcript is the one without a date in its name
        days[1], days[3] = days[3], days[1]
    titles = {lang: rng.sample(TITLES[lang], langs.count(lang)) for lang in LANGUAGES}
    stems = {"en": ("costs", "follow-up"), "ru": ("zakupki", "postavki")}
    meta: list[tuple[date, str, str]] = []
    names = []
    for lang, day in zip(langs, days, strict=True):
        k = len([m for m in meta if m[2] == lang])
        title = titles[lang][k]
        doc = _transcript(lang, title, day, rng)
        # The first Polish file's name has no date: Core names it by the transcript's date when it stages it.
        name = ("przeglad.json", f"{day.isoformat()}-dostawy.json")[k] if lang == "pl" else (
            f"{day.isoformat()}-{stems[lang][k]}.json")  # fmt: skip
        if SHAPE == "own":  # as meeting tools and people write transcripts: captions, subtitles, typed minutes
            name = f"{day.isoformat()}-{stems.get(lang, ('przeglad', 'dostawy'))[k]}.{OWN_TRANSCRIPTS[lang]}"
            title = name[11:].rsplit(".", 1)[0]
            (folder / name).write_text(_as_written(doc, OWN_TRANSCRIPTS[lang]), encoding="utf-8")
        else:
            (folder / name).write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        names.append(name)
        meta.append((day, title, lang))
    newest = max(m for m in meta if m[2] == language)
    return Given(
        folder,
        _digests(folder, names),
        {"title": newest[1], "date": newest[0].isoformat(), "newest_of_all": max(meta)[0].isoformat()},
    )


# candidate -----------------------------------------------------------------------------------------------------

ITEMS = (("HINGE-40", "Door hinge 40 mm"), ("SCREW-4X20", "Wood screw 4x20"), ("GLUE-PVA", "PVA glue 1 l"),
         ("TAPE-50", "Masking tape 50 m"), ("CLAMP-150", "F-clamp 150 mm"), ("BLADE-24T", "Saw blade 24T"),
         ("DOWEL-8", "Dowel 8 mm"))  # fmt: skip
EXTRA_TEST = '''"""Added by the user: the item count line of the report."""

import unittest

from ..config import Config
from ..inventory import Inventory
from ..models import Item
from ..report import money, render


class ItemCountTest(unittest.TestCase):
    def test_money_pads_cents(self) -> None:
        self.assertEqual(money(1205, "EUR"), "12.05 EUR")

    def test_report_counts_items(self) -> None:
        stock = Inventory([Item("A-1", "a", 1, 100), Item("B-2", "b", 9, 5)])
        config = Config(name="Shop", demo=False, currency="EUR", low_stock_threshold=5, data_file="x.json")
        self.assertIn("Items: 2", render(stock, config))
'''


def make_candidate(folder: Path, rng: random.Random, language: str, today: date) -> Given:
    from alicorn.packs.candidate import WORKFLOW

    assert WORKFLOW.data_dir is not None
    app = folder / "app"
    shutil.copytree(WORKFLOW.data_dir / "app", app, ignore=shutil.ignore_patterns("__pycache__"))
    items = [
        {"sku": sku, "name": name, "quantity": rng.randint(0, 600), "unit_price_cents": rng.randint(15, 2500)}
        for sku, name in rng.sample(ITEMS, rng.randint(4, 7))
    ]
    (app / "data" / "items.json").write_text(json.dumps(items, indent=1) + "\n", encoding="utf-8")
    report = app / "stockroom" / "report.py"
    text = report.read_text(encoding="utf-8")
    marker = '    lines = [title, "=" * len(title)]\n'
    if marker not in text:
        raise SystemExit(f"the bundled {report.name} changed; update make_candidate")
    report.write_text(text.replace(marker, marker + '    lines.append(f"Items: {len(inventory.items())}")\n'))
    (app / "stockroom" / "tests" / "test_item_count.py").write_text(EXTRA_TEST, encoding="utf-8")
    files = [p for p in app.rglob("*") if p.is_file()]
    return Given(folder, {"app/ (tree)": tree_sha256(app)}, {"files": len(files), "tests": _own_tests(app)})


def _own_tests(app: Path) -> int:
    """Run the generated app's suite on a copy (so no cache lands in the tree given to Core): it must pass, or a
    failed candidate would be this generator's fault; returns how many tests it ran."""
    with tempfile.TemporaryDirectory(prefix="core-data-bench-app-") as tmp:
        copy = Path(tmp) / "app"
        shutil.copytree(app, copy)
        done = subprocess.run(
            [sys.executable, "-m", "unittest", "discover"],
            cwd=copy,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
            timeout=120,
        )
    ran = re.search(r"^Ran (\d+) tests?", done.stderr, re.M)
    if done.returncode != 0 or ran is None:
        raise SystemExit(f"the generated app's own tests fail; fix make_candidate:\n{done.stderr[-2000:]}")
    return int(ran.group(1))


MAKERS: dict[str, Callable[[Path, random.Random, str, date], Given]] = {
    "schedule": make_schedule,
    "incident": make_incident,
    "notes": make_notes,
    "candidate": make_candidate,
    "alarms": make_alarms,
}


# ---- one request through Core ------------------------------------------------------------------------------------


@dataclass
class Case:
    command: str
    language: str
    text: str
    workflow: str
    given: Given


@dataclass
class Outcome:
    """One request's result, and its timings."""

    command: str
    language: str
    workflow: str | None = None
    outcome: str | None = None
    headline: str = ""
    question: str | None = None
    named: int = 0
    given: int = 0
    bundled_named: list[str] = field(default_factory=list)
    other_named: int = 0
    figures_ok: bool | None = None
    figures: str = ""
    report_text: str = ""
    wall_s: float = 0.0
    ops_union_s: float = 0.0
    ops_sum_s: float = 0.0
    conversation_events: int = 0
    run_events: int = 0
    floor_s: float = 0.0
    floor_all_s: float = 0.0
    error: str | None = None

    @property
    def read_given(self) -> bool:
        return self.given > 0 and self.named == self.given and not self.bundled_named

    @property
    def overhead_s(self) -> float:
        return self.wall_s - self.ops_union_s


def run_case(case: Case, homes: Path, workdir: Path, bundled: Mapping[str, str], rep: int) -> Outcome:
    from alicorn.app import open_app
    from alicorn.clock import PinnedClock
    from alicorn.core.conversation import fold
    from alicorn.core.intake import IntentEnvelope
    from alicorn.core.norbi import Norbi
    from alicorn.demo import AS_OF
    from alicorn.packs.catalog import bundled_workflows
    from alicorn.testing.people import enrol

    result = Outcome(case.command, case.language, given=len(case.given.files))
    home = homes / f"{case.command}-{case.language}-{rep}"
    app = open_app(home)
    try:
        enrol(app, AUTHOR)  # the person who approves what waits (a candidate build runs code): an enrolled approver
        core = Norbi(app, bundled_workflows(), clock=PinnedClock(AS_OF), workdir=workdir)
        envelope = IntentEnvelope(utterance=case.text, author=AUTHOR, data=(str(case.given.folder),))
        started = time.perf_counter()
        try:
            turn = core.receive(envelope)
            consent = (fold(app.store.read(turn.conversation)).questions or [{}])[-1].get("consent")
            if turn.question is not None and consent:  # captions record no consent: the person answers Core
                fourth = PEOPLE[case.language][3][1].split()[0]
                answer = CONSENT_ANSWERS[case.language].format(fourth=fourth)
                turn = core.reply(turn.conversation, answer, by=AUTHOR)
            for _ in range(3):  # a replan may wait for a human again
                if turn.phase != "waiting":
                    break
                turn = core.approve(turn.conversation, by=AUTHOR)
        except Exception as exc:  # a crash of Core is a finding, not the end of the benchmark
            result.wall_s = time.perf_counter() - started
            result.error = f"{type(exc).__name__}: {exc}"[:400]
            return result
        result.wall_s = time.perf_counter() - started
        events = app.store.read(turn.conversation)
        state = fold(events)
        result.workflow = (state.workflow or {}).get("workflow")
        result.outcome = turn.report.outcome if turn.report else turn.phase
        result.question = turn.question
        result.conversation_events = len(events)
        union, total, count = _operation_time(app, state.runs)
        result.ops_union_s, result.ops_sum_s, result.run_events = union, total, count
        if turn.report is not None:
            report = turn.report
            result.headline = report.headline
            result.report_text = report.text()
            _read_evidence(result, report.evidence, report.language, case.given.files, bundled)
            result.figures_ok, result.figures = check_figures(case, report)
        floors = home.parent / f"floor-{case.command}-{case.language}-{rep}"
        result.floor_s = journal_floor(floors / "conversation", events)
        run_events = [e for run in state.runs for e in app.store.read(run)]
        result.floor_all_s = journal_floor(floors / "all", [*events, *run_events])
    finally:
        app.close()
    return result


def _instant(at: str) -> float:
    from alicorn.clock import parse_time

    return parse_time(at).timestamp()


def _operation_time(app: Any, runs: Sequence[str]) -> tuple[float, float, int]:
    """Seconds inside operations over the conversation's runs: the union of every node attempt's [tool.call `at`,
    tool.result `at`] interval, their plain sum, and the runs' event count."""
    intervals: list[tuple[float, float]] = []
    count = 0
    for run in runs:
        events = app.store.read(run)
        count += len(events)
        calls: dict[tuple[str, int], float] = {}
        for e in events:
            key = (str(e.data.get("node")), int(e.data.get("attempt") or 0))
            if e.kind == "tool.call":
                calls[key] = _instant(e.at)
            elif e.kind == "tool.result" and key in calls and e.data.get("via") != "human":
                intervals.append((calls.pop(key), _instant(e.at)))
    total = sum(end - start for start, end in intervals)
    union, reach = 0.0, -math.inf
    for start, end in sorted(intervals):
        if end > reach:
            union += end - max(start, reach)
            reach = end
    return union, total, count


def journal_floor(folder: Path, events: Sequence[Any]) -> float:
    """Seconds to append `events` (their kinds, times and payloads) one per append to a fresh SQLite journal."""
    from alicorn.journal.events import Draft
    from alicorn.journal.sqlite import SQLiteStore

    folder.mkdir(parents=True, exist_ok=True)
    store = SQLiteStore(folder / "journal.db")
    drafts = [Draft(e.kind, e.at, e.data) for e in events]
    try:
        started = time.perf_counter()
        for n, draft in enumerate(drafts):
            store.append("conv-floor", [draft], expect=n)
        return time.perf_counter() - started
    finally:
        store.close()


def read_prefixes(language: str) -> tuple[str, ...]:
    """How the evidence lines that name the data begin in `language` ("read …", "given …")."""
    from alicorn.i18n import tr_marked

    marker = "\x00"
    values = {"input": marker, "source": "", "path": "", "sha": "", "rows": "", "span": ""}
    return tuple(tr_marked(language, m, **values).split(marker)[0] for m in (READ_MSGID, GIVEN_MSGID))


def _read_evidence(
    result: Outcome, evidence: Sequence[str], language: str, given: Mapping[str, str], bundled: Mapping[str, str]
) -> None:
    prefixes = read_prefixes(language)
    named = {m for line in evidence if line.startswith(prefixes) for m in _SHA16.findall(line)}
    wanted = {sha[:16] for sha in given.values()}
    bundled16 = {sha[:16]: name for sha, name in bundled.items()}
    result.named = len(wanted & named)
    result.bundled_named = sorted(bundled16[s] for s in named if s in bundled16)
    result.other_named = len(named - wanted - set(bundled16))


def check_figures(case: Case, report: Any) -> tuple[bool | None, str]:
    """Whether the report's figures match what the generator made (None: nothing to check), and what was compared."""
    expect, headline, metrics = case.given.expect, report.headline, report.metrics
    numbers = [int(n) for n in _INT.findall(headline)]
    if case.command == "alarms":
        want = [expect["need_human"], expect["alarms"], expect["merged"]]
        ok = numbers[:3] == want
        return ok, (
            f"{expect['day']}: {expect['alarms']} alarms, {expect['merged']} merged, {expect['need_human']} need a "
            f"human (generated); the headline's numbers {numbers[:3]}"
        )
    if case.command == "schedule":
        variants = metrics.get("variants")
        count = len(variants) if isinstance(variants, list) else None
        got = (metrics.get("month"), count, metrics.get("data_issues"))
        want = (expect["month"], expect["variants"], expect["data_issues"])
        ok = got == want and bool(numbers) and numbers[0] == expect["variants"]
        return ok, f"month, variants, data problems: expected {want}, report {got}; headline starts {numbers[:1]}"
    if case.command == "incident":
        got = (metrics.get("split_date"), metrics.get("hypotheses"))
        want = (expect["split_date"], expect["hypotheses"])
        lines = sum(1 for line in report.result if line.count(":") >= 1)
        ok = got == want and expect["split_date"] in headline and lines >= expect["hypotheses"]
        return ok, f"change day, hypotheses: expected {want}, report {got}"
    if case.command == "notes":
        ok = expect["title"] in headline and expect["date"] in headline
        return ok, (
            f"newest transcript in the request's language: “{expect['title']}” ({expect['date']}; the newest of all "
            f"is dated {expect['newest_of_all']})"
        )
    if case.command == "candidate":
        tests_line = next((line for line in report.result if "/" not in line and len(_INT.findall(line)) == 5), "")
        tests = [int(n) for n in _INT.findall(tests_line)]
        got = (numbers[-1] if numbers else None, tests[-1] if tests else None)
        want = (expect["files"], expect["tests"])
        return got == want, f"files copied, tests run: expected {want}, report {got}"
    return None, ""


# ---- the run -----------------------------------------------------------------------------------------------------


def seed_commands() -> dict[str, tuple[str, str | None, dict[str, str]]]:
    sys.path.insert(0, str(ROOT))
    from tests.core.test_commands import COMMANDS

    return COMMANDS


def make_cases(commands: Sequence[str], languages: Sequence[str], work: Path, seed: int, today: date) -> list[Case]:
    spec = seed_commands()
    cases = []
    for command in commands:
        for language in languages:
            folder = work / f"{command}-{language}"
            folder.mkdir(parents=True)
            rng = random.Random(seed * 1000 + COMMAND_NAMES.index(command) * 10 + LANGUAGES.index(language))
            given = MAKERS[command](folder, rng, language, today)
            cases.append(Case(command, language, spec[command][2][language], spec[command][0], given))
    return cases


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def _ms(seconds: float) -> str:
    return f"{1000 * seconds:.1f}"


def print_part1(cases: Sequence[Case], rows: Sequence[Outcome], bundled: Mapping[str, str], show: bool) -> None:
    print("\n== 1. The seed's commands on the user's own data (Core, no model)")
    print(f"bundled sample digests known: {len(bundled)} (every file under the packs' data folders, and the app tree)")
    print(f"{'command':<10}{'lang':<5}{'workflow':<11}{'outcome':<14}{'evidence':<26}{'figures':<9}headline")
    for case, r in zip(cases, rows, strict=True):
        wrong = "" if r.workflow == case.workflow else " ✗"
        evidence = f"{r.named}/{r.given} named, {len(r.bundled_named)} bundled"
        if r.other_named:
            evidence += f", {r.other_named} other"
        figures = "-" if r.figures_ok is None else ("ok" if r.figures_ok else "NO")
        headline = r.headline or (f"(asked) {r.question}" if r.question else "")
        print(
            f"{case.command:<10}{case.language:<5}{(r.workflow or 'none') + wrong:<11}{r.outcome or '-':<14}"
            f"{evidence:<26}{figures:<9}{headline[:110]}"
        )
        print(f"    given: {', '.join(f'{n} {s[:16]}' for n, s in case.given.files.items())}")
        if r.figures:
            print(f"    figures: {r.figures}")
        if r.bundled_named:
            print(f"    bundled files named: {', '.join(r.bundled_named)}")
        if r.error:
            print(f"    error: {r.error}")
        if show or (r.report_text and (not r.read_given or r.figures_ok is False)):
            print("    " + r.report_text.replace("\n", "\n    ")[:3000])
    n = len(rows)
    read = sum(r.read_given for r in rows)
    checked = [r for r in rows if r.figures_ok is not None]
    right = sum(bool(r.figures_ok) for r in checked)
    outcomes = Counter(r.outcome or "error" for r in rows)
    templates = sum(r.workflow == c.workflow for c, r in zip(cases, rows, strict=True))
    print(f"\nread the given data (every file named in the evidence, no bundled file): {read}/{n}")
    print(f"figures matching the generated data: {right}/{n} ({len(checked)} checkable)")
    print(f"right workflow: {templates}/{n}; outcomes: {', '.join(f'{k} {v}' for k, v in sorted(outcomes.items()))}")
    errors = [r for r in rows if r.error]
    if errors:
        print(f"Core raised in {len(errors)} case(s)")


def print_part2(cases: Sequence[Case], reps: Sequence[Sequence[Outcome]]) -> dict[str, Any]:
    print(f"\n== 2. Core's own overhead per request (no model), {len(reps)} repetition(s), medians in ms")
    print(
        f"{'command':<10}{'lang':<5}{'wall':>9}{'ops':>9}{'ops sum':>9}{'overhead':>10}{'conv ev':>9}{'floor':>8}"
        f"{'ratio':>7}{'run ev':>8}{'floor+run':>11}"
    )
    overheads, floors, floors_all, ratios = [], [], [], []
    for i, case in enumerate(cases):
        runs = [rep[i] for rep in reps if rep[i].error is None]
        if not runs:
            print(f"{case.command:<10}{case.language:<5}  (every repetition raised)")
            continue
        overheads += [r.overhead_s for r in runs]
        floors += [r.floor_s for r in runs]
        floors_all += [r.floor_all_s for r in runs]
        ratios += [r.overhead_s / r.floor_s for r in runs if r.floor_s > 0]
        keys = ("wall_s", "ops_union_s", "ops_sum_s", "overhead_s", "floor_s", "floor_all_s")
        med = {k: statistics.median(getattr(r, k) for r in runs) for k in keys}
        ratio = med["overhead_s"] / med["floor_s"] if med["floor_s"] else 0.0
        print(
            f"{case.command:<10}{case.language:<5}{_ms(med['wall_s']):>9}{_ms(med['ops_union_s']):>9}"
            f"{_ms(med['ops_sum_s']):>9}{_ms(med['overhead_s']):>10}{runs[0].conversation_events:>9}"
            f"{_ms(med['floor_s']):>8}{ratio:>6.1f}x{runs[0].run_events:>8}{_ms(med['floor_all_s']):>11}"
        )
    if not overheads:
        return {}
    overhead, floor, floor_all = (statistics.median(v) for v in (overheads, floors, floors_all))
    summary = {
        "requests": len(overheads),
        "overhead_median_ms": round(1000 * overhead, 2),
        "overhead_p95_ms": round(1000 * percentile(overheads, 95), 2),
        "floor_median_ms": round(1000 * floor, 2),
        "ratio_of_medians": round(overhead / floor, 2),
        "median_of_ratios": round(statistics.median(ratios), 2) if ratios else None,
        "floor_with_run_events_median_ms": round(1000 * floor_all, 2),
    }
    print(
        f"\nCore's overhead per request (wall of receive+approve minus time inside operations), {summary['requests']} "
        f"requests: median {summary['overhead_median_ms']} ms, p95 {summary['overhead_p95_ms']} ms"
    )
    print(
        "baseline, same run: appending the conversation's events (same kinds and payloads, one append each) to a "
        f"fresh SQLite journal: median {summary['floor_median_ms']} ms"
    )
    print(
        f"overhead / floor: {summary['ratio_of_medians']}x (ratio of the medians; median of the per-request ratios "
        f"{summary['median_of_ratios']}x)"
    )
    print(
        f"for scale (not the baseline): the conversation's and its runs' events, one append each: median "
        f"{summary['floor_with_run_events_median_ms']} ms ({overhead / floor_all:.1f}x); the runtime commits a run's "
        "events once per node, so this over-counts the run's journaling"
    )
    print(
        "ops: union of the nodes' [tool.call at, tool.result at] intervals (ops sum: their plain sum, larger when "
        "nodes ran in parallel); the overhead holds Core's steps, Anvil's checks, the executor and the run's journaling"
    )
    return summary


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--reps", type=int, default=None, help="repetitions of the 15 requests (default 3; --quick 1)")
    parser.add_argument("--quick", action="store_true", help="one repetition")
    parser.add_argument("--langs", default=",".join(LANGUAGES), help="comma-separated: en,pl,ru")
    parser.add_argument("--commands", default=",".join(COMMAND_NAMES), help="comma-separated")
    parser.add_argument("--seed", type=int, default=7, help="seed of the data generators (default 7)")
    parser.add_argument("--show-reports", action="store_true", help="print every report (failed ones always are)")
    parser.add_argument("--keep", type=Path, help="keep the generated data and the homes in this (new) folder")
    parser.add_argument("--json", type=Path, help="also write every figure to this JSON file")
    parser.add_argument(
        "--shape",
        choices=("plain", "own"),
        default="plain",
        help="plain: the logs in the plans' own CSV form; own: as people's spreadsheets write them (their own "
        "headers, ';' and decimal commas in pl/ru, day-first or spaced dates, alarm types in words, no alarm ids)",
    )
    args = parser.parse_args(argv)
    if args.reps is None:
        args.reps = 1 if args.quick else 3
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    global SHAPE
    SHAPE = args.shape
    from alicorn.clock import PIN_VARIABLE, format_time
    from alicorn.demo import AS_OF

    os.environ[PIN_VARIABLE] = format_time(AS_OF)  # the runtime's default clock: pinned too, never the calendar
    commands = [c for c in args.commands.split(",") if c]
    languages = [lang for lang in args.langs.split(",") if lang]
    unknown = [c for c in commands if c not in COMMAND_NAMES] + [x for x in languages if x not in LANGUAGES]
    if unknown:
        raise SystemExit(f"unknown command(s) or language(s): {', '.join(unknown)}")
    print(
        f"Norbi Core on the user's own data; {platform.machine()}, {os.cpu_count()} cores, python "
        f"{platform.python_version()}; alicorn {source_version()}"
    )
    print(f"pinned now: {AS_OF.isoformat()}; seed {args.seed}; repetitions {args.reps}; no model, no network")
    if args.keep:
        args.keep.mkdir(parents=True)  # a new folder: never write into someone's files
    base = args.keep or Path(tempfile.mkdtemp(prefix="core-data-bench-"))
    started = time.perf_counter()
    try:
        work, homes = base / "work", base / "homes"
        bundled = bundled_digests()
        cases = make_cases(commands, languages, work / "data", args.seed, AS_OF.date())
        homes.mkdir(parents=True)
        for case in {c.command: c for c in cases}.values():  # warm-up: imports, first-time costs; untimed
            run_case(case, homes / "warm-up", work, bundled, 0)
        reps = [[run_case(c, homes, work, bundled, rep) for c in cases] for rep in range(args.reps)]
        print_part1(cases, reps[0], bundled, args.show_reports)
        changed = [
            f"{c.command} {c.language}"
            for i, c in enumerate(cases)
            if len({(rep[i].outcome, rep[i].headline) for rep in reps}) > 1
        ]
        if changed:
            print(f"outcome or headline differed between repetitions for: {', '.join(changed)}")
        summary = print_part2(cases, reps)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    print(f"\nwhole benchmark: {time.perf_counter() - started:.0f} s (data generation and warm-up included)")
    if args.json:
        out = {
            "source": source_version(),
            "as_of": AS_OF.isoformat(),
            "args": {k: str(v) for k, v in vars(args).items()},
            "cases": [
                {"command": c.command, "language": c.language, "files": c.given.files, "expect": c.given.expect}
                for c in cases
            ],
            "repetitions": [[{**asdict(r), "report_text": None} for r in rep] for rep in reps],
            "overhead": summary,
        }
        args.json.write_text(json.dumps(out, ensure_ascii=False, indent=1, default=str) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
