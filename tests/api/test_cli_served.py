"""The resident path (api.resident): while `vgdb serve` holds a database, the CLI's query
commands are answered by it, with the same output, exit code and stderr as when the CLI
opens the database itself; without a live server (none, killed, not answering) the CLI opens
it directly. All end to end: a real server process, the real `vgdb` command."""

from __future__ import annotations

import json
import os
import signal
import stat
import sys
from pathlib import Path

import pytest

from graphdb import Store
from tests.gitrepo import GitRepo
from tests.helpers import run_on
from tests.ops.repos import BAPP, ingested_db
from tests.ops.server import serving

#: every servable command, with output worth comparing: text, JSON, markdown, errors
COMMANDS: list[tuple[str, ...]] = [
    ("impact", "bapp/main.py#App.run"),
    ("impact", "bapp/main.py#App", "--format", "json"),
    ("impact", "bapp/main.py", "--format", "markdown", "--depth", "2"),
    ("impact", "--base", "HEAD~1", "--root", "."),  # relative to the client's directory
    ("affected-tests", "bapp/main.py#App.run"),
    ("affected-tests", "bapp/main.py#App.run", "--format", "json"),
    ("search", "run app"),
    ("search", "run", "--json", "--k", "3"),
    ("provenance", "bapp/main.py#App.run"),
    ("provenance", "bapp/main.py", "--json"),
    ("supersession", "bapp/main.py#App.run"),
    ("overview",),
    ("overview", "bapp", "--json"),
    ("cypher", "MATCH (s:Symbol) RETURN s.qualname AS q ORDER BY q"),
    ("cypher", "MATCH (s:Symbol) WHERE s.qualname = $q RETURN s.id AS id", "--param",
     "q=App", "--json"),
    ("communities", "bapp"),
    ("briefing", "bapp/main.py"),
    ("referenced-papers", "bapp/main.py"),
    ("citations", "doi:10.1000/nothing"),  # an error: exit code and message compared
    ("impact", "nope.py"),  # unknown target: exit 1
    ("cypher", "CREATE (:Symbol {id: 'x'})"),  # a write: refused, exit 2
    ("impact", "--depth", "zero"),  # click's usage error: exit 2
]


@pytest.fixture
def project(tmp_path: Path) -> GitRepo:
    repo = GitRepo(tmp_path / "bapp")
    repo.commit("bapp: first", BAPP, author="App Author <app@example.org>")
    repo.commit("bapp: run twice", {"bapp/main.py": BAPP["bapp/main.py"].replace(
        "return helper(2)", "return helper(2) + 0")}, author="App Author <app@example.org>")
    return repo


@pytest.fixture
def db(tmp_path: Path, project: GitRepo) -> Path:
    return ingested_db(tmp_path / "db", project.root)


def test_served_output_is_the_direct_output(db: Path, project: GitRepo) -> None:
    direct = {args: run_on(db, args, project.root) for args in COMMANDS}
    assert direct[COMMANDS[0]][0] == 0 and "bapp/main.py" in direct[COMMANDS[0]][1]
    with serving(db):  # --writable: the database is locked, only the server can answer
        record = json.loads((db / "server.json").read_text())
        assert stat.S_IMODE((db / "server.json").stat().st_mode) == 0o600
        assert len(record["token"]) >= 40
        locked = run_on(db, COMMANDS[0], project.root, VGDB_NO_SERVER="1")
        assert locked[0] == 3 and "locked for writing by process" in locked[2]
        for args in COMMANDS:
            assert run_on(db, args, project.root) == direct[args], args


def test_owner_token_is_required(db: Path) -> None:
    import httpx

    with serving(db) as url:
        body = {"argv": ["overview", "--db", str(db)], "terminal": {}}
        refused = httpx.post(f"{url}/cli", json=body,
                             headers={"Authorization": "Bearer not-the-token"})
        assert refused.status_code == 401
        token = json.loads((db / "server.json").read_text())["token"]
        answer = httpx.post(f"{url}/cli", json=body,
                            headers={"Authorization": f"Bearer {token}"}).json()
        assert answer["code"] == 0 and "bapp" in answer["stdout"]
        writes = httpx.post(f"{url}/cli", json={**body, "argv": ["ingest-session", "x"]},
                            headers={"Authorization": f"Bearer {token}"}).json()
        assert writes["code"] == 2 and "not served" in writes["stderr"]


def test_ingest_goes_to_the_writable_server(db: Path, project: GitRepo) -> None:
    """`vgdb ingest` while `vgdb serve --writable` holds the database: applied by the server
    (in its process, which lives on), relative PATH and --db taken from the client's
    directory; the server's next answers see the update."""
    (project.root / "bapp" / "extra.py").write_text("def added_here():\n    return 1\n")
    args = ("ingest", ".", "--name", "bapp", "--json", "--no-communities")
    with serving(db):
        pid = json.loads((db / "server.json").read_text())["pid"]
        code, out, err = run_on(Path("..") / db.name, args, project.root)
        assert (code, err) == (0, "")
        data = json.loads(out)
        assert (data["files"]["added"], data["files"]["modified"]) == (1, 0)
        assert data["root"] == str(project.root)
        os.kill(pid, 0)  # the server lives on
        assert json.loads((db / "server.json").read_text())["pid"] == pid
        again = json.loads(run_on(db, args, project.root)[1])
        assert again["files"]["parsed"] == 0 and again["files"]["added"] == 0
        code, out, _ = run_on(db, ("cypher", "MATCH (s:Symbol {qualname: 'added_here'}) "
                                 "RETURN s.id AS id", "--json"), project.root)
        assert code == 0 and json.loads(out) == [{"id": "sym:bapp/bapp/extra.py#added_here"}]


def test_a_served_ingest_is_not_cut_off_by_the_request_timeout(db: Path,
                                                                project: GitRepo) -> None:
    """`vgdb serve --timeout` bounds queries; an ingest run for the owner has no deadline,
    as from a shell (with one, a loaded machine saw it refused half done after 10 s)."""
    (project.root / "bapp" / "late.py").write_text("def added_late():\n    return 2\n")
    args = ("ingest", ".", "--name", "bapp", "--json", "--no-communities")
    with serving(db, "--timeout", "0.001"):
        code, out, err = run_on(db, args, project.root)
        assert (code, err) == (0, "")
        assert json.loads(out)["files"]["added"] == 1
    with Store.open(db, read_only=True) as store:
        assert store.cypher("MATCH (s:Symbol {qualname: 'added_late'}) RETURN s.id AS id"
                            ).rows() == [("sym:bapp/bapp/late.py#added_late",)]


def test_stale_record_falls_back_to_opening_the_database(db: Path, project: GitRepo) -> None:
    args = ("impact", "bapp/main.py#App.run")
    expected = run_on(db, args, project.root)
    # a record whose process is gone (a server killed with -9 leaves it behind)
    (db / "server.json").write_text(json.dumps({
        "url": "http://127.0.0.1:9", "pid": 2 ** 22 + 12345, "token": "t" * 43,
        "python": "x"}))
    assert run_on(db, args, project.root) == expected
    # a live process (this one) that does not answer at that address
    record = {"url": "http://127.0.0.1:9", "pid": os.getpid(), "token": "t" * 43,
              "python": sys.executable}
    (db / "server.json").write_text(json.dumps(record))
    assert run_on(db, args, project.root) == expected


def test_a_killed_server_leaves_a_record_the_cli_ignores(db: Path, project: GitRepo) -> None:
    args = ("overview", "bapp", "--json")
    expected = run_on(db, args, project.root)
    with serving(db):
        pid = json.loads((db / "server.json").read_text())["pid"]
        assert run_on(db, args, project.root) == expected
        os.kill(pid, signal.SIGKILL)
    assert (db / "server.json").exists()
    assert run_on(db, args, project.root) == expected


def test_sigterm_stops_the_server_and_removes_its_record(db: Path) -> None:
    import subprocess

    from tests.helpers import ROOT, VGDB
    from tests.ops.server import free_port, wait_healthy

    port = free_port()
    server = subprocess.Popen([*VGDB, "serve", "--db", str(db), "--port", str(port)], cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": str(ROOT)},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_healthy(f"http://127.0.0.1:{port}")
        assert json.loads((db / "server.json").read_text())["pid"] == server.pid
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    assert not (db / "server.json").exists()


def test_served_impact_reads_the_config_of_the_clients_directory(db: Path,
                                                                 project: GitRepo) -> None:
    (project.root / "vgdb.toml").write_text("[impact]\nlimit = 1\n")
    args = ("impact", "bapp/main.py#App", "--format", "json")
    direct = run_on(db, args, project.root)
    unconfigured = run_on(db, args, project.root.parent)
    assert direct[0] == 0 and direct != unconfigured  # the file's limit applies
    assert len(json.loads(direct[1])["symbols"]) == 1
    with serving(db):
        assert run_on(db, args, project.root) == direct
        assert run_on(db, args, project.root.parent) == unconfigured
