"""The graph file's checksum record (graphdb/integrity.py): written with XXH3-128 (format 2);
a record of format 1 (BLAKE2b-128, written by earlier versions) is still checked, and the
next write records the file in format 2."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import polars as pl
import pytest
import xxhash

from graphdb import Store
from schema import FILE, CorruptDatabaseError


def _files(*ids: str) -> pl.DataFrame:
    return pl.DataFrame({"id": list(ids), "path": [i.split("/", 1)[1] for i in ids],
                         "repo": ["r"] * len(ids)})


def _written(db: Path, *ids: str) -> None:
    with Store.open(db) as store, store.write() as tx:
        tx.copy_nodes(FILE, _files(*ids))


def _record(db: Path) -> dict:
    return json.loads((db / "graph.sum").read_text())


def test_a_write_records_the_xxh3_digest_of_the_graph_file(tmp_path: Path) -> None:
    db = tmp_path / "db"
    _written(db, "file:r/a.py")
    record = _record(db)
    graph = db / "graph.lbug"
    assert record["format"] == 2
    assert record["digest"] == xxhash.xxh3_128(graph.read_bytes()).hexdigest()
    assert record["size"] == graph.stat().st_size


def _as_format_1(db: Path) -> None:
    """Rewrite the record as vgdb wrote it before format 2: BLAKE2b-128 of the file."""
    record = _record(db)
    record["format"] = 1
    record["digest"] = hashlib.blake2b((db / "graph.lbug").read_bytes(),
                                       digest_size=16).hexdigest()
    (db / "graph.sum").write_text(json.dumps(record) + "\n")


def test_a_format_1_record_is_checked_then_upgraded_by_the_next_write(tmp_path: Path) -> None:
    db = tmp_path / "db"
    _written(db, "file:r/a.py")
    _as_format_1(db)
    os.utime(db / "graph.lbug")  # another mtime: the open hashes the file (BLAKE2b) to check
    with Store.open(db, read_only=True) as store:
        assert store.cypher("MATCH (f:File) RETURN f.id AS id")["id"].to_list() == \
            ["file:r/a.py"]
    _written(db, "file:r/b.py")
    record = _record(db)
    assert record["format"] == 2
    assert record["digest"] == xxhash.xxh3_128((db / "graph.lbug").read_bytes()).hexdigest()


@pytest.mark.parametrize("record_format", [1, 2])
def test_a_flipped_byte_is_found_whatever_the_record_format(tmp_path: Path,
                                                           record_format: int) -> None:
    db = tmp_path / "db"
    _written(db, "file:r/a.py", "file:r/b.py")
    if record_format == 1:
        _as_format_1(db)
    graph = db / "graph.lbug"
    data = bytearray(graph.read_bytes())
    data[len(data) // 2] ^= 0xFF
    graph.write_bytes(bytes(data))
    with pytest.raises(CorruptDatabaseError, match="does not match the checksum"):
        Store.open(db, read_only=True)
    assert _record(db)["format"] == record_format  # nothing was changed
