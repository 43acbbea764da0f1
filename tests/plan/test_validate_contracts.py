"""Plan validation, continued: criticality and alternatives, resources, idempotency, criteria; known gaps."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from alicorn.errors import PlanError
from alicorn.ops.registry import Operation, Registry
from alicorn.plan.validate import DEFAULT_RESOURCES, validate_plan

from . import helpers
from .helpers import check, lit, node, plan, problems, ref, source, the_problem, valid

# ---------------------------------------------------------------------------------------------------- criticality


def test_critical_node_without_alternative_or_stop() -> None:
    found = problems(plan(source("load", critical=True)))
    the_problem(found, "load", "critical node needs an alternative node or an explicit stop condition")


def test_critical_node_with_a_stop_condition_is_accepted() -> None:
    valid(plan(source("load", critical=True, stop={"reason": "nothing to do without data"})))


def test_critical_node_with_an_alternative_is_accepted() -> None:
    valid(plan(source("load", critical=True, alternative="backup"), source("backup")))


def test_alternative_that_is_not_in_the_plan() -> None:
    found = problems(plan(source("load", alternative="ghost")))
    the_problem(found, "load", "alternative 'ghost' is not a node of this plan")


def test_alternative_that_is_the_node_itself() -> None:
    found = problems(plan(source("load", alternative="load")))
    the_problem(found, "load", "cannot be its own alternative")


def test_alternative_upstream_of_its_primary() -> None:
    found = problems(plan(source("alt"), node("p", "t.upper", {"text": ref("alt", "label")}, alternative="alt")))
    the_problem(found, "p", "alternative 'alt' must not depend on it or be upstream of it", "runs only when")


def test_alternative_transitively_upstream_of_its_primary() -> None:
    found = problems(
        plan(
            source("alt"),
            node("mid", "t.upper", {"text": lit("x")}, depends_on=["alt"]),
            node("p", "t.upper", {"text": lit("x")}, depends_on=["mid"], alternative="alt"),
        )
    )
    the_problem(found, "p", "alternative 'alt' must not depend on it or be upstream of it")


def test_alternative_downstream_of_its_primary() -> None:
    found = problems(plan(source("p", alternative="alt"), node("alt", "t.source", {"n": lit(1)}, depends_on=["p"])))
    the_problem(found, "p", "alternative 'alt' must not depend on it or be upstream of it")


def test_alternative_that_lacks_an_output_consumers_read() -> None:
    found = problems(
        plan(
            source("load", alternative="alt"),
            node("alt", "t.upper", {"text": lit("x")}),
            node("j", "t.join", {"items": ref("load", "items")}),
        )
    )
    the_problem(found, "load", "alternative 'alt' (t.upper) does not produce items", "consumers need")


def test_alternative_that_lacks_an_expected_output() -> None:
    found = problems(
        plan(source("load", alternative="alt", expected_outputs=["count"]), node("alt", "t.upper", {"text": lit("x")}))
    )
    the_problem(found, "load", "alternative 'alt' (t.upper) does not produce count")


def test_alternative_that_produces_what_consumers_read_is_accepted() -> None:
    valid(
        plan(
            source("load", alternative="alt"),
            node("alt", "t.join", {"items": lit(["x"])}),
            node("u", "t.upper", {"text": ref("load", "label")}),
            node("s", "t.add", {"a": ref("load", "count")}),
        )
    )


def test_alternative_shared_by_two_primaries() -> None:
    found = problems(plan(source("p1", alternative="alt"), source("p2", alternative="alt"), source("alt")))
    the_problem(found, "p2", "alternative 'alt' already stands in for 'p1'", "give each its own")
    assert not any("node 'p1'" in p for p in found)


def test_ref_to_a_standby_node_names_the_primary_to_refer_to() -> None:
    found = problems(
        plan(
            source("p", alternative="alt"),
            source("alt"),
            node("c", "t.upper", {"text": ref("alt", "label")}),
        )
    )
    the_problem(found, "c", "input 'text' refers to 'alt', which runs only if 'p' fails", "refer to 'p'")


def test_depends_on_a_standby_node_is_rejected() -> None:
    found = problems(
        plan(
            source("p", alternative="alt"),
            source("alt"),
            node("c", "t.upper", {"text": lit("x")}, depends_on=["alt"]),
        )
    )
    the_problem(found, "c", "'alt'", "'p'")


# ---------------------------------------------------------------------------------------------------- resources


def test_required_resource_nobody_provides() -> None:
    found = problems(plan(node("t", "t.train", {"a": lit(1)})))
    the_problem(found, "t", "requires resource 'gpu' that nobody provides", "the environment provides: cpu, workspace")


def test_a_resource_the_node_itself_declares_is_checked_too() -> None:
    found = problems(plan(node("u", "t.upper", {"text": lit("x")}, resources=["db:main"])))
    the_problem(found, "u", "requires resource 'db:main' that nobody provides")


def test_operation_resources_are_checked_against_an_empty_environment() -> None:
    found = problems(plan(node("w", "t.write", {"text": lit("x")})), resources=())
    the_problem(found, "w", "requires resource 'workspace'", "the environment provides: nothing")


def test_required_resource_is_accepted_when_the_environment_provides_it() -> None:
    valid(plan(node("t", "t.train", {"a": lit(1)})), resources=[*DEFAULT_RESOURCES, "gpu"])


def test_required_resource_is_accepted_when_an_upstream_node_provides_it() -> None:
    valid(
        plan(
            source("boot", provides=["gpu"]),
            node("mid", "t.upper", {"text": ref("boot", "label")}),
            node("t", "t.train", {"a": lit(1)}, depends_on=["mid"]),
        )
    )


def test_required_resource_is_rejected_when_the_provider_is_not_upstream() -> None:
    found = problems(plan(source("boot", provides=["gpu"]), node("t", "t.train", {"a": lit(1)})))
    the_problem(found, "t", "requires resource 'gpu'", "boot provide(s) it but do(es) not run before it", "depends_on")


def test_required_resource_is_rejected_when_the_provider_runs_after() -> None:
    found = problems(plan(source("boot", provides=["gpu"], depends_on=["t"]), node("t", "t.train", {"a": lit(1)})))
    the_problem(found, "t", "requires resource 'gpu'", "boot provide(s) it")


# ---------------------------------------------------------------------------------------------------- idempotency


@pytest.mark.parametrize("weaker", ["repeatable", "idempotent"])
def test_idempotency_weaker_than_the_operations_is_rejected(weaker: str) -> None:
    found = problems(plan(node("m", "t.send", {"text": lit("hi")}, idempotency=weaker)))
    the_problem(
        found,
        "m",
        "(t.send)",
        f"idempotency {weaker!r} is weaker than the operation's 'keyed'",
        "only make it stricter",
    )


@pytest.mark.parametrize("stricter", ["keyed", "unsafe"])
def test_idempotency_as_strict_or_stricter_is_accepted(stricter: str) -> None:
    valid(plan(node("m", "t.send", {"text": lit("hi")}, idempotency=stricter)))


# ---------------------------------------------------------------------------------------------------- criteria


def test_completion_criterion_reading_an_output_the_operation_lacks() -> None:
    found = problems(plan(source("load", completion=check("records.0.id", "exists"))))
    the_problem(found, "load", "completion criterion reads 'records.0.id'", "t.source has no output 'records'")


def test_nested_completion_criteria_are_checked_at_every_leaf() -> None:
    criterion = {
        "kind": "all",
        "of": [check("count", "gte", 1), {"kind": "not", "of": {"kind": "any", "of": [check("rows", "exists")]}}],
    }
    found = problems(plan(source("load", completion=criterion)))
    the_problem(found, "load", "completion criterion reads 'rows'")
    assert not any("'count'" in p for p in found)


def test_stop_condition_reading_an_output_the_operation_lacks() -> None:
    found = problems(plan(source("load", stop={"reason": "empty", "when": check("size", "eq", 0)})))
    the_problem(found, "load", "stop condition reads 'size'", "t.source has no output 'size'")


def test_criteria_on_paths_inside_existing_outputs_are_accepted() -> None:
    valid(
        plan(
            source("load", completion=check("items.0", "exists"), stop={"reason": "r", "when": check("count", "eq", 0)})
        )
    )


def test_expected_output_not_produced() -> None:
    found = problems(plan(source("load", expected_outputs=["items", "records"])))
    the_problem(
        found, "load", "expected output 'records' is not produced by t.source", "it produces: count, items, label"
    )


# ---------------------------------------------------------------------------------------------------- known gaps
# Each test below states what validation should do; it fails today because of the src bug named in its reason.


@pytest.mark.parametrize("length", [2, 3])
def test_alternatives_that_form_a_cycle_are_rejected(length: int) -> None:
    ids = [f"p{i}" for i in range(length)]
    document = plan(*[source(i, alternative=ids[(k + 1) % length]) for k, i in enumerate(ids)])
    found = problems(document)
    assert any("alternative" in p and "p0" in p for p in found), found


def test_duplicate_ids_are_each_checked_against_their_own_operation() -> None:
    found = problems(plan(node("a", "t.upper", {"text": lit("x")}), node("a", "t.add", {"a": lit(1)})))
    assert found == ["node 'a': duplicate node_id; give every node its own id"]


def test_ref_whose_list_items_do_not_fit_is_rejected() -> None:
    found = problems(plan(node("l", "t.loose"), node("j", "t.join", {"items": ref("l", "items")})))
    the_problem(found, "j", "input 'items'")


class _UrlIn(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    url: str
    low: int = 0
    high: int = 10

    @field_validator("url")
    @classmethod
    def _https_only(cls, url: str) -> str:
        if not url.startswith("https://"):
            raise ValueError("only https:// URLs")
        return url

    @model_validator(mode="after")
    def _ordered(self) -> _UrlIn:
        if self.low > self.high:
            raise ValueError("low must not exceed high")
        return self


_VALIDATING = Registry(
    [Operation("t.fetch", "fetch a URL", _UrlIn, helpers.LabelOut, "read", "repeatable", helpers.never_runs)]
)


def test_an_input_that_satisfies_the_operations_own_validators_is_accepted() -> None:
    validate_plan(plan(node("f", "t.fetch", {"url": lit("https://example.org")})), _VALIDATING)


@pytest.mark.parametrize(
    "inputs",
    [{"url": lit("file:///etc/passwd")}, {"url": lit("https://example.org"), "low": lit(5), "high": lit(1)}],
    ids=["field_validator", "model_validator"],
)
def test_literals_are_checked_by_the_input_models_validators(inputs: dict) -> None:
    with pytest.raises(PlanError) as caught:
        validate_plan(plan(node("f", "t.fetch", inputs)), _VALIDATING)
    assert "node 'f'" in caught.value.problems[0]
