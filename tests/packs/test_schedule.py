"""The schedule pack: its contract, its plan, its operations on real files, and whole runs under the real runtime."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import threading
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from alicorn.anvil.terms import RunTerms
from alicorn.errors import OperationError
from alicorn.journal.memory import InMemoryStore
from alicorn.ops.builtin import builtin_registry
from alicorn.ops.registry import OperationContext, Registry
from alicorn.packs.schedule import WORKFLOW
from alicorn.packs.workflow import LANGUAGES, BuiltPlan, LeftOut
from alicorn.plan.dsl import EffectClass, Plan, goal_digest
from alicorn.plan.effects import plan_effects
from alicorn.plan.validate import validate_plan
from alicorn.runtime.executor import Approval, Executor, RunEnvironment
from alicorn.runtime.state import RunState
from alicorn.validate.schedule_issues import as_phrase, data_issue_in

SEED = "Prepare three variants of next month's work schedule, take vacations into account, and do not publish changes."
NOW = datetime(2026, 11, 29, 9, 30)
DATA = WORKFLOW.data_dir
WALK_THROUGH = ["load", "candidates", "labour_law", "coverage", "costs", "present", "save"]


def registry() -> Registry:
    reg = builtin_registry()
    for op in WORKFLOW.operations:
        reg.register(op)
    return reg


REGISTRY = registry()


def built(params: dict[str, Any], forbidden: set[EffectClass] | None = None) -> tuple[Plan, BuiltPlan]:
    result = WORKFLOW.build(WORKFLOW.parameters.model_validate(params), frozenset(forbidden or ()))
    plan = Plan(goal=SEED, goal_hash=goal_digest(SEED), nodes=list(result.nodes))
    return validate_plan(plan, REGISTRY), result


def run(plan: Plan, tmp: Path, data: Path = DATA, **start: Any) -> RunState:
    executor = Executor(InMemoryStore(), REGISTRY, RunEnvironment(tmp / "ws", data))
    return executor.start(plan, **start)


def output(state: RunState, node: str) -> dict[str, Any]:
    """A node's output, which must be there."""
    found = state.nodes[node].output
    assert found is not None, f"{node} has no output ({state.nodes[node].status})"
    return found


def context(tmp: Path, data: Path = DATA, key: str = "run-1/publish/1") -> OperationContext:
    return OperationContext("run-1", "node", 1, key, tmp / "ws", data, threading.Event())


def call(name: str, ctx: OperationContext, **inputs: Any) -> dict[str, Any]:
    op = REGISTRY.get(name)
    result: dict[str, Any] = op.run(op.inputs.model_validate(inputs), ctx).model_dump(mode="json")
    return result


@pytest.fixture(scope="module")
def december(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The seed's command, end to end: next month (December 2026), three variants, publication forbidden."""
    tmp = tmp_path_factory.mktemp("december")
    params = {**WORKFLOW.extract(SEED, "en", NOW)}
    plan, result = built(params, {"publication"})
    state = run(plan, tmp, terms=RunTerms(forbidden=("publication",)))
    artifact = WORKFLOW.artifact_of(state)
    report = WORKFLOW.validator(artifact, WORKFLOW.criteria(WORKFLOW.parameters.model_validate(params)))
    return {
        "tmp": tmp,
        "params": params,
        "plan": plan,
        "built": result,
        "state": state,
        "artifact": artifact,
        "report": report,
    }


# ---------------------------------------------------------------------------------------------------- contract


def test_the_workflow_declares_what_core_needs() -> None:
    assert WORKFLOW.id == "schedule" and WORKFLOW.artifact == "schedule"
    assert WORKFLOW.required_slots() == ["month"]
    for language in LANGUAGES:
        assert len(WORKFLOW.examples[language]) >= 4
        assert WORKFLOW.question("month", language).endswith("?")
    assert len({WORKFLOW.question("month", lang) for lang in LANGUAGES}) == 3
    assert (DATA / "employees.csv").is_file() and (DATA / "rules.json").is_file()
    effects = {op.name: (op.effect, op.idempotency) for op in WORKFLOW.operations}
    assert effects == {
        "schedule.load_inputs": ("read", "repeatable"),
        "schedule.generate_variants": ("none", "repeatable"),
        "schedule.check_labour_law": ("none", "repeatable"),
        "schedule.simulate_coverage": ("none", "repeatable"),
        "schedule.compare_costs": ("none", "repeatable"),
        "schedule.present": ("none", "repeatable"),
        "schedule.publish": ("publication", "keyed"),
    }


def test_importing_the_pack_does_not_import_ortools() -> None:
    code = "import sys, alicorn.packs.schedule as p; assert p.WORKFLOW; print('ortools' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_every_example_selects_the_month_or_asks_for_it() -> None:
    for language, examples in WORKFLOW.examples.items():
        for text in examples:
            found = WORKFLOW.extract(text, language, NOW)
            assert found.get("month") in ("2026-12", "2027-01"), (text, found)


def test_parameters_refuse_bad_values() -> None:
    model = WORKFLOW.parameters
    assert model.model_validate({"month": "2026-12"}).model_dump() == {
        "month": "2026-12",
        "variants": 3,
        "respect_vacations": True,
        "publish": False,
        "publish_variant": 1,
        "asked_period": None,
    }
    for bad in (
        {"month": "2026-13"},
        {"month": "December"},
        {"month": "2026-12", "variants": 6},
        {"month": "2026-12", "variants": 0},
        {"month": "2026-12", "publish": True, "publish_variant": 4},
    ):
        with pytest.raises(ValidationError):
            model.model_validate(bad)


# ---------------------------------------------------------------------------------------------------- build


def test_the_seed_plan_follows_the_walk_through_without_publication() -> None:
    plan, result = built({"month": "2026-12"}, {"publication"})
    assert [n.node_id for n in plan.nodes] == WALK_THROUGH
    assert not any(n.operation == "schedule.publish" for n in plan.nodes)
    assert result.removed == ("publish (schedule.publish, publication): left out, the request forbids it",)
    assert "publication" not in plan_effects(plan, REGISTRY).to_json()
    critical = [n for n in plan.nodes if n.critical]
    assert [n.node_id for n in critical] == ["load", "candidates"] and all(n.stop for n in critical)
    assert plan.node("candidates").inputs["variants"].value == 3  # type: ignore[union-attr]


def test_publishing_when_asked_and_allowed_adds_the_publication_node() -> None:
    plan, result = built({"month": "2027-01", "publish": True, "publish_variant": 2})
    assert [n.node_id for n in plan.nodes] == [*WALK_THROUGH, "publish"]
    assert result.removed == ()
    publish = plan.node("publish")
    assert publish.operation == "schedule.publish" and publish.inputs["variant"].value == 2  # type: ignore[union-attr]
    assert "publication" in plan_effects(plan, REGISTRY).to_json()


def test_publishing_when_asked_but_forbidden_is_left_out() -> None:
    plan, result = built({"month": "2027-01", "publish": True}, {"publication"})
    assert "publish" not in [n.node_id for n in plan.nodes]
    assert any("publication" in r for r in result.removed)


def test_no_publication_node_unless_asked() -> None:
    plan, result = built({"month": "2027-01"})
    assert [n.node_id for n in plan.nodes] == WALK_THROUGH and result.removed == ()


def test_forbidding_local_writes_drops_the_save_node() -> None:
    plan, result = built({"month": "2027-01"}, {"local_write"})
    assert "save" not in [n.node_id for n in plan.nodes]
    assert result.left_out[0] == LeftOut("save", "workspace.write_file", effect="local_write")


def test_forbidding_reads_leaves_nothing_to_do() -> None:
    result = WORKFLOW.build(WORKFLOW.parameters.model_validate({"month": "2027-01"}), frozenset({"read"}))
    assert result.nodes == () and result.left_out == (LeftOut("*", effect="read"),)
    assert result.removed == ("every node: the workflow needs reading, and the request forbids it",)


def test_criteria_follow_the_parameters() -> None:
    params = WORKFLOW.parameters.model_validate({"month": "2027-01", "variants": 2, "respect_vacations": False})
    assert WORKFLOW.criteria(params) == {
        "month": "2027-01",
        "variants": 2,
        "respect_vacations": False,
        "max_shortfall": 0,
    }


# ---------------------------------------------------------------------------------------------------- runs


def test_the_seed_runs_end_to_end_and_validates_complete(december: dict[str, Any]) -> None:
    state, artifact, report = december["state"], december["artifact"], december["report"]
    assert december["params"] == {"month": "2026-12", "variants": 3, "respect_vacations": True, "publish": False}
    assert state.status == "succeeded"
    assert [state.nodes[n].status for n in WALK_THROUGH] == ["succeeded"] * len(WALK_THROUGH)
    assert "publish" not in state.nodes
    assert report.status == "complete", report.summary
    assert {c.name for c in report.checks if c.passed} >= {
        "month",
        "variants",
        "coverage",
        "time_limits",
        "competences",
        "conflicts",
    }
    variants = artifact["variants"]
    assert [v["objective"] for v in variants] == ["lowest_cost", "balanced_hours", "stable_shifts"]
    sets = [frozenset(json.dumps(a, sort_keys=True) for a in v["assignments"]) for v in variants]
    assert len(set(sets)) == 3 and all(len(s) == 257 for s in sets)  # 257 person-shifts in December
    assert min(len(a ^ b) for a in sets for b in sets if a is not b) >= 2 * 13  # at least 5% moved
    assert artifact["published"] is None and artifact["document"] == "schedule-2026-12.txt"
    assert not (december["tmp"] / "ws" / state.run_id / "outbox").exists()


def test_the_run_respects_vacations_and_competences(december: dict[str, Any]) -> None:
    artifact = december["artifact"]
    held = {e["id"]: set(e["competences"]) for e in artifact["employees"]}
    for variant in artifact["variants"]:
        for a in variant["assignments"]:
            assert a["competence"] in held[a["employee"]]
            day = date.fromisoformat(a["date"])
            assert not (a["employee"] == "E01" and day >= date(2026, 12, 21)), a  # Christmas and New Year off
            assert not (a["employee"] == "E06" and date(2026, 12, 7) <= day <= date(2026, 12, 13)), a
            assert a["employee"] != "E15" and a["date"] not in ("2026-12-25", "2026-12-26")


def test_the_data_problems_are_reported(december: dict[str, Any]) -> None:
    issues = "\n".join(december["artifact"]["issues"])
    assert "employee E99 is not in the contracts" in issues
    assert "vacation of E12 2027-01-04..2027-01-08 overlaps" in issues
    assert "E13 ends (2026-12-15) before it starts" in issues
    assert "E15 has no competences" in issues
    assert next(c for c in december["report"].checks if c.name == "data").severity == "warning"


def test_the_comparison_document_shows_variants_conflicts_and_metrics(december: dict[str, Any]) -> None:
    state = december["state"]
    text = (december["tmp"] / "ws" / state.run_id / "schedule-2026-12.txt").read_text(encoding="utf-8")
    assert text == output(state, "present")["text"]
    assert text.startswith("Work schedule: 3 variant(s) for December 2026")
    for needle in (
        "Comparison",
        "Conflicts",
        "Variant 1: Lowest cost",
        "Variant 3: Fewest changes of shift type",
        "E01 Anna Kowalska",
        "forbids publishing",
        "employee E99",
    ):
        assert needle in text
    costs = output(state, "costs")
    assert len(costs["variants"]) == 3 and all(v["total_cost"] > 0 for v in costs["variants"])
    assert f"{costs['variants'][0]['total_cost']:,.2f}" in text


def test_the_summary_has_a_headline_per_variant(december: dict[str, Any]) -> None:
    summary = WORKFLOW.summarize(december["artifact"], december["report"])
    assert summary.lines[0] == "3 schedule variant(s) for December 2026: complete."
    for number in (1, 2, 3):
        line = summary.lines[number]
        assert line.startswith(f"Variant {number} (") and "PLN" in line and "coverage 100.00%" in line
        assert "hours spread" in line and "0 labour-law violation(s)" in line
    assert "Nothing was published." in summary.lines
    assert summary.metrics["status"] == "complete" and len(summary.metrics["variants"]) == 3
    assert any(c.startswith("data: ") for c in summary.conflicts)


def test_the_validator_catches_a_doctored_run(december: dict[str, Any]) -> None:
    criteria = WORKFLOW.criteria(WORKFLOW.parameters.model_validate(december["params"]))
    artifact = copy.deepcopy(december["artifact"])
    first = artifact["variants"][0]["assignments"]
    e01 = next(a for a in first if a["employee"] == "E01")
    e01["date"] = "2026-12-28"  # on vacation
    report = WORKFLOW.validator(artifact, criteria)
    assert report.status == "partial" and "conflicts" in {c.name for c in report.failures}
    assert "E01 works" in next(c for c in report.checks if c.name == "conflicts").detail

    artifact = copy.deepcopy(december["artifact"])
    victim = next(a for a in artifact["variants"][1]["assignments"] if a["employee"] == "E10")
    victim["competence"] = "supervisor"  # a picker without that competence, and one picker short there
    report = WORKFLOW.validator(artifact, criteria)
    assert {c.name for c in report.failures} == {"competences", "coverage"}
    assert (
        f"E10 works as supervisor on {victim['date']}"
        in next(c for c in report.checks if c.name == "competences").detail
    )

    artifact = copy.deepcopy(december["artifact"])
    work = artifact["variants"][2]["assignments"]
    work[:] = [a for a in work if not (a["employee"] == "E13" and a["date"] in ("2026-12-02", "2026-12-03"))]
    work += [
        {"employee": "E13", "date": "2026-12-02", "shift": "afternoon", "competence": "picker"},
        {"employee": "E13", "date": "2026-12-03", "shift": "morning", "competence": "picker"},
    ]
    report = WORKFLOW.validator(artifact, criteria)
    assert "time_limits" in {c.name for c in report.failures}
    assert (
        "E13 rests 8 h before morning on 2026-12-03" in next(c for c in report.checks if c.name == "time_limits").detail
    )


def test_publishing_when_asked_runs_with_approval_and_once(tmp_path: Path) -> None:
    params = {"month": "2027-01", "variants": 1, "publish": True}
    plan, _ = built(params)
    waiting = run(plan, tmp_path / "first")
    assert waiting.status == "awaiting_approval"  # a publication needs a human's approval
    state = run(plan, tmp_path, approvals=[Approval("human:hr-manager", "publish January")])
    assert state.status == "succeeded", {n: s.error for n, s in state.nodes.items()}
    published = output(state, "publish")
    assert published["duplicate"] is False and published["variant"] == 1 and published["changes"] == 254
    outbox = tmp_path / "ws" / state.run_id / "outbox"
    message = json.loads((outbox / Path(published["path"]).name).read_text(encoding="utf-8"))
    assert message["key"] == published["key"] and len(message["recipients"]) == published["recipients"] >= 10
    artifact = WORKFLOW.artifact_of(state)
    report = WORKFLOW.validator(artifact, WORKFLOW.criteria(WORKFLOW.parameters.model_validate(params)))
    assert report.status == "complete", report.summary
    assert "Published variant 1 to" in "\n".join(WORKFLOW.summarize(artifact, report).lines)
    # The generator is deterministic: the same inputs give the same schedule, byte for byte.
    load = output(state, "load")
    again = call(
        "schedule.generate_variants",
        context(tmp_path),
        month="2027-01",
        rules=load["rules"],
        employees=load["employees"],
        vacations=load["vacations"],
        demand=load["demand"],
        variants=1,
    )
    assert again == output(state, "candidates")


def test_a_competence_nobody_has_gives_a_partial_schedule(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "rules.json").write_text((DATA / "rules.json").read_text(encoding="utf-8"), encoding="utf-8")
    (data / "employees.csv").write_text(
        "id,name,competences,contract_hours,hourly_cost\nP1,Ala,picker,40,30\nP2,Ola,picker,40,31\n"
        "P3,Ela,picker,24,29\n",
        encoding="utf-8",
    )
    (data / "vacations.csv").write_text("employee,from,to\nP2,2027-01-11,2027-01-15\n", encoding="utf-8")
    (data / "demand.csv").write_text(
        "day,shift,competence,required\nmon-fri,morning,picker,1\nmon-fri,morning,crane,1\n", encoding="utf-8"
    )
    params = {"month": "2027-01", "variants": 2}
    plan, _ = built(params)
    state = run(plan, tmp_path, data=data)
    assert state.status == "succeeded"
    assert "demand for competence 'crane', which no employee has" in output(state, "load")["issues"][0]
    candidates = output(state, "candidates")
    assert candidates["coverage"] == "short" and candidates["shortfall"] == 21  # 21 weekdays with no crane operator
    assert output(state, "coverage")["shortfalls"] == [21, 21]
    report = WORKFLOW.validator(
        WORKFLOW.artifact_of(state), WORKFLOW.criteria(WORKFLOW.parameters.model_validate(params))
    )
    assert report.status == "partial"
    assert {c.name for c in report.failures} == {"coverage"}
    summary = WORKFLOW.summarize(WORKFLOW.artifact_of(state), report)
    assert any("crane has 0 of 1" in c for c in summary.conflicts)


def test_artifact_and_summary_without_a_run() -> None:
    assert WORKFLOW.artifact_of(RunState()) is None
    report = WORKFLOW.validator(None, {"month": "2027-01", "variants": 3})
    summary = WORKFLOW.summarize(None, report)
    assert report.status == "failed" and summary.lines[0].startswith("No schedule to show")


# ---------------------------------------------------------------------------------------------------- extraction


def slot(text: str, name: str, language: str = "en") -> Any:
    return WORKFLOW.extract(text, language, NOW).get(name)


def test_the_seed_sentence_in_three_languages() -> None:
    expected = {"month": "2026-12", "variants": 3, "respect_vacations": True, "publish": False}
    assert WORKFLOW.extract(SEED, "en", NOW) == expected
    pl = "Przygotuj trzy warianty grafiku pracy na przyszły miesiąc, uwzględnij urlopy i nie publikuj zmian."
    ru = "Подготовь три варианта графика работы на следующий месяц, учти отпуска и не публикуй изменения."
    assert WORKFLOW.extract(pl, "pl", NOW) == expected
    assert WORKFLOW.extract(ru, "ru", NOW) == expected


@pytest.mark.parametrize(
    ("language", "text", "month"),
    [
        ("en", "Plan the warehouse shifts for next month", "2026-12"),
        ("en", "I need the roster for January", "2027-01"),
        ("en", "Shift schedule for February 2027 please", "2027-02"),
        ("en", "Work plan for 2027-03", "2027-03"),
        ("en", "Shifts for 04/2027", "2027-04"),
        ("en", "Redo this month's schedule", "2026-11"),
        ("en", "The schedule in two months", "2027-01"),
        ("en", "Schedule for May", "2027-05"),
        ("en", "Roster for Dec 2026", "2026-12"),
        ("pl", "Grafik na przyszły miesiąc", "2026-12"),
        ("pl", "Ułóż dyżury w przyszłym miesiącu", "2026-12"),
        ("pl", "Harmonogram na styczeń", "2027-01"),
        ("pl", "Grafik zmian w grudniu", "2026-12"),
        ("pl", "Plan pracy na luty 2027 r.", "2027-02"),
        ("pl", "Grafik na następny miesiąc", "2026-12"),
        ("pl", "Grafik za dwa miesiące", "2027-01"),
        ("pl", "Popraw grafik na ten miesiąc", "2026-11"),
        ("pl", "Zmiany w październiku", "2027-10"),
        ("ru", "График смен в следующем месяце", "2026-12"),
        ("ru", "Расписание на следующий месяц", "2026-12"),
        ("ru", "Составь график на январь", "2027-01"),
        ("ru", "График дежурств в декабре", "2026-12"),
        ("ru", "План смен на февраль 2027 года", "2027-02"),
        ("ru", "График через два месяца", "2027-01"),
        ("ru", "Исправь график в этом месяце", "2026-11"),
        ("ru", "Смены в мае", "2027-05"),
    ],
)
def test_month_is_resolved_against_the_intake_time(language: str, text: str, month: str) -> None:
    assert slot(text, "month", language) == month


@pytest.mark.parametrize("text", ["You may publish the schedule for Jan Kowalski", "Prepare the schedule", "hello"])
def test_no_month_is_guessed(text: str) -> None:
    assert slot(text, "month") is None


@pytest.mark.parametrize(
    ("language", "text", "count"),
    [
        ("en", "Draft two variants of the roster", 2),
        ("en", "Give me 4 options for the schedule", 4),
        ("en", "Make the plan in five versions", 5),
        ("en", "Just one variant", 1),
        ("en", "Schedule, variants: 2", 2),
        ("pl", "Przygotuj dwa warianty grafiku", 2),
        ("pl", "Grafik w czterech wariantach", 4),
        ("pl", "Potrzebuję pięć wersji harmonogramu", 5),
        ("pl", "Jeden wariant wystarczy", 1),
        ("ru", "Сделай два варианта графика", 2),
        ("ru", "График в трёх вариантах", 3),
        ("ru", "Нужно 4 разных варианта", 4),
        ("ru", "Количество вариантов: 5", 5),
    ],
)
def test_the_number_of_variants(language: str, text: str, count: int) -> None:
    assert slot(text, "variants", language) == count


@pytest.mark.parametrize(
    "text",
    ["Pick one of the variants for next month", "Publish variant 2", "Make variants"],
)
def test_no_variant_count_is_guessed(text: str) -> None:
    assert slot(text, "variants") is None


def test_more_variants_than_the_template_makes_are_kept_as_asked() -> None:
    # not guessed down to what the template makes: Core asks (tests/core/test_slot_conflicts.py)
    assert slot("Prepare ten variants", "variants") == 10


@pytest.mark.parametrize(
    ("language", "text", "respect"),
    [
        ("en", "Respecting everyone's vacations, plan January", True),
        ("en", "Consider annual leave", True),
        ("en", "Make sure the holidays are taken into account", True),
        ("en", "Ignore vacations this time", False),
        ("en", "Plan it without taking vacations into account", False),
        ("en", "Don't consider vacations", False),
        ("en", "Vacations can be ignored", False),
        ("en", "Don't ignore vacations", True),
        ("pl", "Uwzględnij urlopy", True),
        ("pl", "Grafik z uwzględnieniem urlopów", True),
        ("pl", "Biorąc pod uwagę urlopy pracowników", True),
        ("pl", "Nie uwzględniaj urlopów", False),
        ("pl", "Bez uwzględniania urlopów", False),
        ("pl", "Pomiń urlopy", False),
        ("ru", "Учти отпуска", True),
        ("ru", "С учётом отпусков сотрудников", True),
        ("ru", "Учитывая отпуска", True),
        ("ru", "Не учитывай отпуска", False),
        ("ru", "Без учёта отпусков", False),
        ("ru", "Игнорируй отпуска", False),
        ("ru", "Отпуска не учитывать", False),
    ],
)
def test_whether_vacations_count(language: str, text: str, respect: bool) -> None:
    assert slot(text, "respect_vacations", language) is respect


@pytest.mark.parametrize(
    ("language", "text", "publish"),
    [
        ("en", "Make the January schedule and publish it", True),
        ("en", "Publish the roster to the staff", True),
        ("en", "It should be published on Monday", True),
        ("en", "Do not publish", False),
        ("en", "Don't publish anything yet", False),
        ("en", "Prepare it without publishing", False),
        ("en", "Publish nothing", False),
        ("en", "Leave it unpublished", False),
        ("en", "No publication, just the comparison", False),
        ("en", "Never publish changes", False),
        ("en", "Publishing is forbidden", False),
        ("en", "Publish variant 1, then do not publish anything else", False),
        ("pl", "Opublikuj grafik", True),
        ("pl", "Przygotuj grafik i opublikuj go pracownikom", True),
        ("pl", "Proszę opublikować wariant 2", True),
        ("pl", "Nie publikuj", False),
        ("pl", "Niczego nie publikuj", False),
        ("pl", "Bez publikacji", False),
        ("pl", "Nie publikować zmian", False),
        ("pl", "Publikowanie zabronione", False),
        ("ru", "Опубликуй график", True),
        ("ru", "Составь график и опубликуй его сотрудникам", True),
        ("ru", "Нужно опубликовать второй вариант", True),
        ("ru", "Не публикуй", False),
        ("ru", "Ничего не публикуй", False),
        ("ru", "Без публикации", False),
        ("ru", "Публиковать не надо", False),
        ("ru", "Не надо ничего публиковать", False),
    ],
)
def test_publishing_only_on_an_affirmative_request(language: str, text: str, publish: bool) -> None:
    assert slot(text, "publish", language) is publish


@pytest.mark.parametrize(
    ("language", "text", "variant"),
    [
        ("en", "Publish variant 2", 2),
        ("en", "Publish the third option", 3),
        ("pl", "Opublikuj drugi wariant", 2),
        ("pl", "Opublikuj wariant nr 3", 3),
        ("ru", "Опубликуй вариант номер 3", 3),
        ("ru", "Опубликуй второй вариант", 2),
    ],
)
def test_which_variant_to_publish(language: str, text: str, variant: int) -> None:
    assert WORKFLOW.extract(text, language, NOW) == {"publish": True, "publish_variant": variant}


@pytest.mark.parametrize("text", ["Do not publish variant 2", "Nie publikuj wariantu 2", "Не публикуй вариант 2"])
def test_a_refused_publication_names_no_variant(text: str) -> None:
    assert WORKFLOW.extract(text, "en", NOW) == {"publish": False}


def test_nothing_found_is_an_empty_answer() -> None:
    assert WORKFLOW.extract("Good morning!", "en", NOW) == {}


# ---------------------------------------------------------------------------------------------------- operations


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return call("schedule.load_inputs", context(tmp_path_factory.mktemp("load")), month="2026-12")


def test_load_expands_demand_and_computes_norms(loaded: dict[str, Any]) -> None:
    assert loaded["demand_total"] == 257 and loaded["employee_count"] == 15
    assert loaded["closed"] == ["2026-12-25", "2026-12-26"]
    christmas_eve = {
        (c["shift"], c["competence"]): c["required"] for c in loaded["demand"] if c["date"] == "2026-12-24"
    }
    assert christmas_eve == {("morning", "forklift"): 1, ("morning", "picker"): 2, ("morning", "supervisor"): 1}
    monday = {(c["shift"], c["competence"]): c["required"] for c in loaded["demand"] if c["date"] == "2026-12-07"}
    assert sum(monday.values()) == 11 and monday[("night", "forklift")] == 1
    norms = {e["id"]: e["target_hours"] for e in loaded["employees"]}
    # 23 weekdays, one of them closed (the 25th); Anna is away on 8 of the others, Zofia works 24 h a week.
    assert norms["E01"] == 14 * 8 and norms["E03"] == 22 * 8 and norms["E13"] == 22 * 4.8
    assert {v["employee"] for v in loaded["vacations"]} == {"E01", "E06", "E09", "E12"}  # E99 dropped, Nov ignored
    assert any(v == {"employee": "E12", "start": "2026-12-28", "end": "2027-01-08"} for v in loaded["vacations"])


def write_data(root: Path, **files: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    defaults = {
        "rules.json": (DATA / "rules.json").read_text(encoding="utf-8"),
        "employees.csv": "id,name,competences,contract_hours,hourly_cost\nP1,Ala,picker,40,30\n",
        "vacations.csv": "employee,from,to\n",
        "demand.csv": "day,shift,competence,required\nmon-fri,morning,picker,1\n",
    }
    for name, text in {**defaults, **{k.replace("_", "."): v for k, v in files.items()}}.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_load_reports_bad_rows_without_crashing(tmp_path: Path, december: dict[str, Any]) -> None:
    data = write_data(
        tmp_path / "data",
        employees_csv="id,name,competences,contract_hours,hourly_cost\nP1,Ala,picker;Crane Op!,40,30\n"
        "P1,Again,picker,40,30\nP2,Ola,picker,forty,30\n,Nobody,picker,40,30\n",
        vacations_csv="employee,from,to\nP1,2027-01-05,soon\n",
        demand_csv="day,shift,competence,required\nfunday,morning,picker,1\nmon,evening,picker,1\n"
        "tue,morning,picker,two\nwed,morning,picker,1\nwed,morning,picker,2\n",
    )
    out = call("schedule.load_inputs", context(tmp_path, data), month="2027-01")
    issues = "\n".join(out["issues"])
    for needle in (
        "unreadable competences",
        "P1 appears again",
        "P2 has no valid contract hours",
        "'' is empty or not a plain code",
        "not YYYY-MM-DD",
        "'funday' is neither",
        "shift 'evening'",
        "'two' is not a whole number",
        "given twice",
    ):
        assert needle in issues, needle
    assert [e["id"] for e in out["employees"]] == ["P1"] and out["employees"][0]["competences"] == ["picker"]
    assert out["demand_total"] == 4  # the four Wednesdays of January 2027
    lines = [*out["issues"], *december["artifact"]["issues"]]
    assert len(lines) == 13
    for line in lines:  # each problem is one of the sentences a report can say in the request's language
        read = as_phrase(line)
        assert not isinstance(read, str), line
        assert read["message"].format(**read["values"]) == line
        polish, russian = data_issue_in(line, "pl"), data_issue_in(line, "ru")
        assert ", wiersz " in polish and ", строка " in russian and " line " not in polish + russian, (polish, russian)
    assert data_issue_in("an older loader's line", "pl") == "an older loader's line"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"employees": "staff.csv"}, "no file 'staff.csv'"),
        ({"employees": "../employees.csv"}, "contains '..'"),
        ({"employees": "/etc/passwd"}, "is absolute"),
    ],
)
def test_load_refuses_missing_or_escaping_paths(tmp_path: Path, change: dict[str, str], message: str) -> None:
    with pytest.raises(OperationError, match=message):
        call("schedule.load_inputs", context(tmp_path), month="2026-12", **change)
    assert not (tmp_path / "ws").exists()


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"rules_json": "{not json"}, "not valid JSON"),
        ({"rules_json": json.dumps({"shifts": [], "min_rest_hours": 11})}, "not valid shift rules: shifts"),
        ({"employees_csv": "id,name\nP1,Ala\n"}, "lacks the column"),
        ({"employees_csv": "id,name,competences,contract_hours,hourly_cost\n"}, "no usable employee"),
        ({"demand_csv": "day,shift\nmon,morning\n"}, "lacks the column"),
    ],
)
def test_load_refuses_unusable_files(tmp_path: Path, files: dict[str, str], message: str) -> None:
    data = write_data(tmp_path / "data", **files)
    with pytest.raises(OperationError, match=message):
        call("schedule.load_inputs", context(tmp_path, data), month="2027-01")


def test_load_refuses_a_bad_month(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="month"):
        call("schedule.load_inputs", context(tmp_path), month="2026-13")


def generate_inputs(loaded: dict[str, Any], **change: Any) -> dict[str, Any]:
    keys = ("month", "rules", "employees", "vacations", "demand")
    return {**{k: loaded[k] for k in keys}, **change}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"variants": 6}, "less than or equal to 5"),
        ({"employees": []}, "at least 1 item"),
        (
            {"demand": [{"date": "2026-12-01", "shift": "evening", "competence": "picker", "required": 1}]},
            "demand names shift 'evening'",
        ),
        (
            {"demand": [{"date": "2027-01-01", "shift": "morning", "competence": "picker", "required": 1}]},
            "outside the month 2026-12",
        ),
        (
            {"demand": [{"date": "2026-12-01", "shift": "morning", "competence": "picker", "required": 1}] * 2},
            "given twice",
        ),
    ],
)
def test_generate_refuses_inconsistent_inputs(loaded: dict[str, Any], change: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        REGISTRY.get("schedule.generate_variants").inputs.model_validate(generate_inputs(loaded, **change))


def test_generate_refuses_duplicate_employees(loaded: dict[str, Any]) -> None:
    twice = [loaded["employees"][0], loaded["employees"][0]]
    with pytest.raises(ValidationError, match="employee ids must be unique"):
        REGISTRY.get("schedule.generate_variants").inputs.model_validate(generate_inputs(loaded, employees=twice))


def bad_variant() -> dict[str, Any]:
    """One variant breaking every rule the labour-law check knows."""

    def a(employee: str, day: str, shift: str, competence: str = "picker") -> dict[str, str]:
        return {"employee": employee, "date": day, "shift": shift, "competence": competence}

    week = [a("E10", f"2026-12-{d:02d}", "morning") for d in range(7, 14)]  # Mon-Sun: 56 h, 7 days in a row
    return {
        "id": 1,
        "objective": "lowest_cost",
        "label": "Doctored",
        "solver_status": "FEASIBLE",
        "shortfall": 0,
        "assignments": [
            *week,
            a("E11", "2026-12-01", "afternoon"),
            a("E11", "2026-12-02", "morning"),  # 8 h rest
            a("E14", "2026-12-01", "night"),
            a("E14", "2026-12-02", "morning"),  # 0 h rest
            a("E01", "2026-12-22", "morning"),  # on vacation
            a("E13", "2026-12-03", "morning", "forklift"),  # no such competence
            a("E09", "2026-12-04", "morning"),
            a("E09", "2026-12-04", "afternoon"),  # twice on one day
            a("E05", "2026-12-04", "evening"),  # no such shift
        ],
    }


def test_the_labour_law_check_finds_every_kind_of_violation(tmp_path: Path, loaded: dict[str, Any]) -> None:
    out = call(
        "schedule.check_labour_law",
        context(tmp_path),
        rules=loaded["rules"],
        employees=loaded["employees"],
        vacations=loaded["vacations"],
        variants=[bad_variant()],
    )
    kinds = {(v["kind"], v["employee"]) for v in out["violations"]}
    assert kinds == {
        ("weekly_hours", "E10"),
        ("consecutive_days", "E10"),
        ("rest", "E11"),
        ("rest", "E14"),
        ("vacation", "E01"),
        ("competence", "E13"),
        ("double_booking", "E09"),
        ("unknown", "E05"),
    }
    assert out["counts"] == [8] and out["total"] == 8
    details = {v["kind"] + ":" + v["employee"]: v["detail"] for v in out["violations"]}
    assert details["rest:E11"] == "E11 rests 8 h before morning on 2026-12-02 (minimum 11 h)"
    assert details["weekly_hours:E10"] == "E10 works 56 h in the week of 2026-12-07 (maximum 48 h)"
    ignoring = call(
        "schedule.check_labour_law",
        context(tmp_path),
        rules=loaded["rules"],
        employees=loaded["employees"],
        vacations=loaded["vacations"],
        variants=[bad_variant()],
        respect_vacations=False,
    )
    assert ignoring["total"] == 7


def test_the_checks_refuse_no_variants(tmp_path: Path, loaded: dict[str, Any]) -> None:
    for name, inputs in (
        ("schedule.check_labour_law", {"rules": loaded["rules"], "employees": loaded["employees"]}),
        ("schedule.simulate_coverage", {"demand": loaded["demand"]}),
        ("schedule.compare_costs", {"rules": loaded["rules"], "employees": loaded["employees"]}),
    ):
        with pytest.raises(ValidationError, match="variants"):
            call(name, context(tmp_path), variants=[], **inputs)


def test_coverage_counts_shortfalls_and_extras(tmp_path: Path) -> None:
    demand = [
        {"date": "2026-12-01", "shift": "morning", "competence": "picker", "required": 2},
        {"date": "2026-12-01", "shift": "night", "competence": "forklift", "required": 1},
    ]
    variant = {
        **bad_variant(),
        "assignments": [
            {"employee": "E10", "date": "2026-12-01", "shift": "morning", "competence": "picker"},
            {"employee": "E06", "date": "2026-12-01", "shift": "night", "competence": "forklift"},
            {"employee": "E05", "date": "2026-12-01", "shift": "night", "competence": "forklift"},
        ],
    }
    out = call("schedule.simulate_coverage", context(tmp_path), demand=demand, variants=[variant])
    summary = out["variants"][0]
    assert (summary["required"], summary["covered"], summary["coverage_pct"], summary["extra"]) == (3, 2, 66.67, 1)
    assert summary["shortfalls"] == [
        {"date": "2026-12-01", "shift": "morning", "competence": "picker", "required": 2, "assigned": 1, "missing": 1}
    ]
    assert out["shortfalls"] == [1] and [c["assigned"] for c in out["cells"]] == [[1], [2]]


def test_costs_pay_contracts_and_overtime(tmp_path: Path, loaded: dict[str, Any]) -> None:
    employees = [
        {
            "id": "X",
            "name": "Xe",
            "competences": ["picker"],
            "contract_hours": 40,
            "hourly_cost": 10,
            "target_hours": 16,
        },
        {"id": "Y", "name": "Ye", "competences": ["picker"], "contract_hours": 0, "hourly_cost": 20, "target_hours": 0},
    ]
    shifts = [
        ("X", "2026-12-05", "morning"),
        ("X", "2026-12-06", "morning"),
        ("X", "2026-12-07", "night"),
        ("Y", "2026-12-07", "morning"),
    ]
    variant = {
        **bad_variant(),
        "assignments": [{"employee": e, "date": d, "shift": s, "competence": "picker"} for e, d, s in shifts],
    }
    out = call(
        "schedule.compare_costs",
        context(tmp_path),
        rules=loaded["rules"],
        employees=employees,
        variants=[variant, {**variant, "id": 2, "assignments": variant["assignments"][:2]}],
    )
    first, second = out["variants"]
    # X: 24 h against a 16 h norm -> 24 x 10 + 8 x 5 premium; Y: 8 h overtime -> 8 x 20 + 8 x 10 premium.
    assert first["total_cost"] == 280 + 240 and first["overtime_hours"] == 16 and first["overtime_cost"] == 360
    assert (first["most_nights"], first["most_weekend_shifts"], first["shift_changes"]) == (1, 2, 1)
    assert second["total_cost"] == 160 and second["differs_from_first"] == 2 and out["cheapest"] == 2
    assert out["people"][0] == {"employee": "X", "name": "Xe", "target_hours": 16, "hours": [24, 16]}


def test_present_refuses_no_variants(tmp_path: Path, loaded: dict[str, Any]) -> None:
    with pytest.raises(ValidationError, match="variants"):
        call(
            "schedule.present",
            context(tmp_path),
            month="2026-12",
            rules=loaded["rules"],
            employees=loaded["employees"],
            variants=[],
            coverage=[],
            costs=[],
        )


def publish_inputs(loaded: dict[str, Any], **change: Any) -> dict[str, Any]:
    variant = {**bad_variant(), "assignments": bad_variant()["assignments"][:7]}
    return {
        "month": "2026-12",
        "variant": 1,
        "variants": [variant],
        "employees": loaded["employees"],
        "violations": [0],
        "shortfalls": [0],
        **change,
    }


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"violations": [3]}, "variant 1 has 3 labour-law violation"),
        ({"shortfalls": [2]}, "leaves 2 person-shift"),
        ({"variant": 2}, "there is no variant 2 to publish"),
    ],
)
def test_publish_refuses_and_writes_nothing(
    tmp_path: Path, loaded: dict[str, Any], change: dict[str, Any], message: str
) -> None:
    with pytest.raises(OperationError, match=message):
        call("schedule.publish", context(tmp_path), **publish_inputs(loaded, **change))
    assert not (tmp_path / "ws" / "outbox").exists()


def test_publish_is_keyed_on_the_idempotency_key(tmp_path: Path, loaded: dict[str, Any]) -> None:
    op = REGISTRY.get("schedule.publish")
    inputs = op.inputs.model_validate(publish_inputs(loaded))
    assert op.lookup is not None and op.lookup(inputs, context(tmp_path)).applied is False
    first = call("schedule.publish", context(tmp_path), **publish_inputs(loaded))
    again = call("schedule.publish", context(tmp_path), **publish_inputs(loaded))
    assert first["duplicate"] is False and again == {**first, "duplicate": True}
    assert (first["recipients"], first["changes"]) == (1, 7)
    outbox = tmp_path / "ws" / "outbox"
    assert len(list(outbox.iterdir())) == 1
    found = op.lookup(inputs, context(tmp_path))
    assert found.applied is True and found.output is not None
    other = call("schedule.publish", context(tmp_path, key="run-2/publish/1"), **publish_inputs(loaded))
    assert other["duplicate"] is False and len(list(outbox.iterdir())) == 2


@pytest.mark.parametrize(
    ("language", "text", "asked"),
    [
        ("en", "Prepare two variants of the work schedule for the week of 7-13 December", "7-13 December"),
        ("en", "Work schedule for January and February 2027, two variants", "January and February 2027"),
        ("pl", "Grafik na styczeń i luty, dwa warianty", "styczeń i luty"),
        ("pl", "Ułóż grafik od 1 do 15 grudnia", "od 1 do 15 grudnia"),
        ("ru", "Составь график на январь–февраль", "январь–февраль"),
    ],
)
def test_a_period_other_than_one_whole_month_is_kept_for_the_report(language: str, text: str, asked: str) -> None:
    assert slot(text, "asked_period", language) == asked


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "Prepare the December rota, Kasia is off 3rd to 10th December"),
        ("en", "Prepare three variants of next month's work schedule, take vacations into account"),
        ("ru", "Составь график на декабрь, отпуск Ивана с 7 по 13 декабря"),
        ("pl", "Grafik na grudzień, Ola ma urlop od 7 do 13 grudnia"),
    ],
)
def test_a_whole_month_named_with_other_dates_beside_it_is_just_that_month(language: str, text: str) -> None:
    assert slot(text, "asked_period", language) is None
