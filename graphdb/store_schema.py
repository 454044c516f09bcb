"""The schema and the manifest of a database directory: created on a first open, checked
(or migrated) on every other; the manifest says what wrote the directory before the engine
opens it. A part of :class:`graphdb.store.Store`, kept apart to keep each module short."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import ladybug

from graphdb.migrations import migrate
from graphdb.transaction import run
from schema import (
    META,
    SCHEMA_VERSION,
    CorruptDatabaseError,
    QueryError,
    SchemaVersionError,
    StoreNotFoundError,
    ddl_statements,
)

__all__ = ["MANIFEST", "SchemaKeeper", "check_manifest"]

MANIFEST = "manifest.json"
_FORMAT = "vectorgraphdb"


class SchemaKeeper:
    """Schema creation, migration and the manifest of :class:`graphdb.store.Store`."""

    path: Path
    read_only: bool
    _local: Any
    _conn: ladybug.Connection
    # and the store's own ``meta`` lookup and ``write`` transactions

    def _create_schema(self) -> None:
        """Every table, in one transaction. The statements go to the engine as one script
        and their results are never turned into frames: each "Table ... has been created."
        made into a polars frame cost ~0.5 ms, 39 of them on every new database."""
        with self.write() as tx:
            script = ";\n".join(ddl_statements())
            try:
                self._conn.execute(script)  # the transaction's own connection
            except RuntimeError as exc:
                raise QueryError(str(exc), query=script) from exc
            tx.execute(f"CREATE (:{META.name} {{id: 'schema_version', value: $v}})",
                       {"v": str(SCHEMA_VERSION)})
        self._write_manifest()

    def _check_schema(self) -> None:
        """Create, migrate or refuse the schema. A current database answers one primary-key
        lookup of its recorded version (~1 ms); the catalog is listed (``show_tables``, ~6 ms
        on the standard library's graph) only when that lookup finds no version."""
        try:
            if self.meta("schema_version") == str(SCHEMA_VERSION):
                return
        except QueryError:
            # no META table: an empty or a foreign database, told apart below. LadybugDB
            # 0.22 remembers a statement that failed to bind on its connection and fails it
            # again after the table exists, so the rest runs on a new connection.
            self._local.conn = None
        tables = run(self._conn, "CALL show_tables() RETURN name")
        if tables.is_empty() and not self.read_only:
            self._create_schema()  # a first ingest died while creating the schema
            return
        if tables.is_empty():
            raise StoreNotFoundError(
                f"{self.path} holds no graph yet: the command that created it was stopped "
                "before its first commit", path=str(self.path),
                suggestion="any write command (e.g. `vgdb ingest PATH`) creates it")
        if META.name not in set(tables["name"].to_list()):
            raise CorruptDatabaseError(
                f"{self.path} holds a graph database without VectorGraphDB metadata",
                suggestion="point --db at a directory created by vgdb, or an empty one")
        found = self.meta("schema_version")
        if found is None:
            raise CorruptDatabaseError(
                f"{self.path} holds a graph database without VectorGraphDB metadata",
                suggestion="point --db at a directory created by vgdb, or an empty one")
        version = int(found)
        if version != SCHEMA_VERSION:
            if self.read_only:
                raise SchemaVersionError(
                    f"database {self.path} has schema version {version}; this vgdb uses "
                    f"{SCHEMA_VERSION}", found=version, expected=SCHEMA_VERSION,
                    suggestion="open it once read-write (e.g. `vgdb ingest`) to migrate it")
            with self.write() as tx:
                migrate(tx, version, SCHEMA_VERSION, path=str(self.path))
                tx.execute(f"MATCH (m:{META.name} {{id: 'schema_version'}}) SET m.value = $v",
                           {"v": str(SCHEMA_VERSION)})
            self._write_manifest()

    def _write_manifest(self) -> None:
        data = {"format": _FORMAT, "schema_version": SCHEMA_VERSION,
                "engine": "ladybug", "engine_version": ladybug.__version__,
                "updated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        tmp = self.path / f".{MANIFEST}.tmp"
        tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        tmp.replace(self.path / MANIFEST)

    # -- reading ----------------------------------------------------------------------------
    def touch_manifest(self) -> None:
        """Record in the manifest that the database changed (after a committed ingest)."""
        self._write_manifest()


def check_manifest(directory: Path) -> None:
    path = directory / MANIFEST
    if not path.exists():
        return
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CorruptDatabaseError(f"unreadable manifest {path}: {exc}",
                                   suggestion="move the directory away and re-ingest") from exc
    if data.get("format") != _FORMAT:
        raise CorruptDatabaseError(f"{directory} is not a VectorGraphDB database directory")
    version = data.get("schema_version")
    if isinstance(version, int) and version > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"database {directory} has schema version {version}, newer than this vgdb "
            f"({SCHEMA_VERSION})", found=version, expected=SCHEMA_VERSION,
            suggestion="upgrade vectorgraphdb, or use another --db directory")
