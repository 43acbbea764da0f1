"""The schedule template: its slots, the plan it builds, the artifact it hands the validator, and the summary.

The plan follows the seed's walk-through: load and validate the HR data, generate candidate schedules, check them
against labour law, simulate coverage, compare costs, present the comparison and save it. A publication node is added
only when the request asks to publish and publication is not forbidden; otherwise `left_out` says why it is absent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from alicorn.i18n import N_, format_month, format_number, tr, tr_marked, trn
from alicorn.ops.registry import Operation
from alicorn.packs.schedule.checks import CHECK_LABOUR_LAW, COMPARE_COSTS, SIMULATE_COVERAGE
from alicorn.packs.schedule.load import LOAD_INPUTS
from alicorn.packs.schedule.present import MONTHS, PRESENT
from alicorn.packs.schedule.publish import PUBLISH
from alicorn.packs.schedule.solve import GENERATE_VARIANTS
from alicorn.packs.workflow import BuiltPlan, LeftOut, ResultSummary, SlotConflict
from alicorn.plan.dsl import EffectClass, Node
from alicorn.runtime.state import RunState
from alicorn.validate.base import ValidationReport
from alicorn.validate.schedule_issues import data_issue_in

OPERATIONS: tuple[Operation, ...] = (
    LOAD_INPUTS, GENERATE_VARIANTS, CHECK_LABOUR_LAW, SIMULATE_COVERAGE, COMPARE_COSTS, PRESENT, PUBLISH,
)  # fmt: skip
MAX_CONFLICTS = 50


class ScheduleParameters(BaseModel):
    """The slots of a schedule request. Only `month` is required."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    month: str = Field(pattern=r"^\d{4}-(0[1-9]|1[0-2])$", description="the month to plan, YYYY-MM")
    variants: int = Field(3, ge=1, le=5, description="how many schedule variants to prepare")
    respect_vacations: bool = Field(True, description="keep people off shifts during their vacations")
    publish: bool = Field(False, description="publish a variant to the staff; only when the person asks for it")
    publish_variant: int = Field(1, ge=1, le=5, description="which variant to publish, when publish is true")
    asked_period: str | None = Field(
        None,
        max_length=200,
        description="the period the words named when it is not the one whole month planned ('7-13 December', "
        "'January and February'); the result then says what it covers instead",
    )

    @model_validator(mode="after")
    def _known_variant(self) -> ScheduleParameters:
        if self.publish and self.publish_variant > self.variants:
            raise SlotConflict(
                N_("you asked to publish variant {variant}, but there are only {count} variants"),
                variant=self.publish_variant,
                count=self.variants,
            )
        return self


def _ref(node: str, output: str) -> dict[str, Any]:
    return {"ref": {"node": node, "output": output}}


def _val(value: Any) -> dict[str, Any]:
    return {"value": value}


def _check(path: str, op: str, value: Any) -> dict[str, Any]:
    return {"kind": "check", "path": path, "op": op, "value": value}


def _publication_sentence(params: ScheduleParameters, forbidden: frozenset[EffectClass]) -> str:
    if params.publish and "publication" not in forbidden:
        return f"Publication: variant {params.publish_variant} is published to its staff if it has no conflicts."
    if "publication" in forbidden:
        return "Publication: none; the request forbids publishing, so nothing was sent to anyone."
    return "Publication: none; this is a proposal. Pick a variant to publish it in a separate step."


def build(params: BaseModel, forbidden: frozenset[EffectClass]) -> BuiltPlan:
    """The plan's nodes for `params`, leaving out every node whose effect class is forbidden."""
    p = params if isinstance(params, ScheduleParameters) else ScheduleParameters.model_validate(params.model_dump())
    essential = [e for e in ("read", "none") if e in forbidden]
    if essential:
        return BuiltPlan(
            nodes=(),
            left_out=(LeftOut("*", effect=" and ".join(essential)),),  # it must read HR data and compute
        )
    loaded = {name: _ref("load", name) for name in ("rules", "employees", "vacations")}
    variants = _ref("candidates", "variants")
    nodes: list[dict[str, Any]] = [
        {
            "node_id": "load",
            "operation": LOAD_INPUTS.name,
            "description": "Data validation: read the approved shift rules, contracts, competences, vacations and "
            "demand forecast; report problems in the data.",
            "inputs": {"month": _val(p.month)},
            "expected_outputs": ["month", "rules", "employees", "vacations", "demand", "issues", "demand_total"],
            "critical": True,
            "stop": {"reason": "no demand to schedule in the month", "when": _check("demand_total", "lt", 1)},
        },
        {
            "node_id": "candidates",
            "operation": GENERATE_VARIANTS.name,
            "description": f"Candidate generation: {p.variants} schedule variant(s) with different objectives.",
            "inputs": {
                "month": _ref("load", "month"),
                **loaded,
                "demand": _ref("load", "demand"),
                "variants": _val(p.variants),
                "respect_vacations": _val(p.respect_vacations),
            },
            "expected_outputs": ["variants", "count", "coverage", "shortfall", "notes"],
            "completion": _check("count", "eq", p.variants),
            "critical": True,
            "stop": {"reason": "no schedule variant could be generated from the data and rules"},
        },
        {
            "node_id": "labour_law",
            "operation": CHECK_LABOUR_LAW.name,
            "description": "Labour-law check: rest, weekly hours, days in a row, vacations, double bookings.",
            "inputs": {**loaded, "variants": variants, "respect_vacations": _val(p.respect_vacations)},
            "expected_outputs": ["violations", "counts", "total"],
            "completion": _check("counts", "len_eq", p.variants),
        },
        {
            "node_id": "coverage",
            "operation": SIMULATE_COVERAGE.name,
            "description": "Coverage simulation: required against assigned per date, shift and competence.",
            "inputs": {"demand": _ref("load", "demand"), "variants": variants},
            "expected_outputs": ["cells", "variants", "shortfalls"],
        },
        {
            "node_id": "costs",
            "operation": COMPARE_COSTS.name,
            "description": "Cost comparison: pay, overtime and how evenly each variant spreads the work.",
            "inputs": {"rules": loaded["rules"], "employees": loaded["employees"], "variants": variants},
            "expected_outputs": ["currency", "variants", "people", "cheapest"],
        },
        {
            "node_id": "present",
            "operation": PRESENT.name,
            "description": "Presentation: the variants side by side with their conflicts and metrics.",
            "inputs": {
                "month": _ref("load", "month"),
                **loaded,
                "variants": variants,
                "violations": _ref("labour_law", "violations"),
                "coverage": _ref("coverage", "variants"),
                "costs": _ref("costs", "variants"),
                "issues": _ref("load", "issues"),
                "notes": _ref("candidates", "notes"),
                "closed": _ref("load", "closed"),
                "publication": _val(_publication_sentence(p, forbidden)),
            },
            "expected_outputs": ["text", "lines"],
            "completion": _check("lines", "gte", 10),
        },
    ]
    left_out: list[LeftOut] = []
    if "local_write" in forbidden:
        left_out.append(LeftOut("save", "workspace.write_file", effect="local_write"))  # the comparison stays an output
    else:
        nodes.append(
            {
                "node_id": "save",
                "operation": "workspace.write_file",
                "description": "Save the comparison in the run's workspace.",
                "inputs": {"path": _val(f"schedule-{p.month}.txt"), "content": _ref("present", "text")},
                "expected_outputs": ["path", "bytes", "sha256"],
                "completion": _check("bytes", "gte", 1),
            }
        )
    if "publication" in forbidden:
        left_out.append(LeftOut("publish", PUBLISH.name, effect="publication"))
    elif p.publish:
        nodes.append(
            {
                "node_id": "publish",
                "operation": PUBLISH.name,
                "description": f"Publish variant {p.publish_variant} to its staff: the changes and the recipients.",
                "inputs": {
                    "month": _ref("load", "month"),
                    "variant": _val(p.publish_variant),
                    "variants": variants,
                    "employees": loaded["employees"],
                    "violations": _ref("labour_law", "counts"),
                    "shortfalls": _ref("coverage", "shortfalls"),
                },
                "expected_outputs": ["path", "key", "variant", "recipients", "changes", "duplicate"],
                "depends_on": ["present"],
            }
        )
    return BuiltPlan(nodes=tuple(Node.model_validate(n) for n in nodes), left_out=tuple(left_out))


def criteria(params: BaseModel) -> dict[str, Any]:
    """What the validator checks the artifact against: the month, the variant count, vacations, no shortfall."""
    p = params if isinstance(params, ScheduleParameters) else ScheduleParameters.model_validate(params.model_dump())
    found = {"month": p.month, "variants": p.variants, "respect_vacations": p.respect_vacations, "max_shortfall": 0}
    return {**found, "asked_period": p.asked_period} if p.asked_period else found


def _output(state: RunState, node: str) -> dict[str, Any] | None:
    ns = state.nodes.get(node)
    if ns is None or ns.status != "succeeded":
        return None
    return state.effective_output(node)


#: The figures of the cost comparison each variant's metrics carry.
_COST_FIGURES = ("total_cost", "overtime_hours", "hours_spread", "most_nights", "shift_changes", "most_weekly_hours")


def artifact_of(state: RunState) -> dict[str, Any] | None:
    """The schedule artifact: the data the variants were made from, the variants, and the ops' own metrics."""
    load, candidates = _output(state, "load"), _output(state, "candidates")
    if load is None or candidates is None:
        return None
    labour, coverage = _output(state, "labour_law") or {}, _output(state, "coverage") or {}
    costs, save, published = _output(state, "costs") or {}, _output(state, "save"), _output(state, "publish")
    by_id: dict[int, dict[str, Any]] = {
        v["id"]: {"variant": v["id"], "label": v["label"], "objective": v["objective"]} for v in candidates["variants"]
    }
    for i, count in enumerate(labour.get("counts", [])):
        if i < len(candidates["variants"]):
            by_id[candidates["variants"][i]["id"]]["violations"] = count
    for row in coverage.get("variants", []):
        by_id.get(row["variant"], {}).update(
            coverage_pct=row["coverage_pct"], shortfall=sum(s["missing"] for s in row["shortfalls"])
        )
    for row in costs.get("variants", []):
        by_id.get(row["variant"], {}).update(
            {k: row[k] for k in _COST_FIGURES if k in row}  # a run recorded before a figure was measured lacks it
        )
    conflicts = [f"variant {v['variant']}: {v['detail']}" for v in labour.get("violations", [])]
    for row in coverage.get("variants", []):
        conflicts += [
            f"variant {row['variant']}: {s['date']} {s['shift']} {s['competence']} has {s['assigned']} of "
            f"{s['required']}"
            for s in row["shortfalls"]
        ]
    return {
        "month": load["month"],
        "rules": load["rules"],
        "employees": load["employees"],
        "vacations": load["vacations"],
        "demand": load["demand"],
        "closed": load["closed"],
        "issues": load["issues"],
        "variants": candidates["variants"],
        "notes": candidates["notes"],
        "currency": costs.get("currency", load["rules"].get("currency", "")),
        "metrics": [by_id[k] for k in sorted(by_id)],
        "conflicts": conflicts[:MAX_CONFLICTS],
        "document": save["path"] if save else None,
        "published": published,
    }


#: How each variant's objective reads (solve.OBJECTIVES' labels, in every language).
OBJECTIVE_LABELS = {
    "lowest_cost": N_("Lowest cost"),
    "balanced_hours": N_("Hours closest to each contract"),
    "stable_shifts": N_("Fewest changes of shift type"),
    "fair_nights": N_("Night shifts shared evenly"),
    "fair_weekends": N_("Weekend shifts shared evenly"),
}

#: A validation status, as the headline says it.
STATUS_LABELS = {"complete": N_("complete"), "partial": N_("partial"), "failed": N_("failed")}


def variant_label(row: Mapping[str, Any], language: str) -> str:
    """A variant's objective as the person reads it ("Hours closest to each contract", "Godziny najbliższe…")."""
    objective = row.get("objective")
    if language != "en" and objective in OBJECTIVE_LABELS:
        return tr_marked(language, OBJECTIVE_LABELS[str(objective)])
    return str(row.get("label", row.get("objective", "?")))


def _headline(row: Mapping[str, Any], currency: str, language: str = "en") -> str:
    parts = []
    if "total_cost" in row:
        parts.append(f"{format_number(language, row['total_cost'])} {currency}".strip())
    if "coverage_pct" in row:
        parts.append(tr(language, "coverage {pct}%", pct=format_number(language, row["coverage_pct"])))
    if "hours_spread" in row:
        parts.append(tr(language, "hours spread {hours:g} h", hours=row["hours_spread"]))
    if "violations" in row:
        parts.append(trn(language, "{n} labour-law violation", "{n} labour-law violation(s)", int(row["violations"])))
    return tr(
        language,
        "Variant {variant} ({label}): {figures}",
        variant=row["variant"],
        label=variant_label(row, language),
        figures=", ".join(parts) or tr(language, "metrics not available"),
    )


def summarize(artifact: Mapping[str, Any] | None, report: ValidationReport, language: str = "en") -> ResultSummary:
    """Headline per variant (cost, coverage, hours spread), metrics, and the conflicts a human should see, its
    sentences in `language`."""
    failures = tuple(f"{c.title(language)}: {c.sentence(language)}" for c in report.failures)
    if artifact is None or not isinstance(artifact.get("metrics"), list):
        return ResultSummary(
            lines=(tr(language, "No schedule to show: {why}.", why=report.summary_in(language)),), conflicts=failures
        )
    month = str(artifact.get("month", ""))
    try:
        year, number = (int(p) for p in month.split("-"))
        title = f"{MONTHS[number - 1]} {year}" if language == "en" else format_month(language, year, number)
    except (ValueError, IndexError):
        title = month
    rows = [r for r in artifact["metrics"] if isinstance(r, Mapping)]
    currency = str(artifact.get("currency", ""))
    status = tr_marked(language, STATUS_LABELS[report.status]) if report.status in STATUS_LABELS else report.status
    lines = [
        trn(
            language,
            "{n} schedule variant for {month}: {status}.",
            "{n} schedule variant(s) for {month}: {status}.",
            len(rows),
            month=title,
            status=status,
        )
    ]
    lines += [_headline(r, currency, language) for r in rows]
    priced = [r for r in rows if "total_cost" in r]
    cheapest = min(priced, key=lambda r: (r["total_cost"], r["variant"]))["variant"] if priced else None
    if cheapest is not None:
        lines.append(tr(language, "Cheapest: variant {variant}.", variant=cheapest))
    if artifact.get("document"):
        lines.append(
            tr(language, "Comparison saved as {document} in the run's workspace.", document=artifact["document"])
        )
    published = artifact.get("published")
    if isinstance(published, Mapping):
        lines.append(
            tr(
                language,
                "Published variant {variant} to {recipients} people.",
                variant=published.get("variant"),
                recipients=published.get("recipients"),
            )
        )
    else:
        lines.append(tr(language, "Nothing was published."))
    issues = [str(i) for i in artifact.get("issues", [])]
    conflicts = (
        *failures,
        *(str(c) for c in artifact.get("conflicts", [])),
        *(tr(language, "data: {issue}", issue=data_issue_in(i, language)) for i in issues),
    )
    metrics = {
        "month": month,
        "status": report.status,
        "variants": [dict(r) for r in rows],
        "cheapest_variant": cheapest,
        "data_issues": len(issues),
        "published": isinstance(published, Mapping),
    }
    return ResultSummary(lines=tuple(lines), metrics=metrics, conflicts=conflicts)
