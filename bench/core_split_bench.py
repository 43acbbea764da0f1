"""Norbi Core end to end on labelled request splits: what a user's request becomes before anything runs.

    .venv/bin/python bench/core_split_bench.py                       # every bench/data/requests_*.jsonl split
    .venv/bin/python bench/core_split_bench.py bench/data/requests_heldout4.jsonl --show

Each request goes through Core with no model and no data (so Core stops at its data question and nothing runs;
the day is pinned). Per split it prints: kind accuracy; forbidden-class recall (labelled classes found) and false
prohibitions (requests with a class forbidden that the label does not forbid); the template Core chose against the
label (right / asked: none while the label names one / wrong: another template, or one where none fits); how many
plans held a node of a forbidden class; how many requests' plans would hold a node of a class the *label* forbids
(the labelled template's own extraction from the words, built with the classes Core found forbidden: what a missed
prohibition would let through); and, of the requests whose template needs data, how many ended in a question or
missing data (never complete). The baseline, measured in the same run, is the template the bare
nearest-examples vote would pick (no subject words, no question), so the row says what Core's rules add.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

AS_OF = datetime(2026, 12, 1, 7, 30, tzinfo=UTC)
os.environ.setdefault("ALICORN_NOW", "2026-12-01T07:30:00Z")

from alicorn.app import open_app  # noqa: E402
from alicorn.clock import PinnedClock  # noqa: E402
from alicorn.core.conversation import fold  # noqa: E402
from alicorn.core.intake import IntentEnvelope  # noqa: E402
from alicorn.core.norbi import Norbi  # noqa: E402
from alicorn.packs.catalog import bundled_workflows  # noqa: E402
from alicorn.packs.workflow import Workflow  # noqa: E402
from alicorn.plan.dsl import EffectClass  # noqa: E402

#: Placeholders for the slots a template requires and the words may not say (the plan's shape does not depend on
#: them).
REQUIRED_PLACEHOLDERS = {"month": "2027-01", "day": "2026-11-30"}


def planned_effects(
    workflow: Workflow, text: str, language: str, forbidden: frozenset[EffectClass], effect_of: Callable[[str], str]
) -> set[str]:
    """The effect classes of the nodes `workflow` would plan from the words of `text`, leaving out `forbidden`."""
    slots = workflow.extract(text, language, AS_OF)
    required = {k for k, f in workflow.parameters.model_fields.items() if f.is_required()}
    values = {k: v for k, v in REQUIRED_PLACEHOLDERS.items() if k in required} | slots
    params = workflow.parameters.model_validate(values)
    built = workflow.build(params, forbidden)
    return {effect_of(node.operation) for node in built.nodes}


def measure(path: Path, show: bool) -> dict[str, int]:
    home, workdir = Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp())
    app = open_app(home)
    core = Norbi(app, bundled_workflows(), clock=PinnedClock(AS_OF), workdir=workdir)
    nearest = core.selector.nearest
    workflows = {w.id: w for w in bundled_workflows()}

    def effect_of(operation: str) -> str:
        return app.registry.get(operation).effect

    stats = dict.fromkeys(
        ("n", "kind", "labelled", "found", "false", "right", "asked", "wrong", "vote_wrong", "plan_forbidden",
         "needs_data", "asked_or_missing", "label_in_plan"), 0)  # fmt: skip
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        turn = core.receive(IntentEnvelope(utterance=row["text"], author="human:bench"))
        events = list(app.store.read(turn.conversation))
        state = fold(events)
        # the classifier's own kind (intent.classified), not what Core went on to do with it: an alarm that names a
        # template's work is triaged and then worked on (intent.reclassified), and stays an alarm here
        kind = next(e.data["kind"] for e in events if e.kind == "intent.classified")
        forbidden = set((state.classification or {}).get("forbidden", []))
        got, want = (state.workflow or {}).get("workflow"), row.get("template")
        label = set(row["forbidden"])
        stats["n"] += 1
        stats["kind"] += kind == row["kind"]
        stats["labelled"] += len(label)
        stats["found"] += len(label & forbidden)
        stats["false"] += bool(forbidden - label)
        vote = nearest.nearest(row["text"], k=1)
        if row["kind"] in ("task", "process") and vote and vote[0].example.kind != want:
            stats["vote_wrong"] += 1
        if got == want:
            stats["right"] += 1
        elif got is None:
            stats["asked"] += 1
        else:
            stats["wrong"] += 1
        if show and (got not in (None, want) or label - forbidden or forbidden - label):
            print(f"  {row['id']}: template {got} (label {want}); forbidden {sorted(forbidden)} (label "
                  f"{sorted(label)}): {row['text'][:100]}")  # fmt: skip
        if want in workflows and label:
            effects = planned_effects(workflows[want], row["text"], row["language"], frozenset(forbidden), effect_of)
            if effects & label:
                stats["label_in_plan"] += 1
                if show:
                    print(f"  {row['id']}: the plan of {want} would hold {sorted(effects & label)}")
        if got is not None:
            stats["needs_data"] += 1
            outcome = (state.report or {}).get("outcome")
            stats["asked_or_missing"] += turn.phase == "asking" or outcome == "missing_data"
        if state.plan and state.contract:
            stats["plan_forbidden"] += sum(
                app.registry.get(n["operation"]).effect in state.contract["forbidden"] for n in state.plan["nodes"]
            )
    return stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("splits", nargs="*", type=Path)
    parser.add_argument("--show", action="store_true", help="list every wrong template and prohibition")
    args = parser.parse_args()
    splits = args.splits or sorted(Path(__file__).parent.joinpath("data").glob("requests_*.jsonl"))
    print("split                      n   kind  recall        false  template r/a/w  vote wrong  forbidden in plan  "
          "label in plan  data: asked/needed")  # fmt: skip
    for path in splits:
        s = measure(path, args.show)
        recall = 100 * s["found"] / max(1, s["labelled"])
        kind = 100 * s["kind"] / s["n"]
        print(f"{path.stem:<24} {s['n']:>3} {kind:5.1f}%  {recall:5.1f}% {s['found']}/{s['labelled']:<3}"
              f" {100 * s['false'] / s['n']:5.1f}%  {s['right']}/{s['asked']}/{s['wrong']:<9} {s['vote_wrong']:>6}"
              f"  {s['plan_forbidden']:>12}  {s['label_in_plan']:>13}"
              f"  {s['asked_or_missing']}/{s['needs_data']}")  # fmt: skip


if __name__ == "__main__":
    main()
