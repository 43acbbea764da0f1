"""`alicorn ask`'s live progress: a real Norbi conversation over a temporary SQLite journal, observed as it is
committed, drawn on a terminal console; the running node's time ticks while it runs; Polish labels for a Polish
request; and nothing at all (not one escape code) with --quiet or when stdout is not a terminal."""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner

from alicorn.cli import app as cli_app
from alicorn.clock import PinnedClock
from alicorn.core.conversation import fold
from alicorn.core.intake import IntentEnvelope
from alicorn.core.progress import ProgressView, Step
from alicorn.journal.events import Draft
from alicorn.journal.memory import InMemoryStore
from alicorn.plan.dsl import Plan, goal_digest

from .support import SEED_ALARMS, core, make_app

SEED_ALARMS_PL = "Przeanalizuj alarmy kamer z wczoraj, odrzuć powtórzenia i zostaw tylko to, co musi zobaczyć człowiek."
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class Ticks:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def _terminal() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=True, width=120, color_system="standard"), out


def _clock() -> PinnedClock:
    return PinnedClock(datetime(2026, 11, 30, 8, 0, tzinfo=UTC))


def _ask(text: str) -> IntentEnvelope:
    return IntentEnvelope(utterance=text, author="human:ann")


def _texts(steps: list[Step]) -> list[str]:
    return [s.text for s in steps]


def _index(steps: list[Step], prefix: str) -> int:
    found = [n for n, s in enumerate(steps) if s.text.startswith(prefix)]
    assert found, f"no step starting {prefix!r} in {_texts(steps)}"
    return found[0]


def test_a_conversation_is_shown_step_by_step_as_it_is_committed(tmp_path: Path) -> None:
    application = make_app(tmp_path)
    console, out = _terminal()
    view = ProgressView(console, refresh_per_second=20)
    stop = view.observe(application.store)
    norbi = view.around(core(application, clock=_clock()))
    turn = norbi.receive(_ask(SEED_ALARMS))
    stop()
    assert turn.phase == "reported"
    steps = view.steps
    order = [
        _index(steps, "understood: task, language en"),
        _index(steps, "workflow: alarms (chosen by"),
        _index(steps, "slots filled:"),
        _index(steps, "contract fixed, goal hash"),
        _index(steps, "plan: "),
        _index(steps, "Anvil allows the plan"),
    ]
    state = fold(application.store.read(turn.conversation))
    assert state.run is not None and state.plan is not None
    run_events = application.store.read(state.run)
    finished = [e.data["node"] for e in run_events if e.kind == "node.succeeded"]
    planned = [n["node_id"] for n in state.plan["nodes"]]
    assert sorted(finished) == sorted(planned) and planned
    nodes = [s for s in steps if s.node is not None]
    assert [s.node for s in nodes] == finished  # each node once, in the order the journal says they ended
    assert all(s.mark == "done" and s.seconds is not None and s.seconds >= 0 for s in nodes)
    for node in nodes:  # its operation and effect class are on its line
        call = next(e.data for e in run_events if e.kind == "tool.call" and e.data["node"] == node.node)
        assert node.text.split() == [node.node, call["op"], call["effect"]]
    order += [steps.index(nodes[0]), steps.index(nodes[-1])]
    order += [
        _index(steps, f"run {state.run} finished: succeeded"),
        _index(steps, "validated: complete"),
        _index(steps, "report written: complete"),
    ]
    assert order == sorted(order), _texts(steps)
    assert _index(steps, "report written") == len(steps) - 1
    # What the terminal got: every finished line, and the live region gone at the end (it is transient).
    shown = ANSI.sub("", out.getvalue())
    for step in steps:
        assert step.text.split()[0] in shown
    assert "\x1b[" in out.getvalue()
    assert view._live is None


def test_a_polish_request_is_shown_in_polish(tmp_path: Path) -> None:
    application = make_app(tmp_path)
    console, out = _terminal()
    view = ProgressView(console)
    view.observe(application.store)
    turn = view.around(core(application, clock=_clock())).receive(_ask(SEED_ALARMS_PL))
    assert turn.phase == "reported"
    texts = _texts(view.steps)
    assert texts[0].startswith("zrozumiano: zadanie, język pl")
    assert any(t.startswith("proces: alarms (wybrany przez:") for t in texts)
    assert any(t.startswith("kontrakt ustalony, skrót celu") for t in texts)
    assert any(t.startswith("Anvil zezwala na plan (") for t in texts)
    assert any(t.startswith("plan: ") and "węz" in t for t in texts)
    assert texts[-1].startswith("raport: ")
    assert not any(t.startswith(("understood", "workflow:", "report written")) for t in texts)
    assert "zrozumiano" in ANSI.sub("", out.getvalue())


def test_the_running_node_ticks_and_its_line_keeps_the_time_it_took() -> None:
    clock = Ticks()
    console, _ = _terminal()
    view = ProgressView(console, monotonic=clock)
    store = InMemoryStore()
    view.observe(store)
    at = "2026-11-30T08:00:00.000000Z"
    call = {"node": "solve", "attempt": 1, "op": "schedule.generate_variants", "effect": "none"}
    store.append("run-1", [Draft("run.created", at, {}), Draft("anvil.check", at, {"decision": "allow"})], expect=0)
    store.append("run-1", [Draft("tool.call", at, call)], expect=2)

    def region() -> str:
        capture, text = _terminal()
        capture.print(view)
        return ANSI.sub("", text.getvalue())

    clock.t += 3.25
    first = region()
    clock.t += 4.0
    second = region()
    assert "solve" in first and "schedule.generate_variants" in first and "none" in first
    assert "3.2s" in first and "7.2s" in second  # the same line, later: the time moves while the node runs
    store.append("run-1", [Draft("node.succeeded", at, {"node": "solve", "attempt": 1})], expect=3)
    assert view.steps[-1] == Step("done", view.steps[-1].text, 7.25, "solve")
    assert "solve" not in region()
    retry = {"node": "solve", "attempt": 1, "reason": "solver busy", "final": False, "retry_in_s": 2}
    store.append("run-1", [Draft("node.failed", at, retry), Draft("tool.call", at, {**call, "attempt": 2})], expect=4)
    assert view.steps[-1].mark == "retry" and "retry in 2 s: solver busy" in view.steps[-1].text
    assert "attempt 2" in region()


def test_a_live_display_keeps_ticking_while_an_operation_blocks_the_caller(tmp_path: Path) -> None:
    application = make_app(tmp_path)
    console, out = _terminal()
    view = ProgressView(console, refresh_per_second=25)
    view.observe(application.store)
    node = {"node_id": "wait", "operation": "util.sleep", "inputs": {"seconds": {"value": 1.0}}}
    plan = Plan.model_validate({"goal": "wait", "goal_hash": goal_digest("wait"), "nodes": [node]})
    with view.shown():
        state = application.executor(tmp_path).start(plan, run_id="run-wait")
    assert state.status == "succeeded"
    drawn = ANSI.sub("", out.getvalue())
    ticks = set(re.findall(r"wait\s+util\.sleep\s+none\s+(\d+\.\d)s", drawn))
    assert len(ticks) >= 3, drawn  # redrawn with a new time while the node ran (the caller was blocked meanwhile)
    assert [s.node for s in view.steps if s.node] == ["wait"]


def test_disabled_it_subscribes_to_nothing_and_writes_nothing() -> None:
    console, out = _terminal()
    view = ProgressView(console, enabled=False)
    store = InMemoryStore()
    view.observe(store)
    assert store._observers == ()
    target = object()
    assert view.around(target) is target
    with view.shown():
        store.append("conv-1", [Draft("intent.received", "2026-11-30T08:00:00.000000Z", {})], expect=0)
    assert view.steps == [] and out.getvalue() == ""


def _plain(home: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli_app, ["ask", *args, "--home", str(home), "--model", "none"])
    return result.exit_code, re.sub(r"(conv|run)-\d{8}-[0-9a-f]+", r"\1-ID", result.output)


def test_quiet_or_not_a_terminal_the_output_is_plain_as_before(tmp_path: Path) -> None:
    piped = _plain(tmp_path / "a", SEED_ALARMS, "--no-input")
    quiet = _plain(tmp_path / "b", SEED_ALARMS, "--no-input", "--quiet")
    assert piped == quiet
    _, output = piped
    assert "\x1b" not in output and "\r" not in output
    assert not re.search(r"^\s*[✓✗↻?·–] ", output, re.MULTILINE)  # no progress line
    assert output.startswith("conversation conv-ID · models: no model\n  understood: a task in en")
    assert "understanding the request" not in output and "Anvil allows" not in output


def test_an_alarm_taken_as_work_is_shown_triaged_then_at_work_in_the_requests_language(tmp_path: Path) -> None:
    application = make_app(tmp_path)
    console, _ = _terminal()
    view = ProgressView(console)
    view.observe(application.store)
    text = "Ktoś właśnie włamuje się na parking, kamery sypią alarmami! Przeanalizuj wczorajsze alarmy z kamer."
    view.around(core(application, clock=_clock())).receive(_ask(text))
    texts = _texts(view.steps)
    triaged = next(i for i, t in enumerate(texts) if t.startswith("oceniono: krytyczny"))
    at_work = next(i for i, t in enumerate(texts) if t.startswith("alarm wymaga pracy procesu alarms"))
    assert triaged < at_work < next(i for i, t in enumerate(texts) if t.startswith("proces: alarms"))
