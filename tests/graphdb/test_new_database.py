"""A new database: its schema is committed to the write-ahead log and folded into the graph
file by the first bulk load's commit (no checkpoint of empty tables at creation). A kill
before that load loses nothing: the next open replays the log."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import polars as pl

from graphdb import Store
from graphdb.compact import graph_rows
from graphdb.integrity import SUM_FILE
from schema import FILE, META, NODE_TABLES, REL_TABLES, SCHEMA_VERSION
from tests.helpers import ROOT


def _killed_after(db: Path, body: str) -> None:
    """Open (create) ``db`` in a child, run ``body`` (``store`` in scope), then SIGKILL it."""
    code = textwrap.dedent(f"""
        import os, signal, sys
        from graphdb import Store
        store = Store.open(sys.argv[1])
        {body}
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    done = subprocess.run([sys.executable, "-c", code, str(db)], cwd=ROOT, check=False,
                          capture_output=True, text=True)
    assert done.returncode == -9, done.stderr


def test_creation_leaves_the_schema_in_the_log_not_a_checkpointed_file(tmp_path: Path) -> None:
    db = tmp_path / "db"
    with Store.open(db) as store:
        graph, wal = db / "graph.lbug", db / "graph.lbug.wal"
        assert wal.stat().st_size > 0  # the schema's commit
        assert graph.stat().st_size <= 8192  # the engine's header only: no table pages yet
        record = json.loads((db / SUM_FILE).read_text())
        assert not record.get("pending")
        assert record["size"] == graph.stat().st_size
        assert record["wal"] == wal.stat().st_size
        assert store.meta("schema_version") == str(SCHEMA_VERSION)


def test_a_new_database_killed_before_its_first_load_opens_with_its_schema(
        tmp_path: Path) -> None:
    db = tmp_path / "db"
    _killed_after(db, "pass")
    with Store.open(db, read_only=True) as store:
        assert store.meta("schema_version") == str(SCHEMA_VERSION)
        assert graph_rows(store) == 2  # the Meta rows schema_version and graph_version
    with Store.open(db) as store:  # read-write: writes go on where they were
        with store.write() as tx:
            tx.copy_nodes(FILE, pl.DataFrame({"id": ["r::a.py"], "repo": ["r"],
                                              "path": ["a.py"]}))
        assert store.cypher(f"MATCH (f:{FILE.name}) RETURN f.id AS id")["id"].to_list() == \
            ["r::a.py"]


def test_a_new_database_killed_after_a_small_write_keeps_it(tmp_path: Path) -> None:
    db = tmp_path / "db"
    _killed_after(db, textwrap.dedent("""
        with store.write() as tx:
            store.set_meta(tx, "kept", "yes")
    """).replace("\n", "\n        "))
    with Store.open(db) as store:
        assert store.meta("kept") == "yes"
        assert store.graph_version() == 2  # the schema's write, then this one


def test_every_table_exists_and_counts_in_one_statement(tmp_path: Path) -> None:
    with Store.open(tmp_path / "db") as store:
        for table in NODE_TABLES:
            assert store.cypher(f"MATCH (n:{table.name}) RETURN count(*) AS n")["n"][0] >= 0
        assert len(REL_TABLES) > 20
        metas = int(store.cypher(f"MATCH (n:{META.name}) RETURN count(*) AS n")["n"][0])
        assert graph_rows(store) == metas == 2
