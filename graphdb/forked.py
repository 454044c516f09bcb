"""Compute in a forked child, hand the result back through a pipe: the derived steps of an
ingest (keyword documents, embeddings) run beside the communities step on the other core.

Why a fork and not a thread: the work is Python (texts, tokens, digests) or C that keeps the
interpreter lock (igraph's Leiden), so threads take turns on one core. Why not the ingest's
fork server: a fork of this process already holds what the child reads (the rows the parent
read from the graph, the loaded embedding model), so nothing is pickled on the way in.

Rules for what runs in the child: no engine call (the parent is the database's only writer,
and the engine's threads do not exist in the child), no polars (its thread pool may be held
by a parent thread at the fork); plain Python, numpy, tokenizers and tantivy only. The child
dies with its parent (``PR_SET_PDEATHSIG``), so a killed ingest leaves no writer behind, and
it exits with ``os._exit`` (no atexit handler of the parent runs twice).

A child that fails (an exception, a signal, a short read) makes :meth:`Forked.result` raise
:class:`ForkedError`; the callers then do the work in process, so a fork is an optimisation
and never a new way to fail.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["Forked", "ForkedError", "can_fork", "start_forked"]

_KILLED_WITH_PARENT = 1  # prctl(PR_SET_PDEATHSIG, ...)
_TOKENIZERS = "TOKENIZERS_PARALLELISM"


class ForkedError(RuntimeError):
    """The child did not hand back a result."""


def can_fork() -> bool:
    """Forking is available here (POSIX) and not turned off (``VGDB_NO_FORK=1``, for the
    tests that compare both paths and for debugging)."""
    return hasattr(os, "fork") and os.environ.get("VGDB_NO_FORK", "") not in ("1", "true")


class Forked:
    """A running child; :meth:`result` waits for it and returns what its function returned.

    The pipe is read only then (the child, done computing, waits at its write): a thread
    draining it meanwhile would wake for each 64 KB the child writes and take the
    interpreter lock from this process's work each time (measured: the communities step
    beside an embedding child ran 2x slower in wall time on the standard library)."""

    def __init__(self, pid: int, fd: int, name: str) -> None:
        self.pid, self.name = pid, name
        self._fd = fd
        self._done = False

    def result(self) -> Any:
        """The child's return value; ForkedError when it raised or died."""
        chunks = []
        while chunk := os.read(self._fd, 1 << 20):
            chunks.append(chunk)
        os.close(self._fd)
        _, status = os.waitpid(self.pid, 0)
        self._done = True
        data = b"".join(chunks)
        if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0 or not data:
            raise ForkedError(f"the {self.name} child ended with status {status}")
        ok, value = pickle.loads(data)
        if not ok:
            raise ForkedError(f"the {self.name} child failed: {value}")
        return value

    def close(self) -> None:
        """Stop the child when its result is no longer wanted (the parent's step failed)."""
        if self._done:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        os.close(self._fd)
        os.waitpid(self.pid, 0)
        self._done = True


def start_forked(name: str, fn: Callable[..., Any], *args: Any) -> Forked:
    """Run ``fn(*args)`` in a forked child (see the module's rules for ``fn``). OSError
    when no process can be forked now."""
    read, write = os.pipe()
    parent = os.getpid()
    sys.stdout.flush()
    sys.stderr.flush()
    # tokenizers' own fork handler warns on stderr (and turns its thread pool off) in a
    # child of a process that used the pool; the child tokenizes on one thread anyway (the
    # parent and the other child have the other core): said before the fork, no warning
    unset = _TOKENIZERS not in os.environ
    if unset:
        os.environ[_TOKENIZERS] = "false"
    pid = -1
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        raise
    finally:
        if unset and pid != 0:
            os.environ.pop(_TOKENIZERS, None)
    if pid == 0:  # the child
        code = 0
        try:
            os.close(read)
            _die_with_parent(parent)
            try:
                payload = pickle.dumps((True, fn(*args)), protocol=pickle.HIGHEST_PROTOCOL)
            except BaseException as error:  # handed to the parent as text
                payload = pickle.dumps((False, f"{type(error).__name__}: {error}"))
            view = memoryview(payload)
            while view:
                view = view[os.write(write, view):]
        except BaseException:  # the parent sees a failed child
            code = 1
        finally:
            os._exit(code)
    os.close(write)
    return Forked(pid, read, name)


def _die_with_parent(parent: int) -> None:
    """The child gets SIGKILL when the parent dies (even by ``kill -9``): a killed ingest
    leaves no child writing an index that the next run opens. Linux only."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_KILLED_WITH_PARENT, signal.SIGKILL)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)
