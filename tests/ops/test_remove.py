"""`vgdb remove REPO`: the graph after a removal equals one ingested without that
repository (content digest per table), consumers' imports are re-resolved, derived indexes
follow, and entries about it are kept but unlinked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphdb import Store
from graphdb.health import table_digests
from graphdb.keyword import bm25, differences
from graphdb.vectors import vector_status
from ingest.remove import remove_repository
from ingest.sessions.record import Recorder
from queries.status import status
from schema import NodeNotFoundError
from tests.gitrepo import GitRepo
from tests.helpers import run_vgdb, vgdb_in_process
from tests.ops.repos import ingest


def _digests_of(db: Path, *roots: Path) -> dict[str, tuple[int, str]]:
    with Store.open(db) as store:
        for root in roots:
            ingest(store, root)
        return table_digests(store)


@pytest.mark.parametrize("removed", ["alib", "bapp"])
def test_remove_equals_graph_ingested_without_it(tmp_path: Path, alib: GitRepo,
                                                 bapp: GitRepo, removed: str) -> None:
    kept = bapp if removed == "alib" else alib
    expected = _digests_of(tmp_path / "only", kept.root)
    with Store.open(tmp_path / "db") as store:
        ingest(store, alib.root)
        ingest(store, bapp.root)
        calls = ("MATCH (:Symbol {name: 'run'})-[:CALLS]->(t) RETURN t.id")
        linked = store.cypher(calls)["t.id"].to_list()
        assert linked == ["sym:alib/alib/core.py#helper"]  # cross-repository before
        summary = remove_repository(store, removed)
        assert table_digests(store) == expected
        assert summary.deleted["repositories"] == 1
        assert summary.deleted["people"] == 1  # the removed repository's only author
        if removed == "alib":
            assert summary.relinked == {"bapp": 2}  # bapp/main.py and what uses its names
            assert store.cypher(calls)["t.id"].to_list() == ["ext:python:alib.helper"]
        else:
            assert summary.relinked == {}
        assert set(differences(store).values()) == {"ok"}  # keyword index follows
        hits = bm25(store, "helper add one", table="Symbol")
        assert all(not h.id.startswith(f"sym:{removed}/") for h in hits)
        live = vector_status(store)["tables"]["Symbol"]["live"]
        assert live == store.cypher("MATCH (s:Symbol) RETURN count(*)").item()


def test_entries_about_removed_code_are_kept_unlinked(tmp_path: Path, alib: GitRepo) -> None:
    with Store.open(tmp_path / "db") as store:
        ingest(store, alib.root)
        recorder = Recorder(store, session="s1", repo="alib")
        recorder.start_session()
        made = recorder.record_decision("Keep helper pure", "no I/O in helper",
                                        symbols=["alib/core.py#helper"])
        entry = made.id
        about = ("MATCH (e:Entry)-[:ABOUT]->(s) WHERE e.id = $e RETURN s.id")
        assert store.cypher(about, {"e": entry})["s.id"].to_list() == [
            "sym:alib/alib/core.py#helper"]
        summary = remove_repository(store, "alib")
        assert summary.kept_entries == 1
        rows = store.cypher("MATCH (e:Entry) WHERE e.id = $e RETURN e.title, e.repo",
                            {"e": entry}).rows()
        assert rows == [("Keep helper pure", "alib")]
        assert store.cypher(about, {"e": entry}).is_empty()
        assert store.cypher("MATCH (s:Session) RETURN s.id").height == 1


def test_remove_unknown_repository(tmp_path: Path, alib: GitRepo,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "db")
    assert vgdb_in_process(capsys, "ingest", str(alib.root), "--db", db).returncode == 0
    with Store.open(db) as store, pytest.raises(NodeNotFoundError) as info:
        remove_repository(store, "nope")
    assert info.value.closest == ("alib",)
    run = vgdb_in_process(capsys, "remove", "nope", "--db", db)
    assert run.returncode == 1 and "no repository 'nope'" in run.stderr
    run = vgdb_in_process(capsys, "remove", "alib", "--db", db)
    assert run.returncode == 0 and run.stdout.startswith("removed alib: ")
    with Store.open(db, read_only=True) as store:
        assert store.cypher("MATCH (n) RETURN count(*)").item() == \
            store.cypher("MATCH (n:Meta) RETURN count(*)").item()


def test_remove_killed_after_its_commit_is_finished_by_running_it_again(
        tmp_path: Path, alib: GitRepo, bapp: GitRepo) -> None:
    expected = _digests_of(tmp_path / "only", bapp.root)
    db = tmp_path / "db"
    with Store.open(db) as store:
        ingest(store, alib.root)
        ingest(store, bapp.root)
    killed = run_vgdb("remove", "alib", "--db", str(db),
                      env={"VGDB_FAILPOINT": "store:committed#1"})  # the deleting commit
    assert killed.returncode == -9
    with Store.open(db) as store:
        assert table_digests(store) != expected  # bapp's imports of alib are not resolved
        assert status(store).reasons == (
            "the removal of alib was interrupted: run `vgdb remove alib` again",
            "keyword index not synced: Symbol")
    again = run_vgdb("remove", "alib", "--db", str(db), "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["relinked"] == {"bapp": 2}
    with Store.open(db) as store:
        assert table_digests(store) == expected
        assert set(differences(store).values()) == {"ok"}
        assert status(store).reasons == ()
