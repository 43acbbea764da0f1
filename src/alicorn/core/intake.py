"""Intake: what arrives at Norbi Core, as an IntentEnvelope, and where it came from.

Provenance decides trust. Only an *authenticated human* speaks with authority: a request from an automated trigger
(a cron job, a monitor) or an external channel (mail, a web form, a chat bridge) is handled as data — it can be
classified and planned for, but it can never approve anything, its text is fenced as untrusted in every prompt, and
every plan made for it waits for a human decision before any effect. Attachments are never pasted into prompts:
they are named by artifact id (stored first, classified, given a safe view by `alicorn.context.artifacts`).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    field_validator,
    model_serializer,
    model_validator,
)

from alicorn.anvil.errors import IdentityError
from alicorn.anvil.identity import parse_principal
from alicorn.anvil.terms import ProjectName, TriggerRecord
from alicorn.plan.dsl import EFFECT_ORDER, EffectClass

Provenance = Literal["human", "trigger", "external"]
ExpectedResult = Literal["answer", "document", "code", "schedule", "conversation"]

#: Longest utterance accepted. Longer text is an attachment, not a request.
MAX_UTTERANCE = 4000


#: What a deadline looks like (the envelope's, the command line's and the API's): a day, or a day and a time
#: (with seconds, and a Z for UTC, optional).
DEADLINE_FORM = r"\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?Z?)?"


def names_a_real_moment(text: str) -> bool:
    """Whether `text` (of DEADLINE_FORM) names a day, and time, that exists: 2026-13-45 and 2026-02-30 do not."""
    try:
        datetime.fromisoformat(text.removesuffix("Z"))
    except ValueError:
        return False
    return True


class IntentEnvelope(BaseModel):
    """One request: the words, who said them through which channel, for which project, and its provenance."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    utterance: Annotated[str, Field(min_length=1, max_length=MAX_UTTERANCE)]
    author: Annotated[str, Field(min_length=1, max_length=200)]
    provenance: Provenance = "human"
    channel: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_.-]{0,39}$")] = "cli"
    project: ProjectName = "default"
    language: Literal["en", "pl", "ru"] | None = None
    expected_result: ExpectedResult | None = None
    deadline: Annotated[str, Field(pattern=f"^{DEADLINE_FORM}$")] | None = None
    constraints: tuple[Annotated[str, Field(min_length=1, max_length=500)], ...] = Field(default=(), max_length=20)
    forbid: tuple[EffectClass, ...] = ()
    attachments: tuple[Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")], ...] = Field(default=(), max_length=20)
    #: Data the person points at (`--data [NAME=]PATH`): files or folders, checked against the project's roots.
    data: tuple[Annotated[str, Field(min_length=1, max_length=1000)], ...] = Field(default=(), max_length=20)
    #: The schedule firing that sent this request (`{schedule, slot, fired_at}`); only with provenance "trigger".
    trigger: TriggerRecord | None = None

    @field_validator("utterance")
    @classmethod
    def _words(cls, value: str) -> str:
        text = " ".join(value.split())
        if not text:
            raise ValueError("the request is empty; say what you want done")
        if any(ord(c) < 32 for c in text):
            raise ValueError("the request contains control characters; send plain text")
        return text

    @field_validator("deadline")
    @classmethod
    def _real_moment(cls, value: str | None) -> str | None:
        """A deadline of the right form that names no real day or time (2026-13-45, 2026-02-30T25:00) is refused."""
        if value is not None and not names_a_real_moment(value):
            raise ValueError(f"{value!r} is not a real date or time; write YYYY-MM-DD or YYYY-MM-DDTHH:MM")
        return value

    @field_validator("forbid")
    @classmethod
    def _ordered(cls, value: tuple[EffectClass, ...]) -> tuple[EffectClass, ...]:
        return tuple(c for c in EFFECT_ORDER if c in set(value))

    @model_validator(mode="after")
    def _author_fits_provenance(self) -> IntentEnvelope:
        if self.provenance == "human":
            try:
                principal = parse_principal(self.author)
            except IdentityError as exc:
                raise ValueError(f"author {self.author!r}: {exc}") from None
            if not principal.is_human:
                raise ValueError(
                    f"author {self.author!r} is an agent; a request from an agent arrives as provenance 'trigger'"
                )
        return self

    @model_validator(mode="after")
    def _trigger_fits_provenance(self) -> IntentEnvelope:
        if self.trigger is not None and self.provenance != "trigger":
            raise ValueError("a schedule's trigger record comes only with provenance 'trigger'")
        return self

    @model_serializer(mode="wrap")
    def _without_empty_trigger(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if self.trigger is None:  # envelopes journaled before triggers existed stay byte for byte as they were
            data.pop("trigger", None)
        return data

    @property
    def authoritative(self) -> bool:
        """Whether the request comes from an authenticated human (the only source that may approve anything)."""
        return self.provenance == "human"

    @property
    def approver(self) -> str | None:
        """Who may approve this request's plan at the prompt: its human author, else nobody from this envelope."""
        return parse_principal(self.author).id if self.authoritative else None


def envelope_refusal(exc: ValidationError, names: Mapping[str, str]) -> str:
    """Why an envelope was refused, as the person who sent it reads it: the field as they wrote it (`names`: "text"
    for the API's body, "--project" on the command line), and what is wrong in words, never pydantic's prefix or a
    regular expression. A field named "" (the request's own words) is said without a name."""
    error = exc.errors()[0]
    field = ".".join(str(p) for p in error.get("loc", ())) or "request"
    where = names.get(field, field)
    if field == "project" and error.get("type") == "string_pattern_mismatch":
        said = (
            f"{error.get('input')!r} is not a project name: 1 to 64 lowercase letters, digits, '_', '.' or '-', "
            "starting with a letter or a digit"
        )
    elif field == "deadline" and error.get("type") == "string_pattern_mismatch":
        said = f"{error.get('input')!r} is not a date; write YYYY-MM-DD or YYYY-MM-DDTHH:MM"
    else:
        said = str(error.get("msg", "not valid")).removeprefix("Value error, ")
    return f"the request is not valid: {f'{where}: ' if where else ''}{said}; nothing was journaled"
