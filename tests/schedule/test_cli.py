"""`alicorn schedule …` and `alicorn scheduler` as a user types them (the day pinned by tests/conftest.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli._support import assert_clean, fast_invocations, invoke


@pytest.fixture(autouse=True)
def _fast(monkeypatch: pytest.MonkeyPatch) -> None:
    fast_invocations(monkeypatch)


def _ids(home: Path) -> list[str]:
    result = invoke(home, "schedule", "list", "--json")
    assert result.exit_code == 0, result.output
    return [s["id"] for s in json.loads(result.output)["schedules"]]


def test_add_list_show_pause_resume_remove(tmp_path: Path) -> None:
    home = tmp_path / "home"
    added = invoke(home, "schedule", "add", "summarise the weekend's alarms", "--cron", "0 8 * * 1",
                   "--zone", "Europe/Warsaw", "--allow", "local_write", "--json")  # fmt: skip
    assert added.exit_code == 0, added.output
    data = json.loads(added.output)
    sid = data["id"]
    assert data["allow"] == ["none", "read", "local_write"] and data["status"] == "active"
    assert [s["local"] for s in data["next"]] == [
        "2026-12-07 08:00 CET", "2026-12-14 08:00 CET", "2026-12-21 08:00 CET", "2026-12-28 08:00 CET",
        "2027-01-04 08:00 CET"]  # fmt: skip
    assert _ids(home) == [sid]
    shown = invoke(home, "schedule", "show", sid)
    assert_clean(shown)
    assert "cron '0 8 * * 1' in Europe/Warsaw" in shown.output and "next 5 slot(s) in Europe/Warsaw" in shown.output
    assert "2026-12-07 08:00 CET  (2026-12-07T07:00:00Z)" in shown.output
    listed = invoke(home, "schedule", "list")
    assert f"{sid}  active" in listed.output
    assert "paused" in invoke(home, "schedule", "pause", sid, "--reason", "holiday").output
    again = invoke(home, "schedule", "pause", sid)
    assert again.exit_code == 1 and "already paused" in again.output
    assert "active" in invoke(home, "schedule", "resume", sid).output
    removed = invoke(home, "schedule", "remove", sid, "--json")
    assert json.loads(removed.output)["status"] == "removed" and json.loads(removed.output)["next"] == []


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--cron", "61 * * * *"], "--cron '61 * * * *' is not a valid cron rule"),
        (["--cron", "0 8 * *"], "has 4 field(s)"),
        (["--every", "0m"], "--every '0m' is zero"),
        (["--every", "-15m"], "is negative"),
        (["--cron", "0 8 * * *", "--zone", "Europe/Nowhere"], "--zone 'Europe/Nowhere' is not an IANA time zone"),
        (["--at", "2027-03-28T02:30", "--zone", "Europe/Warsaw"], "does not exist in Europe/Warsaw"),
        (["--at", "2026-01-01T08:00"], "its time has passed"),
        (["--cron", "0 8 * * *", "--every", "1h"], "give exactly one of --cron"),
        ([], "give exactly one of --cron"),
        (["--cron", "0 8 * * *", "--overlap", "both"], "--overlap 'both': choose skip, queue-one, cancel-previous"),
        (["--cron", "0 8 * * *", "--catch-up", "every"], "--catch-up 'every'"),
        (["--cron", "0 8 * * *", "--allow", "external_transmission"], "only an enrolled approver"),
        (["--cron", "0 8 * * *", "--allow", "teleport"], "allow"),
        (["--cron", "0 8 * * *", "--project", "Bad Name"], "project"),
        (["--cron", "0 8 * * *", "--active-hours", "9-17"], "--active-hours '9-17'"),
        (["--every", "100000d"], "every 100000d in UTC has no slot in the next 400 days"),
        (["--every", "3000000d"], "every 3000000d in UTC has no slot in the next 400 days"),
        (["--every", "99999999d"], "every 99999999d in UTC has no slot in the next 400 days"),
        (["--every", "9" * 5000 + "d"], "has more than 9 digits"),
    ],
)
def test_bad_input_is_one_sentence_and_journals_nothing(tmp_path: Path, args: list[str], said: str) -> None:
    home = tmp_path / "home"
    result = invoke(home, "schedule", "add", "check the alarms", *args)
    assert_clean(result)
    assert result.exit_code == 1 and said in result.output, result.output
    assert "nothing was journaled" in result.output
    assert _ids(home) == []


def test_a_forbidden_effect_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "alicorn.toml").write_text('[anvil]\nforbidden = ["publication"]\n', encoding="utf-8")
    result = invoke(home, "schedule", "add", "post it", "--cron", "0 8 * * *", "--allow", "publication")
    assert result.exit_code == 1 and "--allow publication: this home forbids that effect" in result.output
    assert _ids(home) == []


def test_unknown_ids_are_named(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for command in ("show", "pause", "resume", "remove", "run-now"):
        result = invoke(home, "schedule", command, "sch-nope")
        assert_clean(result)
        assert result.exit_code == 1 and "no schedule 'sch-nope'" in result.output, (command, result.output)


def test_run_now_and_the_scheduler_hand_firings_to_core(tmp_path: Path) -> None:
    home = tmp_path / "home"
    sid = json.loads(invoke(home, "schedule", "add", "hello", "--every", "1m", "--json").output)["id"]
    fired = invoke(home, "schedule", "run-now", sid, "--json")
    assert fired.exit_code == 0, fired.output
    conversation = json.loads(fired.output)["conversation"]
    ran = invoke(home, "scheduler", "--ticks", "1", "--max-poll", "0.01")
    assert ran.exit_code == 0 and "after 1 tick(s)" in ran.output, ran.output
    shown = json.loads(invoke(home, "schedule", "show", sid, "--json").output)
    assert shown["recent"][-1]["conversation"] == conversation and shown["recent"][-1]["started"] is True
    assert shown["recent"][-1]["trigger"]["schedule"] == sid


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--max-poll", "inf", "--ticks", "1"], "Invalid value for '--max-poll': inf is not a number of seconds"),
        (["--max-poll", "nan", "--ticks", "1"], "Invalid value for '--max-poll': nan"),
        (["--max-poll", "-1", "--ticks", "1"], "Invalid value for '--max-poll': -1"),
        (["--max-poll", "0", "--ticks", "1"], "Invalid value for '--max-poll': 0"),
        (["--max-poll", "1e300", "--ticks", "1"], "give a positive number up to 86400 (a day)"),
        (["--ticks", "-1"], "Invalid value for '--ticks': -1 is not in the range x>=1"),
        (["--ticks", "0"], "Invalid value for '--ticks': 0 is not in the range x>=1"),
    ],
)
def test_the_schedulers_options_are_checked_before_anything_runs(tmp_path: Path, args: list[str], said: str) -> None:
    home = tmp_path / "home"
    result = invoke(home, "scheduler", *args, env={"COLUMNS": "300"})
    assert_clean(result)
    assert result.exit_code == 2 and said in result.output, result.output  # a usage error, as `worker --poll` gives
    assert not home.exists()


def test_the_heartbeat_is_added_shown_by_project_and_fired_to_its_probes_not_to_core(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("ALICORN_NOW", "2026-12-01T08:00:00Z")
    added = invoke(home, "schedule", "heartbeat", "default", "--every", "15m", "--json")
    assert added.exit_code == 0, added.output
    data = json.loads(added.output)
    assert data["id"] == "heartbeat-default" and data["heartbeat"]["ticks"] == 0
    twice = invoke(home, "schedule", "heartbeat", "default")
    assert_clean(twice)
    assert twice.exit_code == 1 and "has a heartbeat already" in twice.output
    monkeypatch.setenv("ALICORN_NOW", "2026-12-01T08:31:00Z")  # two slots missed: catch-up "last" looks once
    ran = invoke(home, "scheduler", "--ticks", "1", "--max-poll", "0.01")
    assert ran.exit_code == 0, ran.output
    shown = invoke(home, "schedule", "show", "heartbeat:default", "--json")
    looks = json.loads(shown.output)
    assert looks["fired"] == 1 and looks["heartbeat"]["ticks"] == 1 and looks["heartbeat"]["model_calls"] == 0
    conversation = looks["recent"][-1]["conversation"]
    assert invoke(home, "journal", conversation).exit_code != 0  # the probes looked: no request went to Core
    text = invoke(home, "schedule", "show", "heartbeat:default")
    assert "heartbeat of default: 1 look(s), 0 model call(s)" in text.output
    missing = invoke(home, "schedule", "show", "heartbeat:nope")
    assert missing.exit_code == 1 and "add one with `alicorn schedule heartbeat nope --every 15m`" in missing.output
