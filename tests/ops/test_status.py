"""`vgdb status`: exactly N commits behind after N commits, files changed since, derived
state, and `--check` for CI; through the CLI and GraphQL."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest

from api.operate import tree_files
from graphdb import Store
from graphdb.communities import mark_communities_due
from graphdb.coverage import CoverageWrite, coverage_state, write_coverage
from graphdb.health import table_digests
from ingest.remove import remove_repository
from queries.status import status
from schema import NodeNotFoundError
from tests.gitrepo import GitRepo
from tests.helpers import vgdb_in_process
from tests.ops.repos import ingest


def test_status_counts_commits_behind_and_files_changed(tmp_path: Path, alib: GitRepo) -> None:
    db = tmp_path / "db"
    with Store.open(db) as store:
        ingest(store, alib.root)
        fresh = status(store, walk=tree_files)
        assert fresh.stale is False and fresh.reasons == ()
        [repo] = fresh.repositories
        assert (repo.name, repo.commits_behind, repo.commits_diverged) == ("alib", 0, 0)
        assert repo.ingested_commit == repo.head == alib.git("rev-parse", "HEAD")
        assert (repo.files_changed, repo.files_added, repo.files_deleted) == ((), (), ())
        assert repo.communities_current and fresh.keyword_current and fresh.embeddings_current
        assert repo.coverage_recorded_at is None and repo.coverage_age_seconds is None
        assert fresh.graph_version == store.graph_version() > 0
        assert repo.graph_version == store.graph_version("alib") > 0
        assert fresh.size_bytes > 0 and fresh.engine.startswith("ladybug ")

        for n in range(3):
            alib.commit(f"change {n}", {"alib/core.py": f"def helper(x):\n    return x + {n}\n"})
        alib.write({"alib/extra.py": "X = 1\n"})          # new, uncommitted
        (alib.root / "alib" / "__init__.py").unlink()     # deleted, uncommitted
        behind = status(store, "alib", walk=tree_files)
        [repo] = behind.repositories
        assert repo.commits_behind == 3 and repo.head == alib.git("rev-parse", "HEAD")
        assert repo.files_changed == ("alib/core.py",)
        assert repo.files_added == ("alib/extra.py",)
        assert repo.files_deleted == ("alib/__init__.py",)
        assert repo.reasons == ("3 commits behind HEAD", "3 files changed since the ingest")
        assert behind.stale and behind.reasons == ("alib: 3 commits behind HEAD",
                                                   "alib: 3 files changed since the ingest")

        ingest(store, alib.root)
        [repo] = status(store, walk=tree_files).repositories
        assert (repo.commits_behind, repo.stale) == (0, False)
        with store.write() as tx:
            mark_communities_due(store, tx, "alib")
        [repo] = status(store, walk=tree_files).repositories
        assert repo.reasons == ("communities wait for detection",)


def test_status_touched_but_unchanged_file_is_current(tmp_path: Path, alib: GitRepo) -> None:
    with Store.open(tmp_path / "db") as store:
        ingest(store, alib.root)
        path = alib.root / "alib" / "core.py"
        path.write_bytes(path.read_bytes())  # a new mtime, the same bytes
        [repo] = status(store, walk=tree_files).repositories
        assert repo.files_changed == () and not repo.stale


def test_status_after_branch_switch_reports_diverged(tmp_path: Path, alib: GitRepo) -> None:
    alib.git("checkout", "-q", "-b", "topic")
    alib.commit("topic work", {"alib/topic.py": "T = 1\n"})
    with Store.open(tmp_path / "db") as store:
        ingest(store, alib.root)
        alib.git("checkout", "-q", "main")
        [repo] = status(store, walk=tree_files).repositories
        assert (repo.commits_behind, repo.commits_diverged) == (0, 1)
        assert repo.files_deleted == ("alib/topic.py",)
        assert "1 ingested commit not on HEAD" in repo.reasons


def test_status_unknown_repo(store: Store) -> None:
    with pytest.raises(NodeNotFoundError, match="no repository 'nope'"):
        status(store, "nope")


def test_cli_status_check_exit_codes(tmp_path: Path, alib: GitRepo,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "db")
    assert vgdb_in_process(capsys, "ingest", str(alib.root), "--db", db).returncode == 0
    ok = vgdb_in_process(capsys, "status", "--db", db, "--check")
    assert (ok.returncode, ok.stdout) == (0, "")
    alib.commit("one more", {"alib/core.py": "def helper(x):\n    return x\n"})
    stale = vgdb_in_process(capsys, "status", "--db", db, "--check")
    assert stale.returncode == 1
    assert stale.stdout.splitlines() == ["stale: alib: 1 commit behind HEAD",
                                         "stale: alib: 1 file changed since the ingest"]
    data = json.loads(vgdb_in_process(capsys, "status", "alib", "--db", db, "--json").stdout)
    assert data["stale"] is True
    assert data["repositories"][0]["commits_behind"] == 1
    assert data["repositories"][0]["files_changed"] == ["alib/core.py"]
    shown = vgdb_in_process(capsys, "status", "--db", db)
    assert shown.returncode == 0 and "1 commits behind" in shown.stdout
    missing = vgdb_in_process(capsys, "status", "nope", "--db", db)
    assert missing.returncode == 1 and "no repository 'nope'" in missing.stderr


def _record_coverage(store: Store, at: datetime) -> None:
    write_coverage(store, CoverageWrite(
        repo="bapp", commit="c0ffee", valid_from=at,
        to_symbols=pl.DataFrame({"from": ["sym:bapp/tests/test_main.py#test_run"],
                                 "to": ["sym:bapp/bapp/main.py#App.run"], "lines": ["6-7"],
                                 "count": [2], "phases": ["run"], "cases": [""]}),
        to_files=pl.DataFrame(), summary={"tests": 1}), now=at)


def test_status_coverage_age_and_remove_takes_coverage(tmp_path: Path, alib: GitRepo,
                                                       bapp: GitRepo) -> None:
    at = datetime(2026, 11, 20, 12, 0, 0)
    with Store.open(tmp_path / "only") as store:
        ingest(store, alib.root)
        expected = table_digests(store)
    with Store.open(tmp_path / "db") as store:
        ingest(store, alib.root)
        ingest(store, bapp.root)
        _record_coverage(store, at)
        report = status(store, "bapp", walk=tree_files, now=datetime(2026, 11, 20, 14, 30,
                                                                     tzinfo=UTC))
        [repo] = report.repositories
        assert repo.coverage_recorded_at == "2026-11-20T12:00:00"
        assert repo.coverage_age_seconds == 9000.0
        assert not repo.stale  # an old recording is reported, not counted as stale
        remove_repository(store, "bapp")
        assert store.cypher("MATCH ()-[e:EXECUTES]->() RETURN count(e)").item() == 0
        assert coverage_state(store, "bapp") is None
        assert table_digests(store) == expected


def test_status_honours_the_ingest_excludes(tmp_path: Path, alib: GitRepo,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    alib.commit("tests", {"tests/test_core.py": "def test_helper():\n    pass\n"})
    db = str(tmp_path / "db")
    ingested = vgdb_in_process(capsys, "ingest", str(alib.root), "--db", db,
                               "--exclude", "tests/")
    assert ingested.returncode == 0
    plain = json.loads(vgdb_in_process(capsys, "status", "--db", db, "--json").stdout)
    assert plain["repositories"][0]["files_added"] == ["tests/test_core.py"]
    told = vgdb_in_process(capsys, "status", "--db", db, "--check", "--exclude", "tests/")
    assert (told.returncode, told.stdout) == (0, "")
