"""Policy rules in Cedar: loading, validation against the operation registry, and evaluation.

Rules are text the operator can read and change (`policies/default.cedar` ships with Alicorn). Each operation of
the registry is a Cedar action; principals are `Agent::"agent:NAME"` (with registered, reputation, roles, tier) or
`Human::"human:NAME"`; the resource is `Plan::"<plan hash>"`; the context holds whole-plan facts. A policy set is
validated against a Cedar schema generated from the registry, so a rule naming an unknown operation or context field
is refused before anything runs. Every rule must carry a unique `@id("...")`: decisions name the rules that made
them. A compiled set is identified by the SHA-256 of its text, which is what runs journal.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import cedarpy

from alicorn import canonical
from alicorn.anvil.errors import PolicyError, PolicyParseError, PolicyValidationError

DEFAULT_SOURCE = "default"

_STRING = {"type": "String"}
_LONG = {"type": "Long"}
_BOOL = {"type": "Boolean"}
_STRINGS = {"type": "Set", "element": {"type": "String"}}

#: The context of every decision: name -> Cedar type (all fields are always present).
CONTEXT_FIELDS: dict[str, dict[str, Any]] = {
    "project": _STRING,
    "effect": _STRING,
    "effect_rank": _LONG,
    "plan_effects": _STRINGS,
    "plan_rank": _LONG,
    "hosts": _STRINGS,
    "destinations": _STRINGS,
    "outbound_label": _STRING,
    "outbound_rank": _LONG,
    "amount": _LONG,
    "within_rights": _BOOL,
    "rights_gaps": _STRINGS,
    "forbidden": _STRINGS,
    "approved": _BOOL,
    "approval": _STRING,
    "material_change": _BOOL,
}
#: Present only in the context of a run a schedule's firing started (so other runs' journaled requests stay as they
#: were): its trigger record and the effect classes its schedule, as read from the schedule's own stream, allows;
#: the hosts it names and the plan's hosts beyond them (absent from requests of allowances journaled before hosts).
TRIGGER_FIELDS: dict[str, dict[str, Any]] = {
    "trigger": {
        "type": "Record",
        "attributes": {"schedule": _STRING, "slot": _STRING, "fired_at": _STRING},
        "required": False,
    },
    "schedule_allows": {**_STRINGS, "required": False},
    "schedule_hosts": {**_STRINGS, "required": False},
    "hosts_beyond_schedule": {**_STRINGS, "required": False},
}
AGENT_FIELDS: dict[str, dict[str, Any]] = {
    "registered": _BOOL,
    "reputation": _LONG,
    "roles": _STRINGS,
    "tier": _STRING,
}
PLAN_FIELDS: dict[str, dict[str, Any]] = {
    "project": _STRING,
    "goal_hash": _STRING,
    "provenance": _STRING,
    "channel": _STRING,
    "reads_secret": _BOOL,
    "secret_reads_allowed": _BOOL,
}


def _record(fields: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return {"type": "Record", "attributes": fields}


def cedar_schema(operations: list[str]) -> dict[str, Any]:
    """The Cedar schema every policy set is validated against: one action per operation."""
    applies = {
        "principalTypes": ["Agent", "Human"],
        "resourceTypes": ["Plan"],
        "context": _record({**CONTEXT_FIELDS, **TRIGGER_FIELDS}),
    }
    return {
        "": {
            "entityTypes": {
                "Agent": {"shape": _record(AGENT_FIELDS)},
                "Human": {"shape": _record({})},
                "Plan": {"shape": _record(PLAN_FIELDS)},
            },
            "actions": {name: {"appliesTo": applies} for name in operations},
        }
    }


@functools.lru_cache(maxsize=1)
def default_policy_text() -> str:
    """The policy set that ships with Alicorn."""
    return (resources.files("alicorn.anvil") / "policies" / "default.cedar").read_text(encoding="utf-8")


@dataclass(frozen=True)
class _Compiled:
    cedar: Any  # cedarpy.PolicySet
    ids: dict[str, str]  # Cedar's positional policy id -> the rule's @id
    rules: tuple[str, ...]  # the @ids, in the order the text declares them


@functools.lru_cache(maxsize=32)
def _compile(text: str) -> _Compiled:
    try:
        cedar = cedarpy.PolicySet.from_str(text)
        est = json.loads(cedarpy.policies_to_json_str(text))
    except ValueError as exc:
        raise PolicyParseError(f"the policy text is not valid Cedar: {exc}") from None
    static = est.get("staticPolicies", {})
    if est.get("templates"):
        raise PolicyParseError("policy templates (?principal / ?resource) are not supported; write plain rules")
    ids: dict[str, str] = {}
    for cedar_id in sorted(static, key=lambda k: int(k.removeprefix("policy")) if k[6:].isdigit() else 0):
        rule = static[cedar_id].get("annotations", {}).get("id")
        if not rule:
            raise PolicyParseError(
                f'rule #{len(ids) + 1} of the policy set has no @id("...") annotation; give every rule a unique id '
                "(decisions name the rules that made them)"
            )
        if rule in ids.values():
            raise PolicyParseError(f"two rules share the id {rule!r}; every rule needs its own @id")
        ids[cedar_id] = rule
    if not ids:
        raise PolicyParseError("the policy set has no rules; without a permit rule nothing would ever be allowed")
    return _Compiled(cedar, ids, tuple(ids.values()))


@dataclass(frozen=True)
class Policies:
    """A compiled policy set, its text, where it came from and its digest (what runs journal)."""

    text: str
    source: str

    @property
    def digest(self) -> str:
        return canonical.sha256_text(self.text)

    @property
    def rules(self) -> tuple[str, ...]:
        return _compile(self.text).rules

    def authorize(self, requests: list[dict[str, Any]], entities: list[dict[str, Any]]) -> list[tuple[bool, list[str]]]:
        """Evaluate each request: (allowed, the @ids of the rules that decided it, sorted)."""
        compiled = _compile(self.text)
        results = cedarpy.is_authorized_batch(requests, compiled.cedar, entities)
        out: list[tuple[bool, list[str]]] = []
        for result in results:
            if result.diagnostics.errors:
                raise PolicyError(
                    "evaluating the policy failed: "
                    + "; ".join(str(e) for e in result.diagnostics.errors)
                    + ". Check the rules with `alicorn policy check`"
                )
            out.append((result.allowed, sorted(compiled.ids.get(r, r) for r in result.diagnostics.reasons)))
        return out


def compile_policies(text: str, source: str = DEFAULT_SOURCE) -> Policies:
    """Parse `text` (PolicyParseError if it is not Cedar, or a rule lacks a unique @id)."""
    _compile(text)
    return Policies(text, source)


def validate(policies: Policies, operations: list[str]) -> None:
    """Refuse rules that name unknown operations, entity types or context fields (PolicyValidationError)."""
    problems = _problems(policies.text, tuple(sorted(operations)))
    if problems:
        raise PolicyValidationError(policies.source, list(problems))


@functools.lru_cache(maxsize=32)
def _problems(text: str, operations: tuple[str, ...]) -> tuple[str, ...]:
    result = cedarpy.validate_policies(text, json.dumps(cedar_schema(list(operations))))
    if result.validation_passed:
        return ()
    names = {**_compile(text).ids, **result.id_annotations_by_policy_id}
    problems = []
    for error in result.errors:
        rule = names.get(error.policy_id, error.policy_id)
        message = error.error.replace(f"for policy `{error.policy_id}`, ", "")
        problems.append(f"rule {rule!r}: {message}")
    return tuple(sorted(set(problems)))


def load_policies(path: Path | None, operations: list[str]) -> Policies:
    """The operator's policy file (or the default set), parsed and validated against `operations`."""
    if path is None:
        policies = compile_policies(default_policy_text(), DEFAULT_SOURCE)
    else:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise PolicyError(
                f"cannot read the policy file {path}: {exc.strerror or exc}; fix [anvil] policy in alicorn.toml"
            ) from None
        try:
            policies = compile_policies(text, str(path))
        except PolicyParseError as exc:
            raise PolicyParseError(f"{path}: {exc}") from None
    validate(policies, operations)
    return policies


def rule_sources(text: str) -> dict[str, str]:
    """Each rule's text, by @id (for explanations)."""
    est = json.loads(cedarpy.policies_to_json_str(text))
    out: dict[str, str] = {}
    for cedar_id, body in est.get("staticPolicies", {}).items():
        single = json.dumps({"templates": {}, "staticPolicies": {cedar_id: body}, "templateLinks": []})
        out[_compile(text).ids.get(cedar_id, cedar_id)] = cedarpy.policies_from_json_str(single).strip()
    return out
