"""A cold ingest run inside `vgdb serve --writable` (a process with threads: the HTTP
server's, the engine's) resolves in forked children like a `vgdb ingest` from a shell
(ingest.resolve.forked, past MIN_FILES files): the same graph, edge for edge, and the
server lives on and answers. A fork taken while another thread holds a lock the child
needs would hang the child and the answer here."""

from __future__ import annotations

import json
from pathlib import Path

from graphdb import Store
from ingest.resolve.forked import MIN_FILES
from tests.gitrepo import GitRepo
from tests.helpers import run_vgdb
from tests.ops.server import serving

MODULES = MIN_FILES + 30

EDGES = ("MATCH (a)-[r:CALLS|IMPORTS|INHERITS]->(b) "
         "RETURN label(r) AS kind, a.id AS source, b.id AS target ORDER BY kind, source, target")


def _module(i: int) -> str:
    if i == 0:
        return ("class Base0:\n    def run(self):\n        return 0\n\n\n"
                "def step0():\n    return 1\n")
    prev = i - 1
    return (f"from pkg.m{prev:03d} import Base{prev}, step{prev}\n\n\n"
            f"class Base{i}(Base{prev}):\n"
            f"    def run(self):\n"
            f"        return super().run() + step{prev}()\n\n\n"
            f"def step{i}():\n"
            f"    return Base{i}().run() + step{prev}()\n")


def _edges(db: Path) -> list[tuple[str, str, str]]:
    with Store.open(db, read_only=True) as store:
        return store.cypher(EDGES).rows()


def test_a_served_cold_ingest_resolves_forked_like_the_shell(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "chain")
    files = {"pkg/__init__.py": ""}
    files.update({f"pkg/m{i:03d}.py": _module(i) for i in range(MODULES)})
    repo.commit("a chain of modules", files)
    args = ("ingest", str(repo.root), "--name", "chain", "--json", "--no-communities",
            "--no-history", "--workers", "2")

    direct_db = tmp_path / "direct"
    done = run_vgdb(*args, "--db", str(direct_db))
    assert done.returncode == 0, done.stderr
    direct = _edges(direct_db)
    calls = [edge for edge in direct if edge[0] == "CALLS"]
    # the chain resolved across files, up to its last link
    assert ("CALLS", f"sym:chain/pkg/m{MODULES - 1:03d}.py#step{MODULES - 1}",
            f"sym:chain/pkg/m{MODULES - 2:03d}.py#step{MODULES - 2}") in calls

    served_db = tmp_path / "served"
    with Store.open(served_db):
        pass  # an empty graph for the server to hold
    with serving(served_db):
        done = run_vgdb(*args, "--db", str(served_db), timeout=300)
        assert (done.returncode, done.stderr) == (0, "")
        assert json.loads(done.stdout)["files"]["added"] == MODULES + 1
        answer = run_vgdb("cypher", "MATCH (s:Symbol) RETURN count(*) AS n", "--json",
                          "--db", str(served_db))
        assert answer.returncode == 0
        assert json.loads(answer.stdout) == [{"n": 4 * MODULES + 1}]  # with the modules
    assert _edges(served_db) == direct
