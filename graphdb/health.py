"""``vgdb check`` and ``vgdb repair``: verify a database directory, and bring it back.

:func:`check_database` writes nothing of its own (opening may complete a checkpoint a crash
interrupted, see ``Store.open``). It verifies the graph file against its checksum
(:mod:`graphdb.integrity`), opens the graph read-only (the engine replays and checksums the
WAL in memory), reads every row of every table (a damaged page fails here rather than in a
later query) and folds them into a content digest, and compares the derived vector indexes
with the graph. :func:`repair_database` replays and checkpoints the WAL, records the graph
file's checksum, and rebuilds derived data; on request it first moves a damaged WAL aside
(``discard_wal``: the graph is then as of its last checkpoint) or accepts a graph file that
no longer matches its record (``accept_graph``: e.g. restored from a backup). It deletes
nothing: what it moves aside keeps its bytes.
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from graphdb.compact import BASELINE_KEY
from graphdb.integrity import GraphChecksum, file_digest
from graphdb.lock import DirectoryLock
from graphdb.store import LEGACY_GRAPH_FILE, Store
from schema import (
    META,
    NODE_TABLES,
    REL_TABLES,
    StoreLockedError,
    StoreNotFoundError,
    VgdbError,
)

__all__ = ["CheckReport", "Finding", "RepairReport", "check_database", "content_digest",
           "repair_database", "table_digests"]

_GRAPH = "graph.lbug"


@dataclass(frozen=True, slots=True)
class Finding:
    """One verified property of the database: ``ok`` or not, and what was found."""

    check: str
    ok: bool
    detail: str
    #: about state derived from the graph (indexes), which a write or `vgdb repair` rebuilds
    derived: bool = False


@dataclass(frozen=True)
class CheckReport:
    """What :func:`check_database` found. ``rows``: rows per table; ``digest``: a digest of
    every row's content, timestamps excluded (two ingests of the same input agree on it)."""

    path: str
    findings: tuple[Finding, ...]
    rows: dict[str, int] = field(default_factory=dict)
    digest: str = ""

    @property
    def ok(self) -> bool:
        return all(f.ok for f in self.findings)

    @property
    def graph_ok(self) -> bool:
        """The graph itself is sound (derived indexes may still need a rebuild)."""
        return all(f.ok for f in self.findings if not f.derived)

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "ok": self.ok, "graph_ok": self.graph_ok,
                "findings": [asdict(f) for f in self.findings], "rows": self.rows,
                "digest": self.digest}


@dataclass(frozen=True)
class RepairReport:
    """What :func:`repair_database` did, and the check that followed."""

    actions: tuple[str, ...]
    check: CheckReport

    def to_dict(self) -> dict[str, Any]:
        return {"actions": list(self.actions), "check": self.check.to_dict()}


def table_digests(store: Store) -> dict[str, tuple[int, str]]:
    """Per table: its rows and a digest of every row, read in a fixed order. Left out,
    because they say when or how often something ran rather than what is stored: timestamp
    columns, files' cached mtimes, and the ``Meta`` rows that count writes or stamp a run
    (graph versions, the compaction baseline, "linked at" markers)."""
    out: dict[str, tuple[int, str]] = {}
    for table in NODE_TABLES:
        where = f" WHERE NOT ({_RUN_META})" if table is META else ""
        frame = store.cypher(f"MATCH (n:{table.name}){where} RETURN n.* ORDER BY n.id")
        if table is META:  # summaries kept as JSON text stamp their run's time
            frame = frame.with_columns(pl.col("n.value").str.replace_all(_ISO_TIME, "<time>"))
        out[table.name] = _digest(frame)
    for rel in REL_TABLES:
        frame = store.cypher(f"MATCH (a)-[r:{rel.name}]->(b) RETURN a.id AS `from`, "
                             "b.id AS `to`, r.*")
        flat = [c for c, t in frame.schema.items() if not t.is_nested()]
        out[rel.name] = _digest(frame.sort(flat, nulls_last=True))
    return out


def content_digest(store: Store) -> tuple[dict[str, int], str]:
    """Rows per table, and one digest over :func:`table_digests`."""
    tables = table_digests(store)
    h = hashlib.blake2b(digest_size=16)
    for name, (_, digest) in tables.items():
        h.update(f"{name}={digest};".encode())
    return {name: n for name, (n, _) in tables.items()}, h.hexdigest()


#: Meta rows about runs, not content (see table_digests), and times inside Meta's texts
_RUN_META = (f"n.id STARTS WITH 'graph_version' OR n.id = '{BASELINE_KEY}' "
             "OR n.value =~ '[0-9]{4}-[0-9]{2}-[0-9]{2}T.*'")
_ISO_TIME = r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+(Z|[+-][0-9:]+)?"
#: columns that cache a file's stat, not what the graph says
_STAT_CACHES = ("mtime_ns",)


def _digest(frame: pl.DataFrame) -> tuple[int, str]:
    kept = frame.select([c for c, t in frame.schema.items()
                         if not isinstance(t, pl.Datetime | pl.Date)
                         and c.rsplit(".", 1)[-1] not in _STAT_CACHES])
    h = hashlib.blake2b(kept.write_ndjson().encode("utf-8"), digest_size=16)
    return frame.height, h.hexdigest()


def check_database(path: str | os.PathLike[str]) -> CheckReport:
    """Verify the database directory at ``path`` without changing it (see the module
    docstring). Problems are findings, not exceptions."""
    directory = Path(path).expanduser().absolute()
    findings: list[Finding] = []
    if not (directory / _GRAPH).exists() and (directory / LEGACY_GRAPH_FILE).exists():
        findings.append(Finding("engine", False, "written by vgdb 0.1 (Kuzu 0.11.3): run "
                                                 "`vgdb migrate` once"))
        return CheckReport(str(directory), tuple(findings))
    checksum = GraphChecksum(directory / _GRAPH)
    try:
        verdict = checksum.verify(full=True)
    except VgdbError as exc:
        findings.append(Finding("graph checksum", False, exc.message))
        return CheckReport(str(directory), tuple(findings))
    findings.append(Finding("graph checksum", True, {
        "ok": "the graph file matches the checksum of the last write",
        "new": "no checksum recorded yet (any write command records one)",
        "pending": "a write was interrupted: not verifiable until any write command "
                   "records the file again"}[verdict.state]))
    try:
        store = Store.open(directory, read_only=True)
    except StoreLockedError:
        raise  # not damage: another process has it (the caller says which)
    except StoreNotFoundError as exc:
        if not (directory / _GRAPH).exists():
            raise
        findings.append(Finding("open", True, exc.message))  # nothing was ever committed
        return CheckReport(str(directory), tuple(findings))
    except VgdbError as exc:
        findings.append(Finding("open", False, exc.message))
        return CheckReport(str(directory), tuple(findings))
    with store:
        wal = store.wal_bytes()
        findings.append(Finding("open", True, f"opened; write-ahead log {wal} bytes "
                                              "(checksummed by the engine)"))
        try:
            rows, digest = content_digest(store)
        except VgdbError as exc:
            findings.append(Finding("read every row", False, exc.message))
            return CheckReport(str(directory), tuple(findings))
        findings.append(Finding("read every row", True,
                                f"{sum(rows.values())} nodes and rels read"))
        findings.extend(_derived(store))
    return CheckReport(str(directory), tuple(findings), rows, digest)


def _derived(store: Store) -> list[Finding]:
    """Derived state agrees with the graph it derives from."""
    from graphdb.keyword import differences
    from graphdb.vectors import vector_status

    found = [Finding(f"keyword {table}", state == "ok",
                     "index matches the graph" if state == "ok" else
                     f"index {state}: `vgdb repair` (or any write) brings it to the graph",
                     derived=True)
             for table, state in differences(store).items()]
    tables = vector_status(store).get("tables", {})
    if not tables:
        return [*found, Finding("vectors", True, "nothing embedded", derived=True)]
    for name, info in sorted(tables.items()):
        gen = info.get("generation")
        indexed = info.get("index") is not None  # small tables keep none: searched exactly
        files = [store.path / "vectors" / f"{name}.{gen}.{ext}"
                 for ext in ("npy", "rows.parquet", "hnsw")[:3 if indexed else 2]]
        missing = [f.name for f in files if not f.exists()]
        if missing:
            found.append(Finding(f"vectors {name}", False, f"missing {', '.join(missing)}: "
                                 "`vgdb repair` rebuilds them", derived=True))
        elif not indexed:
            found.append(Finding(f"vectors {name}", True,
                                 f"{info.get('live', 0)} live vectors, searched exactly "
                                 "(no index)", derived=True))
        elif file_digest(files[2]) != info["index"].get("blake2b"):
            found.append(Finding(f"vectors {name}", False, "index file does not match its "
                                 "record: `vgdb repair` rebuilds it from the stored vectors",
                                 derived=True))
        else:
            found.append(Finding(f"vectors {name}", True,
                                 f"{info.get('live', 0)} live vectors, index verified",
                                 derived=True))
    return found


def repair_database(path: str | os.PathLike[str], *, discard_wal: bool = False,
                    accept_graph: bool = False) -> RepairReport:
    """Bring the database at ``path`` back to a verified state (see the module docstring)."""
    directory = Path(path).expanduser().absolute()
    actions: list[str] = []
    if discard_wal or accept_graph:
        lock = DirectoryLock(directory, exclusive=True)
        lock.acquire()
        try:
            wal = directory / f"{_GRAPH}.wal"
            if discard_wal and wal.exists():
                stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
                aside = wal.with_name(f"{wal.name}.damaged-{stamp}")
                os.replace(wal, aside)
                actions.append(f"moved the write-ahead log aside to {aside.name}; the graph "
                               "is as of its last checkpoint: run again what was written after")
            if accept_graph:
                GraphChecksum(directory / _GRAPH).accept()
                actions.append("recorded the graph file as it is now")
        finally:
            lock.release()
    with Store.open(directory) as store:  # replays the WAL, checkpoints, records the checksum
        store.checkpoint()
        actions.append("replayed and checkpointed the write-ahead log")
        actions.extend(_rebuild_derived(store))
    return RepairReport(tuple(actions), check_database(directory))


def _rebuild_derived(store: Store) -> list[str]:
    from graphdb.findable import make_searchable
    from graphdb.vectors import vector_status

    done = make_searchable(store, embed=bool(vector_status(store).get("tables")))
    actions = [f"keyword {t}: {c['added']} added, {c['updated']} updated, {c['deleted']} "
               f"deleted" for t, c in done["keyword"].items()]
    actions += [f"vectors {t['table']}: {t['embedded']} embedded, index {t['index']}"
                for t in done.get("embed", {}).get("tables", [])]
    return actions
