"""Worker processes for parsing: forked from a clean fork server (never from the ingest
process itself), and killed with their parent.

Shared by code ingest (files) and history ingest (blobs), so both survive a ``kill -9`` of
the ingest process without leaving workers behind.

Why a fork server: a spawned worker re-imports the main module (``vgdb``'s whole CLI) and the
extractors, ~0.4 s each before its first file. The fork server is one spawned process that
imports only the worker module (``preload``, not ``__main__``); each worker is a fork of it, so
it starts with the grammars loaded and inherits none of the parent's database handles or
threads. Where there is no fork server (not POSIX), workers are spawned.
"""

from __future__ import annotations

import os
import select
import signal
import threading
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_all_start_methods, get_context
from multiprocessing.context import BaseContext

__all__ = ["pool_starts", "process_pool", "start_fork_server"]


def _start_worker(environ: dict[str, str], owner: int) -> None:
    """Pool initializer: the worker takes the pool owner's environment (a fork server keeps
    the one it started with), and dies with its parent and with the pool's owner."""
    if os.environ != environ:
        os.environ.clear()
        os.environ.update(environ)
    _die_with_parent()
    if os.getppid() != owner:
        _die_with_owner(owner)


def _die_with_owner(owner: int) -> None:
    """A forked worker's parent is the fork server, and the fork server lives as long as its
    workers hold the owner's "alive" pipe, which they do: so the worker itself watches the
    owner (a pidfd becomes readable when the process exits) and exits with it."""
    if not hasattr(os, "pidfd_open"):
        return
    try:
        fd = os.pidfd_open(owner)
    except ProcessLookupError:
        os._exit(1)
    except OSError:  # no pidfd support in this kernel: the parent death signal only
        return

    def watch() -> None:
        select.select([fd], [], [])
        os._exit(1)

    threading.Thread(target=watch, name="vgdb-owner-watch", daemon=True).start()


def _die_with_parent() -> None:
    """A worker gets SIGKILL when the ingest process dies (even by ``kill -9``), instead of
    living on with its pipes open. Linux only; elsewhere a no-op. (A forked worker's parent is
    the fork server, which exits when the ingest process does.)"""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL)
    except (OSError, AttributeError):
        pass
    if os.getppid() == 1:  # the parent died before prctl took effect
        os._exit(1)


#: What the fork server imports once, so that every worker forked from it starts warm; first
#: the stand-in for the main module (:mod:`ingest.fork_main`: workers skip re-running it).
_PRELOAD = ["ingest.fork_main", "ingest.worker", "ingest.extract.languages",
            "ingest.academic.scan"]


def _context() -> BaseContext:
    # never plain fork: the parent holds an open database (threads, file handles)
    if "forkserver" not in get_all_start_methods():
        return get_context("spawn")
    ctx = get_context("forkserver")
    ctx.set_forkserver_preload(_PRELOAD)
    return ctx


def process_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes."""
    ctx = _context()
    if ctx.get_start_method() == "forkserver":
        _ensure_fork_server()
    return ProcessPoolExecutor(workers, mp_context=ctx, initializer=_start_worker,
                               initargs=(dict(os.environ), os.getpid()))


def _ensure_fork_server() -> None:
    """Start the fork server (if not running) without the working directory on its
    ``sys.path``. Python 3.11's fork server imports its preload modules in a ``python -c``
    process, whose ``sys.path[0]`` is the working directory (the ``sys_path`` it is handed
    is ignored), so ``vgdb ingest`` run in a project with its own ``ingest/`` or ``schema/``
    package imported *that* package into every worker. ``PYTHONSAFEPATH`` (3.11+) keeps
    the directory out; it is set for the start only, as is the description of this
    process's main module that :mod:`ingest.fork_main` reads in the server."""
    from multiprocessing import forkserver

    from ingest.fork_main import ENV, main_of_this_process

    start_env = {"PYTHONSAFEPATH": "1", ENV: main_of_this_process()}
    saved = {key: os.environ.get(key) for key in start_env}
    os.environ.update(start_env)
    try:
        forkserver.ensure_running()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def start_fork_server() -> None:
    """Start the fork server now, without waiting for it: it imports the worker modules in its
    own process while this one opens the database and walks the tree, so the first pool of a
    cold ingest forks its workers at once instead of waiting ~0.3-0.5 s for that import. A
    no-op where workers are spawned."""
    if _context().get_start_method() == "forkserver":
        _ensure_fork_server()


def pool_starts() -> bool:
    """Can a worker process start at all? It cannot when, say, a script without an
    ``if __name__ == "__main__":`` guard is re-run by every spawned worker."""
    try:
        with process_pool(1) as pool:
            return pool.submit(os.getpid).result(timeout=60) > 0
    except Exception:  # BrokenProcessPool, TimeoutError, OSError: no usable pool
        return False
