"""`vgdb watch` and `vgdb serve --watch`: an edit saved in a watched tree is in the graph
within 2 s; the database's own writes and files vgdb does not parse never trigger updates."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
import time
from pathlib import Path

import httpx

from graphdb import Store
from graphdb.tokens import TokenStore
from ingest import IngestOptions, ingest_repository
from ingest.watch import Watcher, WatchUpdate, update_tree
from tests.gitrepo import GitRepo
from tests.helpers import ROOT, VGDB
from tests.ops.repos import ingest
from tests.ops.server import serving

NEW_CORE = '''
def helper(x):
    """Add one."""
    return x + 1


def freshly_saved(y):
    return helper(y) * 2
'''


def _symbols(store: Store, name: str) -> list[str]:
    return store.cypher("MATCH (s:Symbol) WHERE s.name = $n AND s.valid_to IS NULL "
                        "RETURN s.id", {"n": name})["s.id"].to_list()


def test_saved_edit_is_in_the_graph_within_2s(tmp_path: Path, alib: GitRepo) -> None:
    db = alib.root / ".vgdb"  # inside the watched tree: its own writes must not count
    updates: queue.Queue[WatchUpdate] = queue.Queue()
    with Store.open(db) as store:
        ingest(store, alib.root)
        watcher = Watcher([alib.root], lambda root: update_tree(store, root), ignore=[db])
        stop, ready = threading.Event(), threading.Event()
        thread = threading.Thread(target=watcher.run, args=(updates.put,),
                                  kwargs={"stop": stop, "ready": ready})
        thread.start()
        try:
            assert ready.wait(10)
            (alib.root / "notes.txt").write_text("not code\n")  # no language: ignored
            saved = time.perf_counter()
            (alib.root / "alib" / "core.py").write_text(NEW_CORE.lstrip(), encoding="utf-8")
            update = updates.get(timeout=2)
            took = time.perf_counter() - saved
            assert took < 2.0
            assert update.error is None and update.paths == ("alib/core.py",)
            assert update.summary["files"]["modified"] == 1
            assert _symbols(store, "freshly_saved") == ["sym:alib/alib/core.py#freshly_saved"]
            calls = store.cypher("MATCH (:Symbol {name: 'freshly_saved'})-[:CALLS]->(t) "
                                 "RETURN t.id")["t.id"].to_list()
            assert calls == ["sym:alib/alib/core.py#helper"]
            (alib.root / "alib" / "core.py").unlink()
            update = updates.get(timeout=2)
            assert update.summary["files"]["removed"] == 1
            assert _symbols(store, "freshly_saved") == []
            time.sleep(0.5)  # the commits above wrote the database inside the tree
            assert updates.empty()
        finally:
            stop.set()
            thread.join(timeout=10)


def _vgdb_watch(db: Path, alib: GitRepo) -> subprocess.Popen[str]:
    """`vgdb watch --json` on ``alib``, ingested into ``db`` as "lib" first, once its
    watches are in place."""
    with Store.open(db) as store:
        ingest_repository(store, alib.root, options=IngestOptions(name="lib"))
    proc = subprocess.Popen([*VGDB, "watch", str(alib.root), "--db", str(db), "--json"],
                            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None and proc.stdout is not None
    assert proc.stderr.readline().startswith("watching ")
    time.sleep(0.5)  # the watches are set up right after the message
    return proc


def test_vgdb_watch_command(tmp_path: Path, alib: GitRepo) -> None:
    """The tree was ingested under another name than its directory's: the watch keeps it."""
    db = tmp_path / "db"
    proc = _vgdb_watch(db, alib)
    try:
        (alib.root / "alib" / "core.py").write_text(NEW_CORE.lstrip(), encoding="utf-8")
        line = json.loads(proc.stdout.readline())
        assert line["paths"] == ["alib/core.py"] and line["error"] is None
        assert line["summary"]["files"]["modified"] == 1
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)  # closes the pipes
    assert proc.returncode == 0, err
    with Store.open(db, read_only=True) as store:
        assert _symbols(store, "freshly_saved") == ["sym:lib/alib/core.py#freshly_saved"]
        assert store.cypher("MATCH (r:Repository) RETURN r.name")["r.name"].to_list() == [
            "lib"]


def test_ctrl_c_during_an_update_lets_it_finish(tmp_path: Path, alib: GitRepo) -> None:
    """Ctrl-C while an update is being applied: the watch ends after it, with exit 0 and the
    update printed and committed (a KeyboardInterrupt raised in the middle aborted it with
    exit 130, its files missing from the graph)."""
    db = tmp_path / "db"
    proc = _vgdb_watch(db, alib)
    try:
        for i in range(300):  # one batch whose update takes a while
            (alib.root / "alib" / f"gen{i}.py").write_text(
                f"def made_{i}(x):\n    return x + {i}\n", encoding="utf-8")
        time.sleep(0.4)  # the batch arrives after 30 ms without events: it is being applied
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    line = json.loads(out.splitlines()[0])
    assert line["error"] is None and line["summary"]["files"]["added"] == 300
    with Store.open(db, read_only=True) as store:
        assert store.cypher("MATCH (s:Symbol) WHERE s.qualname STARTS WITH 'made_' "
                            "RETURN count(*)").item() == 300


def test_serve_watch_applies_saves_in_process(tmp_path: Path, alib: GitRepo) -> None:
    db = tmp_path / "db"
    with Store.open(db) as store:
        ingest(store, alib.root)
    _, secret = TokenStore(db).create("reader", scope="read")
    query = {"query": '{ symbol(ref: "alib/core.py#freshly_saved") { id } }'}
    with serving(db, "--watch", str(alib.root)) as url:
        time.sleep(0.5)  # the watch starts beside the server
        with httpx.Client(headers={"Authorization": f"Bearer {secret}"}) as client:
            assert client.post(f"{url}/graphql", json=query).json()["data"]["symbol"] is None
            saved = time.perf_counter()
            (alib.root / "alib" / "core.py").write_text(NEW_CORE.lstrip(), encoding="utf-8")
            found = None
            while found is None and time.perf_counter() - saved < 2.0:
                found = client.post(f"{url}/graphql", json=query).json()["data"]["symbol"]
                time.sleep(0.02)
    assert found is not None, "the saved function was not in the graph within 2 s"


def test_vgdb_watch_goes_through_the_server_that_owns_the_database(tmp_path: Path,
                                                                     alib: GitRepo) -> None:
    db = tmp_path / "db"
    with Store.open(db) as store:
        ingest(store, alib.root)
    _, admin = TokenStore(db).create("admin", scope="admin")
    query = {"query": '{ symbol(ref: "alib/core.py#freshly_saved") { id } }'}
    with serving(db) as url:
        proc = subprocess.Popen([*VGDB, "watch", str(alib.root), "--db", str(db), "--json"],
                                cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT),
                                               "VGDB_TOKEN": admin},
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert proc.stderr is not None and proc.stdout is not None
            assert proc.stderr.readline().startswith("watching ")
            time.sleep(0.5)
            (alib.root / "alib" / "core.py").write_text(NEW_CORE.lstrip(), encoding="utf-8")
            line = json.loads(proc.stdout.readline())
            assert line["error"] is None and line["summary"]["job"]  # an ingest job there
            with httpx.Client(headers={"Authorization": f"Bearer {admin}"}) as client:
                found, deadline = None, time.monotonic() + 10
                while found is None and time.monotonic() < deadline:
                    found = client.post(f"{url}/graphql", json=query).json()["data"]["symbol"]
                    time.sleep(0.05)
            assert found is not None
        finally:
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
