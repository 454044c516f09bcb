"""``vgdb export DIR`` / ``vgdb import DIR``: the whole graph as one Parquet file per table,
to move it between machines, engine versions or tools (docs/operate.md describes the format).

Unlike a backup (a byte copy of the engine's files, :mod:`graphdb.backup`), an export does
not depend on the engine's file format: plain Parquet that polars, pyarrow, DuckDB or Spark
read, in the conventions of the ingest shards (docs/shards.md): a directory, one zstd Parquet
file per table, every table's Arrow schema carrying ``vgdb.export.format_version``, and a
manifest written last (temporary name, then rename) with each file's row count and SHA-256,
so a directory without a valid ``export.json`` is an unfinished export.

- ``nodes/<Table>.parquet``: one row per node, the table's columns
  (:func:`schema.frame_schema`), ``id`` first.
- ``rels/<REL>.parquet``: one row per edge: ``from``, ``to`` (node ids), ``from_table``,
  ``to_table`` (a rel table may join several pairs of node tables), then its properties.

The derived indexes are not exported: an import syncs the keyword index from the graph and,
when the exported database had vectors, embeds the texts again (the shipped static model is
deterministic, ~30,000 texts/s). An import goes into an empty database, in one transaction,
and checks the graph's content digest against the one the export recorded.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow.parquet as pq

from graphdb.store import Store
from schema import (
    META,
    NODE_TABLES,
    REL_TABLES,
    SCHEMA_VERSION,
    CorruptDatabaseError,
    SchemaVersionError,
    StoreError,
    frame_schema,
)

__all__ = ["EXPORT_FORMAT_VERSION", "EXPORT_MANIFEST", "ExportInfo", "export_graph",
           "import_graph"]

EXPORT_MANIFEST = "export.json"
_FORMAT = "vgdb-export"
#: bumped when a reader of the old version would misread an export (see docs/operate.md)
EXPORT_FORMAT_VERSION = 1
_META_KEY = b"vgdb.export.format_version"
_TABLES = {t.name: t for t in (*NODE_TABLES, *REL_TABLES)}


@dataclass(frozen=True)
class ExportInfo:
    """An export as its manifest records it (``counts`` and ``checksums`` per file)."""

    path: str
    created_at: str
    schema_version: int
    digest: str
    counts: dict[str, int]
    checksums: dict[str, str]
    embedded: bool
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def export_graph(store: Store, out: str | os.PathLike[str]) -> ExportInfo:
    """Write every table of ``store`` to the new directory ``out`` (must not exist or be
    empty). The caller keeps writers out while it runs (a read-only store does)."""
    from graphdb.health import content_digest
    from graphdb.vectors import vector_status

    started = time.perf_counter()
    target = Path(out).expanduser().absolute()
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise StoreError(f"{target} exists and is not an empty directory",
                         suggestion="export into a new directory")
    (target / "nodes").mkdir(parents=True, exist_ok=True)
    (target / "rels").mkdir(exist_ok=True)
    counts: dict[str, int] = {}
    checksums: dict[str, str] = {}
    for table in NODE_TABLES:
        frame = store.cypher(f"MATCH (n:{table.name}) RETURN n.* ORDER BY n.id")
        frame = frame.rename({c: c.removeprefix("n.") for c in frame.columns})
        _write(target, f"nodes/{table.name}.parquet", _typed(frame, table), counts, checksums)
    for rel in REL_TABLES:
        frame = store.cypher(
            f"MATCH (a)-[r:{rel.name}]->(b) RETURN a.id AS `from`, b.id AS `to`, "
            "label(a) AS from_table, label(b) AS to_table, r.* ORDER BY `from`, `to`")
        frame = frame.rename({c: c.removeprefix("r.") for c in frame.columns})
        props = _typed(frame.drop("from_table", "to_table"), rel)
        frame = props.with_columns(frame["from_table"].cast(pl.Utf8),
                                   frame["to_table"].cast(pl.Utf8)).select(
            "from", "to", "from_table", "to_table",
            *(c for c in props.columns if c not in ("from", "to")))
        _write(target, f"rels/{rel.name}.parquet", frame, counts, checksums)
    _, digest = content_digest(store)
    info = ExportInfo(path=str(target),
                      created_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                      schema_version=SCHEMA_VERSION, digest=digest, counts=counts,
                      checksums=checksums, embedded=bool(vector_status(store).get("tables")),
                      seconds=round(time.perf_counter() - started, 3))
    data = {"format": _FORMAT, "format_version": EXPORT_FORMAT_VERSION, **info.to_dict()}
    tmp = target / f".{EXPORT_MANIFEST}.tmp"
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, target / EXPORT_MANIFEST)
    return info


def _typed(frame: pl.DataFrame, table: Any) -> pl.DataFrame:
    """The frame in the table's declared columns and types (empty tables included)."""
    schema = frame_schema(table)
    return frame.select([(pl.col(n) if n in frame.columns else pl.lit(None)).cast(t).alias(n)
                         for n, t in schema.items()]) if frame.height else pl.DataFrame(
        schema=schema)


def _write(target: Path, rel: str, frame: pl.DataFrame, counts: dict[str, int],
           checksums: dict[str, str]) -> None:
    table = frame.to_arrow()
    table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                           _META_KEY: str(EXPORT_FORMAT_VERSION).encode()})
    pq.write_table(table, target / rel, compression="zstd")
    counts[rel] = frame.height
    checksums[rel] = _sha256(target / rel)


def _sha256(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def read_export(path: str | os.PathLike[str]) -> ExportInfo:
    """The manifest of the export at ``path``, every file checked against it."""
    source = Path(path).expanduser().absolute()
    try:
        data = json.loads((source / EXPORT_MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise CorruptDatabaseError(f"{source} holds no {EXPORT_MANIFEST}: not an export, or "
                                   "an unfinished one") from exc
    except (OSError, ValueError) as exc:
        raise CorruptDatabaseError(f"unreadable {source / EXPORT_MANIFEST}: {exc}") from exc
    if data.get("format") != _FORMAT or data.get("format_version") != EXPORT_FORMAT_VERSION:
        raise CorruptDatabaseError(
            f"{source} is not a vgdb export of format version {EXPORT_FORMAT_VERSION} "
            f"(found {data.get('format')} {data.get('format_version')})")
    if data["schema_version"] != SCHEMA_VERSION:
        raise SchemaVersionError(
            f"the export has schema version {data['schema_version']}; this vgdb imports "
            f"{SCHEMA_VERSION}", found=data["schema_version"], expected=SCHEMA_VERSION,
            suggestion="import it with the vgdb that exported it, then upgrade that "
                       "database (any write migrates it) and export again")
    for rel, checksum in data["checksums"].items():
        file = source / rel
        if not file.is_file() or _sha256(file) != checksum:
            raise CorruptDatabaseError(f"the export's {rel} is missing or does not match "
                                       f"{EXPORT_MANIFEST}", suggestion="export again")
    fields = ExportInfo.__dataclass_fields__
    return ExportInfo(**{k: v for k, v in data.items() if k in fields})


def import_graph(store: Store, source: str | os.PathLike[str], *,
                 embed: bool | None = None) -> ExportInfo:
    """Load the export at ``source`` into ``store``, which must hold nothing yet; then sync
    the keyword index and (``embed``; default: when the export had vectors) embed.

    Raises :class:`~schema.CorruptDatabaseError` on a damaged export or a graph whose digest
    differs from the recorded one (the import is then committed: start again in a new
    directory), :class:`~schema.StoreError` when ``store`` is not empty.
    """
    from graphdb.findable import make_searchable
    from graphdb.health import content_digest

    started = time.perf_counter()
    info = read_export(source)
    base = Path(source).expanduser().absolute()
    held = [t.name for t in NODE_TABLES if t is not META and
            store.cypher(f"MATCH (n:{t.name}) RETURN count(*)").item()]
    if held:
        raise StoreError(f"{store.path} is not empty (it holds {', '.join(held)})",
                         suggestion="import into a new --db directory")
    with store.write() as tx:
        tx.execute(f"MATCH (m:{META.name}) DELETE m")  # the export carries its own
        for table in NODE_TABLES:
            tx.copy_nodes(table, pl.read_parquet(base / f"nodes/{table.name}.parquet"))
        for rel in REL_TABLES:
            frame = pl.read_parquet(base / f"rels/{rel.name}.parquet")
            if frame.is_empty():
                continue
            for (src, dst), group in frame.group_by(["from_table", "to_table"],
                                                    maintain_order=True):
                tx.copy_rels(rel, group.drop("from_table", "to_table"),
                             src=_TABLES[src], dst=_TABLES[dst])
    store.touch_manifest()
    make_searchable(store, embed=info.embedded if embed is None else embed)
    _, digest = content_digest(store)
    if digest != info.digest:
        raise CorruptDatabaseError(
            f"the imported graph's content digest {digest} differs from the export's "
            f"{info.digest}", suggestion="report it: the export does not round-trip")
    return ExportInfo(path=str(store.path), created_at=info.created_at,
                      schema_version=info.schema_version, digest=digest, counts=info.counts,
                      checksums=info.checksums, embedded=info.embedded,
                      seconds=round(time.perf_counter() - started, 3))
