"""`alicorn models` as typed: list, route (explained, deciding as `alicorn ask` does: [roles] pins, --model),
classify; bad profile files give a clear error."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from alicorn.cli import app
from alicorn.clock import PinnedClock
from alicorn.context.tap import JournalTap
from alicorn.core.access import configured_models
from alicorn.core.routing import RoleClients
from alicorn.core.world import read_world
from alicorn.journal.memory import InMemoryStore

runner = CliRunner()


def test_list_profiles_json() -> None:
    result = runner.invoke(app, ["models", "--json", "--home", "/nonexistent-home"])
    assert result.exit_code == 0, result.output
    assert "smollm2-135m" in {p["id"] for p in json.loads(result.stdout)}


def test_route_explains_every_candidate() -> None:
    result = runner.invoke(app, ["models", "route", "planner", "--home", "/nonexistent-home"])
    assert result.exit_code == 0, result.output
    assert "picked" in result.stdout and "held_back external-large" in result.stdout


def test_route_json_when_nothing_fits(tmp_path: Path) -> None:
    path = tmp_path / "models.json"
    only_external = {
        "id": "ext",
        "provider": "openai_compatible",
        "model": "m",
        "endpoint": "https://x.example/v1",
        "location": "external",
        "languages": ["en"],
        "reasoning": 3,
        "context_length": 100000,
        "seed": True,
        "structured_output": "json_schema",
        "privacy": "third_party",
        "licence": "x",
    }
    path.write_text(json.dumps({"profiles": [only_external]}))
    refused = runner.invoke(app, ["models", "route", "planner", "--profiles", str(path), "--json"])
    assert refused.exit_code == 1 and json.loads(refused.stdout)["pick"] is None
    allowed = runner.invoke(
        app, ["models", "route", "planner", "--profiles", str(path), "--allow-external", "--justification", "evals"]
    )
    assert allowed.exit_code == 0 and "picked    ext" in allowed.stdout


def test_bad_profile_file(tmp_path: Path) -> None:
    path = tmp_path / "models.toml"
    path.write_text("[[profiles]]\nid = 'x'\n")
    result = runner.invoke(app, ["models", "--profiles", str(path)])
    assert result.exit_code == 1 and "profiles[0] (id 'x').provider" in result.output


def test_classify() -> None:
    result = runner.invoke(app, ["models", "classify", "Zbuduj demo i zatrzymaj się przed instalacją."])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["kind"], data["language"], data["forbidden"]) == ("task", "pl", ["installation"])


@pytest.mark.parametrize("text", ["", "   ", "\n\t "])
def test_classify_refuses_an_empty_request_as_ask_does(text: str) -> None:
    result = runner.invoke(app, ["models", "classify", text])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.exception
    assert "the request is empty; say what you want done" in result.stderr and "Traceback" not in result.output


# ---- `models route` decides as `alicorn ask` does: [roles] pins and --model ------------------------------------


def _profile(pid: str, *, reasoning: int, context: int, external: bool = False) -> dict[str, object]:
    return {
        "id": pid,
        "provider": "openai_compatible",
        "model": "m",
        "endpoint": "https://x.example/v1" if external else "http://127.0.0.1:9/v1",
        "location": "external" if external else "local",
        "languages": ["en", "pl"],
        "reasoning": reasoning,
        "context_length": context,
        "seed": True,
        "structured_output": "json_schema",
        "privacy": "third_party" if external else "self_hosted",
        "licence": "x",
    }


def _home(tmp_path: Path, roles: dict[str, str]) -> Path:
    """A home whose models.toml holds a small and a big local profile, an external one, and `roles` as [roles]."""
    home = tmp_path / "home"
    home.mkdir()
    tables = [
        _profile("small", reasoning=0, context=2048),
        _profile("big", reasoning=3, context=32768),
        _profile("ext", reasoning=3, context=100000, external=True),
    ]
    lines = []
    for table in tables:
        lines.append("[[profiles]]")
        lines += [f"{key} = {json.dumps(value)}" for key, value in table.items()]
    if roles:
        lines.append("[roles]")
        lines += [f"{role} = {json.dumps(pid)}" for role, pid in roles.items()]
    (home / "models.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return home


def test_route_shows_a_models_toml_pin_as_the_pick(tmp_path: Path) -> None:
    home = _home(tmp_path, {"planner": "small"})
    result = runner.invoke(app, ["models", "route", "planner", "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("role planner: picked small")  # the router alone would pick big
    assert "forced by models.toml [roles] planner = small; used although context 2048 < 8192" in result.stdout
    assert "held_back big (local): not considered: models.toml [roles] planner = small is forced" in result.stdout
    record = json.loads(runner.invoke(app, ["models", "route", "planner", "--home", str(home), "--json"]).stdout)
    assert (record["pick"], record["forced"]) == ("small", "small")
    assert record["reason"].startswith("forced by models.toml [roles] planner = small")


def test_route_says_why_a_pinned_profile_cannot_be_used(tmp_path: Path) -> None:
    home = _home(tmp_path, {"researcher": "ext"})
    refused = runner.invoke(app, ["models", "route", "researcher", "--home", str(home)])
    assert refused.exit_code == 1 and "Traceback" not in refused.output
    assert "no model profile may be used for role 'researcher'" in refused.output
    assert "it is external and this project's policy allows no external providers" in refused.output
    assert f"remove `researcher = 'ext'` from [roles] in {home / 'models.toml'}" in refused.output
    as_json = runner.invoke(app, ["models", "route", "researcher", "--home", str(home), "--json"])
    assert as_json.exit_code == 1 and json.loads(as_json.stdout)["pick"] is None
    allowed = runner.invoke(app, ["models", "route", "researcher", "--home", str(home), "--allow-external"])
    assert allowed.exit_code == 0 and allowed.stdout.startswith("role researcher: picked ext"), allowed.output


def test_route_of_an_unpinned_role_is_the_routers_pick(tmp_path: Path) -> None:
    home = _home(tmp_path, {"planner": "small"})
    result = runner.invoke(app, ["models", "route", "decision", "--home", str(home), "--json"])
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["pick"] == "big" and "forced" not in record
    outcomes = {c["profile"]: (c["outcome"], c["reasons"][0]) for c in record["candidates"]}
    assert outcomes["big"] == ("picked", "best local fit")
    assert outcomes["small"][0] == "rejected"


def test_route_model_forces_one_profile_and_an_unknown_one_is_refused(tmp_path: Path) -> None:
    home = _home(tmp_path, {"planner": "small"})
    forced = runner.invoke(app, ["models", "route", "planner", "--home", str(home), "--model", "big"])
    assert forced.exit_code == 0 and "picked    big (local): forced by --model big" in forced.stdout, forced.output
    unknown = runner.invoke(app, ["models", "route", "planner", "--home", str(home), "--model", "nope"])
    assert unknown.exit_code == 1 and "Traceback" not in unknown.output
    assert (
        "--model 'nope': no such profile in" in unknown.output and "known profiles: small, big, ext" in unknown.output
    )


def test_route_of_an_unknown_role_names_the_known_ones(tmp_path: Path) -> None:
    result = runner.invoke(app, ["models", "route", "astrologer", "--home", str(_home(tmp_path, {}))])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "unknown role 'astrologer'; known roles: assistant, classifier, decision" in result.output


def test_route_refuses_a_pin_of_an_unknown_role_as_ask_does(tmp_path: Path) -> None:
    result = runner.invoke(app, ["models", "route", "planner", "--home", str(_home(tmp_path, {"astrologer": "big"}))])
    assert result.exit_code == 1 and "[roles] names unknown role 'astrologer'" in result.output


@pytest.mark.parametrize("role", ["planner", "researcher", "decision", "classifier"])
def test_route_journals_nothing_but_shows_what_ask_journals(tmp_path: Path, role: str) -> None:
    """The record `alicorn models route --json` prints is the `model.routed` event `alicorn ask` journals."""
    home = _home(tmp_path, {"planner": "small", "researcher": "ext"})
    shown = json.loads(runner.invoke(app, ["models", "route", role, "--home", str(home), "--json"]).stdout)
    store = InMemoryStore()
    clients = RoleClients(configured_models(home), lambda: read_world(store))
    clients.get(role, ("en",), JournalTap(store, "conv-x", PinnedClock(datetime(2026, 1, 5, tzinfo=UTC))))
    (routed,) = [e.data for e in store.read("conv-x") if e.kind == "model.routed"]
    assert shown == routed
    assert not (home / "journal.db").exists()
