"""Derived data of a served update, finished after its answer (``vgdb serve --writable``).

A ``vgdb ingest`` forwarded to the server (:mod:`api.resident`) answers once the code graph
is committed; what follows from it -- the keyword and vector indexes of the changed
symbols, the communities followed in place (or detected again past their drift limit) --
is a *pending derivation*, run by this module's worker right after the answer. On the
standard library that is a third of a one-function edit's time, and a detection several
seconds once the drift limit is passed (benchmarks/RESULTS.md, "Served edits, sixth pass").

Nobody sees the graph without it:

- every HTTP request to the server (GraphQL, MCP, the CLI's ``/cli``, the explorer) first
  waits for the pending derivation (:class:`SettleDerived`, the outermost middleware), or
  is refused ``BUSY`` when it would pass its deadline;
- every write of the server (the next served ingest, ``--watch``, GraphQL mutations, the
  idle compaction) takes the server's write lock, which runs the pending derivation first,
  in order (:meth:`api.write_lock.WriteLock.hold`'s hook);
- the server settles it before it closes the database.

A kill before it has run loses nothing committed: the update marked the keyword index
stale and its communities due *in the transactions that wrote the code*
(:func:`ingest.pipeline.stage_repository`, :func:`graphdb.communities.mark_communities_due`),
so the next ingest, served or not, syncs the one and updates the other.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from api.write_lock import WriteLock
from graphdb import deadline
from graphdb.deadline import BusyError
from graphdb.faults import failpoint

__all__ = ["DELAY_SECONDS", "Deriver", "SettleDerived", "active", "start_deriving", "stop_deriving"]

#: how long the worker lets the answer go out before it starts (readers and writers that
#: need the derivation start it at once): on two cores, the derivation's Python work holds
#: the interpreter lock the server's event loop needs to send the answer.
#: ``VGDB_DERIVE_DELAY`` (seconds) sets it for a server (the tests make it long, to see
#: readers start the derivation themselves).
DELAY_SECONDS = 0.05


class Deriver:
    """The pending derivations of one served store, and the thread that runs them.

    Jobs run under the server's write lock, in the order they were deferred; the lock's
    hook (:meth:`run_pending`) runs them for any writer that takes it first."""

    def __init__(self, lock: WriteLock, *, delay: float = DELAY_SECONDS) -> None:
        self._lock = lock
        self._delay = delay
        self._jobs: list[tuple[str, Callable[[], Any]]] = []
        self._cond = threading.Condition()
        self._urgent = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        #: what the last jobs did: (label, seconds, error or None), newest last (tests, logs)
        self.done: list[tuple[str, float, str | None]] = []

    # -- producers ----------------------------------------------------------------------
    def defer(self, label: str, job: Callable[[], Any]) -> None:
        """Run ``job`` after the current answer. Called by a writer holding the lock."""
        with self._cond:
            self._jobs.append((label, job))
            self._cond.notify_all()

    @property
    def pending(self) -> bool:
        return bool(self._jobs)

    # -- consumers ----------------------------------------------------------------------
    def settle(self, timeout: float | None = None) -> None:
        """Return once no derivation is pending, starting it now if the worker waits;
        :class:`~graphdb.deadline.BusyError` after ``timeout`` seconds (default: the
        request's deadline, if any)."""
        if not self._jobs:
            return
        if timeout is None:
            timeout = deadline.remaining()
        self._urgent.set()
        with self._cond:
            self._cond.notify_all()
            if not self._cond.wait_for(lambda: not self._jobs, timeout):
                raise BusyError("the database is still deriving the last update's "
                                "communities and search indexes",
                                suggestion="try again in a moment")

    def run_pending(self) -> None:
        """Run every pending job; the caller holds the write lock. A failing job is
        reported on stderr and dropped: what it had to derive stays marked in the
        database for the next update."""
        while True:
            with self._cond:
                if not self._jobs:
                    self._urgent.clear()
                    self._cond.notify_all()
                    return
                label, job = self._jobs[0]
            started, error = time.perf_counter(), None
            try:
                failpoint("served:derive")  # tests kill the server before any of it
                with deadline.unbounded():
                    job()
            except Exception as exc:  # the server goes on; the marks remain
                error = f"{type(exc).__name__}: {exc}"
                print(f"deriving after {label} failed: {error}", file=sys.stderr, flush=True)
            with self._cond:
                self._jobs.pop(0)
                self.done.append((label, time.perf_counter() - started, error))
                del self.done[:-20]
                self._cond.notify_all()

    # -- the worker ---------------------------------------------------------------------
    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="vgdb-derive", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Run what is pending, then stop the worker: only then may the store close."""
        self._stopping.set()
        self._urgent.set()  # no delay left to wait
        with self._cond:
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join()
        if self._jobs:
            with self._lock.hold("derived data before closing"):
                self.run_pending()

    def _run(self) -> None:
        while not self._stopping.is_set():
            with self._cond:
                self._cond.wait_for(lambda: self._jobs or self._stopping.is_set())
            if self._stopping.is_set():
                return
            self._urgent.wait(self._delay)  # the answer goes out first
            if self._stopping.is_set():
                return  # stop() runs what is pending
            with self._lock.hold("derived data of the last update"):
                pass  # the lock's hook runs the pending jobs (run_pending)


_ACTIVE: Deriver | None = None


def active() -> Deriver | None:
    """The running deriver of this process's server, if it defers derived data."""
    return _ACTIVE


def start_deriving(lock: WriteLock, *, delay: float | None = None) -> Deriver:
    """Defer served updates' derived data in this process (``vgdb serve --writable``):
    the worker starts, and ``lock`` runs what is pending before any other writer."""
    global _ACTIVE
    if delay is None:
        delay = float(os.environ.get("VGDB_DERIVE_DELAY") or DELAY_SECONDS)
    deriver = Deriver(lock, delay=delay)
    lock.before = deriver.run_pending
    deriver.start()
    _ACTIVE = deriver
    return deriver


def stop_deriving(deriver: Deriver) -> None:
    """Settle and stop ``deriver`` (the server stops): nothing derived is left pending."""
    global _ACTIVE
    if _ACTIVE is deriver:
        _ACTIVE = None
    deriver.stop()
    deriver._lock.before = None


class SettleDerived:
    """ASGI middleware: a request waits for the pending derivation (in a worker thread,
    never blocking the event loop) before it reads anything."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        deriver = _ACTIVE
        if scope["type"] == "http" and deriver is not None and deriver.pending:
            from starlette.concurrency import run_in_threadpool

            try:
                await run_in_threadpool(deriver.settle)
            except BusyError as exc:
                from starlette.responses import JSONResponse

                await JSONResponse({"errors": [{"message": exc.message,
                                                "extensions": {"code": "BUSY"}}]},
                                   status_code=503)(scope, receive, send)
                return
        await self.app(scope, receive, send)
