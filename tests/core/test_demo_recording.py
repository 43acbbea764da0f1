"""The demo's shipped recording matches today's prompts: every model call of the demo is answered from it (a
changed prompt would make Core carry on without the model, so this test is what keeps the demo honest)."""

from __future__ import annotations

import json
from pathlib import Path

from alicorn.app import open_app
from alicorn.clock import PinnedClock
from alicorn.core.access import RECORDING, recorded_models
from alicorn.core.conversation import fold
from alicorn.core.intake import IntentEnvelope
from alicorn.core.norbi import Norbi
from alicorn.demo import AS_OF, OPERATOR, UTTERANCE
from alicorn.packs.catalog import bundled_workflows


def test_every_demo_call_is_answered_from_the_recording(tmp_path: Path) -> None:
    app = open_app(tmp_path)
    core = Norbi(app, bundled_workflows(), models=recorded_models(), clock=PinnedClock(AS_OF), samples=True)
    turn = core.receive(IntentEnvelope(utterance=UTTERANCE, author=OPERATOR))
    events = app.store.read(turn.conversation)
    kinds = [e.kind for e in events]
    recorded = json.loads(RECORDING.read_text(encoding="utf-8"))["answers"]
    assert "llm.error" not in kinds, "the recording is stale: re-record with `alicorn demo --record` (local model)"
    assert kinds.count("llm.response") == len(recorded) == fold(events).model_calls
    assert turn.report is not None and turn.report.outcome == "complete"
