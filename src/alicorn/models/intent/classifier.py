"""Classifying an utterance: kind, language and forbidden effects, from a model and deterministic signals.

    language   ← the language identifier (`langid`); the model's guess only when the identifier is unsure
    forbidden  ← the negation-scope reading of forbidden actions (`lexicon`); readings a double negation lifted
                 ("don't forget to send") are recorded too; the model's list is recorded, never trusted
    recurrence ← the recurring schedule the words ask for (`recurrence`: frequency, weekdays, time, cron)
    kind       ← a recurrence (→ process, unless the sentence only asks about it) → strong surface cues (`cues`,
                 with `urgency`) → nearest labelled examples (`embed`) when they agree clearly → the model's answer
                 when it is valid → weak cues → the nearest examples → "task"

Each result records which signal decided each field and what every signal said, so a wrong classification can be
traced to the signal that caused it. The model is optional: without one the deterministic signals decide alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, field_validator

from alicorn.models.errors import ModelError
from alicorn.models.intent.cues import Kind, kind_cue
from alicorn.models.intent.embed import Example, NearestExamples
from alicorn.models.intent.examples import EXAMPLES
from alicorn.models.intent.forbidden import read_actions
from alicorn.models.intent.langid import identify
from alicorn.models.intent.recurrence import Recurrence, find_recurrence
from alicorn.models.messages import ChatRequest
from alicorn.models.recorder import ModelClient
from alicorn.models.structured import ask_structured

Language = Literal["en", "pl", "ru", "other"]
#: `code_execution` ("don't run it", "nie odpalaj go") is read by the lexicon only: the model's flags keep the five
#: older classes, so recorded answers (the demo's) stay valid, and the lexicon decides this field anyway.
ForbiddenEffect = Literal[
    "publication", "external_transmission", "installation", "physical", "local_write", "code_execution"
]

_KINDS_PROMPT = (
    "Classify the user's message. kind: conversation (small talk), question (asks for information), task (asks "
    "for one piece of work), process (recurring or ongoing work), alarm (an urgent event happening now). "
    "language: en, pl, ru or other. "
)
SYSTEM_PROMPT = _KINDS_PROMPT + (
    "forbidden: actions the message explicitly forbids, each listed once (publication, external_transmission, "
    "installation, physical, local_write); usually none. Answer with JSON."
)
FLAGS_PROMPT = _KINDS_PROMPT + (
    "forbidden: for each action (publication, external_transmission, installation, physical, local_write), true "
    "only if the message explicitly forbids it; usually all false. Answer with JSON."
)


class IntentLabel(BaseModel):
    """What the model is asked for. Bounded on purpose: small models repeat list items until the token limit."""

    model_config = ConfigDict(extra="forbid")

    kind: Kind
    language: Language
    forbidden: Annotated[
        list[ForbiddenEffect], Field(default_factory=list, max_length=3, json_schema_extra={"uniqueItems": True})
    ]

    @field_validator("forbidden")
    @classmethod
    def _each_once(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError("list each forbidden effect once (the items must be unique)")
        return value


class ForbiddenFlags(BaseModel):
    """The forbidden effects as one flag each: a shape a decoding grammar can enforce completely (llama.cpp's
    JSON-Schema grammar enforces `maxItems` but not `uniqueItems`, so the list form lets a small model repeat items)."""

    model_config = ConfigDict(extra="forbid")

    publication: bool
    external_transmission: bool
    installation: bool
    physical: bool
    local_write: bool


class IntentFlags(BaseModel):
    """`IntentLabel` with the forbidden effects as flags (`schema="flags"`)."""

    model_config = ConfigDict(extra="forbid")

    kind: Kind
    language: Language
    forbidden: ForbiddenFlags

    def label(self) -> IntentLabel:
        flags = self.forbidden.model_dump()
        chosen = [name for name in ForbiddenFlags.model_fields if flags[name]]
        # Built without IntentLabel's maxItems: that bound exists against repeated items, which flags cannot have.
        return IntentLabel.model_construct(
            kind=self.kind, language=self.language, forbidden=cast(list[ForbiddenEffect], chosen)
        )


class Signal(BaseModel):
    """What one signal said about one field."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    field: Literal["kind", "language", "forbidden", "recurrence"]
    signal: str
    value: Any
    confidence: float | None = None
    evidence: str = ""


class ModelOpinion(BaseModel):
    """The model's answer (or why there is none) and what it cost."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    profile: str
    label: IntentLabel | None
    attempts: int
    valid_first_try: bool
    constrained: bool
    prompt_tokens: int
    completion_tokens: int
    error: str | None = None


class Classification(BaseModel):
    """The result, with the deciding signal per field and every signal's view."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Kind
    language: Language
    forbidden: tuple[ForbiddenEffect, ...]
    decided_by: dict[str, str]
    signals: tuple[Signal, ...]
    model: ModelOpinion | None = None
    #: The recurring schedule a process asks for ("every Monday at 08:00", with its cron); None for a one-off.
    recurrence: Recurrence | None = None


class IntentClassifier:
    """Combines the model (optional) with the language identifier, the lexicon, surface cues and examples."""

    def __init__(
        self,
        client: ModelClient | None = None,
        *,
        examples: Sequence[Example] = EXAMPLES,
        max_repairs: int = 2,
        max_tokens: int = 96,
        knn_share: float = 0.6,
        knn_similarity: float = 0.3,
        schema: Literal["list", "flags"] = "flags",
    ) -> None:
        self.client = client
        self.schema = schema
        self.nearest = NearestExamples(examples)
        self.max_repairs = max_repairs
        self.max_tokens = max_tokens
        self.knn_share = knn_share
        self.knn_similarity = knn_similarity

    def model_opinion(self, text: str) -> ModelOpinion | None:
        """Ask the model alone (None without a model). Invalid answers after repair are an opinion with an error."""
        if self.client is None:
            return None
        prompt = FLAGS_PROMPT if self.schema == "flags" else SYSTEM_PROMPT
        request = ChatRequest.chat(prompt, text, max_tokens=self.max_tokens)
        shape: type[IntentLabel | IntentFlags] = IntentFlags if self.schema == "flags" else IntentLabel
        try:
            result = ask_structured(self.client, request, shape, max_repairs=self.max_repairs, purpose="classify")
        except ModelError as exc:
            attempts = getattr(exc, "attempts", [])
            return ModelOpinion(
                profile=self.client.profile.id,
                label=None,
                attempts=max(len(attempts), 1),
                valid_first_try=False,
                constrained=self.client.provider.constrains_output,
                prompt_tokens=getattr(exc, "prompt_tokens", 0),
                completion_tokens=getattr(exc, "completion_tokens", 0),
                error=f"{type(exc).__name__}: {exc}"[:500],
            )
        return ModelOpinion(
            profile=self.client.profile.id,
            label=result.value.label() if isinstance(result.value, IntentFlags) else result.value,
            attempts=result.attempts,
            valid_first_try=result.valid_first_try,
            constrained=result.constrained,
            prompt_tokens=result.usage.prompt_tokens,
            completion_tokens=result.usage.completion_tokens,
        )

    def classify(self, text: str) -> Classification:
        """Classify with every signal (the model too, when there is one)."""
        return self.combine(text, self.model_opinion(text))

    def combine(self, text: str, opinion: ModelOpinion | None) -> Classification:
        """The deterministic signals plus an already obtained model opinion."""
        signals: list[Signal] = []
        decided: dict[str, str] = {}
        label = opinion.label if opinion is not None else None

        guess = identify(text)
        signals.append(
            Signal(
                field="language",
                signal="langid",
                value=guess.language,
                confidence=guess.confidence,
                evidence=guess.evidence,
            )
        )
        language: Language = guess.language if guess.language in ("en", "pl", "ru") else "other"  # type: ignore[assignment]
        decided["language"] = "langid"
        if label is not None:
            signals.append(Signal(field="language", signal="model", value=label.language))
            if guess.confidence < 0.5:
                language, decided["language"] = label.language, "model"

        readings = read_actions(text, guess.language)
        found = [r for r in readings if r.forbids]
        forbidden = tuple(sorted({f.effect for f in found}))
        signals.append(
            Signal(
                field="forbidden",
                signal="lexicon",
                value=list(forbidden),
                # Each reading with the class it forbids, so a contract cites, for each class, its own words.
                evidence="; ".join(f"{f.trigger} → {f.word} [{f.effect}]" for f in found),
            )
        )
        lifted = [r for r in readings if not r.forbids]
        if lifted:
            # "don't forget to send", "no reason not to publish": read, and found not to forbid.
            signals.append(
                Signal(
                    field="forbidden",
                    signal="lexicon(lifted)",
                    value=sorted({r.effect for r in lifted}),
                    evidence="; ".join(f"{r.trigger} → {r.word}" for r in lifted),
                )
            )
        if label is not None:
            signals.append(Signal(field="forbidden", signal="model", value=list(label.forbidden)))
        decided["forbidden"] = "lexicon"

        recurrence = find_recurrence(text, language)
        if recurrence is not None:
            signals.append(
                Signal(
                    field="recurrence",
                    signal="recurrence",
                    value={"cron": recurrence.cron, "description": recurrence.description},
                    confidence=1.0,
                    evidence=recurrence.words,
                )
            )
        kind, decided["kind"] = self._kind(text, label, signals, recurrence, bool(forbidden))
        if recurrence is not None and kind == "process":
            decided["recurrence"] = "recurrence"
        return Classification(
            kind=kind,
            language=language,
            forbidden=forbidden,
            decided_by=decided,
            signals=tuple(signals),
            model=opinion,
            recurrence=recurrence if kind == "process" else None,
        )

    def _kind(
        self,
        text: str,
        label: IntentLabel | None,
        signals: list[Signal],
        recurrence: Recurrence | None = None,
        forbids: bool = False,
    ) -> tuple[Kind, str]:
        cue = kind_cue(text)
        if cue is not None:
            signals.append(
                Signal(
                    field="kind",
                    signal="rules" if cue.strong else "rules(weak)",
                    value=cue.kind,
                    confidence=1.0 if cue.strong else 0.5,
                    evidence=cue.evidence,
                )
            )
        voted, share, similarity, neighbours = self.nearest.vote(text)
        if voted is not None:
            signals.append(
                Signal(
                    field="kind",
                    signal="nearest_examples",
                    value=voted,
                    confidence=round(share, 3),
                    evidence=f"top similarity {similarity:.2f}: {neighbours[0].example.text!r}",
                )
            )
        if label is not None:
            signals.append(Signal(field="kind", signal="model", value=label.kind))
        asks = cue is not None and cue.strong and cue.kind == "question"
        if recurrence is not None and not asks:
            # A recurring schedule is a process ("every Monday at 8 prepare…"); a question about one is a question.
            signals.append(
                Signal(field="kind", signal="recurrence", value="process", confidence=1.0, evidence=recurrence.words)
            )
            return "process", "recurrence"
        if cue is not None and cue.strong:
            return cue.kind, "rules"
        if forbids and (cue is None or cue.kind == "conversation"):
            # "Grafik na maj, żadnego wywieszania", "Standup recording to minutes, zero emails out": a bare request
            # with what the work must not do; a prohibition is never small talk
            return "task", "rules(prohibition)"
        if voted is not None and share >= self.knn_share and similarity >= self.knn_similarity:
            return voted, "nearest_examples"  # type: ignore[return-value]
        if label is not None:
            return label.kind, "model"
        if cue is not None:
            return cue.kind, "rules(weak)"
        if voted is not None:
            return voted, "nearest_examples(weak)"  # type: ignore[return-value]
        return "task", "default"
