"""What the service does, as opposed to what it shows: requests to Core, decisions about runs, run control.

`Actions` owns the worker pool and the Core (Norbi) each worker thread uses. A route checks its request against
the journal (who may, which state, which plan hash) and refuses before anything is written; what passes is handed
to the pool, which drives it through the same functions the CLI uses (`Norbi.advance`/`reply`/`close`,
`Executor.resume` with approvals, a rejection or resolutions, `request_cancel`). Jobs about a conversation, or
about a run a conversation started, share the conversation's key, so they run one after the other.

On start it resumes what the journal says is unfinished (`resume_unfinished`): every conversation not yet reported
and every run that was interrupted while running, so a `serve` killed mid-run continues where it was. It finds them
through the run index (alicorn.service.index), which folds only the streams that changed since it last saw them, and
in a background thread (`resume_in_background`), so the server answers at once: a request that comes first is keyed
like the resumed work, so the two never drive one conversation or run at once.
"""

from __future__ import annotations

import functools
import logging
import re
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi.responses import JSONResponse

from alicorn.broker.jobs import Broker
from alicorn.broker.submit import broker_for, is_queued
from alicorn.core.access import choose_models
from alicorn.core.conversation import PREFIX, ConversationState
from alicorn.core.conversation import fold as fold_conversation
from alicorn.core.norbi import Norbi
from alicorn.core.routing import ModelAccess
from alicorn.errors import JournalError, StreamLockedError
from alicorn.journal.events import Event
from alicorn.journal.store import check_stream_name
from alicorn.packs.catalog import bundled_workflows
from alicorn.runtime.executor import Executor
from alicorn.runtime.state import RunState, fold
from alicorn.service.problems import Problem
from alicorn.service.shared import API, Service
from alicorn.service.workers import PoolRefused, Workers

_log = logging.getLogger("alicorn.service.actions")
_OWNED_RUN = re.compile(r"^run-(\d{8}-[0-9a-f]{12})-\d+$")  # alicorn.core.conversation.run_id_for


class Actions:
    """The service's acting half over `service` (see the module docstring); `workers` 0 acts on nothing."""

    def __init__(
        self, service: Service, *, workers: int, models: str = "none", workdir: Path | None = None, queue: bool = False
    ) -> None:
        self.service = service
        self.store = service.app.store
        self.people = service.app.people
        self.workdir = workdir
        self.models: ModelAccess | None = (
            choose_models(models, service.app.home, clock=service.clock) if workers else None
        )
        self.pool = Workers(workers) if workers else None
        #: `alicorn serve --queue`: Core submits its runs to the journal's job broker, and `alicorn worker`
        #: processes (on any machine sharing the journal) drive them; this service journals people's decisions.
        self.broker: Broker | None = broker_for(self.store) if queue else None
        self._local = threading.local()
        self._resuming: threading.Thread | None = None
        self._following: threading.Thread | None = None
        self._stop_following = threading.Event()

    # ---- what routes ask --------------------------------------------------------------------------------------

    def core(self) -> Norbi:
        """This thread's Norbi (its taps and model clients are its own; the journal is shared)."""
        norbi: Norbi | None = getattr(self._local, "core", None)
        if norbi is None:
            norbi = Norbi(
                self.service.app, bundled_workflows(), models=self.models, clock=self.service.clock,
                workdir=self.workdir, broker=self.broker,
            )  # fmt: skip
            self._local.core = norbi
        return norbi

    def conversation(self, conversation: str) -> ConversationState:
        """The folded conversation `conversation`; Problem(404) when there is none."""
        events = []
        try:
            check_stream_name(conversation)
            if conversation.startswith(PREFIX) and self.store.head(conversation) is not None:
                events = self.store.read(conversation)
        except JournalError:
            events = []
        if not events or events[0].kind != "intent.received":
            raise Problem(
                404, "unknown-conversation",
                f"there is no conversation {conversation!r}; GET {API}/conversations lists them",
            )  # fmt: skip
        return fold_conversation(events)

    def run(self, run_id: str) -> RunState:
        """The folded run `run_id`; Problem(404) when there is none."""
        return fold(self.service.run_events(run_id), run_id)

    def owner(self, run_id: str) -> str | None:
        """The conversation that started `run_id`, if one did (its id is fixed by the conversation's)."""
        found = _OWNED_RUN.match(run_id)
        if found is None:
            return None
        conversation = PREFIX + found.group(1)
        if self.store.head(conversation) is None:
            return None
        return conversation if run_id in fold_conversation(self.store.read(conversation)).runs else None

    def key(self, run_id: str) -> str:
        """The pool key of work on `run_id`: its conversation's, so Core and the run never race."""
        return self.owner(run_id) or run_id

    def status(self, key: str) -> dict[str, Any]:
        if self.pool is None:
            return {"busy": False, "failure": None}
        found = self.pool.status(key)
        return {"busy": found.busy, "failure": found.failure}

    # ---- handing work to the pool -----------------------------------------------------------------------------

    def submit(self, key: str, what: str, job: Callable[[], object]) -> None:
        """Queue `job`; Problem(503) when this service has no workers or its queue is full (nothing was done)."""
        pool = self.workers(what)
        try:
            pool.submit(key, what, job)
        except PoolRefused as exc:
            raise Problem(503, "workers-busy", f"{exc}. Nothing was done") from None

    def workers(self, what: str) -> Workers:
        """The pool; Problem(503) when this service was started without one."""
        if self.pool is None:
            raise Problem(
                503, "no-workers",
                f"this service was started without workers, so it cannot {what}; start it with "
                "`alicorn serve --workers N`. Nothing was done",
            )  # fmt: skip
        return self.pool

    def advance(self, conversation: str) -> None:
        """Queue advancing `conversation` from its journal (idempotent)."""
        self.submit(conversation, f"advance {conversation}", lambda: self._advance(conversation))

    def _advance(self, conversation: str) -> None:
        self.core().advance(conversation)

    def drive(self, run_id: str, what: str, **resume: Any) -> None:
        """Queue `Executor.resume(run_id, **resume)`, then advancing the run's conversation (its report)."""
        owner = self.owner(run_id)

        def job() -> None:
            events = self.store.read(run_id)
            # a queued run's decision is journaled for its worker (its parked job wakes up), never driven here
            self.executor(run_id, events).resume(run_id, **resume, drive=not is_queued(events))
            if owner is not None:
                self._advance(owner)

        self.submit(owner or run_id, what, job)

    def executor(self, run_id: str, events: list[Event] | None = None) -> Executor:
        """The home's executor for `run_id`: over the data root journaled at its creation, as `alicorn resume`
        (`events`: the run's, when the caller has read them already)."""
        state = fold(self.store.read(run_id) if events is None else events, run_id)
        return self.service.app.executor(Path(state.data_root))

    def resume_unfinished(self) -> list[str]:
        """Queue every unfinished conversation and every run interrupted while running (however many: the queue's
        bound is for requests), as the run index lists them; the keys queued."""
        if self.pool is None:
            return []
        unfinished = self.service.index.unfinished()
        queued: list[str] = []
        for name in unfinished.conversations:  # advancing one resumes its run, if it has one
            self.pool.submit(name, f"advance {name}", functools.partial(self._advance, name), bounded=False)
            queued.append(name)
        for name in unfinished.runs:
            self.pool.submit(self.key(name), f"resume {name}", functools.partial(self._resume, name), bounded=False)
            queued.append(name)
        return queued

    def resume_in_background(self) -> threading.Thread | None:
        """`resume_unfinished` in a thread of its own, so the server answers while it looks; the thread (None
        without workers)."""
        if self.pool is None:
            return None

        # a journal that cannot be read now: said; the next start looks again
        self._resuming = _started("alicorn-resume", lambda: _warned("unfinished work was not resumed",
                                                                    self.resume_unfinished))  # fmt: skip
        return self._resuming

    def advance_finished_queued(self) -> tuple[list[str], list[str]]:
        """Queue advancing every unfinished conversation whose queued run a worker has finished (its report). The
        conversations queued, and those skipped because the workers were busy with them (to look at again)."""
        if self.pool is None:
            return [], []
        queued: list[str] = []
        busy: list[str] = []
        for name in self.service.index.unfinished().conversations:
            state = fold_conversation(self.store.read(name))
            if state.phase != "running" or state.run is None:
                continue
            if self.pool.status(name).busy:  # its advance may have looked before the worker finished
                busy.append(name)
                continue
            events = self.store.read(state.run)
            if is_queued(events) and fold(events, state.run).finished:
                self.pool.submit(name, f"advance {name}", functools.partial(self._advance, name), bounded=False)
                queued.append(name)
        return queued, busy

    def follow_queued(self, every_s: float = 2.0) -> threading.Thread | None:
        """`advance_finished_queued` every `every_s` seconds in a thread of its own, until closed: a run that a
        worker on any machine finishes gets its conversation's report without anyone asking (None without
        workers or a broker)."""
        if self.pool is None or self.broker is None:
            return None

        seen: list[object] = []  # the journal's version at the last look: unchanged, nobody finished anything

        def follow() -> None:
            version = self.service.index.journal_version()
            if seen and version is not None and version == seen[-1]:
                return
            advanced, busy = self.advance_finished_queued()
            # a conversation skipped as busy, or handed on just now, is looked at again next time
            seen[:] = [] if busy or advanced else [version]

        def look() -> None:
            while not self._stop_following.wait(every_s):  # a journal that cannot be read now: the next look
                _warned("finished queued runs were not followed", follow)

        self._following = _started("alicorn-follow-queued", look)
        return self._following

    def _resume(self, run_id: str) -> None:
        events = self.store.read(run_id)
        if is_queued(events):
            return  # a worker drives it (its lease, once expired, lets the next one take it over)
        try:
            self.executor(run_id, events).resume(run_id)
        except StreamLockedError:
            _log.warning("alicorn serve: run %s is driven by another process; left to it", run_id)

    def close(self) -> None:
        if self._resuming is not None:
            self._resuming.join(30)  # before the index it reads is closed
        self._stop_following.set()
        if self._following is not None:
            self._following.join(30)
        if self.pool is not None:
            self.pool.close()
        if self.broker is not None:
            self.broker.close()


def accepted(run_id: str) -> JSONResponse:
    """202 for work on run `run_id` handed to the workers: where to watch it."""
    location = f"{API}/runs/{run_id}"
    body = {"run": run_id, "location": location, "events": f"{location}/events"}
    return JSONResponse(body, status_code=202, headers={"Location": location})


def _started(name: str, target: Callable[[], None]) -> threading.Thread:
    """`target` running in a daemon thread named `name`."""
    thread = threading.Thread(target=target, name=name, daemon=True)
    thread.start()
    return thread


def _warned(what: str, work: Callable[[], object]) -> None:
    """`work()`; a failure is said on stderr as "`what`: why" (the service goes on)."""
    try:
        work()
    except Exception as exc:
        print(f"alicorn serve: warning: {what}: {exc}", file=sys.stderr)
