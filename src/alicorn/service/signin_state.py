"""What sign-in remembers across restarts of `alicorn serve`: sessions that were signed out, and wrong passwords.

* **Sign-outs are journaled** in `control:sessions`, as tokens are in `control:tokens`: `session.ended` holds the
  SHA-256 of the session id (never the id), the person and when the session was issued. The set of ended sessions
  is a fold of the stream, folded again only when its head moves (one head look-up per page view). So a signed-out
  cookie, or a copy of it, stays refused after a restart; the cookie's own age limit still applies on top. Only a
  signed-in person can sign out, so only an authenticated request writes this stream.
* **Wrong passwords are counted in a small SQLite file**, `<home>/service-signin.db`: one row per name (wrong
  passwords in a row, locked until when, on the injected clock). They are not journaled on purpose: anyone who can
  reach the sign-in form can type a wrong password, and the hash-chained journal must not grow by what an
  unauthenticated stranger sends. The table stays small: a row is rewritten in place, and rows whose count is 0 and
  whose lock has passed are dropped. Deleting the file forgets the counts (nothing else is lost).
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from pathlib import Path

from alicorn.clock import Clock
from alicorn.journal.events import Draft
from alicorn.journal.store import Head, JournalStore

SESSIONS_STREAM = "control:sessions"
FAILURES_FILE = "service-signin.db"


def sid_digest(sid: str) -> str:
    """What `control:sessions` records of a session id."""
    return hashlib.sha256(sid.encode("utf-8")).hexdigest()


class EndedSessions:
    """The sessions signed out of this home, folded from `control:sessions` when its head moves."""

    def __init__(self, store: JournalStore, clock: Clock) -> None:
        self.store = store
        self.clock = clock
        self._guard = threading.Lock()
        self._folded: tuple[Head | None, frozenset[str]] = (None, frozenset())

    def _ended(self) -> frozenset[str]:
        head = self.store.head(SESSIONS_STREAM)
        with self._guard:
            if head != self._folded[0]:
                events = self.store.read(SESSIONS_STREAM) if head is not None else []
                found = frozenset(e.data["sid_sha256"] for e in events if e.kind == "session.ended")
                self._folded = (head, found)
            return self._folded[1]

    def is_ended(self, sid: str) -> bool:
        return sid_digest(sid) in self._ended()

    def end(self, sid: str, person: str, issued_at: str) -> None:
        """Journal that session `sid` of `person` ended; a second sign-out of the same session writes nothing."""
        if self.is_ended(sid):
            return
        data = {"sid_sha256": sid_digest(sid), "person": person, "issued_at": issued_at}
        head = self.store.head(SESSIONS_STREAM)
        self.store.append(
            SESSIONS_STREAM, [Draft("session.ended", self.clock.now(), data)], expect=head.seq if head else 0
        )


class SignInFailures:
    """Wrong passwords in a row and lockouts, per name, in `<home>/service-signin.db` (`path` None: in memory)."""

    def __init__(self, path: Path | None) -> None:
        self._db = sqlite3.connect(str(path) if path is not None else ":memory:", check_same_thread=False)
        self._guard = threading.Lock()
        with self._guard, self._db:
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS failures (name TEXT PRIMARY KEY, count INTEGER NOT NULL, "
                "locked_until TEXT NOT NULL)"
            )

    def get(self, name: str) -> tuple[int, str]:
        """(wrong passwords in a row, locked until: an `at` string, "" when never locked) for `name`."""
        with self._guard:
            row = self._db.execute("SELECT count, locked_until FROM failures WHERE name = ?", (name,)).fetchone()
        return (int(row[0]), str(row[1])) if row else (0, "")

    def put(self, name: str, count: int, locked_until: str, now: str) -> None:
        """Record `name`'s count and lock; drop the rows that hold nothing any more (count 0, lock passed)."""
        with self._guard, self._db:
            self._db.execute(
                "INSERT INTO failures (name, count, locked_until) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE "
                "SET count = excluded.count, locked_until = excluded.locked_until",
                (name, count, locked_until),
            )
            self._db.execute("DELETE FROM failures WHERE count = 0 AND locked_until <= ?", (now,))

    def clear(self, name: str) -> None:
        with self._guard, self._db:
            self._db.execute("DELETE FROM failures WHERE name = ?", (name,))

    def close(self) -> None:
        with self._guard:
            self._db.close()
