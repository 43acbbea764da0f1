"""Plan validation: one test per rejection reason; every problem names the node and says what to do."""

from __future__ import annotations

import itertools
import json
import re

import pytest

from alicorn.errors import PlanError
from alicorn.plan.dsl import Plan
from alicorn.plan.validate import find_cycle, parse_plan, validate_plan

from .helpers import REGISTRY, check, lit, node, plan, problems, ref, source, the_problem, valid


def rich_plan() -> dict:
    """A plan that uses every feature validation checks, and is valid."""
    return plan(
        source(
            "load",
            expected_outputs=["items", "count"],
            completion=check("count", "gte", 1),
            critical=True,
            stop={"reason": "no data", "when": check("count", "lt", 1)},
        ),
        node("joined", "t.join", {"items": ref("load", "items"), "sep": lit(";")}, depends_on=["load"]),
        node("loud", "t.upper", {"text": ref("joined", "label")}, critical=True, alternative="quiet"),
        node("quiet", "t.upper", {"text": lit("fallback")}),
        node("save", "t.write", {"text": ref("loud", "label")}, idempotency="unsafe", retry={"max_attempts": 3}),
        node("total", "t.add", {"a": ref("load", "count"), "b": ref("joined", "count")}, provides=["gpu"]),
        node("train", "t.train", {"a": ref("total", "count")}, timeout_s=10),
        node("mail", "t.send", {"text": ref("loud", "label")}, idempotency="keyed", executor_role="decision"),
    )


# ---------------------------------------------------------------------------------------------------- accepted


def test_a_plan_using_every_feature_is_accepted() -> None:
    accepted = valid(rich_plan())
    assert isinstance(accepted, Plan)
    assert [n.node_id for n in accepted.nodes] == ["load", "joined", "loud", "quiet", "save", "total", "train", "mail"]


@pytest.mark.parametrize("form", ["dict", "str", "bytes", "plan"])
def test_validate_plan_takes_json_text_bytes_mappings_and_plans(form: str) -> None:
    document = rich_plan()
    given = {
        "dict": document,
        "str": json.dumps(document),
        "bytes": json.dumps(document).encode(),
        "plan": parse_plan(document),
    }[form]
    assert validate_plan(given, REGISTRY) == parse_plan(document)


def test_node_order_in_the_list_does_not_matter() -> None:
    document = rich_plan()
    document["nodes"].reverse()
    valid(document)


def test_refs_may_point_at_nodes_listed_later() -> None:
    valid(plan(node("loud", "t.upper", {"text": ref("load", "label")}), source("load")))


# ---------------------------------------------------------------------------------------------------- operations


def test_unknown_operation_suggests_the_closest_name() -> None:
    found = problems(plan(node("a", "t.joim", {"items": lit([])})))
    message = the_problem(found, "a", "unknown operation 't.joim'", "did you mean 't.join'?")
    assert "alicorn schema operations" in message


def test_unknown_operation_without_a_close_name_points_at_the_catalogue() -> None:
    found = problems(plan(node("a", "launch.rockets")))
    message = the_problem(found, "a", "unknown operation 'launch.rockets'", "alicorn schema operations")
    assert "did you mean" not in message


def test_an_unknown_operation_does_not_cascade_into_its_consumers() -> None:
    found = problems(plan(node("a", "t.nope"), node("b", "t.upper", {"text": ref("a", "label")})))
    assert len(found) == 1
    the_problem(found, "a", "unknown operation")


# ---------------------------------------------------------------------------------------------------- inputs


def test_unknown_input_lists_the_inputs_the_operation_takes() -> None:
    found = problems(plan(node("a", "t.upper", {"text": lit("x"), "txt": lit("y")})))
    the_problem(found, "a", "(t.upper)", "unknown input 'txt'", "the operation takes: text")


def test_unknown_input_on_an_operation_with_several_inputs_lists_them_sorted() -> None:
    found = problems(plan(node("a", "t.join", {"items": lit([]), "separator": lit(",")})))
    the_problem(found, "a", "unknown input 'separator'", "the operation takes: items, sep")


def test_missing_required_input_is_named() -> None:
    found = problems(plan(node("a", "t.join", {"sep": lit(",")})))
    the_problem(found, "a", "(t.join)", "missing required input 'items'")


def test_optional_inputs_may_be_left_out() -> None:
    valid(plan(node("a", "t.join", {"items": lit(["x"])})))


@pytest.mark.parametrize(
    ("op", "inputs", "fragments"),
    [
        ("t.upper", {"text": lit(5)}, ("input 'text'", "valid string")),
        ("t.upper", {"text": lit(None)}, ("input 'text'", "valid string")),
        ("t.upper", {"text": lit(["a"])}, ("input 'text'", "valid string")),
        ("t.add", {"a": lit("three")}, ("input 'a'", "valid integer")),
        ("t.add", {"a": lit(1.5)}, ("input 'a'", "integer")),
        ("t.join", {"items": lit("abc")}, ("input 'items'", "valid list")),
        ("t.join", {"items": lit(["a", 3])}, ("input 'items.1'", "valid string")),
        ("t.source", {"n": lit(101)}, ("input 'n'", "less than or equal to 100")),
        ("t.source", {"n": lit(-1)}, ("input 'n'", "greater than or equal to 0")),
        ("t.join", {"items": lit([]), "sep": lit("----")}, ("input 'sep'", "at most 3 characters")),
        ("t.scale", {"x": lit({"v": 1})}, ("input 'x'", "valid number")),
    ],
)
def test_literal_of_the_wrong_type_or_out_of_bounds_is_rejected(op: str, inputs: dict, fragments: tuple) -> None:
    found = problems(plan(node("lit", op, inputs)))
    the_problem(found, "lit", f"({op})", *fragments)


@pytest.mark.parametrize(
    ("op", "inputs"),
    [
        ("t.source", {"n": lit(0)}),
        ("t.source", {"n": lit(100)}),
        ("t.scale", {"x": lit(2)}),  # an integer is a number
        ("t.loose", {"data": lit({"any": ["json", 1, None, True]})}),
        ("t.loose", {}),
    ],
)
def test_literals_that_fit_are_accepted(op: str, inputs: dict) -> None:
    valid(plan(node("lit", op, inputs)))


# ---------------------------------------------------------------------------------------------------- references


def test_ref_to_a_missing_node() -> None:
    found = problems(plan(node("a", "t.upper", {"text": ref("ghost", "label")})))
    the_problem(found, "a", "input 'text' refers to node 'ghost'", "not in the plan")


def test_ref_to_the_node_itself() -> None:
    found = problems(plan(node("a", "t.upper", {"text": ref("a", "label")})))
    the_problem(found, "a", "input 'text' refers to the node's own output")


def test_ref_to_an_output_the_source_operation_does_not_produce() -> None:
    found = problems(plan(source("load"), node("a", "t.upper", {"text": ref("load", "title")})))
    the_problem(
        found,
        "a",
        "input 'text' refers to output 'title' of 'load'",
        "t.source does not produce",
        "count, items, label",
    )


@pytest.mark.parametrize(
    ("consumer", "output", "wanted", "produced"),
    [
        (("t.upper", "text"), "items", "string", "array"),  # a list into a string
        (("t.upper", "text"), "count", "string", "integer"),
        (("t.add", "a"), "label", "integer", "string"),
        (("t.join", "items"), "label", "array of string", "string"),
        (("t.scale", "x"), "items", "number", "array"),
    ],
)
def test_ref_whose_type_does_not_fit_is_rejected(consumer: tuple, output: str, wanted: str, produced: str) -> None:
    op, name = consumer
    found = problems(plan(source("load"), node("a", op, {name: ref("load", output)})))
    the_problem(found, "a", f"input {name!r} wants {wanted} but load.{output} is {produced}")


@pytest.mark.parametrize(
    ("consumer", "source_node", "output"),
    [
        (("t.join", "items"), source("load"), "items"),  # list of strings into list of strings
        (("t.scale", "x"), source("load"), "count"),  # integer widens to number
        (("t.upper", "text"), node("load", "t.loose"), "maybe"),  # optional string into string
        (("t.upper", "text"), node("load", "t.loose"), "anything"),  # untyped output fits anything
        (("t.loose", "data"), source("load"), "items"),  # anything fits a JSON input
    ],
)
def test_ref_whose_type_fits_is_accepted(consumer: tuple, source_node: dict, output: str) -> None:
    op, name = consumer
    valid(plan(source_node, node("a", op, {name: ref("load", output)})))


def test_ref_to_a_downstream_node_is_a_cycle() -> None:
    found = problems(
        plan(
            node("a", "t.upper", {"text": ref("b", "label")}),
            node("b", "t.upper", {"text": ref("a", "label")}),
        )
    )
    cycle = [p for p in found if p.startswith("cycle: ")]
    assert len(cycle) == 1
    assert set(_cycle_ids(cycle[0])) == {"a", "b"}
    assert "a node may only use outputs of nodes that run before it" in cycle[0]


def _cycle_ids(message: str) -> list[str]:
    path = message.removeprefix("cycle: ").split(";")[0]
    return path.split(" -> ")


def test_depends_on_cycle_message_shows_the_cycle_path_in_run_order() -> None:
    document = plan(
        node("a", "t.upper", {"text": lit("x")}, depends_on=["c"]),
        node("b", "t.upper", {"text": lit("x")}, depends_on=["a"]),
        node("c", "t.upper", {"text": lit("x")}, depends_on=["b"]),
        node("d", "t.upper", {"text": lit("x")}, depends_on=["c"]),
    )
    found = problems(document)
    (message,) = [p for p in found if p.startswith("cycle: ")]
    ids = _cycle_ids(message)
    assert ids[0] == ids[-1]
    assert sorted(ids[:-1]) == ["a", "b", "c"]
    upstream = {n["node_id"]: set(n["depends_on"]) for n in document["nodes"]}
    for before, after in itertools.pairwise(ids):
        assert before in upstream[after], f"{message}: {after} does not wait for {before}"
    assert message == "cycle: a -> b -> c -> a; a node may only use outputs of nodes that run before it"


def test_depends_on_itself() -> None:
    found = problems(plan(node("a", "t.upper", {"text": lit("x")}, depends_on=["a"])))
    the_problem(found, "a", "depends on itself; remove it from depends_on")


def test_depends_on_a_missing_node() -> None:
    found = problems(plan(node("a", "t.upper", {"text": lit("x")}, depends_on=["ghost"])))
    the_problem(found, "a", "depends_on names 'ghost'", "not a node of this plan")


def test_find_cycle_returns_none_for_a_dag_and_a_closed_path_for_a_cycle() -> None:
    dag = parse_plan(rich_plan())
    assert find_cycle(dag.nodes) is None
    looped = parse_plan(
        plan(
            node("x", "t.upper", depends_on=["z"]),
            node("y", "t.upper", depends_on=["x"]),
            node("z", "t.upper", depends_on=["y"]),
        )
    )
    cycle = find_cycle(looped.nodes)
    assert cycle is not None
    assert cycle[0] == cycle[-1] and sorted(cycle[:-1]) == ["x", "y", "z"]


# ---------------------------------------------------------------------------------------------------- ids


def test_duplicate_node_ids() -> None:
    found = problems(plan(source("load"), source("load")))
    the_problem(found, "load", "duplicate node_id", "give every node its own id")


# ---------------------------------------------------------------------------------------------------- together


def test_every_problem_in_a_plan_is_reported_at_once() -> None:
    document = plan(
        source("load", critical=True, expected_outputs=["rows"]),
        node("a", "t.joim", {"items": lit([])}),
        node("b", "t.upper", {"txt": lit("x")}),
        node("c", "t.add", {"a": lit("one")}),
        node("d", "t.upper", {"text": ref("ghost", "label")}),
        node("e", "t.send", {"text": ref("load", "items")}, idempotency="repeatable"),
        node("f", "t.train", {"a": lit(1)}),
        node("g", "t.upper", {"text": lit("x")}, depends_on=["h"]),
        node("h", "t.upper", {"text": lit("x")}, depends_on=["g"]),
        source("load"),
    )
    found = problems(document)
    the_problem(found, "load", "critical node needs")
    the_problem(found, "load", "expected output 'rows'")
    the_problem(found, "load", "duplicate node_id")
    the_problem(found, "a", "unknown operation 't.joim'")
    the_problem(found, "b", "unknown input 'txt'")
    the_problem(found, "b", "missing required input 'text'")
    the_problem(found, "c", "input 'a'")
    the_problem(found, "d", "refers to node 'ghost'")
    the_problem(found, "e", "wants string but load.items is array")
    the_problem(found, "e", "idempotency 'repeatable' is weaker")
    assert any(p.startswith("cycle: ") for p in found)
    assert len(found) >= 11
    with pytest.raises(PlanError) as caught:
        validate_plan(document, REGISTRY)
    text = str(caught.value)
    assert text.startswith("the plan is invalid:\n")
    assert all(p in text for p in found)


def test_a_single_problem_is_in_the_exception_message() -> None:
    with pytest.raises(PlanError) as caught:
        validate_plan(plan(node("a", "t.upper")), REGISTRY)
    assert caught.value.problems == ["node 'a' (t.upper): missing required input 'text'"]
    assert str(caught.value) == "the plan is invalid: node 'a' (t.upper): missing required input 'text'"


def test_every_problem_names_a_node_or_a_cycle() -> None:
    document = rich_plan()
    document["nodes"][1]["inputs"]["items"] = ref("load", "label")
    document["nodes"][4]["idempotency"] = "repeatable"
    document["nodes"][6]["provides"] = []
    for message in problems(document):
        assert re.match(r"^(node '[a-z][a-z0-9_-]*'|cycle: )", message), message
