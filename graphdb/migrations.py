"""Schema migrations: ``MIGRATIONS[n]`` upgrades a database from schema version n to n + 1.

A database older than the oldest migration, or newer than this code, is refused with a clear
:class:`~schema.SchemaVersionError` instead of being read with the wrong schema.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from schema import SchemaVersionError

if TYPE_CHECKING:
    from graphdb.store import Transaction

__all__ = ["MIGRATIONS", "migrate"]

#: version -> function that upgrades the open transaction's database to version + 1.
MIGRATIONS: dict[int, Callable[[Transaction], None]] = {}


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
