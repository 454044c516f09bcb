"""Compaction in ``vgdb serve --writable``'s idle time.

An update through the server (a served ``vgdb ingest``, ``--watch``, a GraphQL ingest job)
never compacts while its client waits (:func:`graphdb.compact.compact_if_grown` leaves a
serving store alone). Instead this thread looks at the graph file and its WAL every few
seconds; once they have not changed for :data:`IDLE_SECONDS` (no write since) and
:func:`graphdb.compact.compaction_due` says the file outgrew a fresh build or the WAL is
past what an open replays, it runs the CLI's policy (:func:`graphdb.compact.compact_if_grown`:
a compaction, or only a checkpoint when the WAL can be folded in without growing the file
past its limit) under the server's write lock (writes wait for it, reads go on until a
new file is swapped in, see ``Store.replace_graph``). Stopping waits for a compaction under
way: the store must not close while the compactor reads it or swaps its file.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

from api.write_lock import WriteLock
from graphdb import Store
from graphdb.compact import compact_if_grown, compaction_due

__all__ = ["IDLE_SECONDS", "IdleCompactor", "compact_when_idle"]

#: how long the database must have gone without a write before a compaction starts
IDLE_SECONDS = 5.0
_POLL = 1.0


class IdleCompactor:
    """The running compactor thread of one store."""

    def __init__(self, thread: threading.Thread, stopping: threading.Event) -> None:
        self._thread, self._stopping = thread, stopping

    def stop(self, *, notice_after: float = 2.0) -> None:
        """Stop looking for idle time and return once a compaction under way has finished
        (saying so on stderr when that takes longer than ``notice_after`` seconds): only
        then may the store close."""
        self._stopping.set()
        self._thread.join(notice_after)
        if self._thread.is_alive():
            print("waiting for the idle compaction to finish before closing the database",
                  file=sys.stderr, flush=True)
            self._thread.join()

    @property
    def running(self) -> bool:
        return self._thread.is_alive()


def compact_when_idle(store: Store, lock: WriteLock, *, idle: float = IDLE_SECONDS,
                      poll: float = _POLL) -> IdleCompactor:
    """Start the idle compactor for ``store``; :meth:`IdleCompactor.stop` it before the
    store closes."""
    stopping = threading.Event()
    thread = threading.Thread(target=_run, args=(store, lock, stopping, idle, poll),
                              name="vgdb-idle-compaction", daemon=True)
    thread.start()
    return IdleCompactor(thread, stopping)


def _files(path: Path) -> tuple[tuple[int, int], ...]:
    out = []
    for name in ("graph.lbug", "graph.lbug.wal"):
        try:
            st = (path / name).stat()
            out.append((st.st_size, st.st_mtime_ns))
        except FileNotFoundError:
            out.append((0, 0))
    return tuple(out)


def _run(store: Store, lock: WriteLock, stop: threading.Event, idle: float,
         poll: float) -> None:
    seen, quiet, checked = _files(store.path), 0.0, None
    while not stop.wait(poll):
        now = _files(store.path)
        if now != seen:
            seen, quiet = now, 0.0
            continue
        quiet += poll
        if quiet < idle or checked == now:
            continue
        checked = now  # decided for these files: look again only after the next write
        try:
            with lock.hold("compaction in idle time"):
                if stop.is_set() or _files(store.path) != now or not compaction_due(store):
                    continue
                report = compact_if_grown(store, idle=True)  # or only a checkpoint
            seen = checked = _files(store.path)
            if report is not None:
                print(f"compacted the graph file in idle time: {report.before / 1e6:.1f} -> "
                      f"{report.after / 1e6:.1f} MB in {report.seconds:.1f} s",
                      file=sys.stderr, flush=True)
        except Exception as exc:  # the server goes on; its next idle time tries again
            print(f"idle compaction failed: {exc}", file=sys.stderr, flush=True)
