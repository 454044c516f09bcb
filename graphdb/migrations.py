"""Schema migrations: ``MIGRATIONS[n]`` upgrades a database from schema version n to n + 1.

A database older than the oldest migration, or newer than this code, is refused with a clear
:class:`~schema.SchemaVersionError` instead of being read with the wrong schema.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import polars as pl

from schema import (
    AUTHOR,
    COMMIT,
    COMMUNITY,
    ENTRY,
    EXECUTES,
    IN_COMMUNITY,
    PAPER,
    REL_TABLES,
    SESSION,
    SUBCOMMUNITY_OF,
    NodeTable,
    RelTable,
    SchemaVersionError,
)
from schema.ddl import ddl_statements, node_ddl, rel_ddl

if TYPE_CHECKING:
    from graphdb.store import Transaction

__all__ = ["MIGRATIONS", "migrate"]


def _recreate_empty(tx: Transaction, nodes: tuple[NodeTable, ...]) -> None:
    """Re-create node tables that hold no rows, with every rel table touching them.

    For tables no released version wrote to: cheaper and surer than ALTER for each column
    and each new FROM/TO pair. Refuses (rather than drops data) if a table has rows.
    """
    for table in nodes:
        count = tx.execute(f"MATCH (n:{table.name}) RETURN count(*) AS n")["n"][0]
        if count:
            raise SchemaVersionError(
                f"cannot migrate: table {table.name} holds {count} rows this version "
                "cannot convert", found="1", expected="2",
                suggestion="re-ingest into a new --db directory")
    rels = [r for r in REL_TABLES if any(a in nodes or b in nodes for a, b in r.pairs)]
    for rel in rels:
        tx.execute(f"DROP TABLE {rel.name}")
    for table in nodes:
        tx.execute(f"DROP TABLE {table.name}")
        tx.execute(node_ddl(table))
    for rel in rels:
        tx.execute(rel_ddl(rel))


def _v1_to_v2(tx: Transaction) -> None:
    """History and session properties (commit totals, failure fields, dedup hash, ...) and
    session -> code ABOUT edges; version 1 never wrote those tables."""
    _recreate_empty(tx, (COMMIT, SESSION, ENTRY))


def _rebuild(tx: Transaction, nodes: tuple[NodeTable, ...]) -> None:
    """Re-create node tables and every rel table touching them, keeping their rows.

    Rows are read out, the tables dropped and re-created with the new DDL, and the rows
    copied back (columns the new schema lacks are dropped, new ones start null): Kuzu's
    ``ALTER TABLE ADD`` appends columns after the common ones, and a column order that
    differs from a fresh database's would break every later ``COPY`` from a frame.
    """
    rels = [r for r in REL_TABLES if any(a in nodes or b in nodes for a, b in r.pairs)]
    kept_nodes = {t.name: _dump(tx, f"MATCH (n:{t.name}) RETURN n.*", "n.") for t in nodes}
    kept_rels = _dump_rels(tx, rels)
    for rel in rels:
        tx.execute(f"DROP TABLE IF EXISTS {rel.name}")
    for table in nodes:
        tx.execute(f"DROP TABLE {table.name}")
        tx.execute(node_ddl(table))
    for rel in rels:
        tx.execute(rel_ddl(rel))
    for table in nodes:
        tx.copy_nodes(table, _known(kept_nodes[table.name], table), bulk=True)
    _restore_rels(tx, rels, kept_rels)


def _dump_rels(tx: Transaction, rels: list[RelTable]
               ) -> dict[tuple[str, str, str], pl.DataFrame]:
    """Every row of ``rels`` (that exist yet), per (rel, from table, to table)."""
    present = set(tx.execute("CALL show_tables() RETURN name")["name"].to_list())
    kept: dict[tuple[str, str, str], pl.DataFrame] = {}
    for rel in (r for r in rels if r.name in present):  # new rel tables hold nothing yet
        for a, b in rel.pairs:
            kept[(rel.name, a.name, b.name)] = _dump(
                tx, f"MATCH (a:{a.name})-[e:{rel.name}]->(b:{b.name}) "
                    "RETURN a.id AS `from`, b.id AS `to`, e.*", "e.")
    return kept


def _restore_rels(tx: Transaction, rels: list[RelTable],
                  kept: dict[tuple[str, str, str], pl.DataFrame]) -> None:
    by_name = {r.name: r for r in rels}
    tables = {t.name: t for rel in rels for pair in rel.pairs for t in pair}
    for (name, a, b), frame in kept.items():
        tx.copy_rels(by_name[name], _known(frame, by_name[name], rel=True), src=tables[a],
                     dst=tables[b], bulk=True)


def _dump(tx: Transaction, query: str, prefix: str) -> pl.DataFrame:
    frame = tx.execute(query)
    return frame.rename({c: c.removeprefix(prefix) for c in frame.columns})


def _known(frame: pl.DataFrame, table: object, *, rel: bool = False) -> pl.DataFrame:
    wanted = {p.name for p in table.columns} | ({"from", "to"} if rel else set())  # type: ignore[attr-defined]
    return frame.select([c for c in frame.columns if c in wanted])


def _drop_communities(tx: Transaction) -> None:
    """Version 2 never stored communities: drop its empty Community table and rels, so that
    the new definitions (repo, scope, stable number, names, figures; DEPENDS_ON) replace
    them."""
    count = tx.execute(f"MATCH (n:{COMMUNITY.name}) RETURN count(*) AS n")["n"][0]
    if count:
        raise SchemaVersionError(
            f"cannot migrate: table {COMMUNITY.name} holds {count} rows", found="2",
            expected="3", suggestion="re-ingest into a new --db directory")
    for rel in (IN_COMMUNITY, SUBCOMMUNITY_OF):
        tx.execute(f"DROP TABLE {rel.name}")
    tx.execute(f"DROP TABLE {COMMUNITY.name}")


def _v2_to_v3(tx: Transaction) -> None:
    """Academic domain: paper provenance (sources, conflicts, authority, status, title key),
    author affiliation, evidence on REFERENCES/BASED_ON/CITES; communities per repository and
    scope, and DEPENDS_ON. Sessions of version 2 may have written Paper stubs and their
    REFERENCES/BASED_ON edges: they are kept (rows are carried over, new columns null)."""
    _rebuild(tx, (PAPER, AUTHOR))
    _drop_communities(tx)
    for statement in ddl_statements():  # tables new in version 3 (IF NOT EXISTS)
        tx.execute(statement)


def _v3_to_v4(tx: Transaction) -> None:
    """Recorded coverage: EXECUTES gains a Symbol -> File pair (lines of a file with no
    module symbol), ``repo``, ``count``, ``phases``, and ``lines`` becomes a ranges string.
    No earlier version wrote EXECUTES; rows found anyway are refused, not dropped."""
    count = tx.execute(f"MATCH ()-[e:{EXECUTES.name}]->() RETURN count(*) AS n")["n"][0]
    if count:
        raise SchemaVersionError(
            f"cannot migrate: {EXECUTES.name} holds {count} rows this version cannot convert",
            found="3", expected="4", suggestion="re-ingest into a new --db directory")
    tx.execute(f"DROP TABLE {EXECUTES.name}")
    tx.execute(rel_ddl(EXECUTES))


def _v4_to_v5(tx: Transaction) -> None:
    """EXECUTES gains ``cases`` (the parametrized cases that executed a target); its rows are
    kept (``cases`` starts null: every case, as version 4 stored them)."""
    kept = _dump_rels(tx, [EXECUTES])
    tx.execute(f"DROP TABLE {EXECUTES.name}")
    tx.execute(rel_ddl(EXECUTES))
    _restore_rels(tx, [EXECUTES], kept)


#: version -> function that upgrades the open transaction's database to version + 1.
MIGRATIONS: dict[int, Callable[[Transaction], None]] = {1: _v1_to_v2, 2: _v2_to_v3,
                                                        3: _v3_to_v4, 4: _v4_to_v5}


def migrate(tx: Transaction, found: int, expected: int, *, path: str) -> None:
    """Apply every migration from ``found`` to ``expected`` inside ``tx``."""
    if found > expected:
        raise SchemaVersionError(
            f"database {path} has schema version {found}, newer than this vgdb ({expected})",
            found=found, expected=expected,
            suggestion="upgrade vectorgraphdb, or use another --db directory")
    for version in range(found, expected):
        step = MIGRATIONS.get(version)
        if step is None:
            raise SchemaVersionError(
                f"database {path} has schema version {found}; no migration from version "
                f"{version} to {version + 1} exists", found=found, expected=expected,
                suggestion="re-ingest into a new --db directory")
        step(tx)
