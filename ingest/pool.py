"""Worker processes for parsing: spawned (never forked), and killed with their parent.

Shared by code ingest (files) and history ingest (blobs), so both survive a ``kill -9`` of
the ingest process without leaving workers behind.
"""

from __future__ import annotations

import os
import signal
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

__all__ = ["pool_starts", "process_pool"]


def _die_with_parent() -> None:
    """Pool initializer: a worker gets SIGKILL when the ingest process dies (even by
    ``kill -9``), instead of living on with its pipes open. Linux only; elsewhere a no-op."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL)
    except (OSError, AttributeError):
        pass
    if os.getppid() == 1:  # the parent died before prctl took effect
        os._exit(1)


def process_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes."""
    # spawn, not fork: the parent holds an open Kuzu database (threads, file handles)
    return ProcessPoolExecutor(workers, mp_context=get_context("spawn"),
                               initializer=_die_with_parent)


def pool_starts() -> bool:
    """Can a worker process start at all? It cannot when, say, a script without an
    ``if __name__ == "__main__":`` guard is re-run by every spawned worker."""
    try:
        with process_pool(1) as pool:
            return pool.submit(os.getpid).result(timeout=60) > 0
    except Exception:  # BrokenProcessPool, TimeoutError, OSError: no usable pool
        return False
