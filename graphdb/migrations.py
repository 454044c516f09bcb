"""Schema migrations: ``MIGRATIONS[n]`` upgrades a database from schema version n to n + 1.

A database older than the oldest migration, or newer than this code, is refused with a clear
:class:`~schema.SchemaVersionError` instead of being read with the wrong schema.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from schema import (
    COMMIT,
    ENTRY,
    REL_TABLES,
    SESSION,
    NodeTable,
    SchemaVersionError,
)
from schema.ddl import node_ddl, rel_ddl

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


#: version -> function that upgrades the open transaction's database to version + 1.
MIGRATIONS: dict[int, Callable[[Transaction], None]] = {1: _v1_to_v2}


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
