"""What a failed ``COMMIT`` left in the write-ahead log, and cutting the log back before it.

Measured on LadybugDB 0.22 with real full disks (a small tmpfs; ``benchmarks/
commit_failure.py``, figures in benchmarks/RESULTS.md):

- ``COMMIT`` raising "Transaction committed successfully, but the post-commit checkpoint
  failed" leaves the transaction committed in the engine's memory, which then refuses writes
  until it is restarted. Its small changes are in the WAL; the rows of a bulk ``COPY`` are
  not (they reach the graph file only through that checkpoint): after a restart or a crash
  the graph holds the transaction's ``SET`` without its ``COPY``'d rows, a torn transaction,
  although the engine's message says the data "will be recovered on restart".
- A ``CHECKPOINT`` run again in the same process once the cause is gone keeps all of it.
- A checkpoint that failed after its own commit point (the log renamed to
  ``graph.lbug.wal.checkpoint``, the shadow file complete) is finished by the next open, and
  keeps all of it.
- A ``COMMIT`` that failed while appending to the log (disk full) can leave a torn record
  there, which fails the log's checksum at the next open: the whole database refuses to open,
  and `vgdb repair --discard-wal` would drop every earlier commit the log held. Cutting the
  log back to its size before the transaction leaves exactly those earlier commits (one
  writer at a time: a transaction's records follow every earlier one's).
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from pathlib import Path

import ladybug

from graphdb.engine import open_engine
from schema import CorruptDatabaseError

__all__ = ["CHECKPOINT_FAILED", "NOT_COMMITTED", "PENDING_AT_OPEN", "classify_failed_commit",
           "cut_wal", "open_dropping_torn_write", "wal_path"]

#: the engine committed the transaction but its checkpoint failed before its commit point
CHECKPOINT_FAILED = "checkpoint-failed"
#: the checkpoint passed its commit point: the next open of the database finishes it
PENDING_AT_OPEN = "pending-at-open"
#: the transaction was not committed
NOT_COMMITTED = "not-committed"
log = logging.getLogger("vgdb.store")
_ENGINE_SAYS = "committed successfully, but the post-commit checkpoint failed"


def wal_path(graph: Path) -> Path:
    return graph.with_name(graph.name + ".wal")


def classify_failed_commit(error: BaseException, graph: Path) -> str:
    """Which of the cases above an exception from ``COMMIT`` is."""
    if _ENGINE_SAYS not in str(error).lower():
        return NOT_COMMITTED
    if graph.with_name(graph.name + ".wal.checkpoint").exists():
        return PENDING_AT_OPEN
    return CHECKPOINT_FAILED


def cut_wal(graph: Path, size: int) -> None:
    """Cut the closed engine's write-ahead log back to ``size`` bytes (0: remove it), dropping
    what a transaction that was not committed appended."""
    wal = wal_path(graph)
    if not wal.exists() or wal.stat().st_size <= size:
        return
    if size == 0:
        wal.unlink()
        return
    os.truncate(wal, size)
    with wal.open("rb") as fh:
        os.fsync(fh.fileno())


def open_dropping_torn_write(graph: Path, committed: int | None) -> ladybug.Database:
    """Open the engine read-write; when it refuses a damaged write-ahead log that is longer
    than it was when the last write finished (``committed``, from the checksum record), cut
    off what came after (a write that never returned: a full disk tears the engine's record
    and LadybugDB 0.22 then aborts the process) and open again. The whole log is kept aside
    as ``graph.lbug.wal.torn-<time>``; if the engine still refuses, it is put back and the
    error raised: nothing changed."""
    try:
        return open_engine(graph, read_only=False)
    except CorruptDatabaseError:
        wal = wal_path(graph)
        if committed is None or not wal.exists() or wal.stat().st_size <= committed:
            raise
        kept = wal.with_name(f"{wal.name}.torn-{time.strftime('%Y%m%dT%H%M%S')}")
        os.replace(wal, kept)
        shutil.copyfile(kept, wal)
        cut_wal(graph, committed)
        try:
            db = open_engine(graph, read_only=False)
        except CorruptDatabaseError:
            os.replace(kept, wal)
            raise
    log.warning("%s: the write-ahead log ended in a write that never finished (%d bytes past "
                "the last commit); they were cut off, the whole log is kept as %s",
                graph.parent, kept.stat().st_size - committed, kept.name)
    return db
