"""A SQLite ledger as an effect sink: real, durable writes whose every application is counted per idempotency key.

Operations over it cover each effect contract an operation can declare:

- `ledger.post` (keyed): the ledger ignores a key it has already applied. Compensated by `ledger.revert`.
- `ledger.post_once` (unsafe): no deduplication, but `lookup` asks the ledger whether the key was applied.
- `ledger.post_blind` (unsafe): no deduplication and no way to ask: an interrupted post is an unknown outcome.
- `ledger.revert` (keyed): compensation of a post, applied once per compensation key.

`applied` never has a uniqueness constraint, so a duplicated effect is visible as two rows with one key; every
delivery (deduplicated or not) is counted in `deliveries`. `duplicates()` and `applied_keys()` are what tests check.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from alicorn.durable import retry_while_locked
from alicorn.errors import OperationError
from alicorn.ops.paths import confine
from alicorn.ops.registry import LookupResult, Operation, OperationContext, Registry
from alicorn.plan.dsl import RetryPolicy

_SCHEMA = """
CREATE TABLE IF NOT EXISTS applied (id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL, node TEXT NOT NULL,
                                    account TEXT NOT NULL, amount INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS deliveries (id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL, op TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS reverted (key TEXT PRIMARY KEY, original_key TEXT NOT NULL);
"""


@contextmanager
def connect(path: Path) -> Iterator[sqlite3.Connection]:
    """A durable connection to the ledger (WAL, synchronous=FULL), one transaction, closed afterwards."""
    conn = sqlite3.connect(path, timeout=30, isolation_level=None)
    try:
        retry_while_locked(lambda: conn.execute("PRAGMA journal_mode=WAL"))
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("BEGIN IMMEDIATE")
        for statement in filter(str.strip, _SCHEMA.split(";")):
            conn.execute(statement)
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    finally:
        conn.close()


class PostInputs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ledger: str = Field(description="the ledger file, relative to the data root")
    account: str = Field(min_length=1, max_length=100)
    amount: int = Field(ge=1, le=1_000_000)


class PostOutputs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    entry: int
    account: str
    amount: int


class RevertInputs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    original_inputs: dict[str, Any]
    original_output: dict[str, Any]
    original_key: str


class RevertOutputs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reverted: str


def _ledger(ctx: OperationContext, relative: str) -> Path:
    return confine(ctx.data_root, relative, "data root")


def _post(op: str, dedupe: bool) -> Any:
    def post(inputs: PostInputs, ctx: OperationContext) -> PostOutputs:
        with connect(_ledger(ctx, inputs.ledger)) as db:
            db.execute("INSERT INTO deliveries (key, op) VALUES (?, ?)", (ctx.idempotency_key, op))
            if dedupe:
                row = db.execute("SELECT id FROM applied WHERE key = ?", (ctx.idempotency_key,)).fetchone()
                if row is not None:
                    return PostOutputs(entry=row[0], account=inputs.account, amount=inputs.amount)
            cursor = db.execute(
                "INSERT INTO applied (key, node, account, amount) VALUES (?, ?, ?, ?)",
                (ctx.idempotency_key, ctx.node_id, inputs.account, inputs.amount),
            )
            entry = int(cursor.lastrowid or 0)
        return PostOutputs(entry=entry, account=inputs.account, amount=inputs.amount)

    return post


def lookup(inputs: PostInputs, ctx: OperationContext) -> LookupResult:
    """Whether the ledger applied `ctx.idempotency_key`, and the entry it made."""
    with connect(_ledger(ctx, inputs.ledger)) as db:
        row = db.execute("SELECT id, account, amount FROM applied WHERE key = ?", (ctx.idempotency_key,)).fetchone()
    if row is None:
        return LookupResult(applied=False)
    return LookupResult(applied=True, output=PostOutputs(entry=row[0], account=row[1], amount=row[2]))


def revert(inputs: RevertInputs, ctx: OperationContext) -> RevertOutputs:
    """Undo a post: recorded once per compensation key, however often it is delivered."""
    ledger = inputs.original_inputs.get("ledger")
    if not isinstance(ledger, str):
        raise OperationError("the original post names no ledger", retryable=False)
    with connect(_ledger(ctx, ledger)) as db:
        db.execute("INSERT INTO deliveries (key, op) VALUES (?, ?)", (ctx.idempotency_key, "ledger.revert"))
        db.execute(
            "INSERT OR IGNORE INTO reverted (key, original_key) VALUES (?, ?)",
            (ctx.idempotency_key, inputs.original_key),
        )
    return RevertOutputs(reverted=inputs.original_key)


class FailInputs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    message: str = "this step fails on purpose"


class FailOutputs(BaseModel):
    model_config = ConfigDict(extra="forbid")


def fail(inputs: FailInputs, ctx: OperationContext) -> FailOutputs:
    raise OperationError(inputs.message, retryable=False)


_RETRY = RetryPolicy(max_attempts=3, backoff_s=0.01)


def ledger_operations() -> tuple[Operation, ...]:
    return (
        Operation(
            "ledger.post",
            "Post to the ledger; the ledger ignores a key it applied.",
            PostInputs,
            PostOutputs,
            "external_transmission",
            "keyed",
            _post("ledger.post", dedupe=True),
            timeout_s=10,
            retry=_RETRY,
            compensation="ledger.revert",
        ),
        Operation(
            "ledger.post_once",
            "Post to the ledger, no deduplication; the ledger can be asked by key.",
            PostInputs,
            PostOutputs,
            "external_transmission",
            "unsafe",
            _post("ledger.post_once", False),
            timeout_s=10,
            retry=_RETRY,
            compensation="ledger.revert",
            lookup=lookup,
        ),
        Operation(
            "ledger.post_blind",
            "Post to the ledger, no deduplication and no way to ask.",
            PostInputs,
            PostOutputs,
            "external_transmission",
            "unsafe",
            _post("ledger.post_blind", False),
            timeout_s=10,
            retry=_RETRY,
            compensation="ledger.revert",
        ),
        Operation(
            "ledger.revert",
            "Compensate a ledger post, once per compensation key.",
            RevertInputs,
            RevertOutputs,
            "external_transmission",
            "keyed",
            revert,
            timeout_s=10,
            retry=_RETRY,
        ),
        Operation(
            "testing.fail",
            "Fail on purpose (to exercise failure paths).",
            FailInputs,
            FailOutputs,
            "none",
            "repeatable",
            fail,
            timeout_s=5,
        ),
    )


def testing_registry() -> Registry:
    """A home's standard operations (built-ins and bundled packs) plus the ledger operations: the registry of a
    home whose alicorn.toml names `alicorn.testing.ledger:ledger_operations`."""
    from alicorn.app import standard_registry

    registry = standard_registry()
    for op in ledger_operations():
        registry.register(op)
    return registry


def applied_keys(path: Path) -> dict[str, int]:
    """Key -> how many times the ledger applied it (more than 1 is a duplicated effect)."""
    if not path.exists():
        return {}
    with connect(path) as db:
        return dict(db.execute("SELECT key, count(*) FROM applied GROUP BY key").fetchall())


def duplicates(path: Path) -> dict[str, int]:
    return {k: n for k, n in applied_keys(path).items() if n > 1}


def reverted_keys(path: Path) -> set[str]:
    if not path.exists():
        return set()
    with connect(path) as db:
        return {row[0] for row in db.execute("SELECT original_key FROM reverted")}


def deliveries(path: Path) -> int:
    if not path.exists():
        return 0
    with connect(path) as db:
        return int(db.execute("SELECT count(*) FROM deliveries").fetchone()[0])
