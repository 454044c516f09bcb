"""A database written by vgdb 0.1 (Kuzu 0.11.3) moves to LadybugDB on its first write open:
every row kept, the old files kept aside, a killed migration finishes on the next open."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from graphdb import Store
from graphdb.engine_migration import BACKUP_DIR
from schema import SchemaVersionError
from tests.helpers import run_vgdb

FIXTURE = Path(__file__).parent / "data" / "vgdb-0.1"

# kuzu 0.11.3 in its own interpreter (never in the same process as ladybug): import the
# export, then build the FTS indexes as vgdb 0.1 did (its IMPORT cannot replay them itself)
_BUILD = """
import pathlib, shutil, sys, kuzu
graph, export = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
copy = graph.parent / "export-copy"
shutil.copytree(export, copy)
fts = [l for l in (copy / "index.cypher").read_text().splitlines() if l.strip()]
(copy / "index.cypher").write_text("")
conn = kuzu.Connection(kuzu.Database(str(graph)))
conn.execute("LOAD EXTENSION fts")
conn.execute(f"IMPORT DATABASE '{copy}'")
for statement in fts:
    conn.execute(statement)
shutil.rmtree(copy)
"""


def _expected_counts() -> dict[str, int]:
    """Rows per table, read from the export's Parquet files (not through either engine)."""
    counts: dict[str, int] = {}
    for part in (FIXTURE / "export").glob("*.parquet"):
        # Symbol.parquet; IN_SESSION_Commit_Session.parquet (rel name, then FROM and TO)
        words = part.stem.split("_")
        rel = [w for w in words if w.isupper()]
        table = "_".join(rel) if rel else part.stem
        counts[table] = counts.get(table, 0) + pl.read_parquet(part).height
    return {t: n for t, n in counts.items() if n}


def _old_database(tmp_path: Path) -> Path:
    db = tmp_path / "db"
    db.mkdir()
    subprocess.run([sys.executable, "-c", _BUILD, str(db / "graph.kz"), str(FIXTURE / "export")],
                   check=True, capture_output=True)
    for name in ("manifest.json", "fts.json"):
        shutil.copy(FIXTURE / name, db / name)
    return db


def _counts(store: Store) -> dict[str, int]:
    counts = {}
    for name, kind in store.cypher("CALL show_tables() RETURN name, type").iter_rows():
        pattern = f"(n:{name})" if kind == "NODE" else f"()-[n:{name}]->()"
        counts[name] = store.cypher(f"MATCH {pattern} RETURN count(*) AS n")["n"][0]
    return {t: n for t, n in counts.items() if n}


def test_a_vgdb_01_database_migrates_with_every_row(tmp_path: Path) -> None:
    db = _old_database(tmp_path)
    with pytest.raises(SchemaVersionError, match=r"vgdb 0\.1") as excinfo:
        Store.open(db, read_only=True)
    assert "vgdb migrate" in excinfo.value.suggestion
    assert sorted(p.name for p in db.iterdir()) == ["fts.json", "graph.kz", "manifest.json"]

    with Store.open(db) as store:
        assert _counts(store) == _expected_counts()
        sym = store.cypher("MATCH (s:Symbol) WHERE s.name = 'entry_hash' "
                           "RETURN s.id AS id")["id"].to_list()
        assert sym == ["sym:sess/dedup.py#entry_hash"]
    assert sorted(p.name for p in (db / BACKUP_DIR).iterdir()) == ["fts.json", "graph.kz"]
    assert not (db / "graph.kz").exists() and not (db / ".migrate").exists()
    manifest = json.loads((db / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["engine"] == "ladybug" and "kuzu_version" not in manifest
    with Store.open(db, read_only=True) as store:  # and now read-only opens work
        assert _counts(store) == _expected_counts()


def test_a_killed_migration_finishes_on_the_next_open(tmp_path: Path) -> None:
    db = _old_database(tmp_path)
    killed = run_vgdb("migrate", "--db", str(db), env={"VGDB_FAILPOINT": "migrate:imported"})
    assert killed.returncode == -9
    assert (db / "graph.kz").exists() and not (db / "graph.lbug").exists()
    done = run_vgdb("migrate", "--db", str(db), "--json")
    assert done.returncode == 0, done.stderr
    assert "migrated" in done.stderr
    assert json.loads(done.stdout) == {"db": str(db.absolute()), "migrated": True,
                                       "backup": str(db.absolute() / BACKUP_DIR)}
    with Store.open(db, read_only=True) as store:
        assert _counts(store) == _expected_counts()
    again = run_vgdb("migrate", "--db", str(db))
    assert again.returncode == 0 and "already" in again.stdout
    assert os.listdir(db / BACKUP_DIR) != []
