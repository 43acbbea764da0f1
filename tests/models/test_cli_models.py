"""`alicorn models` as typed: list, route (explained), classify; bad profile files give a clear error."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from alicorn.cli import app

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
