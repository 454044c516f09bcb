"""The engine boundary: opening a LadybugDB file with its errors translated, finishing a
checkpoint a crash interrupted, and the disk-space checks every write path shares.

Only this module and :mod:`graphdb.store` call ``ladybug.Database``; :mod:`graphdb.store`
holds the directory (lock, manifest, checksum) and the transactions.
"""

from __future__ import annotations

import errno
import os
import shutil
from contextlib import suppress
from pathlib import Path

import ladybug

from graphdb.integrity import GraphChecksum
from graphdb.lock import DirectoryLock
from schema import CorruptDatabaseError, DiskFullError, StoreError, StoreLockedError

__all__ = ["RecoveryPendingError", "buffer_pool_bytes", "check_not_emptied", "ensure_space",
           "is_disk_full", "max_db_bytes", "open_engine", "recover"]

_MANIFEST = "manifest.json"


def buffer_pool_bytes() -> int:
    """Kuzu reserves 80% of RAM by default; a fixed pool keeps peak RSS predictable."""
    return int(os.environ.get("VGDB_BUFFER_POOL_MB", "1024")) * 1024 * 1024


#: the engine's own default: it reserves this much address space per open database
_ENGINE_MAX_DB = 8 << 40
#: the least a database may grow to when its disk is small (a 3 MiB tmpfs may be grown)
_MIN_MAX_DB = 64 << 30


def max_db_bytes(graph: Path) -> int:
    """The most the graph file may grow to, as the engine wants it: a power of two.

    LadybugDB reserves ``max_db_size`` of address space for every open database (8 TiB by
    default), so a process could hold only 15 of them in its 128 TiB (measured: the 16th
    open failed "Mmap for size 8796093022208 failed"), and a partition router opens many.
    A file never outgrows the file system it lives on, so twice that file system's size
    (at least 64 GiB, at most the engine's 8 TiB) loses nothing. ``VGDB_MAX_DB_GB``
    overrides it (rounded up to a power of two)."""
    wanted = int(os.environ.get("VGDB_MAX_DB_GB", "0")) << 30
    if not wanted:
        existing = graph if graph.exists() else graph.parent
        wanted = 2 * shutil.disk_usage(existing).total
        with suppress(FileNotFoundError):
            wanted = max(wanted, 2 * graph.stat().st_size)
        wanted = min(max(wanted, _MIN_MAX_DB), _ENGINE_MAX_DB)
    return 1 << (wanted - 1).bit_length()


class RecoveryPendingError(StoreError):
    """A read-only open found an interrupted checkpoint to finish."""


def recover(directory: Path, graph: Path) -> None:
    """Finish an interrupted checkpoint with a brief read-write open (under the exclusive
    lock, so never while another process has the database; then the caller is told)."""
    lock = DirectoryLock(directory, exclusive=True)
    try:
        lock.acquire()
    except StoreLockedError as exc:
        raise StoreError(
            f"{directory} needs a recovery a read-only open cannot do (a checkpoint was "
            "interrupted), and another process has it open",
            suggestion="run any write command (e.g. `vgdb repair`) once it is free; nothing "
                       "is lost") from exc
    checksum = GraphChecksum(graph)
    try:
        checksum.verify()
        checksum.begin()
        open_engine(graph, read_only=False).close()
        checksum.finish()
    finally:
        lock.release()


def open_engine(graph: Path, *, read_only: bool) -> ladybug.Database:
    try:
        # automatic checkpoints stay on: see graphdb.store's module docstring
        return ladybug.Database(str(graph), read_only=read_only, auto_checkpoint=True,
                                buffer_pool_size=buffer_pool_bytes(),
                                max_db_size=max_db_bytes(graph),
                                throw_on_wal_replay_failure=True, enable_checksums=True)
    except RuntimeError as exc:
        text = str(exc)
        if is_disk_full(exc):
            raise DiskFullError(str(graph.parent), detail=text, committed=True) from exc
        if read_only and "recovery is pending" in text:
            raise RecoveryPendingError(text) from exc
        if "lock" in text.lower():
            raise StoreError(f"the database engine could not lock {graph}: {text}",
                             suggestion="another program has the database open") from exc
        if ".wal" in text or "WAL" in text:
            raise CorruptDatabaseError(
                f"the write-ahead log of {graph.parent} is damaged and cannot be replayed: "
                f"{text}",
                suggestion="nothing was changed. `vgdb repair --discard-wal` moves the damaged "
                           "log aside (kept) and opens the graph as of its last checkpoint; "
                           "writes committed after that checkpoint are lost and must be run "
                           "again") from exc
        raise CorruptDatabaseError(
            f"cannot open the database at {graph.parent}: {text}",
            suggestion="nothing was changed; run `vgdb check` for details") from exc


def check_not_emptied(directory: Path, graph: Path) -> None:
    """A graph file cut to nothing beside a manifest is damage, not a new database: the
    engine would open it as an empty graph and a write would build on it."""
    if (directory / _MANIFEST).exists() and graph.stat().st_size == 0 \
            and not graph.with_name(graph.name + ".wal").exists():
        raise CorruptDatabaseError(
            f"the graph file {graph} is empty, but {directory} held a database",
            suggestion="restore graph.lbug from a backup; nothing was changed")


def is_disk_full(exc: BaseException) -> bool:
    """ENOSPC anywhere in the exception's chain (the engine reports it as text)."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError) and seen.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        text = str(seen).lower()
        if "no space left" in text or "disk full" in text or "not enough space" in text:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def ensure_space(path: Path, needed: int) -> None:
    """Refuse a bulk load the disk cannot hold before it starts."""
    free = shutil.disk_usage(path).free
    if free < needed:
        raise DiskFullError(str(path), detail=f"{free >> 20} MiB free, about {needed >> 20} MiB "
                            "needed")
