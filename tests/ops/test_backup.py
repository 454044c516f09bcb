"""`vgdb backup` / `vgdb restore` while a real `vgdb serve` answers queries, and
`vgdb export` / `vgdb import` through Parquet: the copy holds the same graph (content digest)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import httpx
import polars as pl
import pytest

from graphdb import Store
from graphdb.backup import BACKUP_MANIFEST
from graphdb.export import EXPORT_MANIFEST, import_graph
from graphdb.health import content_digest
from graphdb.tokens import TokenStore
from schema import CorruptDatabaseError, StoreError
from tests.gitrepo import GitRepo
from tests.helpers import run_vgdb, vgdb_in_process
from tests.ops.repos import ingest
from tests.ops.server import serving


def _digest(db: Path) -> str:
    with Store.open(db, read_only=True) as store:
        return content_digest(store)[1]


@pytest.fixture
def graph(tmp_path: Path, alib: GitRepo, bapp: GitRepo) -> Path:
    db = tmp_path / "db"
    with Store.open(db) as store:
        ingest(store, alib.root)
        ingest(store, bapp.root)
    return db


def test_backup_while_serving_then_restore(tmp_path: Path, graph: Path) -> None:
    original = _digest(graph)
    _, secret = TokenStore(graph).create("ops", scope="admin")
    answers: list[list[str]] = []
    errors: list[str] = []
    stop = threading.Event()
    with serving(graph) as url:
        assert json.loads((graph / "server.json").read_text())["url"] == url

        def ask() -> None:  # a client querying in a loop the whole time
            with httpx.Client(headers={"Authorization": f"Bearer {secret}"}) as client:
                while not stop.is_set():
                    body = client.post(f"{url}/graphql", json={
                        "query": "{ repositories { name } }"}, timeout=30).json()
                    if "errors" in body:
                        errors.append(str(body["errors"]))
                    else:
                        answers.append([r["name"] for r in body["data"]["repositories"]])

        reader = threading.Thread(target=ask)
        reader.start()
        try:
            while len(answers) < 3:
                time.sleep(0.05)
            before = len(answers)
            locked = run_vgdb("backup", str(tmp_path / "refused"), "--db", str(graph))
            assert locked.returncode == 2 and "--token" in locked.stderr  # no token given
            done = run_vgdb("backup", str(tmp_path / "bk"), "--db", str(graph), "--json",
                            env={"VGDB_TOKEN": secret})
            assert done.returncode == 0, done.stderr
            during = len(answers) - before
        finally:
            stop.set()
            reader.join()
    assert errors == [] and during > 0
    assert all(a == ["alib", "bapp"] for a in answers)
    info = json.loads(done.stdout)
    assert info["digest"] == original
    files = json.loads((tmp_path / "bk" / BACKUP_MANIFEST).read_text())["files"]
    assert {"graph.lbug", "graph.sum", "manifest.json", "tokens.json"} <= set(files)
    assert any(f.startswith("keyword/Symbol/") for f in files)
    assert any(f.startswith("vectors/Symbol.") for f in files)
    assert not (graph / "server.json").exists()  # the server said it stopped

    restored = run_vgdb("restore", str(tmp_path / "bk"), "--db", str(tmp_path / "db2"))
    assert restored.returncode == 0, restored.stderr
    assert _digest(tmp_path / "db2") == original
    check = run_vgdb("check", "--db", str(tmp_path / "db2"))
    assert check.returncode == 0, check.stdout  # keyword index and vectors verified too
    again = run_vgdb("restore", str(tmp_path / "bk"), "--db", str(tmp_path / "db2"))
    assert again.returncode == 1 and "already holds a database" in again.stderr
    search = run_vgdb("search", "add one", "--db", str(tmp_path / "db2"), "--json")
    assert "sym:alib/alib/core.py#helper" in search.stdout


def test_restore_refuses_a_damaged_backup(tmp_path: Path, graph: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert vgdb_in_process(capsys, "backup", str(tmp_path / "bk"), "--db",
                           str(graph)).returncode == 0
    target = tmp_path / "bk" / "graph.lbug"
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0xFF
    target.write_bytes(bytes(data))
    run = vgdb_in_process(capsys, "restore", str(tmp_path / "bk"), "--db",
                          str(tmp_path / "db2"))
    assert run.returncode == 1 and "does not match backup.json" in " ".join(run.stderr.split())
    assert not (tmp_path / "db2").exists()
    nonempty = vgdb_in_process(capsys, "backup", str(tmp_path / "bk"), "--db", str(graph))
    assert nonempty.returncode == 1 and "not an empty directory" in nonempty.stderr


def test_export_import_round_trip(tmp_path: Path, graph: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    original = _digest(graph)
    out = tmp_path / "export"
    run = vgdb_in_process(capsys, "export", str(out), "--db", str(graph), "--json")
    assert run.returncode == 0, run.stderr
    manifest = json.loads((out / EXPORT_MANIFEST).read_text())
    assert (manifest["format"], manifest["format_version"]) == ("vgdb-export", 1)
    assert manifest["digest"] == original
    calls = pl.read_parquet(out / "rels" / "CALLS.parquet")
    assert calls.columns[:4] == ["from", "to", "from_table", "to_table"]
    assert ("sym:bapp/bapp/main.py#App.run", "sym:alib/alib/core.py#helper", "Symbol",
            "Symbol") in calls.select("from", "to", "from_table", "to_table").rows()
    files = pl.read_parquet(out / "nodes" / "File.parquet")
    assert files["id"].to_list()[0] == "file:alib/alib/__init__.py"
    assert manifest["counts"]["nodes/File.parquet"] == files.height

    run = vgdb_in_process(capsys, "import", str(out), "--db", str(tmp_path / "db2"))
    assert run.returncode == 0, run.stderr
    assert _digest(tmp_path / "db2") == original
    assert run_vgdb("check", "--db", str(tmp_path / "db2")).returncode == 0

    with Store.open(tmp_path / "db2") as store, pytest.raises(StoreError, match="not empty"):
        import_graph(store, out)
    (out / "nodes" / "Symbol.parquet").write_bytes(b"not parquet")
    with Store.open(tmp_path / "db3") as store, \
            pytest.raises(CorruptDatabaseError, match=r"Symbol\.parquet is missing or does not"):
        import_graph(store, out)


def test_backup_while_the_server_writes(tmp_path: Path, graph: Path) -> None:
    """Writes go on through the server during the backup: the copy holds one state (its
    digest is the one recorded), between the writes before and after it."""
    _, secret = TokenStore(graph).create("ops", scope="admin")
    written: list[int] = []
    stop = threading.Event()
    with serving(graph) as url:
        def write() -> None:
            with httpx.Client(headers={"Authorization": f"Bearer {secret}"}) as client:
                client.post(f"{url}/graphql", json={
                    "query": 'mutation { startSession(session: "w") { session } }'}).json()
                n = 0
                while not stop.is_set():
                    body = client.post(f"{url}/graphql", json={"query": (
                        f'mutation {{ recordNote(session: "w", title: "note {n}") '
                        "{ __typename } }")}, timeout=30).json()
                    assert "errors" not in body, body
                    n += 1
                    written.append(n)

        writer = threading.Thread(target=write)
        writer.start()
        try:
            while len(written) < 3:
                time.sleep(0.05)
            before = len(written)
            done = run_vgdb("backup", str(tmp_path / "bk"), "--db", str(graph), "--json",
                            env={"VGDB_TOKEN": secret})
            after = len(written)
        finally:
            stop.set()
            writer.join()
    assert done.returncode == 0, done.stderr
    assert after > before  # the writes went on around the copy
    restored = run_vgdb("restore", str(tmp_path / "bk"), "--db", str(tmp_path / "db2"))
    assert restored.returncode == 0, restored.stderr  # digest = the one recorded
    with Store.open(tmp_path / "db2", read_only=True) as store:
        notes = store.cypher("MATCH (e:Entry) RETURN count(*)").item()
    assert before <= notes <= after
    assert _digest(tmp_path / "db2") == json.loads(done.stdout)["digest"]
