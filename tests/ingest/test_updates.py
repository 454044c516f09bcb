"""Updates proportional to the change (issue 26): a module added or removed re-resolves only
the files it can bind differently; communities follow a small change in place; the graph file
is compacted back to its content."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from api.serve_idle import compact_when_idle
from api.steps import communities_after_ingest
from api.write_lock import WriteLock
from graphdb import Store
from graphdb.communities import communities_drift
from graphdb.compact import compact, compact_if_grown, compaction_due
from graphdb.health import check_database
from graphdb.store import REPLAY_WAL_BYTES
from ingest import IngestOptions, ingest_repository
from queries.communities import community_graph, detect_communities
from queries.communities.incremental import DRIFT_MIN_NODES, drift_limit
from tests.helpers import ROOT, write_tree
from tests.ingest.test_incremental import snapshot

_OPTS = IngestOptions(name="r", embed=False)


def _ingest(store: Store, root: Path) -> dict:
    data = ingest_repository(store, root, options=_OPTS).to_dict()
    data["communities"] = communities_after_ingest(store, data)
    return data


# ------------------------------------------------------------------------- resolution scope
_USERS = {
    "pkg/__init__.py": "",
    "pkg/enc.py": "import json\n\n\ndef encode(x):\n    return json.dumps(x)\n",
    "pkg/tasks.py": "def run():\n    return 1\n",
    "pkg/caller.py": "from .tasks import run\n\n\ndef go():\n    return run()\n",
    "pkg/method.py": "def go(job):\n    return job.run()\n",
    "pkg/other.py": "import json\n\n\ndef load(s):\n    return json.loads(s)\n",
    "pkg/named.py": "import json as run_json\n\n\ndef f():\n    return run_json.dumps(1)\n",
}


def test_an_added_module_reresolves_only_the_callers_of_its_names(
        tmp_path: Path) -> None:
    root = write_tree(tmp_path / "tree", _USERS)
    with Store.open(tmp_path / "db") as store:
        ingest_repository(store, root, options=_OPTS)
        write_tree(root, {"pkg/extra.py": "import json\n\n\ndef run(x):\n"
                                          "    return json.dumps(x)\n"})
        added = ingest_repository(store, root, options=_OPTS)
        # the new file, and the two files calling a `run` (whose name-only guess it may
        # change); not the files importing json, nor `run_json`
        assert added.reparsed_paths == ["pkg/extra.py"]
        assert added.reresolved == 3
        # `job.run()` was the one `run` in the repository (a guess); now there are two
        method = store.cypher("MATCH (a:Symbol)-[e:CALLS]->(b:Symbol) WHERE a.file = "
                              "'file:r/pkg/method.py' RETURN b.id AS b")["b"].to_list()
        assert method == []
        (root / "pkg" / "extra.py").unlink()
        removed = ingest_repository(store, root, options=_OPTS)
        assert removed.removed == 1 and removed.reresolved == 2
        method = store.cypher("MATCH (a:Symbol)-[e:CALLS]->(b:Symbol) WHERE a.file = "
                              "'file:r/pkg/method.py' RETURN b.id AS b, e.resolution AS r")
        assert method.rows() == [("sym:r/pkg/tasks.py#run", "name_only")]
        incremental = snapshot(store)
    with Store.open(tmp_path / "full") as full:
        ingest_repository(full, root, options=_OPTS)
        assert snapshot(full) == incremental


# ------------------------------------------------------------------------- communities
def _clusters(n: int) -> dict[str, str]:
    """Two packages of ``n`` modules each; each module calls the next one of its package."""
    files = {"alpha/__init__.py": "", "beta/__init__.py": ""}
    for pkg in ("alpha", "beta"):
        for i in range(n):
            nxt = (i + 1) % n
            files[f"{pkg}/m{i}.py"] = (f"from {pkg}.m{nxt} import f{nxt}\n\n\n"
                                       f"def f{i}():\n    return f{nxt}()\n")
    return files


def _members(store: Store, scope: str) -> dict[str, dict[int, str]]:
    """member id -> {level: community id}."""
    rows = store.cypher("MATCH (m)-[:IN_COMMUNITY]->(c:Community) WHERE c.repo = 'r' AND "
                        "c.scope = $s RETURN m.id AS m, c.level AS l, c.id AS c", {"s": scope})
    out: dict[str, dict[int, str]] = {}
    for m, level, c in rows.iter_rows():
        out.setdefault(m, {})[level] = c
    return out


def test_communities_follow_small_changes_in_place_until_the_drift_limit(
        tmp_path: Path) -> None:
    root = write_tree(tmp_path / "tree", _clusters(40))
    with Store.open(tmp_path / "db") as store:
        first = _ingest(store, root)
        assert first["communities"]["status"] == "detected"
        before = _members(store, "file")
        # a module calling into alpha joins alpha's community; nothing else moves
        write_tree(root, {"alpha/new.py": "from alpha.m3 import f3\nfrom alpha.m4 import f4"
                                          "\n\n\ndef g():\n    return f3() + f4()\n"})
        added = _ingest(store, root)
        assert added["communities"]["status"] == "updated"
        assert added["communities"]["file"]["added"] == 1
        after = _members(store, "file")
        assert {m: c for m, c in after.items() if m in before} == before
        assert after["file:r/alpha/new.py"] == before["file:r/alpha/m3.py"]
        size = store.cypher("MATCH (c:Community {id: $id}) RETURN c.size",
                            {"id": before["file:r/alpha/m3.py"][0]}).item()
        members = sum(1 for m in after.values() if m[0] == before["file:r/alpha/m3.py"][0])
        assert size == members
        # a module without dependencies is a community of its own, at every level
        write_tree(root, {"lonely.py": "def nobody():\n    return 0\n"})
        _ingest(store, root)
        lonely = _members(store, "file")["file:r/lonely.py"]
        assert set(lonely) == set(before["file:r/alpha/m3.py"])
        assert all(c not in {x for m in before.values() for x in m.values()}
                   for c in lonely.values())
        # a removed module leaves its community; an emptied community is deleted
        (root / "lonely.py").unlink()
        gone = _ingest(store, root)
        assert gone["communities"]["status"] == "updated"
        assert "file:r/lonely.py" not in _members(store, "file")
        assert store.cypher("MATCH (c:Community) WHERE c.id IN $ids RETURN count(*)",
                            {"ids": list(lonely.values())}).item() == 0
        # each update counted the nodes it touched: new.py, lonely.py in, lonely.py out
        # (files; symbols: each module and its function)
        assert communities_drift(store, "r", "file") == 3.0
        assert communities_drift(store, "r", "symbol") == 6.0
        # past the drift limit (82 files, 2% of which is 1.6: the floor of 8 nodes) a full
        # detection runs again, and resets the drift
        assert drift_limit(82) == DRIFT_MIN_NODES == 8
        write_tree(root, {"beta/x0.py": "from beta.m1 import f1\n\n\ndef h():\n"
                                        "    return f1()\n"})
        assert _ingest(store, root)["communities"]["status"] == "updated"
        assert communities_drift(store, "r", "symbol") == 8.0
        write_tree(root, {"beta/x1.py": "from beta.m1 import f1\n"})
        again = _ingest(store, root)
        assert again["communities"]["status"] == "detected"
        assert communities_drift(store, "r", "file") == 0.0


def test_an_edit_is_followed_in_place(tmp_path: Path) -> None:
    """An edited file's nodes are placed again: a module whose dependencies moved to the
    other package follows them, a function added by the edit joins a community, a removed
    one leaves its own; nothing else moves."""
    root = write_tree(tmp_path / "tree", _clusters(40))
    with Store.open(tmp_path / "db") as store:
        assert _ingest(store, root)["communities"]["status"] == "detected"
        before = _members(store, "file")
        beta = {c[0] for m, c in before.items() if m.startswith("file:r/beta/")}
        assert before["file:r/alpha/m5.py"][0] not in beta
        calls = " + ".join(f"f{i}()" for i in range(1, 7))
        write_tree(root, {"alpha/m5.py": "".join(f"from beta.m{i} import f{i}\n"
                                                 for i in range(1, 7))
                          + f"\n\ndef f5():\n    return {calls}\n\n\n"
                          "def g5():\n    return f5()\n"})
        edited = _ingest(store, root)
        step = edited["communities"]
        assert step["status"] == "updated"
        assert (step["file"]["moved"], step["file"]["added"]) == (1, 0)
        after = _members(store, "file")
        assert after["file:r/alpha/m5.py"][0] in beta
        assert {m: c for m, c in after.items() if m != "file:r/alpha/m5.py"} == \
            {m: c for m, c in before.items() if m != "file:r/alpha/m5.py"}
        symbols = _members(store, "symbol")
        # f5 now calls into beta and its module imports from it: both follow; g5 (new)
        # joins f5's community, the one of its two neighbours with the better gain
        assert (step["symbol"]["added"], step["symbol"]["moved"]) == (1, 2)
        beta_symbols = {c[0] for m, c in symbols.items() if m.startswith("sym:r/beta/")}
        assert symbols["sym:r/alpha/m5.py#f5"][0] in beta_symbols
        assert symbols["sym:r/alpha/m5.py#<module>"][0] in beta_symbols
        assert symbols["sym:r/alpha/m5.py#g5"][0] == symbols["sym:r/alpha/m5.py#f5"][0]
        write_tree(root, {"alpha/m5.py": "from beta.m1 import f1\n\n\ndef f5():\n"
                                         "    return f1()\n"})
        assert _ingest(store, root)["communities"]["symbol"]["removed"] == 1
        assert "sym:r/alpha/m5.py#g5" not in _members(store, "symbol")
        # nothing changed: the stored communities are kept as they are
        assert _ingest(store, root)["communities"]["status"] == "kept"


def test_a_file_saved_again_and_again_counts_once_toward_the_drift_limit(
        tmp_path: Path) -> None:
    """Each save of the same file places its nodes again (the latest placement stands): it
    is one touched node until the next detection, not one per save, so editing one
    function many times never forces a detection. Another file edited counts once more."""
    root = write_tree(tmp_path / "tree", _clusters(40))
    with Store.open(tmp_path / "db") as store:
        assert _ingest(store, root)["communities"]["status"] == "detected"
        assert drift_limit(82) == DRIFT_MIN_NODES == 8
        for i in range(DRIFT_MIN_NODES + 3):  # past the limit, were each save counted
            write_tree(root, {"alpha/m3.py": "from alpha.m4 import f4\n\n\n"
                                             f"def f3():\n    return f4() + {i}\n"})
            step = _ingest(store, root)["communities"]
            assert (step["status"], step["file"]["moved"]) == ("updated", 0), (i, step)
            assert communities_drift(store, "r", "file") == 1.0
            assert communities_drift(store, "r", "symbol") == 1.0
        write_tree(root, {"beta/m7.py": "from beta.m8 import f8\n\n\n"
                                        "def f7():\n    return f8() + 1\n"})
        assert _ingest(store, root)["communities"]["status"] == "updated"
        assert communities_drift(store, "r", "file") == 2.0


# ------------------------------------------------------------------------- compaction
def test_compaction_keeps_every_row_and_gives_back_the_space(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "tree", _clusters(30))
    db = tmp_path / "db"
    with Store.open(db) as store:
        _ingest(store, root)
        for i in range(4):  # edits and additions, each checkpointed: the file grows
            write_tree(root, {f"alpha/m{i}.py": f"from alpha.m{i + 1} import f{i + 1}\n\n\n"
                                                f"def f{i}():\n    return f{i + 1}() + {i}\n",
                              f"beta/n{i}.py": "def n():\n    return 1\n"})
            _ingest(store, root)
            store.checkpoint()
        grown = (db / "graph.lbug").stat().st_size
        before = snapshot(store)
        report = compact(store)
        assert report.before == grown and report.after < grown
        assert (db / "graph.lbug").stat().st_size == report.after
        assert snapshot(store) == before  # every current node and edge, every property
        # the store goes on working on the new file, and the policy sees no growth now
        write_tree(root, {"beta/n9.py": "def n9():\n    return 9\n"})
        assert _ingest(store, root)["files"]["added"] == 1
        assert compact_if_grown(store) is None
    assert check_database(db).ok


def _grown_database(tmp_path: Path) -> tuple[Path, Path]:
    """A database whose graph file grew past the compaction limit by checkpointed updates
    (the policy not run), and its tree."""
    root = write_tree(tmp_path / "tree", _clusters(30))
    db = tmp_path / "db"
    with Store.open(db) as store:
        _ingest(store, root)
        for i in range(4):
            write_tree(root, {f"alpha/m{i}.py": f"def f{i}():\n    return {i}\n"})
            ingest_repository(store, root, options=_OPTS, compact=False)
            store.checkpoint()
        assert compaction_due(store)
    return db, root


def test_a_served_database_compacts_in_idle_time_while_readers_go_on(tmp_path: Path) -> None:
    """A serving store is never compacted inside an update; the idle compactor does it once
    no write came for its idle time, under the write lock, and readers keep reading the
    same rows before, during and after the swap of the file."""
    db, _ = _grown_database(tmp_path)
    grown = (db / "graph.lbug").stat().st_size
    with Store.open(db, serving=True) as store:
        before = snapshot(store)
        assert compact_if_grown(store) is None  # not inside an update
        assert (db / "graph.lbug").stat().st_size == grown
        lock = WriteLock()
        compactor = compact_when_idle(store, lock, idle=0.3, poll=0.1)
        try:
            counts = []
            deadline = time.monotonic() + 60
            while (db / "graph.lbug").stat().st_size >= grown and time.monotonic() < deadline:
                counts.append(store.cypher("MATCH (s:Symbol) RETURN count(*)").item())
                time.sleep(0.02)
            assert (db / "graph.lbug").stat().st_size < grown
            assert len(set(counts)) == 1
            with lock.hold("test"):  # the compactor let go of the lock
                assert snapshot(store) == before
                assert not compaction_due(store)
        finally:
            compactor.stop()
    assert check_database(db).ok


def test_stopping_the_idle_compactor_waits_for_a_compaction_under_way(tmp_path: Path) -> None:
    """A server shutting down (Ctrl-C) while the idle compactor writes the new graph file
    must not close the store under it: ``stop`` returns once the compaction has swapped its
    file in, and the database closes and opens with every row."""
    db, _ = _grown_database(tmp_path)
    grown = (db / "graph.lbug").stat().st_size
    with Store.open(db, serving=True) as store:
        before = snapshot(store)
        compactor = compact_when_idle(store, WriteLock(), idle=0.2, poll=0.05)
        deadline = time.monotonic() + 60
        while not (db / "graph.lbug.compact").exists() and time.monotonic() < deadline:
            time.sleep(0.002)
        assert (db / "graph.lbug.compact").exists(), "no compaction started in 60 s"
        compactor.stop()
        assert not compactor.running
        assert not (db / "graph.lbug.compact").exists()
        assert (db / "graph.lbug").stat().st_size < grown
    assert check_database(db).ok
    with Store.open(db, read_only=True) as store:
        assert snapshot(store) == before


def test_a_wal_past_the_replay_limit_is_compacted_without_a_checkpoint_first(
        tmp_path: Path) -> None:
    """Right after a compaction, the first checkpoint grows the file 20-50%: a WAL past
    the replay limit is folded in by compacting at once, and the file stays as compact."""
    db, root = _grown_database(tmp_path)
    with Store.open(db) as store:
        first = compact(store)
        write_tree(root, {"beta/w.py": "def w():\n    return 1\n"})
        ingest_repository(store, root, options=_OPTS, compact=False)
        for i in range(200):  # committed writes until the WAL passes the limit
            with store.write() as tx:
                store.set_meta(tx, f"test-padding-{i}", "x" * 8192)
            if store.wal_bytes() > REPLAY_WAL_BYTES:
                break
        assert store.wal_bytes() > REPLAY_WAL_BYTES
        assert (db / "graph.lbug").stat().st_size == first.after  # not checkpointed
        report = compact_if_grown(store)
        assert report is not None and store.wal_bytes() < 4096  # its baseline's record
        assert report.before > first.after + REPLAY_WAL_BYTES
        assert store.cypher("MATCH (f:File) WHERE f.path = 'beta/w.py' AND f.valid_to IS "
                            "NULL RETURN count(*)").item() == 1


# ------------------------------------------------------------------------- no-op
def test_a_run_without_changes_reads_and_writes_nothing(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "tree", {**_USERS, "README.md": "# demo\n"})
    with Store.open(tmp_path / "db") as store:
        first = ingest_repository(store, root, options=_OPTS)
        assert first.papers is not None and not first.papers["unchanged"]
        version = store.graph_version()
        again = ingest_repository(store, root, options=_OPTS)
        assert again.parsed == 0 and again.papers is not None and again.papers["unchanged"]
        assert again.papers["scanned_files"] == 0 and again.search is None
        assert store.graph_version() == version  # not one write
        # a documentation file that changed is read again (here: a DOI now cited)
        (root / "README.md").write_text("# demo\n\nSee doi:10.1145/3183713.3196888\n")
        doc = ingest_repository(store, root, options=_OPTS)
        assert doc.papers is not None and not doc.papers["unchanged"]
        assert doc.papers["references"] == 1 and doc.search is not None
        assert store.cypher("MATCH (p:Paper) WHERE p.doi = '10.1145/3183713.3196888' "
                            "RETURN count(*)").item() == 1
    assert check_database(tmp_path / "db").ok


def test_a_script_that_never_closes_its_store_leaves_it_verified(tmp_path: Path) -> None:
    """An update, then parameterized reads (prepared statements), then the interpreter ends
    without close(): the engine's closing checkpoint must land before the checksum record."""
    root = write_tree(tmp_path / "tree", _USERS)
    with Store.open(tmp_path / "db") as store:
        ingest_repository(store, root, options=_OPTS)
    write_tree(root, {"pkg/tasks.py": "def run():\n    return 2\n"})
    script = (
        "import sys\n"
        "from graphdb import Store\n"
        "from ingest import IngestOptions, ingest_repository\n"
        "store = Store.open(sys.argv[1])\n"
        "ingest_repository(store, sys.argv[2], options=IngestOptions(name='r', embed=False))\n"
        "store.cypher('MATCH (s:Symbol) WHERE s.id IN $ids RETURN s.id', {'ids': ['x']})\n")
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "db"), str(root)],
                          capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert check_database(tmp_path / "db").ok


def test_a_detection_after_in_place_updates_is_not_skipped(tmp_path: Path) -> None:
    """A file added in place then removed leaves the graph as the last detection saw it,
    but not the stored partition: a detection then runs instead of keeping it."""
    root = write_tree(tmp_path / "tree", _clusters(6))
    with Store.open(tmp_path / "db") as store:
        assert _ingest(store, root)["communities"]["status"] == "detected"
        write_tree(root, {"alpha/extra.py": "from alpha.m1 import f1\n"})
        assert _ingest(store, root)["communities"]["status"] == "updated"
        (root / "alpha" / "extra.py").unlink()
        ingest_repository(store, root, options=_OPTS)  # no communities step (--no-communities)
        found = detect_communities(store, "r", scope="file")
        assert "unchanged since the stored detection: kept" not in found.notes
        assert sorted(_members(store, "file")) == sorted(community_graph(store, "r").ids)
