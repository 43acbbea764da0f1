"""`memory.search` and `memory.get`: Pegas Memory read through the registry, so every lookup is a journaled call.

They are the read tools of the Knowledge MCP server (alicorn.memory.mcp_server) as operations: a plan that reads
memory gets a `tool.call` and a `tool.result` in its run's journal like any other operation, and Anvil sees a
`read`. The store is the home's `memory.db` (what `alicorn memory` writes): a run's workspace is
`HOME/workspaces/RUN` (`App.workspaces`), so the home is found from the call's context and never from the plan.
A home without a memory store is an error that says how to create one; the operations never create a store.

What they return is data: record text with its id, source, trust and classification, for a model's data channel.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from alicorn.errors import AlicornError, OperationError
from alicorn.ops._common import Model
from alicorn.ops.registry import Operation, OperationContext
from alicorn.plan.dsl import RetryPolicy

if TYPE_CHECKING:
    from alicorn.memory.models import Record
    from alicorn.memory.store import MemoryStore

RecordId = Annotated[str, Field(pattern=r"^m-[A-Za-z0-9_-]{1,64}$", description="a memory record id (m-…)")]


def home_memory(ctx: OperationContext) -> Path:
    """The memory store of the home the call's run belongs to: HOME/memory.db, beside HOME/workspaces/RUN."""
    return ctx.workspace.parent.parent / "memory.db"


class MemoryRecord(Model):
    """One record as data: cite it by `id`; `source` is where it came from."""

    id: str
    kind: str
    text: str
    source: str
    trust: str
    classification: str
    key: str | None = None
    contradicts: list[str] = Field(default_factory=list)


class MemoryHit(MemoryRecord):
    """A search hit: the fused rank score, the cosine similarity of the vector search (None when only the words
    matched) and the full-text rank (None when only the meaning matched)."""

    score: float
    similarity: float | None = None
    text_rank: int | None = None


class SearchInputs(Model):
    query: str = Field(min_length=1, max_length=4000, description="what to look for, in any language")
    k: int = Field(5, ge=1, le=50, description="at most this many hits")
    mode: Literal["hybrid", "vector", "text"] = Field("hybrid", description="meaning + words, meaning, or words")


class SearchOutputs(Model):
    project: str
    hits: list[MemoryHit] = Field(description="best first")
    count: int = Field(ge=0)


class GetInputs(Model):
    ids: list[RecordId] = Field(min_length=1, max_length=100, description="record ids (m-…)")


class GetOutputs(Model):
    project: str
    records: list[MemoryRecord] = Field(description="in the order asked")
    count: int = Field(ge=0)


def _record(record: Record) -> dict[str, Any]:
    return {
        "id": record.id,
        "kind": record.kind,
        "text": record.text,
        "source": record.provenance.ref,
        "trust": record.trust,
        "classification": record.classification,
        "key": record.key,
        "contradicts": list(record.contradicts),
    }


MemoryLocator = Callable[[OperationContext], Path]


@contextmanager
def _opened(locate: MemoryLocator, ctx: OperationContext, project: str) -> Iterator[MemoryStore]:
    """The project's store, read as it is (never created); Pegas Memory's errors become OperationErrors."""
    from alicorn.memory.open import open_memory

    location = locate(ctx)
    if not location.is_file():
        raise OperationError(
            f"there is no memory store at {location}; add records with `alicorn memory add` (or `--file`) first"
        )
    try:
        with open_memory(location, project=project, create=False) as store:
            yield store
    except OperationError:
        raise
    except AlicornError as exc:
        raise OperationError(f"memory {location} (project {project!r}): {exc}") from None


def memory_operations(locate: MemoryLocator = home_memory) -> tuple[Operation, ...]:
    """`memory.search` and `memory.get` over the store `locate` finds for a call (the home's by default)."""

    def search(inputs: SearchInputs, ctx: OperationContext) -> SearchOutputs:
        with _opened(locate, ctx, ctx.project) as store:
            result = store.search(inputs.query, k=inputs.k, mode=inputs.mode)
        hits = [
            MemoryHit(**_record(h.record), score=h.score, similarity=h.similarity, text_rank=h.text_rank)
            for h in result.hits
        ]
        return SearchOutputs(project=ctx.project, hits=hits, count=len(hits))

    def get(inputs: GetInputs, ctx: OperationContext) -> GetOutputs:
        with _opened(locate, ctx, ctx.project) as store:
            found = store.get_many(inputs.ids)
        missing = [i for i in inputs.ids if i not in found]
        if missing:
            raise OperationError(
                f"no record {', '.join(missing[:5])} in project {ctx.project!r}'s memory; "
                "`memory.search` finds records and their ids"
            )
        records = [MemoryRecord(**_record(found[i])) for i in inputs.ids]
        return GetOutputs(project=ctx.project, records=records, count=len(records))

    retry = RetryPolicy(max_attempts=2, backoff_s=0.5)  # a locked database may be free a moment later
    return (
        Operation(
            "memory.search",
            "Hybrid (meaning + words) search of a project's memory; hits with ids, sources and scores.",
            SearchInputs,
            SearchOutputs,
            "read",
            "repeatable",
            search,
            timeout_s=60.0,
            retry=retry,
        ),
        Operation(
            "memory.get",
            "Read memory records of a project by id.",
            GetInputs,
            GetOutputs,
            "read",
            "repeatable",
            get,
            timeout_s=30.0,
            retry=retry,
        ),
    )
