"""A workflow template: what a pack gives Norbi Core's planner for one kind of request.

A weak local model cannot be trusted to write a whole DAG, so each pack offers a template the model *selects and
fills*: a small, flat parameter model (the slots; its JSON Schema constrains the model's answer), a deterministic
`extract` that finds slot values in the utterance in any supported language (a second, checkable signal), and a
`build` that turns filled slots into the plan's nodes. Everything a run needs is in the pack: its operations (merged
into the app's registry), its sample data (the run's data root unless the project names one), the acceptance
criteria it asks the validator to check, and how to read the run's artifact back from the run's outputs.

    utterance ─► extract(text, language, now) ─┐
    model ─► parameters (schema-constrained) ──┴► params ─► missing required slots? ─► clarifying question
                                                    │
                                                    └► build(params, forbidden) ─► nodes (no node whose effect
                                                       class is forbidden) ─► Plan ─► Anvil ─► runtime
    run state ─► artifact_of ─► validator(artifact, criteria(params)) ─► ValidationReport ─► summarize ─► report
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from alicorn.anvil.words import effect_said, effects_said
from alicorn.i18n import tr, tr_marked
from alicorn.ops.registry import Operation
from alicorn.packs.inputs import DataInput
from alicorn.plan.dsl import EffectClass, Node
from alicorn.runtime.state import RunState
from alicorn.validate.base import ArtifactType, ValidationReport
from alicorn.validate.constraints import Measure

#: Languages a pack's questions and examples must cover.
LANGUAGES = ("en", "pl", "ru")


@dataclass(frozen=True)
class ResultSummary:
    """What the report shows of a result: headline lines, figures, and the conflicts a human should see."""

    lines: tuple[str, ...]
    metrics: Mapping[str, Any] = field(default_factory=dict)
    conflicts: tuple[str, ...] = ()


class SlotConflict(ValueError):
    """Slot values that do not go together, raised by a parameters model's validator ("publish variant 3" of two):
    the sentence a person reads, as a msgid (marked with `N_` where it is written) and its values, so Core says it in
    the person's language (`Workflow.conflict`)."""

    def __init__(self, msgid: str, /, **values: Any) -> None:
        super().__init__(msgid.format(**values))
        self.msgid = msgid
        self.values = values


def _error_said(error: Mapping[str, Any], language: str) -> str:
    """One of pydantic's errors on a parameters model, as a person reads it."""
    context = error.get("ctx") or {}
    cause = context.get("error")
    if isinstance(cause, SlotConflict):
        return tr_marked(language, cause.msgid, **cause.values)
    slot = ".".join(str(part) for part in error.get("loc", ())) or "?"
    value = error.get("input")
    if error.get("type") in ("less_than_equal", "less_than"):
        most = context.get("le", context.get("lt"))
        return tr(language, "“{slot}” is {value}, more than this template can do (at most {most})", slot=slot,
                  value=value, most=most)  # fmt: skip
    if error.get("type") in ("greater_than_equal", "greater_than"):
        least = context.get("ge", context.get("gt"))
        return tr(language, "“{slot}” is {value}, less than this template needs (at least {least})", slot=slot,
                  value=value, least=least)  # fmt: skip
    return tr(language, "“{slot}” cannot be {value}: {reason}", slot=slot, value=value, reason=error.get("msg", ""))


@dataclass(frozen=True)
class Workflow:
    """One template (see the module docstring). Every callable is pure: same inputs, same result.

    - `parameters`: flat pydantic model; a field without a default is a *required slot*. Keep fields to
      str / int / bool / Literal / short lists: a 135M-parameter model must be able to fill it.
    - `extract(text, language, now)`: slot values found in the utterance (only those found; `{}` is fine).
      `now` is the intake time (journaled), so "next month" / "yesterday" resolve the same way on replay.
    - `questions[slot][language]`: the clarifying question asked when a required slot is missing.
    - `build(params, forbidden)`: the nodes. Must leave out every node whose operation's effect class is in
      `forbidden` (and say so in `left_out`); optional effect nodes are included only when a slot asks for them.
    - `artifact_of(state)`: the artifact the validator checks, read from the run's node outputs (None if absent).
    - `criteria(params)`: the acceptance criteria handed to the validator (JSON), part of the outcome contract.
    - `validator(artifact, criteria)`: one of alicorn.validate's `validate_<type>` functions.
    - `summarize(artifact, report, language)`: headline, metrics, conflicts for the final report, its sentences in
      `language` (the request's: alicorn.i18n; the report's `summary_in` and checks' `sentence` say theirs in it).
    - `inputs`: the data the plan reads (kind, format, fields, the field whose dates give the data's span).
    - `period(parameters)`: the days the request asks about, checked against the data's span before the run.
    - `measures`: the result's figures that stated constraints can bound.
    """

    id: str
    title: str
    summary: str
    artifact: ArtifactType
    parameters: type[BaseModel]
    operations: tuple[Operation, ...]
    examples: Mapping[str, tuple[str, ...]]
    data_dir: Path
    extract: Callable[[str, str, datetime], dict[str, Any]]
    questions: Mapping[str, Mapping[str, str]]
    build: Callable[[BaseModel, frozenset[EffectClass]], BuiltPlan]
    artifact_of: Callable[[RunState], dict[str, Any] | None]
    criteria: Callable[[BaseModel], dict[str, Any]]
    validator: Callable[[Mapping[str, Any] | None, Mapping[str, Any]], ValidationReport]
    summarize: Callable[[Mapping[str, Any] | None, ValidationReport, str], ResultSummary]
    #: The data the plan reads (alicorn.packs.inputs): Core finds it among the user's files and stages it as the
    #: run's data root; a workflow with none runs over the data root Core was given.
    inputs: tuple[DataInput, ...] = ()
    #: `extract` for slots that depend on the user's data ("yesterday's call": which transcript is that?), given
    #: the folder the data was staged in; used instead of `extract` once the data is found.
    extract_from_data: Callable[[str, str, datetime, Path], dict[str, Any]] | None = None
    #: The period (first day, day after the last) the request asks about, from the filled slots; Core checks the
    #: data's span against it before running.
    period: Callable[[Mapping[str, Any]], tuple[date, date] | None] | None = None
    #: The figures the result carries (alicorn.validate.constraints): a stated constraint on one ("overtime under
    #: 200 h") is checked on every item of the result; one on no figure here is reported as not checked.
    measures: tuple[Measure, ...] = ()
    #: Word stems (lowercase, any language) of what this work is *about*. "alarm" names the subject; "~camera" is
    #: a weak stem (a word with other senses: one alone is not enough); "=app" must be the whole word;
    #: "render-time" is a phrase (consecutive words, each starting so); "!alarm-clock" excludes the template when
    #: those words appear together ("set an alarm clock"). A template is
    #: chosen only when the request's own words name its subject; similar-sounding requests about something else
    #: ("write a poem about the camera") get a question or no template, never this one by accident.
    vocabulary: tuple[str, ...] = ()
    #: The weak stems of `vocabulary` that name the work's own product or subject ("~grafik", "~sandbox",
    #: "~тревог"), not its circumstances ("~variant", "~camera", "~meeting"): one of them with another weak stem of
    #: this template names it ("grafik … dwa warianty", "тревоги с камер"), where two circumstances alone do not
    #: ("Book the meeting room, I have a call").
    product_stems: tuple[str, ...] = ()

    def named_in(self, text: str) -> tuple[str, ...]:
        """The vocabulary stems `text` contains, each at the start of a word (weak ones keep their "~"); none when
        an exclusion ("!word-word") is in the text."""
        words = re.findall(r"[^\W\d_]+", text.lower().replace("ё", "е"))
        joined = " " + " ".join(words) + " "
        if any(f" {stem[1:].replace('-', ' ')} " in joined for stem in self.vocabulary if stem.startswith("!")):
            return ()
        found = []
        for stem in self.vocabulary:
            if stem.startswith("!"):
                continue
            bare = stem.lstrip("~")
            if "-" in bare:  # a phrase: consecutive words, each starting with its part ("render-time")
                parts = bare.split("-")
                spans = zip(*(words[i:] for i in range(len(parts))), strict=False)
                if any(all(w.startswith(p) for w, p in zip(span, parts, strict=True)) for span in spans):
                    found.append(stem)
                continue
            exact = bare.startswith("=")
            bare = bare.lstrip("=")
            if any(w == bare if exact else w.startswith(bare) for w in words):
                found.append(stem)
        return tuple(dict.fromkeys(found))

    #: A message after the report, read as changes to the slots ("I pick variant 2" → publish variant 2), or None
    #: when it asks for nothing this workflow can do next. Core builds the *separate* plan of the new nodes only,
    #: over the finished run's results (nothing is computed again).
    follow_up: Callable[[str, str], dict[str, Any] | None] | None = None
    #: The item of the result a follow-up acts on ("variant 2"), to check it against the stated constraints.
    item_of: Callable[[Mapping[str, Any]], str | None] | None = None
    #: A sentence naming what an effect node will change and for whom, from its resolved inputs (the approval
    #: prompt and `alicorn proposals` show it); None keeps the node's own description.
    describe_effect: Callable[[str, Mapping[str, Any], str], str | None] | None = None

    def required_slots(self) -> list[str]:
        return [name for name, f in self.parameters.model_fields.items() if f.is_required()]

    def conflict(self, values: Mapping[str, Any], language: str) -> str | None:
        """Why `values` cannot be this template's parameters, in a sentence in `language` ("you asked to publish
        variant 3, but there are only 2"); None when they can. Each slot was checked alone when it was filled; this
        is what they say together, and what words asked beyond the template's limits ("seven variants")."""
        try:
            self.parameters.model_validate(dict(values))
        except ValidationError as exc:
            return "; ".join(_error_said(error, language) for error in exc.errors())
        return None

    def question(self, slot: str, language: str) -> str:
        """The clarifying question for `slot` in `language` (English when the pack has none for it)."""
        texts = self.questions.get(slot, {})
        return texts.get(language) or texts.get("en") or f"Please give a value for {slot}."


@dataclass(frozen=True)
class LeftOut:
    """A template node left out of a plan, and why: its effect class is forbidden (`effect`), or it needs nodes that
    were left out (`needs`). `node="*"` says the workflow could keep no node, since it needs `effect` to do anything.
    Said in any language by `sentence`; journaled as `to_json` (with the English sentence, for older readers)."""

    node: str
    operation: str = ""  # the template's operation ("" only for node="*")
    effect: str | None = None
    needs: tuple[str, ...] = ()

    def sentence(self, language: str = "en") -> str:
        if self.node == "*":
            return tr(language, "every node: the workflow needs {effect}, and the request forbids it",
                      effect=effects_said((self.effect or "").split(" and "), language))  # fmt: skip
        if self.effect is not None:
            return tr(language, "{node} ({operation}, {effect}): left out, the request forbids it",
                      node=self.node, operation=self.operation, effect=effect_said(self.effect, language))  # fmt: skip
        return tr(language, "{node} ({operation}): left out, it needs {needs}, left out too", node=self.node,
                  operation=self.operation, needs=", ".join(self.needs))  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        return {"node": self.node, "operation": self.operation, "effect": self.effect, "needs": list(self.needs)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LeftOut:
        return cls(
            str(data["node"]), str(data.get("operation") or ""), data.get("effect"), tuple(data.get("needs", ()))
        )


@dataclass(frozen=True)
class BuiltPlan:
    """A template's nodes, and the nodes it left out because their effect class is forbidden (or they need one)."""

    nodes: tuple[Node, ...]
    left_out: tuple[LeftOut, ...] = ()

    @property
    def removed(self) -> tuple[str, ...]:
        """The left-out nodes in English sentences: "publish (schedule.publish, publication): left out, …"."""
        return tuple(item.sentence() for item in self.left_out)


def without_forbidden(
    nodes: Sequence[Node], forbidden: frozenset[EffectClass], effect_of: Mapping[str, EffectClass]
) -> BuiltPlan:
    """`nodes` (in dependency order) less those whose effect class is forbidden and those upstream of which a node
    was left out, each removal said in a sentence. `effect_of` maps the template's operation names to their class."""
    kept: list[Node] = []
    left_out: list[LeftOut] = []
    gone: set[str] = set()
    for node in nodes:  # in dependency order, so one pass sees every upstream decision
        effect = effect_of[node.operation]
        if effect in forbidden:
            gone.add(node.node_id)
            left_out.append(LeftOut(node.node_id, node.operation, effect=effect))
        elif lost := sorted(node.upstream() & gone):
            gone.add(node.node_id)
            left_out.append(LeftOut(node.node_id, node.operation, needs=tuple(lost)))
        else:
            kept.append(node)
    return BuiltPlan(nodes=tuple(kept), left_out=tuple(left_out))
