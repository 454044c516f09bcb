"""A write transaction, the commit gate of a served database, and running one query: what
:class:`graphdb.store.Store` hands out and uses (split from it to keep each module short)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import ladybug
import polars as pl

from graphdb.engine import buffer_pool_bytes, ensure_space
from schema import NodeTable, QueryError, RelTable, frame_schema

__all__ = ["CODE_TABLES", "CommitGate", "Transaction", "run"]

#: the tables an impact traversal reads (queries.impact.hops): a write into one of them
#: changes the code graph, whatever its transaction said
CODE_TABLES = frozenset({"Symbol", "File", "CALLS", "INHERITS", "TESTS", "CONTAINS", "IMPORTS"})
#: a bulk load needs about this many times its frame's in-memory size free on the disk
_SPACE_FACTOR = 3
#: Up to this many rows, an insert into a populated table creates them one by one.
_SMALL_INSERT = 250


class Transaction:
    """One write transaction: everything in it lands together or not at all."""

    def __init__(self, conn: ladybug.Connection, path: Path) -> None:
        self._conn = conn
        self._path = path
        #: a bulk COPY writes pages to the graph file before the commit (graphdb.integrity)
        self.wrote_pages = False
        #: repositories whose own graph version this transaction advances (:meth:`touch`)
        self.repos: set[str] = set()
        #: whether this transaction may change the code graph (:meth:`leaves_code`)
        self.code = True

    def touch(self, repo: str) -> None:
        """Say that this transaction changes what is known of ``repo``: its graph version
        (:meth:`Store.graph_version`) advances with the global one when it commits."""
        self.repos.add(repo)

    def leaves_code(self) -> None:
        """Say that this transaction writes only agent memory (entries, sessions, their
        links): the code graph's version (:meth:`Store.code_version`) stays, so a server
        keeps its in-memory impact adjacency. A later insert into one of
        :data:`CODE_TABLES` in the same transaction takes it back. Transactions that do not
        say it advance the code version (the safe default)."""
        self.code = False

    def execute(self, query: str, params: dict[str, Any] | None = None) -> pl.DataFrame:
        return run(self._conn, query, params)

    def _conformed(self, frame: pl.DataFrame, table: NodeTable | RelTable) -> pl.DataFrame:
        """``frame`` in ``table``'s column types; marks the transaction a code write when
        ``table`` is one of :data:`CODE_TABLES`."""
        self.code = self.code or table.name in CODE_TABLES
        return _conform(frame, table)

    def _copy(self, table: NodeTable | RelTable, frame: pl.DataFrame, options: str = "") -> int:
        """``COPY`` of ``frame`` into ``table``, after checking the disk has room for it."""
        ensure_space(self._path, frame.estimated_size() * _SPACE_FACTOR)
        self.wrote_pages = True
        run(self._conn, f"COPY {table.name} FROM $frame{options}", {"frame": frame})
        return frame.height

    def copy_nodes(self, table: NodeTable, frame: pl.DataFrame, *, bulk: bool = True) -> int:
        """Insert ``frame`` (columns of :func:`schema.frame_schema`) into ``table``: with
        ``COPY`` for bulk loads, row by row for a few rows into a populated table (whose
        COPY would cost far more at commit, as for rels)."""
        if frame.is_empty():
            return 0
        frame = self._conformed(frame, table)
        if bulk or frame.height > _SMALL_INSERT:
            return self._copy(table, frame)
        frame = _drop_null_columns(frame, keep=("id",))
        props = ", ".join(f"{c}: r.{c}" for c in frame.columns)
        run(self._conn, f"UNWIND $rows AS r CREATE (:{table.name} {{{props}}})",
             {"rows": frame.to_dicts()})
        return frame.height

    def copy_rels(self, table: RelTable, frame: pl.DataFrame, *, src: NodeTable,
                  dst: NodeTable, bulk: bool = True) -> int:
        """Insert rels ``src -> dst`` (``from``/``to`` columns hold node ids).

        With ``bulk`` (or many rows) they go in with ``COPY``. Otherwise a few rows are
        created one by one: a COPY into a rel table that already holds data makes Kuzu rebuild
        that table's adjacency at commit (measured: 0.5 s for one CALLS row on the standard
        library's graph, against ~2 ms per row created through its endpoints' primary keys).
        """
        if frame.is_empty():
            return 0
        frame = self._conformed(frame, table)
        if bulk or frame.height > _SMALL_INSERT:
            return self._copy(table, frame, f" (from='{src.name}', to='{dst.name}')")
        frame = _drop_null_columns(frame, keep=("from", "to"))
        props = ", ".join(f"{c}: r.{c}" for c in frame.columns if c not in ("from", "to"))
        run(self._conn,
             f"UNWIND $rows AS r MATCH (a:{src.name} {{id: r.`from`}}) "
             f"MATCH (b:{dst.name} {{id: r.`to`}}) CREATE (a)-[:{table.name} {{{props}}}]->(b)",
             {"rows": frame.to_dicts()})
        return frame.height


class CommitGate:
    """Readers share it; a commit takes it alone. Kuzu checkpoints when a transaction that
    bulk-loaded (COPY) commits, and the checkpoint waits for every open read transaction
    (then fails the write after a timeout): under a steady stream of readers an ingest
    could never commit. So, when serving, new reads wait while a commit drains the running
    ones (milliseconds), and the commit goes first (writer preference)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._committing = False
        self._waiting = 0

    @contextmanager
    def read(self) -> Iterator[None]:
        with self._cond:
            self._cond.wait_for(lambda: not self._committing and not self._waiting)
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                self._cond.notify_all()

    @contextmanager
    def commit(self) -> Iterator[None]:
        with self._cond:
            self._waiting += 1
            self._cond.wait_for(lambda: self._readers == 0 and not self._committing)
            self._waiting -= 1
            self._committing = True
        try:
            yield
        finally:
            with self._cond:
                self._committing = False
                self._cond.notify_all()

def _drop_null_columns(frame: pl.DataFrame, *, keep: tuple[str, ...]) -> pl.DataFrame:
    """All-null columns stay unset on CREATE: Kuzu types a list of nulls as STRING."""
    return frame.select([c for c in frame.columns
                         if c in keep or frame[c].null_count() < frame.height])


def _conform(frame: pl.DataFrame, table: NodeTable | RelTable) -> pl.DataFrame:
    """Add missing columns as nulls and order/cast columns as the table declares them."""
    schema = frame_schema(table)
    missing = [pl.lit(None, dtype=t).alias(n) for n, t in schema.items() if n not in frame.columns]
    if missing:
        frame = frame.with_columns(missing)
    return frame.select([pl.col(n).cast(t) for n, t in schema.items()])


_PREPARED_MAX = 256
#: A prepared statement keeps buffer-pool memory while it is cached, in proportion to its
#: plan: long ones (``queries.batch``'s chunks of ``UNION ALL`` probes, ~17K characters) are
#: kept at most this many at a time. 256 cached chunks of impact's hop statements filled a 1
#: GiB pool on a two-package graph (tests/queries/test_impact_adjacency.py).
_PREPARED_LONG = 4_000
_PREPARED_LONG_MAX = 8


def run(conn: ladybug.Connection, query: str, params: dict[str, Any] | None = None, *,
         prepared: dict[str, ladybug.PreparedStatement] | None = None) -> pl.DataFrame:
    """Run one query; with ``prepared`` (a per-connection cache) a parameterised query is
    planned once and executed with new parameters after (Kuzu binds their types anew)."""
    try:
        if prepared is None or not params:
            result = conn.execute(query, params or {})
        else:
            result = conn.execute(_statement(conn, query, params, prepared), params)
    except RuntimeError as exc:
        suggestion = ""
        if "buffer pool is full" in str(exc).lower():
            suggestion = (f"the engine ran out of its buffer pool ({buffer_pool_bytes() >> 20} "
                          "MB); set VGDB_BUFFER_POOL_MB higher (e.g. 4096) and run again")
        raise QueryError(str(exc), query=query, suggestion=suggestion) from exc
    if isinstance(result, list):  # several statements: the last one answers
        result = result[-1]
    return result.get_as_pl()


def _statement(conn: ladybug.Connection, query: str, params: dict[str, Any],
               prepared: dict[str, ladybug.PreparedStatement]) -> ladybug.PreparedStatement:
    statement = prepared.get(query)
    if statement is None:
        # the class, not Connection.prepare: the same call without its deprecation warning
        statement = ladybug.PreparedStatement(conn, query, params)
        if not statement.is_success():
            raise RuntimeError(statement.get_error_message())
        if len(query) > _PREPARED_LONG:
            longs = [q for q in prepared if len(q) > _PREPARED_LONG]
            if len(longs) >= _PREPARED_LONG_MAX:
                for q in longs:
                    del prepared[q]
        elif len(prepared) >= _PREPARED_MAX:
            prepared.clear()
        prepared[query] = statement
    return statement
