"""A checksum over the graph file, so damage to it is detected instead of read as data.

LadybugDB checksums its write-ahead log (a cut or flipped WAL refuses to open), but not the
pages of the graph file: measured, a byte flipped in a data page of ``graph.lbug`` reads back
as a different value, or as nothing, with no error. So the directory keeps ``graph.sum``:
the file's size, mtime and XXH3-128 digest as of the last write this process finished
(records of format 1, BLAKE2b-128, are still read and checked with BLAKE2b; the next write
records the file in format 2).

- Before a write that may change the graph file (a transaction, a checkpoint, a read-write
  open that replays a large WAL and checkpoints it, closing), the record is marked *pending*
  (a small WAL is replayed in memory and left: the open does not write the file, and if it
  ever did, :meth:`GraphChecksum.matches_record` sees it and the file is recorded again);
  after it, the file is hashed again if the engine wrote it (a bulk ``COPY``, a checkpoint,
  closing: small writes go to the WAL only) or its size or mtime changed, and the record is
  written clean.
- Opening compares the file with the record: equal size and mtime is one ``stat``; otherwise
  the file is hashed, and a different digest is :class:`~schema.CorruptDatabaseError`.
- A record left pending (a process killed mid-write) cannot vouch for the file: the next
  read-write open hashes it and records it as it is (what the engine recovers from is then
  checked by its own WAL checksums); ``vgdb check`` reports that it was unverified.

The record also keeps the write-ahead log's size when the write finished: every commit that
returned lies within it, so a log found longer *and* damaged ends in a write that never
returned (a torn record), which :func:`graphdb.wal.open_dropping_torn_write` cuts off. A full
disk while writing the record leaves it pending (warned), never fails a committed write.

Writes of the record are atomic (temporary file, then rename). Why not hash pages as they are
written: the engine does not expose them; a whole-file digest is paid only after writes
that changed the file. Why XXH3 and not BLAKE2b: the check is against damage, not against
an adversary, and the digest after every bulk write grows with the graph: measured on a
2.0 GB graph (10M edges, load 9 on 2 cores) BLAKE2b took 15.9 s, XXH3 2.8 s (reading the
file), the largest part of a batch group's commit at that size (benchmarks/RESULTS.md,
"Groups that grow with the graph").
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

import xxhash

from schema import CorruptDatabaseError, DiskFullError

__all__ = ["SUM_FILE", "GraphChecksum", "Verdict", "file_digest", "graph_digest"]

SUM_FILE = "graph.sum"
#: the record's format: 2 keeps an XXH3-128 digest; 1 (read, never written) BLAKE2b-128
_FORMAT = 2
_FORMATS = (1, 2)
log = logging.getLogger("vgdb.store")


@dataclass(frozen=True, slots=True)
class Verdict:
    """What :meth:`GraphChecksum.verify` found: ``ok`` (stamp or digest matched), ``new`` (no
    record yet), ``pending`` (a write was interrupted: not verifiable)."""

    state: str
    digest: str = ""


def file_digest(path: Path) -> str:
    """BLAKE2b-128 of a file's bytes, as hex."""
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, lambda: hashlib.blake2b(digest_size=16)).hexdigest()


def graph_digest(path: Path, record_format: int = _FORMAT) -> str:
    """The digest of the graph file a record of ``record_format`` keeps, as hex: XXH3-128
    (format 2), BLAKE2b-128 (format 1)."""
    if record_format == 1:
        return file_digest(path)
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, xxhash.xxh3_128).hexdigest()


class GraphChecksum:
    """The checksum record of one graph file (see the module docstring)."""

    def __init__(self, graph: Path) -> None:
        self.graph = graph
        self.path = graph.parent / SUM_FILE
        self._pending = False
        self._record: dict | None = None  # as this process last wrote it

    # -- reading ----------------------------------------------------------------------------
    def _read(self) -> dict | None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            raise CorruptDatabaseError(
                f"unreadable checksum record {self.path}: {exc}",
                suggestion="run `vgdb check`; `vgdb repair --accept-graph` records the graph "
                           "file as it is now") from exc
        return data if isinstance(data, dict) and data.get("format") in _FORMATS else None

    def _stamp(self) -> list[int] | None:
        try:
            st = self.graph.stat()
        except FileNotFoundError:
            return None
        return [st.st_size, st.st_mtime_ns]

    def verify(self, *, full: bool = False) -> Verdict:
        """Check the graph file against the record; raises on a mismatch.

        ``full``: hash even when size and mtime match (``vgdb check``)."""
        record = self._read()
        if record is None:
            return Verdict("new")
        if record.get("pending"):
            return Verdict("pending")
        stamp = self._stamp()
        if stamp is None:
            raise CorruptDatabaseError(
                f"the graph file {self.graph} is missing, but {self.path} records one of "
                f"{record['size']} bytes",
                suggestion="restore graph.lbug from a backup; nothing was changed")
        if not full and stamp == [record["size"], record["mtime_ns"]]:
            return Verdict("ok", record["digest"])
        digest = graph_digest(self.graph, record["format"])
        if digest != record["digest"]:
            raise CorruptDatabaseError(
                f"the graph file {self.graph} does not match the checksum recorded after the "
                f"last write ({stamp[0]} bytes now, {record['size']} recorded): it was damaged "
                "on disk or changed by another program",
                suggestion="restore graph.lbug from a backup, or re-ingest into a new --db; "
                           "`vgdb check` reports details. Nothing was changed")
        return Verdict("ok", digest)

    def committed_wal_bytes(self) -> int | None:
        """The write-ahead log's size when the last write this directory saw finished (every
        commit that returned lies within it; bytes past it belong to a write that did not
        finish), or None when not recorded."""
        record = self._read()
        size = record.get("wal") if record else None
        return size if isinstance(size, int) else None

    def matches_record(self) -> bool:
        """The file's size and mtime are the ones recorded (one ``stat``; no hashing)."""
        record = self._read()
        return (record is not None and not record.get("pending")
                and self._stamp() == [record.get("size"), record.get("mtime_ns")])

    # -- writing ----------------------------------------------------------------------------
    def _write(self, data: dict) -> None:
        tmp = self.path.with_name(f".{SUM_FILE}.tmp")
        tmp.write_text(json.dumps(data) + "\n", encoding="utf-8")
        os.replace(tmp, self.path)
        self._record = data

    def begin(self) -> None:
        """Mark the record pending before something may write the graph file."""
        if self._pending:
            return
        record = self._read() or {"format": _FORMAT, "size": 0, "mtime_ns": 0, "digest": ""}
        record["pending"] = True
        try:
            self._write(record)
        except OSError as exc:
            if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
                raise
            raise DiskFullError(str(self.graph.parent), detail=str(exc),
                                committed=None) from exc
        self._pending = True

    def finish(self, *, wrote: bool = True) -> None:
        """Record the graph file as it is now. ``wrote``: the engine may have written it (a
        bulk load, a checkpoint, closing), so hash it; otherwise (a commit that went to the WAL
        only) hash it only if its size or mtime changed. The mtime alone cannot tell: it
        moves in clock ticks of a few milliseconds, and two writes can share one."""
        if not self._pending:
            return
        record = self._record or self._read() or {}  # begin() wrote it: no second read
        stamp = self._stamp()
        if stamp is None:
            self.path.unlink(missing_ok=True)
        else:
            digest = record.get("digest", "")
            if wrote or not digest or record.get("format") != _FORMAT \
                    or stamp != [record.get("size"), record.get("mtime_ns")]:
                digest = graph_digest(self.graph)
            wal = self.graph.with_name(self.graph.name + ".wal")
            try:
                self._write({"format": _FORMAT, "size": stamp[0], "mtime_ns": stamp[1],
                             "digest": digest,
                             "wal": wal.stat().st_size if wal.exists() else 0})
            except OSError as exc:
                if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
                    raise
                # what was written is written: the record stays pending (begin() wrote it),
                # so the next open records the file as it is then
                log.warning("%s: no space left to record the graph file's checksum; the next "
                            "open records it", self.graph.parent)
        self._pending = False

    def accept(self) -> None:
        """Record the graph file as it is, whatever the old record said (after recovery from
        a pending record, or ``vgdb repair --accept-graph``)."""
        self._pending = True
        self._write({"format": _FORMAT, "size": 0, "mtime_ns": 0, "digest": "",
                     "pending": True})
        self.finish()
