"""Profile files: TOML and JSON, every problem reported with its location, keys never echoed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from alicorn.models.defaults import DEFAULT_PROFILES, default_profiles
from alicorn.models.errors import ProfileError
from alicorn.models.profiles import load_profiles

GOOD_TOML = """
[[profiles]]
id = "qwen-local"
provider = "openai_compatible"
model = "qwen2.5:7b-instruct"
endpoint = "http://127.0.0.1:11434/v1/"
location = "local"
languages = ["en", "pl", "ru"]
reasoning = 2
context_length = 32768
structured_output = "json_schema"
seed = true
privacy = "on_device"
licence = "Apache-2.0"
"""


def test_toml_and_json_load_the_same(tmp_path: Path) -> None:
    toml_file = tmp_path / "models.toml"
    toml_file.write_text(GOOD_TOML)
    loaded = load_profiles(toml_file)
    json_file = tmp_path / "models.json"
    json_file.write_text(json.dumps({"profiles": [p.model_dump(mode="json") for p in loaded.profiles]}))
    assert load_profiles(json_file) == loaded
    profile = loaded.get("qwen-local")
    assert profile.endpoint == "http://127.0.0.1:11434/v1" and not profile.external


def test_builtin_profiles_are_valid() -> None:
    profiles = default_profiles()
    assert len(profiles.profiles) == len(DEFAULT_PROFILES["profiles"])
    assert {p.location for p in profiles.profiles} == {"local", "external"}


def test_every_problem_is_listed_with_its_location(tmp_path: Path) -> None:
    path = tmp_path / "models.toml"
    path.write_text(
        GOOD_TOML
        + """
[[profiles]]
id = "remote"
provider = "openai_compatible"
model = "big"
location = "external"
languages = ["en"]
context_length = 100
privacy = "on_device"
licence = "x"
speed = "fast"
"""
    )
    with pytest.raises(ProfileError) as info:
        load_profiles(path)
    problems = info.value.problems
    text = str(info.value)
    assert str(path) in text
    assert any(p.startswith("profiles[1] (id 'remote').context_length") for p in problems)
    assert any("profiles[1] (id 'remote').speed: unknown field" in p for p in problems)


def test_consistency_rules(tmp_path: Path) -> None:
    path = tmp_path / "models.toml"
    path.write_text(GOOD_TOML.replace('endpoint = "http://127.0.0.1:11434/v1/"\n', ""))
    with pytest.raises(ProfileError, match="needs `endpoint`"):
        load_profiles(path)
    path.write_text(GOOD_TOML.replace('privacy = "on_device"', 'privacy = "third_party"'))
    with pytest.raises(ProfileError, match="local profile cannot have privacy 'third_party'"):
        load_profiles(path)


def test_a_pasted_key_is_refused_and_never_echoed(tmp_path: Path) -> None:
    key = "sk-proj-abcdefghijklmnopqrstuvwx"
    path = tmp_path / "models.toml"
    path.write_text(GOOD_TOML + f'api_key_env = "{key}"\n')
    with pytest.raises(ProfileError) as info:
        load_profiles(path)
    assert "NAME of an environment variable" in str(info.value) and key not in str(info.value)
    path.write_text(GOOD_TOML + f'api_key = "{key}"\n')
    with pytest.raises(ProfileError) as info:
        load_profiles(path)
    assert "api_key: unknown field" in str(info.value) and key not in str(info.value)


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("models.toml", "[[profiles]\nid = 1", "not valid TOML"),
        ("models.json", "{", "not valid JSON"),
        ("models.toml", 'profiles = "none"', "profiles"),
        ("models.toml", GOOD_TOML + GOOD_TOML, "repeated: qwen-local"),
    ],
)
def test_broken_files(tmp_path: Path, name: str, content: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(ProfileError, match=message):
        load_profiles(path)


def test_missing_and_binary_files(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match="cannot read the file"):
        load_profiles(tmp_path / "absent.toml")
    binary = tmp_path / "models.toml"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ProfileError, match="not UTF-8"):
        load_profiles(binary)


def test_cost() -> None:
    profile = default_profiles().get("external-large")
    assert profile.cost(1000, 500) == pytest.approx(0.0025 + 0.005)
