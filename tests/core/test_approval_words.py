"""Why a plan waits for a person, in the person's language: Core shows Anvil's reasons in Polish or Russian, made
again from the facts the run journaled; the journal keeps the English sentence, and a sentence that cannot be made
again exactly is shown as journaled."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from alicorn.core import render
from alicorn.core.conversation import fold
from alicorn.core.intake import IntentEnvelope
from alicorn.plan.dsl import Plan
from alicorn.runtime.admission import reasons_in
from tests.core.support import SENT, core, make_app

WAITS = {
    "en": "Needs a human approval: agent:planner may run ",
    "pl": "Wymaga zatwierdzenia przez człowieka: agent:planner może uruchomić ",
    "ru": "Нужно одобрение человека: agent:planner может запустить ",
}
#: Both operations of the plan wait for the same cause (the plan sends outside): said once, with their count.
SAME_CAUSE = {"en": "(2 operations, same cause)", "pl": "(2 operacje, ta sama przyczyna)",
              "ru": "(2 операции, та же причина)"}  # fmt: skip
EFFECT = {"en": "sending outside: send", "pl": "wysyłanie na zewnątrz: send", "ru": "отправка вовне: send"}


@pytest.mark.parametrize("language", ["en", "pl", "ru"])
def test_the_reasons_of_a_waiting_plan_are_in_the_requests_language(tmp_path: Path, language: str) -> None:
    app = make_app(tmp_path)
    SENT.clear()
    turn = core(app).receive(IntentEnvelope(utterance="Send a hello to the red team", author="human:ann",
                                            language=language))  # fmt: skip
    assert turn.phase == "waiting" and turn.proposal is not None and SENT == []
    reasons = turn.proposal.reasons
    assert [r[: len(WAITS[language])] for r in reasons] == [WAITS[language]] * 2
    assert sorted(r[len(WAITS[language]) :].split(" ", 1)[0] for r in reasons) == ["test.notify", "util.noop"]
    (said,) = render.distinct_causes(reasons, language)
    assert said.endswith(SAME_CAUSE[language])
    assert turn.effects == (EFFECT[language],)
    checks = [e for e in app.store.read(turn.proposal.run) if e.kind == "anvil.check"]
    assert [c.data["sentence"][: len(WAITS["en"])] for c in checks if c.data["decision"] != "allow"] == [
        WAITS["en"]
    ] * 2


def test_a_sentence_that_cannot_be_made_again_is_shown_as_journaled(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    turn = core(app).receive(IntentEnvelope(utterance="Send a hello to the red team", author="human:ann",
                                            language="pl"))  # fmt: skip
    assert turn.proposal is not None
    events = app.store.read(turn.proposal.run)
    said = reasons_in(events, app.registry, "pl")
    assert said is not None and said[0].startswith(WAITS["pl"])
    # as if another version had journaled other words for the same decision: no translation says what it did not
    changed = [
        replace(e, data={**e.data, "sentence": e.data["sentence"] + " (older words)"})
        if e.kind == "anvil.check" and e.data["decision"] != "allow"
        else e
        for e in events
    ]
    assert reasons_in(changed, app.registry, "pl") is None
    # a run that does not wait for a person has no reasons
    assert reasons_in(events[:-1], app.registry, "pl") is None


def test_a_material_replans_reasons_are_in_the_requests_language(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    SENT.clear()
    norbi = core(app)
    turn = norbi.receive(IntentEnvelope(utterance="Prepare a hello message for the red team", author="human:ann",
                                        language="pl"))  # fmt: skip
    assert turn.report is not None and turn.report.outcome == "complete"
    plan = Plan.model_validate(fold(app.store.read(turn.conversation)).plan).model_dump(mode="json")
    send = {"node_id": "send", "operation": "test.notify", "inputs": {"message": {"value": "hi"}}}
    turn = norbi.replan(turn.conversation, Plan.model_validate({**plan, "nodes": [*plan["nodes"], send]}),
                        reason="also tell them")  # fmt: skip
    assert turn.phase == "waiting" and turn.proposal is not None and SENT == []
    (said,) = render.distinct_causes(turn.proposal.reasons, "pl")
    assert "planuje cel od nowa z istotną zmianą (dodaje klasy efektów: wysyłanie na zewnątrz; " in said
    assert "używa operacji, których zatwierdzony plan nie używał: test.notify" in said
    journaled = [e.data["sentence"] for e in app.store.read(turn.proposal.run) if e.kind == "anvil.check"]
    assert any("it replans the goal with a material change (it adds effect class(es) external_transmission" in s
               for s in journaled)  # fmt: skip
