"""What every part of the service shares: the API's prefix and the `Service` (the home's App, the token checker,
the run index).

It sits below the app factory (alicorn.service.app) and the route modules, so a route module imports what it needs
from here and never the factory that mounts it: the service's modules import one way, with no circle.
"""

from collections.abc import AsyncIterator, Callable
from typing import Any

from alicorn.app import App
from alicorn.clock import Clock
from alicorn.errors import JournalError
from alicorn.journal.store import check_stream_name
from alicorn.service.artifacts import Digests
from alicorn.service.auth import Authenticator
from alicorn.service.index import INDEX_FILE, RunIndex
from alicorn.service.problems import Problem

API = "/api/v1"


class Service:
    """What the routes share: the home's App, the token checker and the run index."""

    def __init__(self, application: App, clock: Clock) -> None:
        self.app = application
        self.clock = clock
        self.auth = Authenticator(application.store, clock)
        self.index = RunIndex(application.store, application.home / INDEX_FILE)
        #: Workspace files' digests, read again only when a file changed (alicorn.service.artifacts).
        self.digests = Digests()
        #: Event streams being served now (an abandoned one must end: see alicorn.service.events).
        self.open_streams = 0
        #: Called first when the service closes (the worker pool of alicorn.service.actions).
        self.on_close: list[Callable[[], None]] = []

    async def counted(self, body: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
        """`body`, counted in `open_streams` while it is being sent."""
        self.open_streams += 1  # the event loop's thread only: no lock needed
        try:
            async for chunk in body:
                yield chunk
        finally:
            self.open_streams -= 1

    def run_events(self, run_id: str) -> list[Any]:
        """The events of run `run_id`; Problem(404) when there is no such run (a control stream is not a run)."""
        try:
            check_stream_name(run_id)
            head = self.app.store.head(run_id)
        except JournalError:
            head = None
        events = self.app.store.read(run_id) if head is not None else []
        if not events or events[0].kind != "run.created":
            raise Problem(404, "unknown-run", f"there is no run {run_id!r}; GET {API}/runs lists the runs")
        return events

    def close(self) -> None:
        for hook in self.on_close:
            hook()
        self.index.close()
        self.app.close()
