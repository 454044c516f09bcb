"""One deadline per request, bounding everything the request does.

The server starts a deadline when a request arrives (:func:`within`); it lives in a context
variable, so it follows the request into worker threads (``anyio.to_thread`` copies the
context) and into every queries-API function without being passed through each signature.
Loops of the queries API call :func:`check` at their heads; database work gets the time left
as the engine's own query timeout (:meth:`graphdb.Store.cypher`), which interrupts a running
query. Outside a request (CLI, scripts) there is no deadline and both are no-ops.

It lives in ``graphdb`` (not ``queries``) because the store reads it: a layer may only import
the layers below it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from schema import QueryError, VgdbError

__all__ = ["BusyError", "Deadline", "DeadlineExceededError", "check", "current", "remaining",
           "tighten", "unbounded", "within"]


class DeadlineExceededError(QueryError):
    """The request ran past its time limit; what it did so far is dropped."""

    code = "DEADLINE_EXCEEDED"


class BusyError(VgdbError):
    """A write waited for the write lock until its deadline; the holder is named."""

    exit_code = 3
    code = "BUSY"


@dataclass(frozen=True)
class Deadline:
    seconds: float
    at: float  # time.monotonic() value

    def remaining(self) -> float:
        return self.at - time.monotonic()

    def error(self) -> DeadlineExceededError:
        return DeadlineExceededError(
            f"request took longer than {self.seconds:g} s",
            suggestion="ask for less (smaller pages, fewer nested lists, lower depth)")


_CURRENT: ContextVar[Deadline | None] = ContextVar("vgdb_deadline", default=None)


@contextmanager
def within(seconds: float | None) -> Iterator[Deadline | None]:
    """Run the block under a deadline ``seconds`` from now (None: none). A deadline already
    set and earlier is kept: a nested call never extends the request's time."""
    outer = _CURRENT.get()
    mine = None if seconds is None else Deadline(seconds, time.monotonic() + seconds)
    if outer is not None and (mine is None or outer.at <= mine.at):
        mine = outer
    token = _CURRENT.set(mine)
    try:
        yield mine
    finally:
        _CURRENT.reset(token)


@contextmanager
def unbounded() -> Iterator[None]:
    """Run the block with no deadline, whatever the request's: for a write the server runs
    for its owner as the CLI would (a served ``vgdb ingest``), which a cut-off would leave
    half done for the next run to finish instead of answering faster."""
    token = _CURRENT.set(None)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def tighten(seconds: float | None, *, since: float) -> None:
    """Bring the current deadline forward to ``since + seconds`` (``since``: a
    time.monotonic() value) where that is earlier — a token's own limit, known only once the
    request is authenticated. Undone with the deadline that :func:`within` set."""
    outer = _CURRENT.get()
    if seconds is None or (outer is not None and outer.at <= since + seconds):
        return
    _CURRENT.set(Deadline(seconds, since + seconds))


def current() -> Deadline | None:
    return _CURRENT.get()


def remaining() -> float | None:
    """Seconds left (None without a deadline); raises when none are left."""
    deadline = _CURRENT.get()
    if deadline is None:
        return None
    left = deadline.remaining()
    if left <= 0:
        raise deadline.error()
    return left


def check() -> None:
    """Raise :class:`DeadlineExceededError` when the request's deadline has passed."""
    deadline = _CURRENT.get()
    if deadline is not None and deadline.remaining() <= 0:
        raise deadline.error()
