"""Compaction: rewrite the graph file from its rows, as a fresh build lays it out.

LadybugDB never gives pages back to the file system, and a checkpoint rewrites each changed
column chunk and each changed rel table region into new pages (with room for growth): measured
on the standard library's graph, a one-file edit followed by a checkpoint grows a fresh
44 MB ``graph.lbug`` to 59 MB (IMPORTS regions 7x their packed size, 9.5 MB of free pages),
and updates level off around 75 MB (1.7x). ``EXPORT DATABASE`` would be the engine's own
way to rebuild, but LadybugDB 0.22 refuses it for rel tables with several node pairs
(CONTAINS, CALLS, ...), so the rows are copied here: every node table, then every (rel, from,
to) pair, read through the open store and ``COPY``-ed into a new file with the same schema.
The row counts are compared before the new file replaces the old one (``Store.replace_graph``:
one rename, under the store's exclusive lock).

The policy (:func:`compact_if_grown`), after an update that changed code:

- the file grows only at a checkpoint, and a read-write open leaves a WAL of up to
  :data:`graphdb.store.REPLAY_WAL_BYTES` in place (a one-function CLI update no longer
  checkpoints at each run). When the WAL has passed that size, the checkpoint the next open
  would run is done now. Then, if a checkpoint (this one, or one the engine ran at a commit)
  left the file more than :data:`CHECKPOINT_LIMIT` times its baseline (the size right after
  the last fresh build or compaction) and at least :data:`_MIN_SLACK` larger, the file is
  compacted;
- and whatever the file, compact when it with its WAL is more than :data:`GROWTH_LIMIT`
  times its baseline and at least 24 MiB larger.

A graph that grows by content is compacted once more than it needs, and the compacted size is
the new baseline. Measured in ``benchmarks/update.py`` (RESULTS.md): a compacted file regains
20-35% at its next checkpoint (the engine's room for growth), and adding a file whose names
re-resolve many others commits more than a few hundred rows with ``COPY``, which
checkpoints: such an update compacts about every second time (~2 s on the standard library
on a quiet machine), a one-function edit about every ten.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import ladybug
import polars as pl

from graphdb.engine import max_db_bytes
from graphdb.store import REPLAY_WAL_BYTES, Store
from schema import NODE_TABLES, REL_TABLES, StoreError, ddl_statements, frame_schema

__all__ = ["CHECKPOINT_LIMIT", "GROWTH_LIMIT", "CompactReport", "baseline_after_build", "compact",
           "compact_if_grown", "compaction_due", "record_baseline"]

#: compact when the graph file passes this multiple of its baseline size (rows considered)
GROWTH_LIMIT = 1.5
#: ... or when the file itself (checkpointed pages) passes this multiple of its baseline: a
#: compacted file is ~0.88x a fresh build of the same rows (39.1 against 44.3 MB on the
#: standard library), so 1.25x a compacted baseline is ~1.1x a fresh build (issue 26's limit)
CHECKPOINT_LIMIT = 1.25
#: and when at least this much is slack at that checkpoint
_MIN_SLACK = 2 << 20
#: and when at least this much is slack: a small graph (click: ~20 MB of mostly empty
#: tables) regains a larger share at every checkpoint, and a rewrite costs ~1.5 s even then
_MIN_WASTE = 24 << 20
#: a file no larger than this multiple of its baseline has not been checkpointed since
_UNCHECKPOINTED = 1.02
BASELINE_KEY = "compact-baseline"  # Meta key: "<file bytes> <rows>"
_TMP = "graph.lbug.compact"


@dataclass(frozen=True)
class CompactReport:
    """What a compaction did: file sizes before and after, rows copied, seconds."""

    before: int
    after: int
    rows: int
    seconds: float

    def to_dict(self) -> dict:
        return {"before": self.before, "after": self.after, "rows": self.rows,
                "seconds": round(self.seconds, 3)}


def graph_rows(store: Store) -> int:
    """Rows of every node and rel table (the engine keeps these counts: cheap). One
    statement: 39 planned one by one cost ~25 ms of a cold ingest's first baseline."""
    counts = [f"MATCH (n:{t.name}) RETURN count(*) AS n" for t in NODE_TABLES] + \
        [f"MATCH ()-[e:{r.name}]->() RETURN count(*) AS n" for r in REL_TABLES]
    return int(store.cypher(" UNION ALL ".join(counts))["n"].sum())


def record_baseline(store: Store, rows: int | None = None) -> None:
    """Remember the graph file's size and row count now (after a fresh build or a
    compaction): growth is measured against it. An empty write-ahead log has nothing to
    fold in: no checkpoint then (after a new graph's communities, whose commit checkpointed,
    it still cost 0.02-0.05 s: the engine's own, and hashing the graph file again)."""
    if store.wal_bytes():
        store.checkpoint()
    size = (store.path / "graph.lbug").stat().st_size
    rows = graph_rows(store) if rows is None else rows
    with store.write() as tx:
        store.set_meta(tx, BASELINE_KEY, f"{size} {rows}")


def baseline_after_build(store: Store) -> float:
    """Record the baseline of a graph just built, once complete (its communities included),
    unless one is recorded; returns the seconds it took. ``vgdb ingest`` into a new database
    calls it after the communities step instead of checking for compaction before it: taken
    there, the baseline missed what the communities add (click: 13.1 MB recorded, 17.1 MB
    once complete, 1.31x), so the first one-line update found the file past
    :data:`CHECKPOINT_LIMIT` and compacted it (2.4 s) to give back 3%. After the
    communities' commit (which checkpoints) the baseline's own checkpoint has next to
    nothing to fold (~0.09 s before, on click)."""
    started = time.perf_counter()
    if not store.read_only and not store.meta(BASELINE_KEY):
        record_baseline(store)
    return time.perf_counter() - started


def compact_if_grown(store: Store, *, limit: float = GROWTH_LIMIT,
                     idle: bool = False) -> CompactReport | None:
    """Compact when the graph file outgrew its baseline (see the module docstring); record
    a baseline when there is none yet. None when nothing was done (or only a checkpoint).

    A store serving readers is left alone unless ``idle``: ``vgdb serve`` runs this in its
    idle time (:func:`compaction_due`, ``api.serve_idle``) instead of inside the update a
    client waits for."""
    if store.read_only or (store.serving and not idle):
        return None
    recorded = store.meta(BASELINE_KEY)
    if not recorded:
        record_baseline(store)
        return None
    baseline = int(recorded.split()[0])
    if _grown(store, baseline, limit):  # the rewrite reads through the WAL: no checkpoint
        return compact(store)
    if store.wal_bytes() <= REPLAY_WAL_BYTES:  # the next open replays it in memory
        return None
    if (store.path / "graph.lbug").stat().st_size <= baseline * _UNCHECKPOINTED:
        # no checkpoint since the last compaction or fresh build: the first one grows the
        # file 20-50% (measured), past CHECKPOINT_LIMIT, and a compaction would follow;
        # compacting at once folds the WAL in without the checkpoint's cost
        return compact(store)
    store.checkpoint()  # the next open would: fold it in now, then look again
    return compact(store) if _grown(store, baseline, limit) else None


def compaction_due(store: Store, *, limit: float = GROWTH_LIMIT) -> bool:
    """Whether :func:`compact_if_grown` would do anything now: the file outgrew its
    baseline, or the WAL is past the size an open replays (folded in by a compaction when
    the file has not been checkpointed since the last one, else by a checkpoint)."""
    recorded = store.meta(BASELINE_KEY)
    if not recorded:
        return False
    baseline = int(recorded.split()[0])
    return store.wal_bytes() > REPLAY_WAL_BYTES or _grown(store, baseline, limit)


def _grown(store: Store, baseline: int, limit: float) -> bool:
    checkpointed = (store.path / "graph.lbug").stat().st_size  # grows only at checkpoints
    if checkpointed > CHECKPOINT_LIMIT * baseline and checkpointed - baseline >= _MIN_SLACK:
        return True
    size = checkpointed + store.wal_bytes()
    return size > limit * baseline and size - baseline >= _MIN_WASTE


def compact(store: Store) -> CompactReport:
    """Rewrite the graph file from its rows and put it in place (see the module docstring)."""
    started = time.perf_counter()
    graph = store.path / "graph.lbug"
    before = graph.stat().st_size + store.wal_bytes()  # the rewrite reads through the WAL
    target = store.path / _TMP
    _remove(target)
    try:
        copied = _rewrite(store, target)
    except BaseException:
        _remove(target)
        raise
    store.replace_graph(target)
    after = graph.stat().st_size
    with store.write() as tx:
        tx.leaves_code()  # the same rows: a server keeps its in-memory impact adjacency
        store.set_meta(tx, BASELINE_KEY, f"{after} {copied}")
    return CompactReport(before, after, copied, time.perf_counter() - started)


def _remove(target: Path) -> None:
    for path in (target, target.with_name(target.name + ".wal")):
        path.unlink(missing_ok=True)


def _rewrite(store: Store, target: Path) -> int:
    """Every row of ``store`` into a new database file at ``target``; returns the rows."""
    db = ladybug.Database(str(target), max_db_size=max_db_bytes(target))
    conn = ladybug.Connection(db)
    copied = 0
    try:
        for statement in ddl_statements():
            conn.execute(statement)
        for table in NODE_TABLES:
            schema = frame_schema(table)
            frame = store.cypher(f"MATCH (n:{table.name}) RETURN " + ", ".join(
                f"n.{c} AS {c}" for c in schema))
            copied += _copy(conn, table.name, frame, schema, "")
        for rel in REL_TABLES:
            schema = frame_schema(rel)
            props = "".join(f", e.{c} AS {c}" for c in schema if c not in ("from", "to"))
            for src, dst in rel.pairs:
                frame = store.cypher(
                    f"MATCH (a:{src.name})-[e:{rel.name}]->(b:{dst.name}) "
                    f"RETURN a.id AS `from`, b.id AS `to`{props}")
                copied += _copy(conn, rel.name, frame, schema,
                                f" (from='{src.name}', to='{dst.name}')")
        # the counts must match before the file is used
        counts = [f"MATCH (n:{t.name}) RETURN count(*)" for t in NODE_TABLES] + \
            [f"MATCH ()-[e:{r.name}]->() RETURN count(*)" for r in REL_TABLES]
        for query in counts:
            n = conn.execute(query).get_next()[0]
            want = int(store.cypher(query).item())
            if n != want:
                raise StoreError(f"compaction copied {n} of {want} rows ({query})",
                                 suggestion="nothing was changed; report this")
    finally:
        conn.close()
        db.close()
    return copied


def _copy(conn: ladybug.Connection, table: str, frame: pl.DataFrame,
          schema: dict[str, pl.DataType], pairs: str) -> int:
    if frame.is_empty():
        return 0
    frame = frame.select([pl.col(n).cast(t) for n, t in schema.items()])
    conn.execute(f"COPY {table} FROM $frame{pairs}", {"frame": frame})
    return frame.height
