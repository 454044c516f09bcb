"""A served update answers before its derived data (api.serve_derive), and nobody sees the
graph without it: readers wait for it (or start it), writers run it first, a kill before it
ran leaves it to the next ingest. End to end: a real `vgdb serve --writable`, the real `vgdb`
command; the gate itself on a real uvicorn server over real HTTP."""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from pathlib import Path

import httpx
import pytest

from api.graphql import Settings
from api.serve_derive import start_deriving, stop_deriving
from api.write_lock import WriteLock
from graphdb import Store
from tests.api.serving import serving_app
from tests.gitrepo import GitRepo
from tests.helpers import run_on
from tests.ops.repos import BAPP, ingested_db
from tests.ops.server import serving

EDIT = ('\n\ndef zq_served_edit(y):\n    """As in doi:10.1088/1742-5468/2008/10/p10008."""\n'
        "    return helper(y) + 3\n")
NEW_ID = "sym:bapp/bapp/main.py#zq_served_edit"
INGEST = ("ingest", ".", "--name", "bapp", "--json")
READS = [("search", "zq_served_edit", "--json", "--k", "3"),
         ("communities", "bapp", "--scope", "symbol", "--json"),
         ("communities", "bapp", "--scope", "file", "--json"),
         ("briefing", "bapp/main.py", "--json"),
         ("paper-code", "paper:doi:10.1088/1742-5468/2008/10/p10008", "--json")]


@pytest.fixture
def project(tmp_path: Path) -> GitRepo:
    repo = GitRepo(tmp_path / "bapp")
    repo.commit("bapp: first", BAPP, author="App Author <app@example.org>")
    return repo


@pytest.fixture
def db(tmp_path: Path, project: GitRepo) -> Path:
    return ingested_db(tmp_path / "db", project.root)


def _answer(run: tuple[int, str, str]) -> tuple[int, object, str]:
    """A command's result, its JSON without the graph version (the two databases compared
    took different numbers of write transactions to the same content)."""
    code, out, err = run
    data = json.loads(out)
    if isinstance(data, dict):
        data.pop("graph_version", None)
    return code, data, err


def _edit(project: GitRepo) -> None:
    main = project.root / "bapp" / "main.py"
    main.write_text(main.read_text() + EDIT)


def _communities(db: Path) -> list[tuple]:
    with Store.open(db, read_only=True) as store:
        return sorted(store.cypher(
            "MATCH (m)-[:IN_COMMUNITY]->(c:Community) RETURN m.id AS m, c.id AS c, "
            "c.level AS level, c.scope AS scope").rows())


def _applied_by_the_cli(db: Path, project: GitRepo, tmp_path: Path) -> Path:
    """A copy of ``db`` (taken before the edit) updated by `vgdb ingest` with no server."""
    copy = tmp_path / "cli-db"
    code, out, err = run_on(copy, INGEST, project.root, VGDB_NO_SERVER="1")
    assert (code, err) == (0, ""), err
    assert json.loads(out)["communities"]["status"] == "updated"
    return copy


def test_readers_right_after_a_served_edit_see_its_derived_data(
        db: Path, project: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(db, tmp_path / "cli-db")
    before = {args: run_on(db, args, project.root) for args in READS[1:3]}
    _edit(project)
    # the worker would wait 60 s: only a reader starting the derivation lets it finish now
    monkeypatch.setenv("VGDB_DERIVE_DELAY", "60")
    with serving(db):
        monkeypatch.delenv("VGDB_DERIVE_DELAY")
        started = time.monotonic()
        code, out, err = run_on(db, INGEST, project.root)
        assert (code, err) == (0, "")
        data = json.loads(out)
        assert data["files"]["modified"] == 1
        assert data["communities"] == {"status": "deferred", "repo": "bapp"}
        assert "keyword" not in data["seconds"]  # not in the answer: derived after it
        served = {args: run_on(db, args, project.root) for args in READS}
        assert time.monotonic() - started < 30
    assert NEW_ID in served[READS[0]][1]  # the search's hits
    assert NEW_ID in served[READS[4]][1]  # the paper its docstring cites
    assert served[READS[1]] != before[READS[1]]  # its new member counted (JSON: no ids)
    # what the readers saw is what a CLI update (derived data in the same command) leaves
    cli = _applied_by_the_cli(db, project, tmp_path)
    assert _communities(db) == _communities(cli)
    assert NEW_ID in {row[0] for row in _communities(db)}
    for args in READS:
        assert _answer(served[args]) == _answer(run_on(cli, args, project.root)), args


def test_the_next_served_write_runs_the_pending_derivation_first(
        db: Path, project: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two served edits back to back: the second runs the first's derivation before its own
    change (the write lock's hook), so the derived data follow both, in order."""
    shutil.copytree(db, tmp_path / "cli-db")
    _edit(project)
    monkeypatch.setenv("VGDB_DERIVE_DELAY", "60")
    with serving(db):
        monkeypatch.delenv("VGDB_DERIVE_DELAY")
        assert run_on(db, INGEST, project.root)[0] == 0
        (project.root / "bapp" / "more.py").write_text("def zq_second(x):\n    return x\n")
        code, out, _ = run_on(db, INGEST, project.root)
        assert code == 0 and json.loads(out)["files"]["added"] == 1
        served = run_on(db, READS[1], project.root)
    assert run_on(tmp_path / "cli-db", INGEST, project.root, VGDB_NO_SERVER="1")[0] == 0
    assert _communities(db) == _communities(tmp_path / "cli-db")
    assert _answer(served) == _answer(run_on(tmp_path / "cli-db", READS[1], project.root))
    assert {NEW_ID, "sym:bapp/bapp/more.py#zq_second"} <= {r[0] for r in _communities(db)}


@pytest.mark.parametrize("point", ["served:derive", "keyword-before-commit"])
def test_a_kill_during_derived_work_loses_nothing_committed(
        db: Path, project: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        point: str) -> None:
    """Killed before any derivation (history, papers, indexes, communities all pending) or
    in the keyword sync: the next ingest derives what is missing."""
    shutil.copytree(db, tmp_path / "cli-db")
    _edit(project)
    # the server SIGKILLs itself at ``point``, after the answer (1 s after it: the answer
    # has left even on a loaded machine)
    monkeypatch.setenv("VGDB_FAILPOINT", point)
    monkeypatch.setenv("VGDB_DERIVE_DELAY", "1")
    with serving(db):
        monkeypatch.delenv("VGDB_FAILPOINT")
        monkeypatch.delenv("VGDB_DERIVE_DELAY")
        pid = json.loads((db / "server.json").read_text())["pid"]
        code, out, err = run_on(db, INGEST, project.root)
        assert (code, err) == (0, "")
        assert json.loads(out)["communities"]["status"] == "deferred"
        deadline = time.monotonic() + 30
        while _alive(pid):
            assert time.monotonic() < deadline, "the failpoint was not reached"
            time.sleep(0.05)
    # the code is committed; the stale keyword index and the due communities were marked
    # with it, so the next ingest (from the shell: the server is gone) derives them
    code, out, err = run_on(db, INGEST, project.root)
    assert (code, err) == (0, ""), err
    again = json.loads(out)
    assert again["files"]["parsed"] == 0
    assert again["communities"]["status"] == "updated"
    cli = _applied_by_the_cli(db, project, tmp_path)
    assert _communities(db) == _communities(cli)
    for args in READS:
        assert _answer(run_on(db, args, project.root)) == \
            _answer(run_on(cli, args, project.root)), args


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie until the test's Popen reaps it: dead for our purpose
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0] != "Z"
    except (OSError, IndexError):
        return False


def test_a_request_waits_for_the_pending_derivation_or_is_refused_busy(tmp_path: Path) -> None:
    """The gate on a real server: a query during a pending derivation answers after it (never
    before), or BUSY at its deadline; a writer taking the lock runs it first."""
    lock = WriteLock()
    release, ran = threading.Event(), []

    def slow() -> None:
        release.wait(20)
        ran.append("slow")

    with Store.open(tmp_path / "db") as store:
        deriver = start_deriving(lock, delay=0)
        try:
            with serving_app(store, Settings(allow_anonymous=True, timeout=0.5)) as url:
                query = {"query": "{ __typename }"}
                assert httpx.post(f"{url}/graphql", json=query).status_code == 200
                with lock.hold("the test's write"):
                    deriver.defer("a slow derivation", slow)
                busy = httpx.post(f"{url}/graphql", json=query, timeout=10)
                assert busy.status_code == 503
                assert busy.json()["errors"][0]["extensions"]["code"] == "BUSY"
                assert ran == []
                threading.Timer(0.2, release.set).start()
                deriver.defer("a second one", lambda: ran.append("second"))
                started = time.monotonic()
                with lock.hold("another write"):  # the pending derivations run first
                    assert ran == ["slow", "second"]
                assert time.monotonic() - started >= 0.1
                answer = httpx.post(f"{url}/graphql", json=query)
                assert answer.json()["data"] == {"__typename": "Query"}
                assert [label for label, _, error in deriver.done if error is None] == [
                    "a slow derivation", "a second one"]
        finally:
            stop_deriving(deriver)
