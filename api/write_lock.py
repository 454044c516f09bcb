"""The server's write lock: the engine has one writer, so GraphQL mutations, MCP record tools
and admin ingests take turns. A request waits for it only until its deadline
(:mod:`graphdb.deadline`), then gets ``BUSY`` naming who holds the lock and since when —
a ``recordDecision`` during an ingest used to wait for the whole ingest."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

from graphdb import deadline
from graphdb.deadline import BusyError

__all__ = ["WriteLock"]


class WriteLock:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._holder: tuple[str, datetime] | None = None
        #: run by every holder first, once it holds the lock: a served update's pending
        #: derived data (``api.serve_derive``), so no write lands before it
        self.before: Callable[[], None] | None = None

    @contextmanager
    def hold(self, holder: str) -> Iterator[None]:
        """Hold the lock as ``holder`` (a short description: ``ingest job 3f2a (repo)``),
        waiting until the current deadline at most (forever without one)."""
        left = deadline.remaining()  # raises when the deadline has passed already
        if not self._lock.acquire(timeout=-1 if left is None else left):
            raise self._busy()
        self._holder = (holder, datetime.now(UTC))
        try:
            if self.before is not None:
                self.before()
            yield
        finally:
            self._holder = None
            self._lock.release()

    def _busy(self) -> BusyError:
        held = self._holder
        who = (f"{held[0]} holds the write lock since {held[1].isoformat(timespec='seconds')}"
               if held else "another write holds the write lock")
        return BusyError(f"the database is busy writing: {who}",
                         suggestion="try again when it is done (an admin token can follow an "
                                    "ingest with `ingestJob(id)`)")
