"""Write gating: the checks every write passes before anything is stored, and the tests for "same content".

Pure functions over values. The store applies them in order: input checks (`check_record`), then, inside the
write transaction, duplicates (merged), contradictions (recorded) and supersession (operators only).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime

from alicorn.memory.errors import MemoryInputError, ScopeError, TooLargeError, TrustError, ValidityError
from alicorn.memory.models import NewRecord, Provenance

_PROJECT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_SPACE = re.compile(r"\s+")
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")


@dataclass(frozen=True)
class GatePolicy:
    """Thresholds of write gating. `duplicate_similarity` is a cosine: at or above it (and with the same kind,
    trust, key, validity and numbers) a new record is merged into the existing one instead of stored twice."""

    duplicate_similarity: float = 0.95
    max_text_chars: int = 16_000
    max_document_chars: int = 2_000_000


def check_project(project: str) -> str:
    """A project name usable as a scope and in a journal stream name (`memory:<project>`)."""
    if not isinstance(project, str) or not _PROJECT.fullmatch(project):
        raise MemoryInputError(
            f"invalid project name {project!r}: use 1-64 letters, digits, _ . -, starting with a letter or digit"
        )
    return project


def check_interval(valid_from: datetime | None, valid_to: datetime | None, what: str) -> None:
    """valid_to must come after valid_from."""
    if valid_from is not None and valid_to is not None and valid_to <= valid_from:
        raise ValidityError(
            f"{what} has valid_to {valid_to.isoformat()} at or before valid_from {valid_from.isoformat()}; a "
            "validity interval must end after it starts. Nothing was written."
        )


def check_trust(trust: str, provenance: Provenance, what: str) -> None:
    """Only operator-authored content may be an instruction: low-trust content is never promoted."""
    if trust == "instruction" and provenance.origin != "operator":
        raise TrustError(
            f"{what} asks for trust 'instruction' but its provenance origin is {provenance.origin!r}; only "
            "operator-authored content may be an instruction. Store it as trust 'data'. Nothing was written."
        )


def check_record(record: NewRecord, project: str, policy: GatePolicy) -> None:
    """Every input check of one record; raises before anything is written."""
    what = f"the record {record.text[:40]!r}"
    if record.project is not None and record.project != project:
        raise ScopeError(
            f"{what} is for project {record.project!r} but this store handle is bound to project {project!r}; "
            f"open a handle for {record.project!r} to write there. Nothing was written.",
            project=project,
            other=record.project,
        )
    if len(record.text) > policy.max_text_chars:
        raise TooLargeError(len(record.text), policy.max_text_chars)
    if not record.text.strip():
        raise MemoryInputError("a record's text is blank; nothing was written")
    check_interval(record.valid_from, record.valid_to, what)
    check_trust(record.trust, record.provenance, what)
    if record.kind == "entity" and not record.name:
        raise MemoryInputError(f"{what} is an entity without a name; give `name` (it identifies the graph node)")
    if record.kind != "entity" and record.name:
        raise MemoryInputError(f"{what} has a `name` but is a {record.kind}; only entities have names")


def name_key(name: str) -> str:
    """How entity names are compared: NFKC, case-folded, whitespace collapsed."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", name).casefold()).strip()


def content_hash(text: str) -> str:
    """SHA-256 of the normalised text: exact duplicates up to case and spacing share it."""
    return hashlib.sha256(name_key(text).encode("utf-8")).hexdigest()


def numbers(text: str) -> list[str]:
    """The numbers in a text, in order: near-duplicates whose numbers differ are different facts
    ("vacation 3-14 March" vs "3-15 March" embed almost identically)."""
    return _NUMBER.findall(text)
