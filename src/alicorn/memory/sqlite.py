"""The SQLite engine: the embedded default. One file, stdlib `sqlite3`, WAL with `synchronous=FULL`, FTS5 for full
text, exact vector search with numpy (`vectors.ExactIndex`; docs/memory.md says why not sqlite-vec).

Writers serialise with `BEGIN IMMEDIATE`. No index leads with `project`: SQLite has no statistics unless someone
runs ANALYZE, and with such an index it would scan a whole project instead of looking a few ids up (the id
lookups of every search); new rows are found by `seq` (the rowid) instead. A file that is not SQLite, or an SQLite
file without Alicorn's `memory_meta`, is refused untouched; a damaged file is reported as `StoreUnavailableError`
with what to do.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from alicorn.durable import retry_while_locked
from alicorn.memory.engine import Engine, Tx, Vector, iso
from alicorn.memory.errors import MemoryStoreError, StoreUnavailableError
from alicorn.memory.vectors import ExactIndex

_SQLITE_MAGIC = b"SQLite format 3\x00"

_SCHEMA = """
CREATE TABLE memory_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE memory_records (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    project TEXT NOT NULL,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    trust TEXT NOT NULL,
    classification TEXT NOT NULL,
    key TEXT,
    name TEXT,
    name_key TEXT,
    tags TEXT NOT NULL,
    meta TEXT NOT NULL,
    valid_from TEXT,
    valid_to TEXT,
    recorded_at TEXT NOT NULL,
    invalid_from TEXT,
    invalidated_at TEXT,
    invalidation_reason TEXT,
    embedding BLOB NOT NULL
);
CREATE INDEX memory_records_hash ON memory_records (content_hash, project);
CREATE INDEX memory_records_key ON memory_records (key, project) WHERE key IS NOT NULL;
CREATE UNIQUE INDEX memory_records_entity ON memory_records (name_key, project) WHERE name_key IS NOT NULL;
CREATE VIRTUAL TABLE memory_fts USING fts5 (
    text, content = 'memory_records', content_rowid = 'seq', tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER memory_records_fts AFTER INSERT ON memory_records BEGIN
    INSERT INTO memory_fts (rowid, text) VALUES (new.seq, new.text);
END;
CREATE TABLE memory_tags (tag TEXT NOT NULL, record_id TEXT NOT NULL, PRIMARY KEY (tag, record_id)) WITHOUT ROWID;
CREATE TABLE memory_sources (
    record_id TEXT NOT NULL, n INTEGER NOT NULL, at TEXT NOT NULL,
    origin TEXT NOT NULL, ref TEXT NOT NULL, note TEXT NOT NULL,
    PRIMARY KEY (record_id, n)
);
CREATE TABLE memory_relations (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    project TEXT NOT NULL,
    source TEXT NOT NULL,
    type TEXT NOT NULL,
    target TEXT NOT NULL,
    valid_from TEXT,
    valid_to TEXT,
    recorded_at TEXT NOT NULL,
    invalid_from TEXT,
    invalidated_at TEXT,
    invalidation_reason TEXT,
    origin TEXT NOT NULL,
    ref TEXT NOT NULL,
    note TEXT NOT NULL,
    meta TEXT NOT NULL
);
CREATE INDEX memory_relations_source ON memory_relations (source);
CREATE INDEX memory_relations_target ON memory_relations (target);
CREATE TABLE memory_contradictions (
    id TEXT PRIMARY KEY, project TEXT NOT NULL, record_a TEXT NOT NULL, record_b TEXT NOT NULL,
    key TEXT, at TEXT NOT NULL
);
CREATE INDEX memory_contradictions_a ON memory_contradictions (record_a);
CREATE INDEX memory_contradictions_b ON memory_contradictions (record_b);
CREATE TABLE memory_history (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    project TEXT NOT NULL,
    kind TEXT NOT NULL,
    at TEXT NOT NULL,
    record_id TEXT NOT NULL,
    data TEXT NOT NULL,
    journaled INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX memory_history_project ON memory_history (project, seq);
"""


def _param(value: Any) -> Any:
    return iso(value) if isinstance(value, datetime) else value


class SQLiteEngine(Engine):
    """Memory in one SQLite file (`:memory:` for a throw-away store)."""

    def __init__(self, path: str | os.PathLike[str], *, create: bool = True) -> None:
        self.path = Path(path) if str(path) != ":memory:" else None
        self.location = str(path)
        self._lock = threading.RLock()
        self._indexes: dict[str, ExactIndex] = {}
        self._dim = 0
        self._conn = self._open(create)

    # ---- opening ----------------------------------------------------------------------------------------------

    def _open(self, create: bool) -> sqlite3.Connection:
        path = self.path
        if path is not None:
            if not path.exists() and not create:
                raise StoreUnavailableError(f"no memory store at {path}; add something first (`alicorn memory add`)")
            if path.is_dir():
                raise StoreUnavailableError(f"{path} is a directory, not a memory store file")
            if path.exists():
                with open(path, "rb") as fh:
                    magic = fh.read(16)
                if magic and magic != _SQLITE_MAGIC:
                    raise StoreUnavailableError(
                        f"{path} is not an Alicorn memory store (not an SQLite database); nothing was changed. "
                        "Point --store at a memory store, or move the file away to start a new one."
                    )
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = sqlite3.connect(self.location, isolation_level=None, check_same_thread=False, timeout=30.0)
        except sqlite3.Error as exc:
            raise StoreUnavailableError(f"cannot open the memory store {self.location}: {exc}") from exc
        try:
            conn.execute("PRAGMA busy_timeout = 30000")
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if tables and "memory_meta" not in tables:
                raise StoreUnavailableError(
                    f"{self.location} is an SQLite database but not an Alicorn memory store (its tables: "
                    f"{', '.join(sorted(tables)[:8])}); nothing was changed"
                )
            if path is not None:
                retry_while_locked(lambda: conn.execute("PRAGMA journal_mode = WAL"))
            conn.execute("PRAGMA synchronous = FULL")
            return conn
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise StoreUnavailableError(
                f"{self.location} cannot be read as a memory store ({exc}); nothing was changed. If it is a damaged "
                "store, restore it from a backup (`sqlite3 FILE 'PRAGMA integrity_check'` shows the damage)."
            ) from exc
        except BaseException:
            conn.close()
            raise

    # ---- transactions -----------------------------------------------------------------------------------------

    @contextmanager
    def write(self, project: str) -> Iterator[Tx]:
        with self._lock, self._guard():
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    @contextmanager
    def read(self) -> Iterator[Tx]:
        with self._lock, self._guard():
            self._conn.execute("BEGIN")
            try:
                yield self._conn
            finally:
                self._conn.execute("COMMIT")

    @contextmanager
    def _guard(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.IntegrityError as exc:
            raise MemoryStoreError(
                f"the memory store {self.location} refused a write ({exc}); nothing was written"
            ) from exc
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise StoreUnavailableError(
                    f"the memory store {self.location} is locked by another process ({exc}); try again"
                ) from exc
            raise StoreUnavailableError(f"the memory store {self.location} failed: {exc}; nothing was written") from exc
        except sqlite3.DatabaseError as exc:
            raise StoreUnavailableError(
                f"the memory store {self.location} is damaged ({exc}); nothing was written. Restore it from a backup "
                "(`sqlite3 FILE 'PRAGMA integrity_check'` shows the damage)."
            ) from exc

    # ---- plain SQL --------------------------------------------------------------------------------------------

    def rows(self, tx: Tx, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return list(tx.execute(sql, [_param(p) for p in params]).fetchall())

    def run(self, tx: Tx, sql: str, params: Sequence[Any] = ()) -> None:
        tx.execute(sql, [_param(p) for p in params])

    def run_many(self, tx: Tx, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        tx.executemany(sql, ([_param(p) for p in row] for row in rows))

    def timestamp(self, value: Any) -> datetime | None:
        return None if value is None else datetime.fromisoformat(value)

    # ---- schema and metadata ----------------------------------------------------------------------------------

    def meta(self) -> dict[str, str]:
        with self.read() as tx:
            tables = {r[0] for r in tx.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if "memory_meta" not in tables:
                return {}
            return dict(tx.execute("SELECT key, value FROM memory_meta").fetchall())

    def initialise(self, meta: dict[str, str], dim: int) -> None:
        with self.write(""):
            tables = {r[0] for r in self._conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if "memory_meta" not in tables:  # another process may have created it while we waited for the lock
                for statement in _statements(_SCHEMA):
                    self._conn.execute(statement)
                self._conn.executemany("INSERT INTO memory_meta (key, value) VALUES (?, ?)", sorted(meta.items()))
        self._dim = dim

    # ---- records ----------------------------------------------------------------------------------------------

    def insert_records(self, tx: Tx, rows: Sequence[Sequence[Any]], vectors: Vector) -> None:
        placeholders = ", ".join("?" * (len(rows[0]) + 1)) if rows else ""
        tx.executemany(
            "INSERT INTO memory_records (id, project, kind, text, content_hash, trust, classification, key, name, "
            f"name_key, tags, meta, valid_from, valid_to, recorded_at, embedding) VALUES ({placeholders})",
            (
                [*(_param(p) for p in row), np.ascontiguousarray(vector, dtype=np.float32).tobytes()]
                for row, vector in zip(rows, vectors, strict=True)
            ),
        )

    def _index(self, tx: Tx, project: str) -> ExactIndex:
        index = self._indexes.get(project)
        if index is None:
            dim = self._dim or int(dict(tx.execute("SELECT key, value FROM memory_meta").fetchall())["dim"])
            index = self._indexes[project] = ExactIndex(dim)
        fresh = tx.execute(
            "SELECT seq, id, embedding FROM memory_records WHERE seq > ? AND project = ? ORDER BY seq",
            (index.last_seq, project),
        ).fetchall()
        index.extend(fresh)
        return index

    def vector_search(
        self, tx: Tx, project: str, vector: Vector, n: int, where: str, params: Sequence[Any]
    ) -> list[tuple[str, float]]:
        index = self._index(tx, project)
        bound = [_param(p) for p in params]

        def allowed(ids: list[str]) -> set[str]:
            marks = ", ".join("?" * len(ids))
            sql = f"SELECT r.id FROM memory_records r WHERE r.id IN ({marks}) AND {where}"
            return {row[0] for row in tx.execute(sql, [*ids, *bound])}

        def allowed_all() -> list[int]:
            return [
                row[0] for row in tx.execute(f"SELECT r.seq FROM memory_records r WHERE {where} ORDER BY r.seq", bound)
            ]

        return index.search(vector, n, allowed, allowed_all)

    def text_search(self, tx: Tx, terms: Sequence[str], n: int, where: str, params: Sequence[Any]) -> list[str]:
        if not terms:
            return []
        match = " OR ".join(f'"{term}"' for term in terms)
        sql = (
            "SELECT r.id FROM memory_fts JOIN memory_records r ON r.seq = memory_fts.rowid "
            f"WHERE memory_fts MATCH ? AND {where} ORDER BY bm25(memory_fts), r.seq LIMIT ?"
        )
        return [row[0] for row in tx.execute(sql, [match, *(_param(p) for p in params), n])]

    def vector_of(self, tx: Tx, record_id: str) -> Vector | None:
        row = tx.execute("SELECT embedding FROM memory_records WHERE id = ?", (record_id,)).fetchone()
        return None if row is None else np.frombuffer(row[0], dtype=np.float32).copy()

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def raw_connection(self) -> sqlite3.Connection:
        """The underlying connection, for tests that damage the store on purpose."""
        return self._conn


def _statements(script: str) -> list[str]:
    """Split a script into whole statements (a trigger's body contains `;`, so split where SQLite says a
    statement is complete)."""
    out: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            out.append(buffer.strip())
            buffer = ""
    return out
