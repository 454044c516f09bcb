"""`vgdb check` and `vgdb repair` on real databases: what is verified, what each damage
looks like, and that repair brings back a verified state without deleting anything."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from graphdb import Store
from graphdb.health import check_database, repair_database
from ingest import IngestOptions, ingest_repository
from queries.search import search
from schema import StoreLockedError
from tests.helpers import commit_into_wal, run_vgdb, write_tree

TREE = {
    "pkg/__init__.py": "",
    "pkg/net.py": '''
        def parse_header_line(line):
            """Split one HTTP header line into its name and value."""
            name, _, value = line.partition(":")
            return name.strip(), value.strip()
        ''',
    "pkg/io.py": '''
        from pkg.net import parse_header_line


        def read_headers(lines):
            """Read header lines until the blank one."""
            return [parse_header_line(x) for x in lines if x]
        ''',
}


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_tree(tmp_path_factory.mktemp("src") / "proj", TREE)
    db = tmp_path_factory.mktemp("db") / "db"
    with Store.open(db) as store:
        ingest_repository(store, root, options=IngestOptions(name="proj"))
    return db


@pytest.fixture
def db(ingested: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "db"
    shutil.copytree(ingested, copy)
    return copy


def test_a_sound_database_checks_ok_with_a_stable_digest(db: Path) -> None:
    first, second = check_database(db), check_database(db)
    assert first.ok and first.graph_ok
    assert [f.check for f in first.findings] == [
        "graph checksum", "open", "read every row", "keyword Symbol", "keyword Entry",
        "keyword Paper", "vectors Symbol"]
    assert first.digest == second.digest and len(first.digest) == 32
    assert first.rows["Symbol"] == 5 and first.rows["CALLS"] == 1


def test_lost_vectors_are_said_by_search_and_check_and_repair_embeds_them(db: Path) -> None:
    manifest = json.loads((db / "vectors" / "manifest.json").read_text(encoding="utf-8"))
    gen = manifest["tables"]["Symbol"]["generation"]
    (db / "vectors" / f"Symbol.{gen}.npy").unlink()
    with Store.open(db, read_only=True) as store:
        found = search(store, "split a header line", k=3)
    assert "vector off for Symbol: its stored vectors are missing (run `vgdb repair`, which " \
           "embeds them again)" in found.notes
    report = check_database(db)
    assert report.graph_ok and not report.ok
    assert [f.check for f in report.findings if not f.ok] == ["vectors Symbol"]
    repaired = repair_database(db)
    assert repaired.check.ok
    assert any(a.startswith("vectors Symbol: 5 embedded") for a in repaired.actions)
    with Store.open(db, read_only=True) as store:
        found = search(store, "split a header line", k=3)
    assert found.hits[0].id == "sym:proj/pkg/net.py#parse_header_line" and not found.notes


def test_a_damaged_wal_is_set_aside_by_repair_and_the_graph_opens(db: Path) -> None:
    commit_into_wal(db, "CREATE (:File {id: 'file:proj/late.py', path: 'late.py'})")
    wal = db / "graph.lbug.wal"
    if not wal.exists() or wal.stat().st_size == 0:
        pytest.fail("a small committed write is expected to live in the WAL")
    data = bytearray(wal.read_bytes())
    data[len(data) // 2] ^= 0xFF
    wal.write_bytes(bytes(data))
    report = check_database(db)
    assert not report.graph_ok
    assert "write-ahead log" in next(f for f in report.findings if not f.ok).detail
    cli = run_vgdb("repair", "--db", str(db))
    assert cli.returncode == 1 and "--discard-wal" in cli.stderr
    repaired = repair_database(db, discard_wal=True)
    assert repaired.check.ok
    kept = sorted(p.name for p in db.glob("graph.lbug.wal.damaged-*"))
    assert len(kept) == 1 and (db / kept[0]).read_bytes() == bytes(data)
    with Store.open(db, read_only=True) as store:  # as of the last checkpoint
        assert store.cypher("MATCH (f:File {path: 'late.py'}) RETURN count(*) AS n")["n"][0] == 0


def test_a_graph_file_changed_outside_vgdb_is_refused_until_accepted(db: Path) -> None:
    graph = db / "graph.lbug"
    original = graph.read_bytes()
    graph.write_bytes(original + b"\0" * 4096)  # a restored copy with trailing padding, say
    report = check_database(db)
    assert not report.graph_ok and report.findings[0].check == "graph checksum"
    assert run_vgdb("overview", "--db", str(db)).returncode == 1
    repaired = repair_database(db, accept_graph=True)
    assert "recorded the graph file as it is now" in repaired.actions
    assert repaired.check.ok


def test_a_database_another_process_writes_is_locked_not_damaged(db: Path) -> None:
    with Store.open(db):
        with pytest.raises(StoreLockedError):
            check_database(db)
        cli = run_vgdb("check", "--db", str(db))
    assert cli.returncode == 3 and "locked" in cli.stderr and "FAIL" not in cli.stdout
