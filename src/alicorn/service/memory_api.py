"""Pegas Memory over HTTP: search, add, show, forget and the entity graph of a project's memory.

The routes do what `alicorn memory search|add|show|forget|graph` do, through the same `MemoryStore` calls, over the
home's store (`HOME/memory.db`) with every change journaled on `memory:<project>` like the command line's. Reading
needs a viewer; adding needs a requester with a write token (as talking to Core does: what a person adds
is `data` with the provenance `human` naming them, gated by the store's write gate, never an instruction);
forgetting needs an admin with a write token (an admin is the home's operator: the invalidation carries the
provenance `operator`, as `alicorn memory forget` does). A home without a memory store answers searches with no
hit and records with 404; the first add creates the store (with the default embedder, e5).

Memory's own errors become problem details: an unknown record 404, input the write gate refuses 422, a store that
cannot be opened 503; each says what to do, and nothing was written.
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from alicorn.clock import Clock, ClockError, parse_instant, parse_time
from alicorn.journal.store import JournalStore
from alicorn.service.auth import Authenticator, Caller, needs
from alicorn.service.moments import out_of_range
from alicorn.service.problems import Problem

if TYPE_CHECKING:
    from alicorn.memory.models import AddResult, Graph, HistoryEntry, Provenance, Record, SearchResult
    from alicorn.memory.store import MemoryStore

API = "/api/v1/memory"
MEMORY_FILE = "memory.db"
#: The longest query a search takes (a longer one is 422): what `memory.search` takes, too.
MAX_QUERY = 4000
#: The longest text a person adds in one record (the write gate's own limit is 16,000 characters).
MAX_TEXT = 4000
PROJECT = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
ProjectQuery = Annotated[str, Query(pattern=PROJECT, description="The project (memory scope).")]


class NewMemory(BaseModel):
    """A fact or an episode a person tells the project's memory (what `alicorn memory add` takes, less the
    operator's options: no instruction, no supersede)."""

    model_config = ConfigDict(extra="forbid")
    text: Annotated[str, Field(min_length=1, max_length=MAX_TEXT)]
    project: Annotated[str, Field(pattern=PROJECT)] = "default"
    key: Annotated[str | None, Field(min_length=1, max_length=200)] = None
    kind: Literal["fact", "episode"] = "fact"
    entities: Annotated[list[Annotated[str, Field(min_length=1, max_length=200)]], Field(max_length=20)] = []
    classification: Literal["public", "internal", "confidential", "secret"] = "internal"


class Forgetting(BaseModel):
    """Why a record stopped being true, and since when (default: now)."""

    model_config = ConfigDict(extra="forbid")
    reason: Annotated[str, Field(min_length=1, max_length=500)]
    project: Annotated[str, Field(pattern=PROJECT)] = "default"
    since: Annotated[str | None, Field(max_length=64, description="ISO 8601; default now.")] = None


class HomeMemory:
    """The home's memory store, opened per request (one SQLite connection each; the e5 model is shared by the
    process), journaling into the service's journal, at the service's clock."""

    def __init__(self, home: Path, journal: JournalStore, clock: Clock) -> None:
        self.location = home / MEMORY_FILE
        self.journal = journal
        self.clock = clock

    def exists(self) -> bool:
        return self.location.is_file()

    def now(self) -> datetime:
        return parse_time(self.clock.now())

    @contextmanager
    def open(self, project: str, *, create: bool = False) -> Iterator["MemoryStore"]:
        """`project`'s memory; Problem(404) when the home has none and `create` is false; memory's errors as
        problem details (see the module docstring)."""
        from alicorn.memory.open import open_memory

        if not create and not self.exists():
            raise Problem(404, "no-memory", "this home has no memory store yet; add a record first (POST " + API +
                          "/records, or `alicorn memory add`)")  # fmt: skip
        with refusals():
            store = open_memory(self.location, project=project, create=create, clock=self.now, journal=self.journal)
        with store, refusals():
            yield store


@contextmanager
def refusals() -> Iterator[None]:
    """Pegas Memory's errors as problem details; the store is unchanged (every write is one transaction)."""
    from alicorn.memory.errors import (
        MemoryInputError,
        MemoryStoreError,
        RecordNotFoundError,
        ScopeError,
        StoreUnavailableError,
        TrustError,
    )

    try:
        yield
    except RecordNotFoundError as exc:
        raise Problem(404, "unknown-record", f"{exc}; search the project's memory to find its records") from None
    except (MemoryInputError, ScopeError, TrustError) as exc:
        raise Problem(422, "memory-refused", str(exc)) from None
    except StoreUnavailableError as exc:
        raise Problem(503, "memory-unavailable", str(exc)) from None
    except MemoryStoreError as exc:
        raise Problem(422, "memory-refused", str(exc)) from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "record"
        raise Problem(422, "invalid-input", f"{where}: {first['msg']}; nothing was written") from None


# ---- what the routes answer (JSON shapes shared with the pages) --------------------------------------------------


def provenance_json(source: "Provenance") -> dict[str, str]:
    return {"origin": source.origin, "ref": source.ref, "note": source.note}


def record_json(record: "Record") -> dict[str, Any]:
    """A record as the API shows it: its labels, its bi-temporal validity and where it came from."""
    when = _iso
    return {
        "id": record.id,
        "project": record.project,
        "kind": record.kind,
        "text": record.text,
        "name": record.name,
        "key": record.key,
        "trust": record.trust,
        "classification": record.classification,
        "tags": list(record.tags),
        "valid_from": when(record.valid_from),
        "valid_to": when(record.valid_to),
        "recorded_at": when(record.recorded_at),
        "invalid_from": when(record.invalid_from),
        "invalidated_at": when(record.invalidated_at),
        "invalidation_reason": record.invalidation_reason,
        "valid_now": record.invalidated_at is None,
        "provenance": provenance_json(record.provenance),
        "sources": [provenance_json(s) for s in record.sources],
        "contradicts": list(record.contradicts),
    }


def search_json(result: "SearchResult", project: str) -> dict[str, Any]:
    hits = [
        {
            **record_json(hit.record),
            "score": hit.score,
            "similarity": hit.similarity,
            "vector_rank": hit.vector_rank,
            "text_rank": hit.text_rank,
        }
        for hit in result.hits
    ]
    related = [{**record_json(r.record), "via": r.via, "depth": r.depth} for r in result.related]
    return {"query": result.query, "project": project, "hits": hits, "related": related}


def history_json(history: "list[HistoryEntry]") -> list[dict[str, Any]]:
    return [{"seq": h.seq, "kind": h.kind, "at": _iso(h.at), "record": h.record, "data": h.data} for h in history]


def graph_json(graph: "Graph") -> dict[str, Any]:
    nodes = [{**record_json(n), "depth": graph.depths.get(n.id, 0)} for n in graph.nodes]
    edges = [
        {
            "id": e.id, "source": e.source, "type": e.type, "target": e.target, "valid_from": _iso(e.valid_from),
            "invalid_from": _iso(e.invalid_from), "provenance": provenance_json(e.provenance),
        }
        for e in graph.edges
    ]  # fmt: skip
    return {"start": graph.start, "nodes": nodes, "edges": edges}


def added_json(result: "AddResult") -> dict[str, Any]:
    return {"status": result.status, "record": record_json(result.record), "contradicts": list(result.contradicts)}


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


# ---- the operations the routes and pages share ------------------------------------------------------------------


class MemoryDesk:
    """What the API and the memory page do with the home's memory, each exactly as the CLI command does it."""

    def __init__(self, memory: HomeMemory) -> None:
        self.memory = memory

    def search(self, project: str, query: str, k: int, mode: str, at: str | None = None) -> dict[str, Any]:
        from alicorn.memory.models import Filters

        filters = Filters(valid_at=_moment("at", at)) if at else Filters()  # a bad time is refused, memory or not
        if not self.memory.exists():
            return {"query": query, "project": project, "hits": [], "related": []}
        with self.memory.open(project) as store:
            found = store.search(query, k=k, filters=filters, mode=mode)  # type: ignore[arg-type]
        return search_json(found, project)

    def add(self, project: str, body: NewMemory, source: "Provenance") -> dict[str, Any]:
        from alicorn.memory.models import NewRecord

        with refusals():
            draft = NewRecord(
                text=body.text, key=body.key, kind=body.kind, entities=tuple(body.entities),
                classification=body.classification, provenance=source,
            )  # fmt: skip
        with self.memory.open(project, create=True) as store:
            return added_json(store.add(draft))

    def show(self, project: str, record_id: str) -> dict[str, Any]:
        with self.memory.open(project) as store:
            graph = store.neighbours(record_id, depth=1)
            record = store.get(graph.start)
            history = store.history(record.id)
        return {
            "record": record_json(record),
            "relations": graph_json(graph)["edges"],
            "names": {n.id: n.name or n.text[:60] for n in graph.nodes},
            "history": history_json(history),
        }

    def forget(self, project: str, record_id: str, reason: str, since: str | None, by: str) -> dict[str, Any]:
        from alicorn.memory.models import Provenance

        when = _moment("since", since) if since else None
        operator = Provenance(origin="operator", ref=f"service:{by}")
        with self.memory.open(project) as store:
            return record_json(store.invalidate(record_id, by=operator, reason=reason, at=when))

    def graph(self, project: str, node: str, depth: int) -> dict[str, Any]:
        with self.memory.open(project) as store:
            return graph_json(store.neighbours(node, depth=depth))


def _moment(name: str, text: str) -> datetime:
    try:
        return parse_instant(text)
    except ClockError as exc:
        raise Problem(422, "invalid-time", f"{name}: {exc}") from None
    except OverflowError:  # a year 1 or 9999 moment that leaves the calendar once turned to UTC
        raise Problem(422, "invalid-time", f"{name}: {out_of_range(text)}") from None


def router(desk: MemoryDesk, auth: Authenticator, signed_in: Callable[..., Caller]) -> APIRouter:
    """The memory routes over `desk`; `signed_in` is the app's token dependency."""
    routes = APIRouter(prefix=API, tags=["memory"])

    reader = needs(signed_in, "viewer", "read", "read memory")
    writer = needs(signed_in, "requester", "write", "add to memory")
    forgetter = needs(signed_in, "admin", "write", "forget a memory record")

    @routes.get("/search", summary="Hybrid search of a project's memory: hits with scores and provenance")
    def search(
        _: Annotated[Caller, Depends(reader)],
        q: Annotated[str, Query(min_length=1, max_length=MAX_QUERY, description="What to look for, any language.")],
        project: ProjectQuery = "default",
        k: Annotated[int, Query(ge=1, le=50)] = 10,
        mode: Annotated[Literal["hybrid", "vector", "text"], Query()] = "hybrid",
        at: Annotated[str | None, Query(max_length=64, description="Records true at this time (ISO 8601).")] = None,
    ) -> dict[str, Any]:
        return desk.search(project, q, k, mode, at)

    @routes.post("/records", status_code=201, summary="Add a fact (provenance: you; through the write gate)")
    def add(body: NewMemory, caller: Annotated[Caller, Depends(writer)]) -> dict[str, Any]:
        from alicorn.memory.models import Provenance

        source = Provenance(origin="human", ref=f"api:{caller.person}", note=f"added by {caller.person} over HTTP")
        return desk.add(body.project, body, source)

    @routes.get("/records/{record_id}", summary="A record with its relations and bi-temporal history")
    def show(
        record_id: str, _: Annotated[Caller, Depends(reader)], project: ProjectQuery = "default"
    ) -> dict[str, Any]:
        return desk.show(project, record_id)

    @routes.post("/records/{record_id}/forget", summary="Mark a record no longer true (nothing is deleted)")
    def forget(record_id: str, body: Forgetting, caller: Annotated[Caller, Depends(forgetter)]) -> dict[str, Any]:
        return desk.forget(body.project, record_id, body.reason, body.since, caller.person)

    @routes.get("/graph", summary="The entity graph around a node: nodes (with their distance) and edges")
    def graph(
        _: Annotated[Caller, Depends(reader)],
        node: Annotated[str, Query(min_length=1, max_length=200, description="An entity name or record id.")],
        project: ProjectQuery = "default",
        depth: Annotated[int, Query(ge=0, le=4)] = 2,
    ) -> dict[str, Any]:
        return desk.graph(project, node, depth)

    return routes
