"""A real run for the observability tests: the demo's request through Norbi Core on the recorded model answers."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from alicorn.app import App, open_app
from alicorn.clock import PinnedClock
from alicorn.core.access import recorded_models
from alicorn.core.intake import IntentEnvelope
from alicorn.core.norbi import Norbi
from alicorn.demo import AS_OF, OPERATOR, UTTERANCE
from alicorn.packs.catalog import bundled_workflows


@dataclass(frozen=True)
class Ran:
    conversation: str
    run: str


def run_alarms(application: App) -> Ran:
    """The seed's camera-alarms request in words, driven to its report: two model calls, seven tool steps."""
    core = Norbi(application, bundled_workflows(), models=recorded_models(), clock=PinnedClock(AS_OF), samples=True)
    turn = core.receive(IntentEnvelope(utterance=UTTERANCE, author=OPERATOR))
    state = core.state(turn.conversation)
    if state.run is None:
        raise AssertionError(f"the alarms request ended without a run (phase {turn.phase})")
    return Ran(turn.conversation, state.run)


def alarms_home(home: Path) -> tuple[App, Ran]:
    """A home with one finished alarms run (the app stays open; the caller closes it)."""
    application = open_app(home)
    return application, run_alarms(application)
