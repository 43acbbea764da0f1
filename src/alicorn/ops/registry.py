"""The operation registry: the only source of capabilities and effects.

A plan names operations; what an operation may do (its effect class, idempotency, timeouts, compensation) is
declared here by the operator's code, never by the model. Every run journals the contracts of the operations its
plan can call (`contracts`: each named operation and its compensation, with a digest of its contract), so a replay
or a resume under a registry where one of *those* changed is caught, and adding an unrelated operation (a pack, an
MCP server's tool) changes nothing for runs already recorded.
"""

from __future__ import annotations

import difflib
import functools
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from alicorn import canonical
from alicorn.errors import PlanError
from alicorn.plan.dsl import EffectClass, IdempotencyClass, RetryPolicy
from alicorn.plan.schema_types import json_types


@dataclass(frozen=True)
class OperationContext:
    """What an operation receives besides its inputs. Secrets, when needed, come by reference (never inputs)."""

    run_id: str
    node_id: str
    attempt: int
    idempotency_key: str
    workspace: Path
    data_root: Path
    cancelled: threading.Event = field(default_factory=threading.Event)
    #: Folders inside the data root that no read may enter: the Alicorn home (`ops.paths.read_path`).
    hidden: tuple[Path, ...] = ()
    #: The run's project (its terms): what project-scoped stores (memory) read, never a plan's input.
    project: str = "default"
    #: Asked by `ops.paths.read_path` before a file under the data root is opened, with the path as the operation
    #: gave it and the path it really reaches (symlinks followed), both relative to the data root: a sentence
    #: refuses the read (a secret the run may not read, or data labelled above what the run was admitted on:
    #: `anvil.secret_reads.ReadGuard`). None: no such check (a context built without the run's labels).
    read_check: Callable[[str, str], str | None] | None = None


OperationFn = Callable[[Any, OperationContext], BaseModel]


@dataclass(frozen=True)
class LookupResult:
    """What the target system says about an idempotency key: applied or not, and if applied, the output."""

    applied: bool
    output: BaseModel | dict[str, Any] | None = None


#: Asks the target whether the effect with `ctx.idempotency_key` was applied. Reads only; never applies anything.
LookupFn = Callable[[Any, OperationContext], LookupResult]

#: The inputs every compensation operation receives (its input model must declare these three fields).
COMPENSATION_FIELDS = ("original_inputs", "original_output", "original_key")


@dataclass(frozen=True)
class Operation:
    """A capability: typed inputs and outputs, its effect and how it may be repeated."""

    name: str
    summary: str
    inputs: type[BaseModel]
    outputs: type[BaseModel]
    effect: EffectClass
    idempotency: IdempotencyClass
    run: OperationFn
    timeout_s: float = 30.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    compensation: str | None = None
    resources: tuple[str, ...] = ()
    lookup: LookupFn | None = None
    #: Where the operation reaches, for whole-plan risk (Anvil): the input holding the URL of an outside host it
    #: contacts, the input holding the path it reads or writes, the input holding an amount of money it moves.
    url_input: str | None = None
    path_input: str | None = None
    amount_input: str | None = None
    #: Every other input naming a file or folder under the data root that the operation reads (a `read`
    #: operation's `path_input` is always one): `schedule.load_inputs` reads vacations, demand and rules besides its
    #: employees. Data labels and the secret-read checks classify each of them, its default when a node leaves it out.
    read_inputs: tuple[str, ...] = ()
    #: For an operation whose read inputs may *select* files rather than name one (`notes.read_transcript`'s
    #: "latest" or a date; a folder, which holds files): the glob patterns, relative to the data root, of every
    #: file a value may lead it to read. Labels take the most sensitive file those patterns can match. None: each
    #: value is the one path it reads.
    selects: Callable[[str], tuple[str, ...]] | None = None
    #: The input holding the list of host names a sandboxed operation may reach (its network grant). A node whose
    #: list is not empty counts as an external transmission to those hosts, whatever the operation declares.
    hosts_input: str | None = None
    #: Run in the session's own thread instead of on a worker (no thread hand-off): only for instant operations
    #: of effect "none", where a timeout cannot matter (one that overran is still reported as a timeout, after it
    #: returns). How it runs, not what it does: not part of its contract (`describe`) nor of its fingerprint.
    inline: bool = False

    @property
    def has_effect(self) -> bool:
        """Whether running it changes something outside the run (a write or more; reads are not effects)."""
        return self.effect not in ("none", "read")

    @property
    def source_inputs(self) -> tuple[str, ...]:
        """The inputs naming files under the data root that it reads: a read's `path_input`, then `read_inputs`."""
        first = (self.path_input,) if self.path_input is not None and self.effect == "read" else ()
        return tuple(dict.fromkeys((*first, *self.read_inputs)))

    def source_patterns(self, value: str) -> tuple[str, ...]:
        """The paths (glob patterns when it `selects`) under the data root that a read input's `value` leads to."""
        return self.selects(value) if self.selects is not None else (value,)

    def _reaches(self) -> dict[str, Any]:
        reaches: dict[str, Any] = {"url": self.url_input, "path": self.path_input, "amount": self.amount_input}
        if self.hosts_input is not None:  # only when declared, so the contracts of other operations stay the same
            reaches["hosts"] = self.hosts_input
        if self.read_inputs:  # likewise
            reaches["reads"] = list(self.read_inputs)
        if self.selects is not None:
            reaches["selects"] = True
        return reaches

    def describe(self) -> dict[str, Any]:
        """The declaration as JSON (what `alicorn schema operations` prints and the fingerprint covers)."""
        return {
            "name": self.name,
            "summary": self.summary,
            "effect": self.effect,
            "idempotency": self.idempotency,
            "timeout_s": self.timeout_s,
            "retry": self.retry.model_dump(mode="json"),
            "compensation": self.compensation,
            "resources": list(self.resources),
            "lookup": self.lookup is not None,
            "reaches": self._reaches(),
            "inputs": self.inputs.model_json_schema(),
            "outputs": self.outputs.model_json_schema(),
        }


class Registry:
    """Operations by name. Build one per application (no global registry)."""

    def __init__(self, operations: Iterable[Operation] = ()) -> None:
        self._ops: dict[str, Operation] = {}
        self._fingerprint: str | None = None
        self._withheld: dict[str, str] = {}
        for op in operations:
            self.register(op)

    def register(self, op: Operation) -> None:
        if op.name in self._ops:
            raise ValueError(f"operation {op.name!r} is already registered")
        if op.compensation is not None and op.compensation == op.name:
            raise ValueError(f"operation {op.name!r} cannot compensate itself")
        for label, named in (
            ("url_input", op.url_input),
            ("path_input", op.path_input),
            ("amount_input", op.amount_input),
            ("hosts_input", op.hosts_input),
        ):
            if named is not None and named not in op.inputs.model_fields:
                raise ValueError(f"operation {op.name!r} declares {label}={named!r}, which is not one of its inputs")
        for named in op.read_inputs:
            if named not in op.inputs.model_fields:
                raise ValueError(
                    f"operation {op.name!r} declares read_inputs {named!r}, which is not one of its inputs"
                )
        if op.selects is not None and not op.source_inputs:
            raise ValueError(
                f"operation {op.name!r} declares `selects` but reads no input; name the input it reads "
                "(a read's path_input, or read_inputs)"
            )
        self._ops[op.name] = op
        self._fingerprint = None

    def check(self) -> None:
        """Refuse a registry whose compensations are missing or cannot take what a compensation receives."""
        for op in self._ops.values():
            if op.compensation is None:
                continue
            undo = self._ops.get(op.compensation)
            if undo is None:
                raise ValueError(
                    f"operation {op.name!r} names compensation {op.compensation!r}, which is not registered"
                )
            missing = [f for f in COMPENSATION_FIELDS if f not in undo.inputs.model_fields]
            if missing:
                raise ValueError(
                    f"compensation {undo.name!r} of {op.name!r} must accept inputs {', '.join(COMPENSATION_FIELDS)}; "
                    f"it lacks {', '.join(missing)}"
                )

    def __contains__(self, name: object) -> bool:
        return name in self._ops

    def get(self, name: str) -> Operation:
        try:
            return self._ops[name]
        except KeyError:
            raise PlanError([self.unknown_message(name)]) from None

    def withhold(self, name: str, reason: str) -> None:
        """Name an operation that exists but is not offered (a quarantined MCP tool): a plan naming it is refused
        with `reason`, the sentence saying why and what to do, instead of "unknown operation"."""
        self._withheld[name] = reason

    def unknown_message(self, name: str, where: str = "") -> str:
        if name in self._withheld:
            return f"{where}{self._withheld[name]}"
        close = difflib.get_close_matches(name, list(self._ops), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        return f"{where}unknown operation {name!r}{hint} (`alicorn schema operations` lists the {len(self._ops)} known)"

    def names(self) -> list[str]:
        return sorted(self._ops)

    def operations(self) -> list[Operation]:
        return [self._ops[n] for n in self.names()]

    def fingerprint(self) -> str:
        """Digest of every operation's contract: name, effect, idempotency, timeout, retry, compensation, resources
        and the names, JSON types and requiredness of its input and output fields.

        Descriptions and the exact JSON Schema text are left out, so a new pydantic release that words its schemas
        differently does not make recorded runs unreplayable, while any change of behaviour-relevant contract does.
        """
        if self._fingerprint is None:
            self._fingerprint = canonical.digest([_contract(op) for op in self.operations()])
        return self._fingerprint

    def contracts(self, names: Iterable[str]) -> dict[str, str]:
        """Operation name → the digest of its contract (as `fingerprint` covers it), for `names` and every
        compensation they name, transitively; an operation not registered maps to "missing"."""
        out: dict[str, str] = {}
        pending = list(names)
        while pending:
            name = pending.pop()
            if name in out:
                continue
            op = self._ops.get(name)
            out[name] = "missing" if op is None else canonical.digest(_contract(op))
            if op is not None and op.compensation is not None:
                pending.append(op.compensation)
        return dict(sorted(out.items()))


@functools.lru_cache(maxsize=4096)
def _contract(op: Operation) -> dict[str, Any]:
    """One operation's part of the fingerprint. Cached: JSON Schemas are slow to build, and operations are frozen
    (a forked test child would otherwise spend most of its start on them)."""
    contract = op.describe()
    del contract["summary"]
    contract["inputs"] = _shape(op.inputs)
    contract["outputs"] = _shape(op.outputs)
    return contract


def _shape(model: type[BaseModel]) -> dict[str, Any]:
    """Field name -> (JSON types, required) of a model: the part of its schema a plan depends on."""
    schema = model.model_json_schema()
    defs = schema.get("$defs", {})
    required = set(schema.get("required", []))
    return {
        name: {"types": sorted(json_types(prop, defs)), "required": name in required}
        for name, prop in sorted(schema.get("properties", {}).items())
    }
