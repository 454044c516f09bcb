"""``vgdb ingest-batch`` (ingest/batch/): many real git repositories into one graph; failures of
one repository (missing, unreachable, a bad ref, a crashing worker, a full disk, a kill) never
stop the others, and reruns finish exactly what is not done."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from graphdb import Store
from ingest.batch import load_manifest, run_batch
from tests.gitrepo import GitRepo
from tests.helpers import ROOT, run_vgdb, write_tree

#: subprocess runs start Kuzu, a pool and a load each: generous on a busy 2-core machine
SLOW = 600

LIB = {"lib/__init__.py": "from .core import helper\n",
       "lib/core.py": "def helper():\n    return 1\n"}
APP = {"app/__init__.py": "",
       "app/main.py": "from lib import helper\n\n\ndef run():\n    return helper()\n"}


def _manifest(path: Path, entries: list[dict[str, str]], *, papers: bool = False) -> Path:
    lines = ["[defaults]", f"papers = {str(papers).lower()}"]
    for entry in entries:
        lines.append("[[repositories]]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in entry.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def _statuses(summary) -> dict[str, str]:
    return {o.name: o.status for o in summary.outcomes}


def _reasons(summary) -> dict[str, str]:
    return {o.name: o.reason for o in summary.outcomes}


def test_failures_stay_isolated_and_reruns_finish_the_job(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    lib = GitRepo(tmp_path / "src" / "lib")
    lib.commit("lib", LIB)
    lib.commit("docs", {"lib/core.py": '"""Core."""\n\n\ndef helper():\n    return 1\n'})
    app = GitRepo(tmp_path / "src" / "app")
    app.commit("app", APP)
    write_tree(tmp_path / "src" / "crashy", {"crashy.py": "def f():\n    pass\n"})
    manifest = load_manifest(_manifest(tmp_path / "batch.toml", [
        {"name": "app", "path": "src/app"},
        {"name": "lib", "git": "src/lib", "ref": "main"},
        {"name": "crashy", "path": "src/crashy"},
        {"name": "gone", "path": "src/gone"},
        {"name": "badref", "git": "src/lib", "ref": "no-such-branch"},
        {"name": "offline", "git": "https://127.0.0.1:9/x.git"},
    ]))
    db = tmp_path / "db"
    monkeypatch.setenv("VGDB_FAILPOINT", "extract:crashy")  # its extraction worker dies
    with Store.open(db) as store:
        first = run_batch(store, manifest, workers=2)
        assert _statuses(first) == {"app": "done", "lib": "done", "crashy": "failed",
                                    "gone": "failed", "badref": "failed", "offline": "failed"}
        reasons = _reasons(first)
        assert reasons["crashy"].startswith("the worker process died running extract_job")
        assert reasons["gone"] == f"gone: path {tmp_path}/src/gone does not exist"
        assert reasons["badref"] == (f"badref: ref 'no-such-branch' does not exist in "
                                     f"{tmp_path}/src/lib")
        assert reasons["offline"].startswith("offline: cannot clone https://127.0.0.1:9/x.git")
        assert [o.name for o in first.failed] == ["crashy", "gone", "badref", "offline"]
        # one graph: the consumer's call resolves into the other repository
        calls = store.cypher("MATCH (a:Symbol)-[e:CALLS]->(b) WHERE a.repo = 'app' "
                             "RETURN a.id AS a, b.id AS b, e.resolution AS how")
        assert calls.rows() == [("sym:app/app/main.py#run", "sym:lib/lib/core.py#helper",
                                 "import")]
        repos = store.cypher("MATCH (r:Repository) RETURN r.name AS n ORDER BY n")
        assert repos["n"].to_list() == ["app", "lib"]
        # the clone's history was ingested too (2 commits on main)
        assert store.cypher("MATCH (c:Commit) RETURN count(*)").item() == 3
        assert not (db / "batch" / "shards" / "lib").exists()  # loaded shards are removed
    status = json.loads((db / "batch" / "status.json").read_text())["repositories"]
    assert {k: v["status"] for k, v in status.items()} == _statuses(first)
    assert status["lib"]["commit"] == lib.git("rev-parse", "HEAD")

    monkeypatch.delenv("VGDB_FAILPOINT")
    with Store.open(db) as store:
        second = run_batch(store, manifest, workers=2, retry_failed=True)
    assert _statuses(second) == {"app": "unchanged", "lib": "unchanged", "crashy": "done",
                                 "gone": "failed", "badref": "failed", "offline": "failed"}
    assert _reasons(second)["app"] == "done earlier (--retry-failed)"

    new = lib.commit("more", {"lib/extra.py": "def extra():\n    return 2\n"})
    with Store.open(db) as store:
        third = run_batch(store, manifest, workers=2)
        assert _statuses(third) == {"app": "unchanged", "lib": "done", "crashy": "unchanged",
                                    "gone": "failed", "badref": "failed", "offline": "failed"}
        assert {o.name: o.commit for o in third.outcomes}["lib"] == new
        assert store.cypher("MATCH (s:Symbol) WHERE s.id = 'sym:lib/lib/extra.py#extra' "
                            "RETURN count(*)").item() == 1
        assert store.cypher("MATCH (a:Symbol)-[:CALLS]->(b:Symbol) WHERE a.repo = 'app' "
                            "RETURN b.id").item() == "sym:lib/lib/core.py#helper"


def _tree_repos(tmp_path: Path) -> Path:
    """Three small real trees: the standard library's json and tomllib, and a json user."""
    import sysconfig

    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for name in ("json", "tomllib"):
        shutil.copytree(stdlib / name, tmp_path / name,
                        ignore=shutil.ignore_patterns("__pycache__"))
    write_tree(tmp_path / "user", {"user.py": "import json\n\n\ndef dump(x):\n"
                                              "    return json.dumps(x)\n"})
    return _manifest(tmp_path / "batch.toml", [
        {"path": "json"}, {"path": "tomllib"}, {"path": "user"}])


def _graph(db: Path) -> dict[str, list]:
    with Store.open(db, read_only=True) as store:
        return {
            "files": store.cypher("MATCH (f:File) RETURN f.id ORDER BY f.id").rows(),
            "symbols": store.cypher("MATCH (s:Symbol) RETURN s.id ORDER BY s.id").rows(),
            "calls": store.cypher("MATCH (a)-[e:CALLS]->(b) RETURN a.id, b.id, e.resolution "
                                  "ORDER BY a.id, b.id").rows(),
        }


@pytest.mark.slow
def test_a_killed_batch_resumes_and_the_graph_is_intact(tmp_path: Path) -> None:
    manifest = _tree_repos(tmp_path)
    db = tmp_path / "db"
    # one repository per transaction: the status of each says what the graph holds
    args = ("ingest-batch", str(manifest), "--db", str(db), "--workers", "1",
            "--no-communities", "--json", "--group-rows", "1")
    # the process SIGKILLs itself as the third repository's load starts
    killed = run_vgdb(*args, env={"VGDB_FAILPOINT": "batch-load:user"}, timeout=SLOW)
    assert killed.returncode == -9
    status = json.loads((db / "batch" / "status.json").read_text())["repositories"]
    states = {k: v["status"] for k, v in status.items()}
    # extraction runs ahead of loading and finishes in any order: user's load may start
    # before another repository's shard has arrived
    assert states["user"] == "running"
    assert {states["json"], states["tomllib"]} <= {"done", "extracting"}
    done = {name for name, state in states.items() if state == "done"}
    assert {row[0].split("/")[0] for row in _graph(db)["files"]} == {
        f"file:{name}" for name in done}
    rerun = run_vgdb(*args, timeout=SLOW)
    assert rerun.returncode == 0, rerun.stderr
    data = json.loads(rerun.stdout)
    assert {r["name"]: r["status"] for r in data["repositories"]} == {
        name: "unchanged" if name in done else "done" for name in ("json", "tomllib", "user")}
    fresh = run_vgdb("ingest-batch", str(manifest), "--db", str(tmp_path / "fresh"),
                     "--workers", "1", "--no-communities", "--json", timeout=SLOW)
    assert fresh.returncode == 0, fresh.stderr
    resumed = _graph(db)
    assert resumed == _graph(tmp_path / "fresh")
    assert ("sym:user/user.py#dump", "sym:json/__init__.py#dumps", "import") in \
        resumed["calls"]


@pytest.mark.slow
def test_a_kill_inside_a_group_commit_loses_that_group_and_the_rerun_redoes_it(
        tmp_path: Path) -> None:
    """Grouped loading (the default): the three repositories go in ONE transaction; a kill
    just before its commit leaves none of them in the graph, all three ``running``, and the
    rerun loads exactly those three into the same graph as one-by-one loading builds."""
    manifest = _tree_repos(tmp_path)
    db = tmp_path / "db"
    args = ("ingest-batch", str(manifest), "--db", str(db), "--workers", "1",
            "--no-communities", "--json")
    killed = run_vgdb(*args, env={"VGDB_FAILPOINT": "before-commit"}, timeout=SLOW)
    assert killed.returncode == -9
    status = json.loads((db / "batch" / "status.json").read_text())["repositories"]
    assert {k: v["status"] for k, v in status.items()} == {
        "json": "running", "tomllib": "running", "user": "running"}
    assert _graph(db)["files"] == []
    rerun = run_vgdb(*args, timeout=SLOW)
    assert rerun.returncode == 0, rerun.stderr
    data = json.loads(rerun.stdout)
    assert {r["name"]: r["status"] for r in data["repositories"]} == {
        "json": "done", "tomllib": "done", "user": "done"}
    assert [g["repositories"] for g in data["groups"]] == [3]
    one_by_one = run_vgdb("ingest-batch", str(manifest), "--db", str(tmp_path / "single"),
                          "--workers", "1", "--no-communities", "--json", "--group-rows", "1",
                          timeout=SLOW)
    assert one_by_one.returncode == 0, one_by_one.stderr
    assert [g["repositories"] for g in json.loads(one_by_one.stdout)["groups"]] == [1, 1, 1]
    resumed = _graph(db)
    assert resumed == _graph(tmp_path / "single")
    assert len(resumed["files"]) == 10  # json 5, tomllib 4, user 1
    # user resolves into json although both were loaded in the same transaction
    assert ("sym:user/user.py#dump", "sym:json/__init__.py#dumps", "import") in \
        resumed["calls"]


@pytest.mark.slow
def test_a_kill_at_the_second_group_keeps_the_first(tmp_path: Path) -> None:
    """Groups of one repository: the kill at the second commit loses the second alone; the
    first stays done (and unchanged on the rerun), the third was never staged."""
    manifest = _tree_repos(tmp_path)
    db = tmp_path / "db"
    args = ("ingest-batch", str(manifest), "--db", str(db), "--workers", "1",
            "--no-communities", "--json", "--group-rows", "1")
    killed = run_vgdb(*args, env={"VGDB_FAILPOINT": "before-commit#2"}, timeout=SLOW)
    assert killed.returncode == -9
    status = json.loads((db / "batch" / "status.json").read_text())["repositories"]
    states = {k: v["status"] for k, v in status.items()}
    assert sorted(states.values()) == ["done", "extracting", "running"]
    done = next(name for name, state in states.items() if state == "done")
    assert {row[0].split("/")[0] for row in _graph(db)["files"]} == {f"file:{done}"}
    rerun = run_vgdb(*args, timeout=SLOW)
    assert rerun.returncode == 0, rerun.stderr
    data = json.loads(rerun.stdout)
    assert {r["name"]: r["status"] for r in data["repositories"]} == {
        name: "unchanged" if name == done else "done" for name in ("json", "tomllib", "user")}
    assert [g["repositories"] for g in data["groups"]] == [1, 1]


def _mount_tmpfs(path: Path, size: str) -> None:
    path.mkdir(parents=True)
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                            capture_output=True, text=True, check=False)
    if result.returncode != 0:
        pytest.fail(f"this test mounts a small tmpfs as a full disk and needs root: "
                    f"{result.stderr.strip()}")


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="tmpfs is Linux")
def test_a_full_disk_stops_the_batch_with_a_clear_error(tmp_path: Path) -> None:
    manifest = _tree_repos(tmp_path)
    disk = tmp_path / "disk"
    _mount_tmpfs(disk, "5m")
    try:
        db = disk / "db"
        # the pre-flight check: 64 MB are wanted free, 5 MB are there (json fits, not all)
        refused = run_vgdb("ingest-batch", str(manifest), "--db", str(db), "--workers", "1",
                           "--no-communities", timeout=SLOW)
        assert refused.returncode == 1
        assert "error: no space left on device; the graph holds every repository marked " \
               "done" in refused.stderr
        assert "not enough free space to load json: " in refused.stdout
        # without it, Kuzu itself runs out of space in the middle of a load: it reports it
        # (exit 1 and the same message) or, in Kuzu 0.11.3, sometimes crashes (SIGSEGV)
        full = run_vgdb("ingest-batch", str(manifest), "--db", str(db), "--workers", "1",
                        "--no-communities", env={"VGDB_MIN_FREE_MB": "0"}, timeout=SLOW)
        assert full.returncode != 0
        if full.returncode == 1:
            assert "error: no space left on device" in full.stderr
        subprocess.run(["mount", "-o", "remount,size=400m", str(disk)], check=True)
        status = json.loads((db / "batch" / "status.json").read_text())["repositories"]
        done = {name for name, r in status.items() if r["status"] == "done"}
        # intact: what is marked done is there (a read-write open replays what a failed
        # checkpoint left, as after a kill -9)
        with Store.open(db) as store:
            repos = set(store.cypher("MATCH (f:File) RETURN DISTINCT f.repo")[:, 0].to_list())
        assert done <= repos <= {"json", "tomllib", "user"}
        rerun = run_vgdb("ingest-batch", str(manifest), "--db", str(db), "--workers", "1",
                         "--no-communities", "--json", timeout=SLOW)
        assert rerun.returncode == 0, rerun.stderr
        assert {r["status"] for r in json.loads(rerun.stdout)["repositories"]} <= {
            "done", "unchanged"}
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def test_cli_prints_a_summary_table_and_fails_when_one_failed(tmp_path: Path) -> None:
    write_tree(tmp_path / "ok", {"ok.py": "def f():\n    pass\n"})
    manifest = _manifest(tmp_path / "m.toml", [{"path": "ok"}, {"path": "missing"}])
    result = run_vgdb("ingest-batch", str(manifest), "--db", str(tmp_path / "db"),
                      "--workers", "1", "--no-communities", cwd=ROOT, timeout=SLOW)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert any("ok" in line and "done" in line for line in lines)
    assert any("missing" in line and "failed" in line and "does not exist" in line
               for line in lines)
    assert "1 done, 1 failed" in result.stdout
    bad = run_vgdb("ingest-batch", str(tmp_path / "nope.toml"), "--db", str(tmp_path / "db2"),
                   timeout=SLOW)
    assert bad.returncode == 2
    assert "cannot read the manifest" in bad.stderr
    assert not (tmp_path / "db2").exists()  # checked before the database is created


def test_reopening_between_groups_gives_the_same_graph(tmp_path: Path) -> None:
    """A long batch restarts the engine every N groups (it returns its per-group memory
    only on close), keeping the store and its lock: with groups of one repository and a
    restart after each, the graph is the one a batch without restarts builds, and the store
    passed in is the one handed back, open."""
    spec = load_manifest(_tree_repos(tmp_path))
    graphs = []
    for name, every in (("reopened", 1), ("kept", 0)):
        first = Store.open(tmp_path / name)
        summary = run_batch(first, spec, workers=1, group_rows=1, reopen_every=every)
        assert _statuses(summary) == {"json": "done", "tomllib": "done", "user": "done"}
        assert [g[0] for g in summary.groups] == [1, 1, 1]
        assert summary.store is first
        assert first.cypher("RETURN 1 AS one")["one"].to_list() == [1]
        first.close()
        graphs.append(_graph(tmp_path / name))
    assert graphs[0] == graphs[1]
    assert len(graphs[0]["files"]) == 10
    assert ("sym:user/user.py#dump", "sym:json/__init__.py#dumps", "import") in \
        graphs[0]["calls"]
