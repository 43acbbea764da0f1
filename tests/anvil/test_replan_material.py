"""What makes a replan material beyond its effects and cost: new operations, destinations, data flow, a data cause.

A replan written from an error text or a failed check's detail is material whatever it changes (the text may be an
attacker's); one that uses an operation, writes a path or routes data the approved plan did not is material too.
Summaries journaled before these facts existed are compared on what they hold, so old runs replay as they ran.
"""

from __future__ import annotations

from alicorn.anvil.replan import compare, data_flows, material_change, summarize
from alicorn.anvil.risk import assess
from tests.anvil.support import node, plan, ref, registry

BASE = plan([node("load", "t.read", path="a.csv"), node("w", "t.write", path="o.txt", content="x")])


def test_an_identical_plan_is_not_material_unless_its_cause_came_from_data() -> None:
    reg = registry()
    same = plan([node("load2", "t.read", path="a.csv"), node("w2", "t.write", path="o.txt", content="x")])
    assert material_change(BASE, same, reg).material is False
    from_data = material_change(BASE, same, reg, from_data=True)
    assert from_data.material and "came from the data or a tool's output" in from_data.reasons[0]


def test_a_new_operation_is_material_even_when_the_cost_stays_under_the_threshold() -> None:
    reg = registry()
    write = node("x", "t.write", path="o.txt", content="x")  # the approved write, renamed: not a new effect
    shaped = plan([node("load", "t.read", path="a.csv"), node("w", "t.shape"), write])
    change = material_change(BASE, shaped, reg, threshold=10)
    assert change.material
    assert change.reasons == ("it uses operation(s) the approved plan did not: t.shape",)


def test_a_new_write_destination_is_material() -> None:
    reg = registry()
    elsewhere = plan([node("load", "t.read", path="a.csv"), node("w", "t.write", path="p.txt", content="x")])
    change = material_change(BASE, elsewhere, reg, threshold=10)
    assert change.material and change.reasons == (
        "it writes to new destination(s): p.txt",
        "it changes what approved node w (t.write) does: input(s) path changed",
    )


def test_data_routed_to_an_operation_it_did_not_feed_is_material() -> None:
    reg = registry()
    routed = plan([node("load", "t.read", path="a.csv"), node("w", "t.write", path="o.txt", content=ref("load"))])
    assert data_flows(routed) == ["t.read→t.write"] and data_flows(BASE) == []
    change = material_change(BASE, routed, reg, threshold=10)
    assert change.material and change.reasons == (
        "it routes data differently: t.read→t.write",
        "it changes what approved node w (t.write) does: input(s) content changed",
    )
    # Fewer operations, destinations or flows is no reason to ask again.
    shaped = plan([*BASE.model_dump(mode="json")["nodes"], node("keep", "t.shape", records=ref("load"))])
    assert material_change(shaped, BASE, reg, threshold=10).material is False


def test_a_summary_journaled_before_these_facts_is_compared_on_what_it_holds() -> None:
    reg = registry()
    new = summarize(BASE, reg, assess(BASE, reg))
    old = {k: v for k, v in new.items() if k not in ("operations", "paths", "flows", "effect_inputs")}
    assert compare(old, new).material is False
    assert compare(old, new, from_data=True).material is True
