"""What the built-in operation modules share: the strict base model of their inputs and outputs, and field types.

Inputs and outputs forbid unknown fields and are frozen, so a typo in a plan is an error rather than a silently
ignored value. `Records` is a list of JSON objects bounded by `MAX_RECORDS`; `RelativePath` is a path that
`paths.confine` later confines to a root (plan validation checks a literal one first); `FieldKey` names a top-level
field of the records.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from alicorn.plan.confined import CONFINED

MAX_RECORDS = 1_000_000

Records = Annotated[list[dict[str, Any]], Field(max_length=MAX_RECORDS, description="JSON objects, one per record")]
#: Marked CONFINED: plan validation refuses a literal one that is absolute, contains '..' or a NUL character.
RelativePath = Annotated[
    str, Field(min_length=1, max_length=1024, description="relative path; no absolute paths, no '..'"), CONFINED
]
FieldKey = Annotated[str, Field(min_length=1, max_length=200, description="a top-level field of the records")]


class Model(BaseModel):
    """The base of every built-in operation's inputs and outputs: unknown fields are refused, values are frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)
