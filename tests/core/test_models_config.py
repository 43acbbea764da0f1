"""`alicorn ask` gets its models from the home's models.toml, routed per role, over a real loopback HTTP server that
speaks the OpenAI chat-completions API (tests/attacks/servers.py's obedient model): what was chosen and why is
journaled and shown; `--model PROFILE` forces one profile; a server that cannot be reached, a recording that misses
and broken files are each said plainly, and a broken file journals nothing."""

from __future__ import annotations

import json
import socket
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from alicorn.cli import app
from alicorn.clock import PinnedClock
from alicorn.context.tap import JournalTap
from alicorn.core.routing import ModelAccess, RoleClients
from alicorn.core.world import read_world
from alicorn.journal.events import Event
from alicorn.journal.memory import InMemoryStore
from alicorn.journal.sqlite import SQLiteStore
from alicorn.models.errors import ExtraNotInstalledError, ProviderUnavailableError
from alicorn.models.messages import ChatRequest
from alicorn.models.profiles import ModelProfile
from alicorn.models.router import Host
from alicorn.testing.people import act_as
from tests.attacks.servers import ObedientModel
from tests.core.support import AS_OF, samples_as_project_data

runner = CliRunner()
ALARMS = "Analyse yesterday's camera alarms, remove duplicates and show only events that need a human."


@pytest.fixture(autouse=True)
def _ann_at_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    act_as(monkeypatch, "ann")


@pytest.fixture
def server() -> Iterator[ObedientModel]:
    model = ObedientModel(lambda _prompt, _request: [])
    yield model
    model.close()


def profile(pid: str, endpoint: str | None, **overrides: Any) -> str:
    """An ollama-style profile as an operator writes it in models.toml."""
    fields: dict[str, Any] = {
        "id": pid,
        "provider": "openai_compatible",
        "model": "qwen2.5:7b-instruct",
        "endpoint": endpoint,
        "location": "local",
        "languages": ["en", "pl", "ru"],
        "reasoning": 2,
        "code": 2,
        "structured_output": "json_schema",
        "context_length": 32768,
        "seed": True,
        "latency_ms": 600,
        "privacy": "on_device",
        "licence": "Apache-2.0",
        "max_retries": 0,
        "timeout_s": 10,
    }
    fields.update(overrides)
    body = "\n".join(f"{key} = {json.dumps(value)}" for key, value in fields.items() if value is not None)
    return f"[[profiles]]\n{body}\n"


def home_with(tmp_path: Path, *tables: str) -> Path:
    home = samples_as_project_data(tmp_path / "home")
    (home / "models.toml").write_text("\n".join(tables), encoding="utf-8")
    return home


def ask(home: Path, *args: str) -> Any:
    return runner.invoke(app, ["ask", *args, "--no-input", "--home", str(home)])


def events(home: Path) -> list[Event]:
    with SQLiteStore(home / "journal.db", create=False) as store:
        streams = [i.stream for i in store.streams() if i.stream.startswith("conv-")]
        assert len(streams) == 1
        return store.read(streams[0])


def routed(home: Path, role: str) -> list[dict[str, Any]]:
    return [e.data for e in events(home) if e.kind == "model.routed" and e.data["role"] == role]


def nothing_journaled(home: Path) -> bool:
    if not (home / "journal.db").exists():
        return True
    with SQLiteStore(home / "journal.db", create=False) as store:
        return not [i for i in store.streams() if i.stream.startswith("conv-")]


def closed_port() -> str:
    """The endpoint of a loopback port nobody listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


# ---- routed from models.toml ----------------------------------------------------------------------------------------


def test_the_classifier_is_routed_to_the_configured_server_and_the_output_says_why(
    tmp_path: Path, server: ObedientModel
) -> None:
    slow = profile("slow-box", server.endpoint, reasoning=3, code=3, latency_ms=5000)
    home = home_with(tmp_path, profile("ollama-test", server.endpoint), slow)
    result = ask(home, ALARMS)
    assert result.exit_code in (0, 3, 4), result.output
    assert any('"IntentFlags"' in body for body in server.prompts)  # the classifier's question reached the server
    (decision,) = routed(home, "classifier")
    assert decision["pick"] == "ollama-test"
    assert decision["reason"].startswith("best local fit (reasoning 2, code 2, context 32768, local)")
    assert "slow-box rejected: latency 5000 ms > 2000 ms allowed" in decision["reason"]
    out = " ".join(result.output.split())
    assert f"models: {home / 'models.toml'}: 2 profiles, routed per role" in out
    assert "classifier: ollama-test chosen because best local fit" in out
    calls = [e.data for e in events(home) if e.kind == "llm.response"]
    assert calls and {c["profile"]["id"] for c in calls} == {"ollama-test"}


def test_each_role_gets_its_own_pick(tmp_path: Path, server: ObedientModel) -> None:
    """The assistant role asks no latency bound, so the stronger, slower profile wins it; the classifier's bound
    refuses that profile."""
    slow = profile("slow-box", server.endpoint, reasoning=3, code=3, latency_ms=5000)
    home = home_with(tmp_path, profile("ollama-test", server.endpoint), slow)
    result = ask(home, "What is the capital of France?")
    assert result.exit_code == 0, result.output
    assert routed(home, "classifier")[0]["pick"] == "ollama-test"
    assistant = routed(home, "assistant")[0]
    assert assistant["pick"] == "slow-box" and "ollama-test outranked" in assistant["reason"]
    assert "assistant: slow-box chosen because best local fit" in " ".join(result.output.split())


def test_a_role_pinned_in_models_toml_gets_that_profile(tmp_path: Path, server: ObedientModel) -> None:
    slow = profile("slow-box", server.endpoint, latency_ms=5000)
    home = home_with(tmp_path, profile("ollama-test", server.endpoint), slow, '[roles]\nclassifier = "slow-box"\n')
    result = ask(home, ALARMS)
    assert result.exit_code in (0, 3, 4), result.output
    (decision,) = routed(home, "classifier")
    assert decision["pick"] == "slow-box" and decision["forced"] == "slow-box"
    assert "used although latency 5000 ms > 2000 ms allowed" in decision["reason"]
    outcomes = {c["profile"]: c["outcome"] for c in decision["candidates"]}
    assert outcomes == {"slow-box": "picked", "ollama-test": "held_back"}


# ---- --model PROFILE ------------------------------------------------------------------------------------------------


def test_model_profile_forces_one_profile_for_every_role(tmp_path: Path, server: ObedientModel) -> None:
    slow = profile("slow-box", server.endpoint, reasoning=0, code=0, latency_ms=5000)
    home = home_with(tmp_path, profile("ollama-test", server.endpoint), slow)
    result = ask(home, "What is the capital of France?", "--model", "slow-box")
    assert result.exit_code == 0, result.output
    decisions = [e.data for e in events(home) if e.kind == "model.routed"]
    assert {d["role"] for d in decisions} >= {"classifier", "assistant"}
    assert all(d["pick"] == "slow-box" and d["forced"] == "slow-box" for d in decisions)
    out = " ".join(result.output.split())
    assert "models: slow-box, forced for every role" in out
    assert "classifier: slow-box chosen because forced by --model slow-box (used although latency 5000 ms" in out
    assert {e.data["profile"]["id"] for e in events(home) if e.kind == "llm.response"} == {"slow-box"}


def test_an_unknown_profile_is_refused_listing_the_known_ones(tmp_path: Path, server: ObedientModel) -> None:
    home = home_with(tmp_path, profile("ollama-test", server.endpoint))
    result = ask(home, ALARMS, "--model", "olama-test")
    assert result.exit_code == 2
    out = " ".join(result.output.split())
    assert "--model 'olama-test': no such profile in" in out and "known profiles: ollama-test" in out
    assert nothing_journaled(home) and not server.prompts


def test_an_external_profile_cannot_be_forced_past_the_policy(tmp_path: Path, server: ObedientModel) -> None:
    hosted = profile("hosted", server.endpoint, location="external", privacy="third_party")
    home = home_with(tmp_path, profile("ollama-test", server.endpoint), hosted)
    result = ask(home, ALARMS, "--model", "hosted")
    assert result.exit_code == 1
    assert "policy allows no external providers" in result.output and nothing_journaled(home)
    assert not server.prompts


# ---- what fails is said ---------------------------------------------------------------------------------------------


def test_an_unreachable_server_is_said_and_the_request_goes_on_without_it(tmp_path: Path) -> None:
    home = home_with(tmp_path, profile("ollama-down", closed_port()))
    result = ask(home, ALARMS)
    assert result.exit_code in (0, 3, 4), result.output
    kinds = [e.kind for e in events(home)]
    assert "report.written" in kinds or "proposal.made" in kinds or "plan.proposed" in kinds, kinds
    assert kinds.count("llm.error") == 1  # found down once; not asked again in this conversation
    later = [d for d in (e.data for e in events(home) if e.kind == "model.routed") if "unavailable" in d]
    assert later and all(d["pick"] is None and "ollama-down" in d["unavailable"] for d in later)
    assert later[0]["reason"] == "no profile fits: ollama-down unavailable: its server could not be reached earlier"
    assert "cannot reach the model server" in later[0]["unavailable"]["ollama-down"]
    out = " ".join(result.output.split())
    assert "model ollama-down failed (ProviderUnavailableError)" in out
    assert "the request goes on without it" in out and "Traceback" not in out


def test_after_a_server_is_found_down_the_role_is_routed_to_the_next_profile(
    tmp_path: Path, server: ObedientModel
) -> None:
    strong_but_down = profile("big-down", closed_port(), reasoning=3, code=3)
    home = home_with(tmp_path, strong_but_down, profile("ollama-test", server.endpoint))
    result = ask(home, "What is the capital of France?")
    assert result.exit_code == 0, result.output
    picks = [(d["role"], d["pick"]) for d in (e.data for e in events(home) if e.kind == "model.routed")]
    assert picks[0] == ("classifier", "big-down") and ("assistant", "ollama-test") in picks
    assert {e.data["profile"]["id"] for e in events(home) if e.kind == "llm.response"} == {"ollama-test"}
    assert [e.data["profile"]["id"] for e in events(home) if e.kind == "llm.error"] == ["big-down"]
    assert "big-down unavailable: its server could not be reached earlier" in " ".join(result.output.split())


def test_a_recording_that_misses_says_it_misses(tmp_path: Path) -> None:
    home = samples_as_project_data(tmp_path / "home")
    result = ask(home, "What is the colour of a rainy Tuesday in a lighthouse?", "--model", "recorded")
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert "failed (RecordingMissError): the recording smollm2-demo.json holds no answer to this request" in out
    assert "alicorn demo --record" in out


@pytest.mark.parametrize(
    ("table", "says"),
    [
        ("[[profiles]]\nid = 'box'\n", ["profiles[0] (id 'box')", "Field required", "docs/models.md"]),
        ("[[profiles]\nid = 'box'\n", ["not valid TOML"]),
        ("[roles]\nplannr = 'ollama-test'\n", ["unknown role 'plannr'", "known roles:", "planner"]),
        ("[roles]\nplanner = 'nope'\n", ["[roles] names profiles that are not defined: planner = 'nope'"]),
        (None, ["profile 'scripted-one' is scripted", "--model recorded"]),
    ],
    ids=["missing-key", "malformed", "unknown-role", "unknown-pinned-profile", "scripted"],
)
def test_a_broken_models_toml_is_a_clear_error_and_journals_nothing(
    tmp_path: Path, server: ObedientModel, table: str | None, says: list[str]
) -> None:
    good = profile("ollama-test", server.endpoint)
    if table is None:
        scripted = profile("scripted-one", None, provider="scripted", model="scripted")
        home = home_with(tmp_path, good, scripted)
    elif table.startswith("[roles]"):
        home = home_with(tmp_path, good, table)
    else:
        home = home_with(tmp_path, table)
    result = ask(home, ALARMS)
    assert result.exit_code == 1, result.output
    out = " ".join(result.output.split())
    for words in says:
        assert words in out, (words, out)
    assert "nothing was journaled" in out and "Traceback" not in out
    assert not (home / "journal.db").exists() and not server.prompts


def test_a_profile_whose_provider_cannot_be_built_is_a_journaled_model_error_not_a_crash(tmp_path: Path) -> None:
    """Weights missing, an extra not installed: the call fails as unavailable (an `llm.error`), and the role is
    routed again without the profile."""

    def cannot(_profile: ModelProfile) -> Any:
        raise ExtraNotInstalledError("llama-cpp-python is not installed (pip install 'alicorn[local]')")

    as_written = tomllib.loads(profile("box", None))["profiles"][0]
    box = ModelProfile.model_validate({**as_written, "provider": "llama_cpp", "model": "bundled:smollm2"})
    store = InMemoryStore()
    access = ModelAccess((box,), cannot, Host(ram_gb=16, providers=("llama_cpp",)))
    clients = RoleClients(access, lambda: read_world(store))
    tap = JournalTap(store, "conv-x", PinnedClock(AS_OF))
    client = clients.get("classifier", (), tap)
    assert client is not None and client.profile.id == "box"
    with pytest.raises(ProviderUnavailableError, match="profile box could not be started here: llama-cpp-python"):
        client.complete(ChatRequest.chat("system", "hello", max_tokens=8))
    assert clients.get("classifier", (), tap) is None
    kinds = [e.kind for e in store.read("conv-x")]
    assert kinds == ["model.routed", "llm.request", "llm.error", "model.routed"]
