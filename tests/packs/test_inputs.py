"""A person's CSV as it comes: its own column names, its own way of writing dates, no row numbers. Each candidate is
read strictly against the workflow's declaration (`alicorn.packs.inputs`), and the staged copy is what the plan's
text comparisons need: ISO dates, the fields under their own names."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from alicorn.packs.alarms.workflow import WORKFLOW as ALARMS
from alicorn.packs.incident import WORKFLOW as INCIDENT
from alicorn.packs.inputs import DataInput, inspect, match_header, plain_number, staged_rows
from alicorn.packs.stamps import read_column

ALARM_LOG = ALARMS.inputs[0]
JOB_LOG = INCIDENT.inputs[0]


@pytest.mark.parametrize(
    ("written", "iso"),
    [
        ("2026-12-02", "2026-12-02"),
        ("2026-12-02T01:12:00", "2026-12-02T01:12:00"),
        ("2026-12-02 01:12:00", "2026-12-02T01:12:00"),  # a space sorts before "T": the day filter would drop it
        ("2026-12-02 1:12", "2026-12-02T01:12:00"),
        ("2026-12-02T01:12:00.250Z", "2026-12-02T01:12:00.250Z"),
        ("2026-12-02 01:12:00+0100", "2026-12-02T01:12:00+01:00"),
        ("2026/12/02 23:59", "2026-12-02T23:59:00"),
        ("02.12.2026 01:12", "2026-12-02T01:12:00"),  # day first, dots: sorted as text it would sort by the day
        ("2.12.2026", "2026-12-02"),
        ("1764637920", "2025-12-02T01:12:00Z"),  # Unix seconds, UTC
        ("1764637920123", "2025-12-02T01:12:00.123Z"),
    ],
)
def test_a_date_as_people_write_it_is_read_as_iso(written: str, iso: str) -> None:
    read = read_column([written])
    assert read.ok and read.values == (iso,)
    assert read.rewritten == (iso != written)


def test_slashed_dates_take_their_order_from_the_whole_column() -> None:
    assert read_column(["03/12/2026", "25/12/2026"]).values == ("2026-12-03", "2026-12-25")  # 25 is a day
    assert read_column(["12/03/2026", "12/25/2026"]).values == ("2026-12-03", "2026-12-25")  # 25 is a day again
    ambiguous = read_column(["03/12/2026", "04/12/2026"])
    assert not ambiguous.ok and (ambiguous.bad, ambiguous.row) == ("03/12/2026", 1)
    mixed = read_column(["25/12/2026", "12/25/2026"])
    assert not mixed.ok and "both" in mixed.why


@pytest.mark.parametrize("value", ["31.02.2026", "2026-13-01", "2026-12-02 25:00", "yesterday", "12:30", "123"])
def test_a_value_that_is_not_a_date_is_named_with_its_row(value: str) -> None:
    read = read_column(["2026-12-01", "", value])
    assert not read.ok and (read.bad, read.row, read.why) == (value, 3, "not a date")


def test_a_day_column_drops_the_time_and_blanks_stay_blank() -> None:
    assert read_column(["2026-10-01 14:22", "", "01.10.2026"], days=True).values == ("2026-10-01", "", "2026-10-01")


def test_headers_match_their_fields_by_name_or_alias_ignoring_case_and_separators() -> None:
    header = ["Event Type", "TIME-STAMP", "Camera", "zone", "Score", "note"]
    columns, missing = match_header(header, ALARM_LOG)
    assert columns == {"ts": "TIME-STAMP", "camera": "Camera", "zone": "zone", "type": "Event Type",
                       "confidence": "Score"}  # fmt: skip
    assert missing == []  # `id` may be missing: the staged copy numbers the rows
    own_name_wins = match_header(["time", "ts", "camera", "zone", "type", "confidence", "id"], ALARM_LOG)[0]
    assert own_name_wins["ts"] == "ts"
    assert match_header(["when?", "camera"], ALARM_LOG)[1] == ["ts", "zone", "type", "confidence"]


def test_a_log_of_its_own_shape_is_staged_as_the_plan_reads_it(tmp_path: Path) -> None:
    log = tmp_path / "cams.csv"
    log.write_text(
        "Timestamp,Camera,Area,Event,Score,note\n"
        "02.12.2026 01:12,cam-3,parking,person,0.91,\n"
        "02.12.2026 23:40:05,cam-1,gate,tamper,0.99,lens covered\n",
        encoding="utf-8",
    )
    finding = inspect(log, ALARM_LOG)
    assert finding.fits, finding.problem
    assert (finding.rows, finding.first, finding.last) == (2, date(2026, 12, 2), date(2026, 12, 2))
    assert dict(finding.renamed) == {"Timestamp": "ts", "Camera": "camera", "Area": "zone", "Event": "type",
                                     "Score": "confidence"}  # fmt: skip
    assert (finding.redated, finding.numbered, finding.as_is) == (2, True, False)
    header, rows = staged_rows(log, ALARM_LOG)
    assert header == ["id", "ts", "camera", "zone", "type", "confidence", "note"]
    assert [(r["id"], r["ts"], r["type"]) for r in rows] == [
        ("1", "2026-12-02T01:12:00", "person"),
        ("2", "2026-12-02T23:40:05", "tamper"),
    ]


def test_a_log_already_in_shape_is_staged_byte_for_byte(tmp_path: Path) -> None:
    log = tmp_path / "cams.csv"
    log.write_text("id,ts,camera,zone,type,confidence\n7,2026-12-02T01:12:00,cam-3,parking,person,0.91\n")
    finding = inspect(log, ALARM_LOG)
    assert finding.fits and finding.as_is


@pytest.mark.parametrize(
    ("rows", "says"),
    [
        ("31.11.2026 01:12", "the ts column holds '31.11.2026 01:12' on line 3, which is not a date"),
        ("03/12/2026 01:12", "the ts column's dates ('03/12/2026 01:00', line 2) can be read day first or month"),
    ],
)
def test_dates_that_cannot_be_read_are_a_problem_naming_the_column_and_row(
    tmp_path: Path, rows: str, says: str
) -> None:
    log = tmp_path / "cams.csv"
    first = "03/12/2026 01:00" if "/" in rows else "2026-12-02 01:00"
    log.write_text(f"id,ts,camera,zone,type,confidence\n1,{first},c,z,person,0.9\n2,{rows},c,z,person,0.9\n")
    finding = inspect(log, ALARM_LOG)
    assert finding.problem is not None
    assert says in finding.problem.english(), finding.problem.english()


def test_a_job_log_with_timestamps_in_its_date_column_is_read_by_day(tmp_path: Path) -> None:
    log = tmp_path / "jobs.csv"
    log.write_text("Job,Started,Duration,host\nJ1,2026-10-01 14:22:10,562.8,r1\nJ2,02.10.2026 09:00,480,r2\n")
    finding = inspect(log, JOB_LOG)
    assert finding.fits, finding.problem
    assert (finding.first, finding.last) == (date(2026, 10, 1), date(2026, 10, 2))
    header, rows = staged_rows(log, JOB_LOG)
    assert header == ["job_id", "date", "duration_s", "host"]
    assert [(r["job_id"], r["date"]) for r in rows] == [("J1", "2026-10-01"), ("J2", "2026-10-02")]


def test_an_input_without_aliases_still_needs_its_own_names(tmp_path: Path) -> None:
    plain = DataInput(name="things", what={"en": "things"}, file="things.csv", format="csv", fields=("a", "b"))
    log = tmp_path / "things.csv"
    log.write_text("A,c\n1,2\n")
    finding = inspect(log, plain)
    assert finding.problem is not None and "lacks the column(s) b" in finding.problem.english()


def test_values_are_staged_in_the_plans_words_and_the_unknown_ones_are_counted(tmp_path: Path) -> None:
    log = tmp_path / "cams.csv"
    log.write_text(
        "id,ts,camera,zone,type,confidence\n"
        "1,2026-12-02T01:00:00,c,z,Human,0.9\n"
        "2,2026-12-02T01:01:00,c,z,VIDEO-LOSS,1\n"
        "3,2026-12-02T01:02:00,c,z,person,0.9\n"
        "4,2026-12-02T01:03:00,c,z,loitering,0.9\n"
        "5,2026-12-02T01:04:00,c,z,Loitering,0.9\n"
    )
    finding = inspect(log, ALARM_LOG)
    assert finding.fits and not finding.as_is
    assert finding.revalued == (("type", "Human", "person"), ("type", "VIDEO-LOSS", "offline"))
    assert finding.unknown == (("type", "loitering", 1), ("type", "Loitering", 1))
    _header, rows = staged_rows(log, ALARM_LOG)
    assert [r["type"] for r in rows] == ["person", "offline", "person", "loitering", "Loitering"]


def test_a_spreadsheets_semicolons_and_decimal_commas_are_read(tmp_path: Path) -> None:
    # Excel in Polish or Russian saves "CSV" with ";" between fields and "," as the decimal mark.
    log = tmp_path / "kamery.csv"
    log.write_text(
        "Czas;Kamera;Strefa;Typ;Pewność\n"
        "02.12.2026 01:12;cam-3;parking;osoba;0,91\n"
        "02.12.2026 02:40;cam-1;brama;samochód;75%\n",
        encoding="utf-8",
    )
    finding = inspect(log, ALARM_LOG)
    assert finding.fits, finding.problem
    assert (finding.delimiter, finding.renumbered, finding.as_is) == (";", 2, False)
    header, rows = staged_rows(log, ALARM_LOG)
    assert header == ["id", "ts", "camera", "zone", "type", "confidence"]
    assert [(r["ts"], r["type"], r["confidence"]) for r in rows] == [
        ("2026-12-02T01:12:00", "person", "0.91"),
        ("2026-12-02T02:40:00", "vehicle", "0.75"),
    ]


@pytest.mark.parametrize(
    ("written", "plain"),
    [("0.91", "0.91"), ("0,91", "0.91"), ("91%", "0.91"), ("1 234,5", "1234.5"), ("-0,5", "-0.5"), ("7", "7")],
)
def test_numbers_as_people_write_them(written: str, plain: str) -> None:
    assert plain_number(written) == plain


@pytest.mark.parametrize("value", ["", "abc", "1,234.5", "0.9.1", "%"])
def test_what_is_not_plainly_a_number_is_left_for_the_plans_own_check(value: str) -> None:
    assert plain_number(value) is None


def test_a_table_that_may_be_empty_fits_with_its_header_alone(tmp_path: Path) -> None:
    # "nobody is on vacation": a vacations file with its header alone is data of none, not a question without end;
    # an alarm log with its header alone is still no log
    from alicorn.packs.catalog import bundled_workflows

    inputs = {i.name: i for w in bundled_workflows() for i in w.inputs}
    vacations = tmp_path / "vacations.csv"
    vacations.write_text("employee,from,to\n", encoding="utf-8")
    found = inspect(vacations, inputs["vacations"])
    assert found.problem is None and found.rows == 0
    alarms = tmp_path / "alarms.csv"
    alarms.write_text("id,ts,camera,zone,type,confidence,note\n", encoding="utf-8")
    empty = inspect(alarms, inputs["alarms"])
    assert empty.problem is not None and "header but no rows" in empty.problem.english()


def test_a_file_past_the_plans_own_reader_is_unfit_before_anything_runs(tmp_path: Path) -> None:
    # a 5 MB staff list passed the data check (64 MB), then failed the run with "No schedule to show"
    from alicorn.packs.catalog import bundled_workflows

    inputs = {i.name: i for w in bundled_workflows() for i in w.inputs}
    staff = tmp_path / "employees.csv"
    rows = "".join(f"E{n},Person {n},picker,40,25\n" for n in range(120_000))
    staff.write_text("id,name,competences,contract_hours,hourly_cost\n" + rows, encoding="utf-8")
    found = inspect(staff, inputs["employees"])
    assert found.problem is not None
    said = found.problem.english()
    assert said == "employees.csv is 3.8 MB; the most a workflow reads is 2 MB", said
    assert inputs["alarms"].most_bytes() == 64 * 2**20  # an input without its own limit keeps the workflows'
