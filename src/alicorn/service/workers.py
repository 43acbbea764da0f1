"""The service's own bounded worker pool: the threads that advance conversations and drive runs.

A request handler never drives a run: it checks the request, then hands the work to this pool and answers 202.
Work is keyed (a conversation's id, or a run's when no conversation owns it): jobs of one key run one after the
other, in the order they came, so two requests about the same conversation never drive it at once; jobs of
different keys run side by side on at most `size` threads. At most `capacity` jobs wait; beyond that, and once the
pool is closing, `submit` refuses (the route answers 503 and nothing was done).

Nothing here is the truth: a job reads the journal, acts through Norbi or the executor, and what it did is in the
journal. So a pool that dies with its process (a killed `alicorn serve`) loses nothing: the next pool finds the
unfinished work in the journal (`alicorn.service.actions.Actions.resume_unfinished`) and continues it.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

_log = logging.getLogger("alicorn.service.workers")

Job = Callable[[], object]  # what it returns is ignored: it acts on the journal


class PoolRefused(Exception):
    """The pool takes no more work (it is full, or closing); the sentence says which and what to do."""


@dataclass(frozen=True)
class KeyStatus:
    """What the pool knows about a key: whether work for it is queued or running, and its last job's failure."""

    busy: bool
    failure: str | None


class Workers:
    """`size` threads advancing keyed jobs (see the module docstring)."""

    def __init__(self, size: int, *, capacity: int = 256, name: str = "alicorn-worker") -> None:
        if size < 1:
            raise ValueError("a worker pool needs at least one thread")
        self.size = size
        self.capacity = capacity
        self._guard = threading.Lock()
        self._ready: queue.Queue[str | None] = queue.Queue()
        self._jobs: dict[str, deque[tuple[str, Job]]] = {}
        self._failures: dict[str, str] = {}
        self._waiting = 0
        self._closing = False
        self._threads = [threading.Thread(target=self._loop, name=f"{name}-{i + 1}", daemon=True) for i in range(size)]
        for thread in self._threads:
            thread.start()

    def submit(self, key: str, what: str, job: Job, *, bounded: bool = True) -> None:
        """Queue `job` (described by `what`, for the log) after the other jobs of `key`; PoolRefused if full
        (`bounded=False`: the queue takes it anyway, for the work found unfinished at start)."""
        with self._guard:
            if self._closing:
                raise PoolRefused("the service is stopping and takes no new work; send it again once it is back")
            if bounded and self._waiting >= self.capacity:
                raise PoolRefused(
                    f"the service's {self.capacity} waiting jobs fill its queue; send it again in a moment (or start "
                    "`alicorn serve` with more --workers)"
                )
            self._waiting += 1
            pending = self._jobs.get(key)
            if pending is None:
                self._jobs[key] = deque([(what, job)])
                self._ready.put(key)  # no job of this key is queued or running: it is ready now
            else:
                pending.append((what, job))

    def status(self, key: str) -> KeyStatus:
        with self._guard:
            return KeyStatus(key in self._jobs, self._failures.get(key))

    def idle(self) -> bool:
        """Whether no job is queued or running."""
        with self._guard:
            return not self._jobs

    def _loop(self) -> None:
        while True:
            key = self._ready.get()
            if key is None:
                return
            with self._guard:
                if self._closing:  # queued, not started: dropped (the journal still says what is unfinished)
                    self._waiting -= len(self._jobs.pop(key))
                    continue
                what, job = self._jobs[key][0]
            failure = None
            try:
                job()
            except Exception as exc:  # a failed job is logged and kept for its key; the pool goes on
                failure = f"{what}: {type(exc).__name__}: {exc}"
                _log.warning("alicorn serve: %s", failure, exc_info=True)
            with self._guard:
                self._waiting -= 1
                if failure is None:
                    self._failures.pop(key, None)
                else:
                    self._failures[key] = failure
                pending = self._jobs[key]
                pending.popleft()
                if pending and not self._closing:
                    self._ready.put(key)
                else:
                    self._waiting -= len(pending)
                    del self._jobs[key]

    def close(self, timeout: float = 5.0) -> None:
        """Take no new work, drop what waits, and give running jobs `timeout` seconds to end (they are daemon
        threads: one still running when the process ends stops there, and the journal says where it was)."""
        with self._guard:
            self._closing = True
        for _ in self._threads:
            self._ready.put(None)
        for thread in self._threads:
            thread.join(timeout / len(self._threads))
