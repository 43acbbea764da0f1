"""The context builder: four layers in, one budgeted, minimized, journaled ContextEnvelope out.

    fragments ─► trust (untrusted sources are data) ─► clean ─► secrets scrubbed (always)
              ─► external target: secret fragments dropped or the call blocked; private values redacted or blocked
              ─► data fenced ─► tokens counted ─► layer budgets, then the total (drops by priority, recorded)
              ─► ContextEnvelope ─► `context.built` (ids, hashes, sizes; never text)

Rendering keeps the channels apart: the system message holds only instruction fragments from trusted sources
(rules, project configuration); the user message holds the human's request and every data block.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from alicorn import canonical
from alicorn.context.errors import BudgetError, ContextBlockedError, ContextError
from alicorn.context.fence import DATA_RULE, clean, fence, injection_flags
from alicorn.context.fragments import (
    LAYERS,
    TRUSTED_SOURCES,
    ContextEnvelope,
    DroppedFragment,
    Fragment,
    IncludedFragment,
    Layer,
    source_kind,
)
from alicorn.context.redact import Redactor, scrub_secrets
from alicorn.context.tap import JournalTap
from alicorn.context.tokens import ESTIMATE, TokenCounter


class Budgets(BaseModel):
    """Token budgets per layer and in total. Rules are kept first; the total is enforced by dropping memory, then
    project, then task fragments."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rules: int = Field(1024, ge=0)
    project: int = Field(1024, ge=0)
    task: int = Field(2048, ge=0)
    memory: int = Field(1024, ge=0)
    total: int | None = Field(None, ge=0)

    def for_layer(self, layer: Layer) -> int:
        return int(getattr(self, layer))


class ExposurePolicy(BaseModel):
    """What may reach an external provider. `private`: redact private values or block the call; `secret`: drop
    fragments classified secret (recorded) or block the call."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    allow_external: bool = True
    private: Literal["redact", "block"] = "redact"
    secret: Literal["drop", "block"] = "drop"


@dataclass(frozen=True)
class Target:
    """The model the context is for: its profile id, whether it is external, and how it counts tokens."""

    id: str
    external: bool
    counter: TokenCounter = field(default=ESTIMATE)


_DROP_ORDER: tuple[Layer, ...] = ("memory", "project", "task", "rules")


class ContextBuilder:
    """Builds envelopes under fixed budgets and policy; journals each through `tap` when one is given."""

    def __init__(
        self,
        budgets: Budgets | None = None,
        policy: ExposurePolicy | None = None,
        *,
        names: Sequence[str] = (),
        tap: JournalTap | None = None,
    ) -> None:
        self.budgets = budgets or Budgets()
        self.policy = policy or ExposurePolicy()
        self.names = tuple(names)
        self.tap = tap

    def build(
        self, fragments: Sequence[Fragment], target: Target, *, redactor: Redactor | None = None
    ) -> ContextEnvelope:
        """Assemble the envelope for `target`. Pass your own `redactor` to `restore` the model's answer later."""
        ids = [f.id for f in fragments]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ContextError(f"fragment ids must be unique; repeated: {', '.join(duplicates)}")
        if target.external and not self.policy.allow_external:
            raise ContextBlockedError(
                f"policy forbids sending context to the external provider {target.id!r}; pick a local profile "
                "or allow external providers for this project",
                ids,
            )
        redactor = redactor or Redactor(names=self.names)
        prepared: list[tuple[Fragment, IncludedFragment]] = []
        dropped: list[DroppedFragment] = []
        blocked: list[str] = []
        for fragment in fragments:
            outcome = self._prepare(fragment, target, redactor)
            if isinstance(outcome, DroppedFragment):
                dropped.append(outcome)
            elif outcome is None:
                blocked.append(fragment.id)
            else:
                prepared.append((fragment, outcome))
        if blocked:
            raise ContextBlockedError(
                f"policy blocks this call to the external provider {target.id!r}: fragments {', '.join(blocked)} "
                "hold secret or private data. Use a local profile, reclassify the data, or let policy redact it.",
                blocked,
            )
        kept, budget_drops = self._fit(prepared)
        dropped.extend(budget_drops)
        requested = sum(i.tokens for _, i in prepared)
        included = tuple(i for f, i in prepared if f.id in kept)
        envelope_id = "ctx-" + canonical.digest([target.id, [(i.id, i.sha256) for i in included]])[:16]
        envelope = ContextEnvelope(
            id=envelope_id,
            target=target.id,
            external=target.external,
            counter=target.counter.name,
            fragments=included,
            dropped=tuple(dropped),
            budgets={layer: self.budgets.for_layer(layer) for layer in LAYERS}
            | ({"total": self.budgets.total} if self.budgets.total is not None else {}),
            tokens_requested=requested,
            tokens_used=sum(i.tokens for i in included),
        )
        if self.tap is not None:
            self.tap.append("context.built", envelope.journal_data())
        return envelope

    def _prepare(
        self, fragment: Fragment, target: Target, redactor: Redactor
    ) -> IncludedFragment | DroppedFragment | None:
        """The fragment as it will be sent; a DroppedFragment when policy leaves it out; None when it blocks."""
        notes: list[str] = []
        trust = fragment.trust
        if trust == "instruction" and source_kind(fragment.source) not in TRUSTED_SOURCES:
            trust = "data"
            notes.append(f"claimed instruction from untrusted source kind {source_kind(fragment.source)!r}; data")
        source, _ = scrub_secrets(fragment.source)
        text = clean(fragment.text)
        if target.external and fragment.classification == "secret":
            if self.policy.secret == "block":
                return None
            tokens = target.counter.count(text)
            return DroppedFragment(
                id=fragment.id,
                layer=fragment.layer,
                tokens=tokens,
                priority=fragment.priority,
                reason="policy: secret fragment is not sent to an external provider",
            )
        severities: tuple[Literal["secret", "private"], ...] = ("secret",)
        if target.external and fragment.classification != "public":
            if self.policy.private == "block":
                _, found = Redactor(names=self.names).redact(text)
                if fragment.classification == "private" or found:
                    return None
            severities = ("secret", "private")
        text, counts = redactor.redact(text, severities=severities)
        if trust == "data":
            flags = injection_flags(text)
            if flags:
                notes.append("instruction-like text flagged: " + ", ".join(flags))
            text = fence(fragment.id, source, fragment.classification, text, flags)
        return IncludedFragment(
            id=fragment.id,
            layer=fragment.layer,
            source=source,
            classification=fragment.classification,
            trust=trust,
            tokens=target.counter.count(text),
            sha256=canonical.sha256_text(text),
            text=text,
            redactions=dict(sorted(Counter(counts).items())),
            notes=tuple(notes),
        )

    def _fit(self, prepared: list[tuple[Fragment, IncludedFragment]]) -> tuple[set[str], list[DroppedFragment]]:
        """Ids kept under the layer budgets and the total; the rest dropped by priority, each drop recorded."""
        kept: set[str] = set()
        dropped: list[DroppedFragment] = []
        used: dict[Layer, int] = dict.fromkeys(LAYERS, 0)

        def drop(fragment: Fragment, item: IncludedFragment, reason: str) -> None:
            dropped.append(
                DroppedFragment(
                    id=item.id, layer=item.layer, tokens=item.tokens, priority=fragment.priority, reason=reason
                )
            )

        for layer in LAYERS:
            budget = self.budgets.for_layer(layer)
            members = [(f, i) for f, i in prepared if f.layer == layer]
            need = sum(i.tokens for f, i in members if f.required)
            if need > budget:
                names = ", ".join(f.id for f, _ in members if f.required)
                raise BudgetError(
                    f"the required {layer} fragments ({names}) need {need} tokens but the {layer} budget is "
                    f"{budget}; raise the budget or shorten them"
                )
            # Required first, then by priority; ties keep the given order.
            for fragment, item in sorted(members, key=lambda p: (not p[0].required, -p[0].priority)):
                if used[layer] + item.tokens <= budget:
                    used[layer] += item.tokens
                    kept.add(item.id)
                else:
                    drop(fragment, item, f"budget: {layer} layer full ({used[layer]}/{budget} tokens used)")
        total = self.budgets.total
        if total is not None and sum(used.values()) > total:
            by_id = {i.id: (f, i) for f, i in prepared}
            for layer in _DROP_ORDER:
                candidates = sorted(
                    (by_id[k] for k in kept if by_id[k][0].layer == layer and not by_id[k][0].required),
                    key=lambda p: (p[0].priority, -p[1].tokens, p[1].id),
                )
                for fragment, item in candidates:
                    if sum(used.values()) <= total:
                        break
                    kept.discard(item.id)
                    used[layer] -= item.tokens
                    drop(fragment, item, f"budget: total over {total} tokens; lowest priority in {layer} dropped")
            if sum(used.values()) > total:
                raise BudgetError(
                    f"the required fragments alone need {sum(used.values())} tokens, over the total budget "
                    f"{total}; raise it or shorten them"
                )
        return kept, dropped


def system_prompt(envelope: ContextEnvelope) -> str:
    """The instruction channel: trusted instruction fragments only, rules first, then the data rule."""
    parts = [
        f.text
        for layer in ("rules", "project")
        for f in envelope.fragments
        if f.layer == layer and f.trust == "instruction"
    ]
    if any(f.trust == "data" for f in envelope.fragments):
        parts.append(DATA_RULE)
    return "\n\n".join(parts)


def user_prompt(envelope: ContextEnvelope) -> str:
    """The user message: the task's instructions (the human's request), then every data block."""
    instructions = [f.text for f in envelope.fragments if f.trust == "instruction" and f.layer in ("task", "memory")]
    data = [f.text for layer in LAYERS for f in envelope.fragments if f.layer == layer and f.trust == "data"]
    return "\n\n".join(instructions + data)
