"""kill -9 at each named phase of an ingest (DESIGN §3, ACCEPTANCE "kill -9 is tested at named
phases"): the previous graph stays intact and openable, and rerunning finishes the job.

Each case ingests a real tree (baseline), edits it (one file edited, one added, one deleted),
then runs the real ``vgdb ingest`` in a subprocess with ``VGDB_FAILPOINT=<phase>`` so that the
process SIGKILLs itself at that phase. The database is then compared, as sorted rows, with the
baseline graph; a rerun without the failpoint is compared with a fresh full ingest of the
edited tree.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from graphdb import FAILPOINTS, Store
from ingest import IngestOptions, ingest_repository
from tests.helpers import ROOT, VGDB, run_vgdb, write_tree

pytestmark = pytest.mark.slow

Snapshot = dict[str, list[tuple[object, ...]]]

N_MODULES = 31  # + pkg/__init__.py: 32 files, above ingest.parsing.POOL_MIN_FILES (24)
EDITED, ADDED, DELETED = "pkg/mod_05.py", "pkg/extra.py", "pkg/mod_20.py"


# ------------------------------------------------------------------------------ the trees
def _module(i: int) -> str:
    """Module i imports module i-1, subclasses its class and calls its function."""
    if i == 0:
        return ('"""Module 0."""\n\n\nclass C_00:\n    def m(self):\n        return f_00()\n\n\n'
                "def f_00():\n    return 0\n")
    prev = f"mod_{i - 1:02d}"
    return (f'"""Module {i}."""\nfrom pkg import {prev}\nfrom pkg.{prev} import f_{i - 1:02d}\n'
            f"\n\nclass C_{i:02d}({prev}.C_{i - 1:02d}):\n    def m(self):\n"
            f"        return f_{i:02d}() + super().m()\n\n\n"
            f"def f_{i:02d}():\n    return f_{i - 1:02d}() + 1\n")


def _tree_files() -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {"pkg/__init__.py": "from pkg.mod_00 import f_00\n"}
    files.update({f"pkg/mod_{i:02d}.py": _module(i) for i in range(N_MODULES)})
    return files


def _edit(root: Path, *, touch_all: bool = False) -> None:
    """Edit one file (a rename its importers see), add one, delete one (others import it).

    ``touch_all`` also bumps every file's mtime, as a ``git checkout`` would: every file is
    then re-read and hashed, which sends more than _POOL_MIN_FILES tasks to the process pool.
    """
    write_tree(root, {
        EDITED: '"""Module 5, edited."""\nfrom pkg import mod_04\nfrom pkg.mod_04 import f_04\n'
                "\n\nclass C_05(mod_04.C_04):\n    def m(self):\n        return g_05()\n\n\n"
                "def g_05():\n    return f_04() + 5\n\n\ndef h_05():\n    return g_05()\n",
        ADDED: "from pkg import mod_10\nfrom pkg.mod_03 import f_03\n\n\n"
               "def extra():\n    return mod_10.f_10() + f_03()\n\n\n"
               "class E(mod_10.C_10):\n    pass\n",
    })
    (root / DELETED).unlink()
    if touch_all:
        for path in sorted(root.rglob("*.py")):
            st = path.stat()
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))


# ------------------------------------------------------------------------------ snapshots
def _where(alias: str, current_only: bool) -> str:
    return f"WHERE {alias}.valid_to IS NULL" if current_only else ""


def snapshot(store: Store, *, current_only: bool) -> Snapshot:
    """The code graph as sorted rows per table (timestamps and mtimes left out).

    ``current_only=False`` keeps non-current nodes too (with a current flag): after a crash the
    database must be exactly the baseline, tombstones included. ``current_only=True`` is what
    a fresh rebuild can be compared with (DESIGN §3)."""
    edge_where = ("WHERE e.valid_to IS NULL AND a.valid_to IS NULL AND b.valid_to IS NULL"
                  if current_only else "")
    queries = {
        "File": f"MATCH (n:File) {_where('n', current_only)} RETURN n.id, n.sha, n.size, "
                "n.language, n.module, n.loc, n.parse_status, n.parse_error, n.is_test, "
                "n.valid_to IS NULL",
        "Symbol": f"MATCH (n:Symbol) {_where('n', current_only)} RETURN n.id, n.file, n.kind, "
                  "n.signature, n.docstring, n.start_line, n.end_line, n.valid_to IS NULL",
        "External": f"MATCH (n:External) {_where('n', current_only)} RETURN n.id, n.kind",
        "CodeRef": "MATCH (n:CodeRef) RETURN n.id, n.file, n.decls, n.calls, n.count",
        "CONTAINS": f"MATCH (a)-[e:CONTAINS]->(b) {edge_where} RETURN a.id, b.id",
        "IMPORTS": f"MATCH (a)-[e:IMPORTS]->(b) {edge_where} "
                   "RETURN a.id, b.id, e.name, e.line, e.resolution",
        "CALLS": f"MATCH (a)-[e:CALLS]->(b) {edge_where} "
                 "RETURN a.id, b.id, e.line, e.resolution, e.count",
        "INHERITS": f"MATCH (a)-[e:INHERITS]->(b) {edge_where} "
                    "RETURN a.id, b.id, e.kind, e.resolution",
    }
    return {name: sorted(store.cypher(q).rows(), key=repr) for name, q in queries.items()}


def _snapshot_of(db: Path, *, current_only: bool) -> Snapshot:
    with Store.open(db) as store:
        return snapshot(store, current_only=current_only)


def _ingest_in_process(root: Path, db: Path) -> None:
    with Store.open(db) as store:
        ingest_repository(store, root, options=IngestOptions(workers=1))


def _assert_same(found: Snapshot, expected: Snapshot) -> None:
    for table in expected:  # per table, so a failure names the table that differs
        assert found[table] == expected[table], table
    assert found == expected


# ------------------------------------------------------------------------------ processes
@dataclass(frozen=True)
class Graphs:
    """Built once per module: the baseline tree and its database, and expected snapshots."""

    tree: Path
    db: Path
    baseline: Snapshot  # the baseline database, non-current rows included
    edited: Snapshot  # current graph of a fresh ingest of the edited tree


@pytest.fixture(scope="module")
def graphs(tmp_path_factory: pytest.TempPathFactory) -> Graphs:
    base = tmp_path_factory.mktemp("baseline")
    tree = write_tree(base / "src", _tree_files())
    _ingest_in_process(tree, base / "db")
    baseline = _snapshot_of(base / "db", current_only=False)
    assert len(baseline["File"]) == N_MODULES + 1 and baseline["CALLS"] and baseline["IMPORTS"]

    other = tmp_path_factory.mktemp("edited")
    edited_tree = write_tree(other / "src", _tree_files())  # same repository name: "src"
    _edit(edited_tree)
    _ingest_in_process(edited_tree, other / "db")
    edited = _snapshot_of(other / "db", current_only=True)
    assert edited != _snapshot_of(base / "db", current_only=True)
    return Graphs(tree, base / "db", baseline, edited)


@pytest.fixture
def copy(graphs: Graphs, tmp_path: Path) -> tuple[Path, Path]:
    """This test's own copy of the baseline tree (mtimes kept) and database."""
    tree = tmp_path / "src"
    shutil.copytree(graphs.tree, tree)
    shutil.copytree(graphs.db, tmp_path / "db")
    return tree, tmp_path / "db"


def _marked(mark: str) -> list[int]:
    """Pids of live processes whose environment carries ``VGDB_TEST_MARK=mark``."""
    needle = f"VGDB_TEST_MARK={mark}".encode()
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle in (entry / "environ").read_bytes().split(b"\0"):
                stat = (entry / "stat").read_text()
                if stat.rsplit(")", 1)[1].split()[0] != "Z":  # zombies are already dead
                    pids.append(int(entry.name))
        except OSError:
            continue
    return pids


@pytest.fixture
def mark() -> Iterator[str]:
    """A unique tag in the environment of the processes a test starts. At teardown, any of
    them still alive (orphaned parse workers of a killed ingest) are killed by pid."""
    tag = uuid.uuid4().hex
    yield tag
    for pid in _marked(tag):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _ingest_killed_at(phase: str, tree: Path, db: Path, mark: str,
                      *args: str) -> subprocess.CompletedProcess[str]:
    """``vgdb ingest`` with ``VGDB_FAILPOINT=phase``; must die of SIGKILL.

    Output goes to files, not pipes (unlike tests.helpers.run_vgdb): orphaned pool workers
    inherit stdout/stderr, and reading pipes would wait for them, not for the killed ingest.
    """
    out, err = db.parent / f"{phase}.out", db.parent / f"{phase}.err"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "VGDB_FAILPOINT": phase,
           "VGDB_TEST_MARK": mark}
    with out.open("w") as stdout, err.open("w") as stderr:
        proc = subprocess.run([*VGDB, "ingest", str(tree), "--db", str(db), "--json", *args],
                              cwd=ROOT, env=env, stdout=stdout, stderr=stderr, timeout=120,
                              check=False)
    result = subprocess.CompletedProcess(proc.args, proc.returncode, out.read_text(),
                                         err.read_text())
    assert result.returncode == -signal.SIGKILL, (result.returncode, result.stderr)
    assert result.stdout == ""  # died before printing a summary
    return result


def _rerun(tree: Path, db: Path, *args: str) -> dict[str, int]:
    proc = run_vgdb("ingest", str(tree), "--db", str(db), "--json", *args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["files"]


# ------------------------------------------------------------------------------ the cases
# (phase, touch every file so that the parse goes through the process pool)
PHASES = [
    pytest.param("mid-parse", False, id="mid-parse-inline"),
    pytest.param("mid-parse", True, id="mid-parse-pool"),
    pytest.param("before-load", False, id="before-load"),
    pytest.param("mid-copy", False, id="mid-copy"),
    pytest.param("before-commit", False, id="before-commit"),
    pytest.param("after-commit", False, id="after-commit"),
]


def test_every_named_failpoint_is_exercised() -> None:
    assert {p.values[0] for p in PHASES} == set(FAILPOINTS)


@pytest.mark.parametrize(("phase", "touch_all"), PHASES)
def test_kill_at_phase_keeps_previous_graph_and_rerun_finishes(
        phase: str, touch_all: bool, copy: tuple[Path, Path], graphs: Graphs,
        mark: str) -> None:
    tree, db = copy
    _edit(tree, touch_all=touch_all)
    _ingest_killed_at(phase, tree, db, mark, "--workers", "2")

    after_kill = _snapshot_of(db, current_only=False)  # opens: lock free, WAL replayed
    if phase == "after-commit":
        # the transaction committed before the kill: the new graph is there, in full
        _assert_same(_snapshot_of(db, current_only=True), graphs.edited)
        assert after_kill != graphs.baseline
    else:
        _assert_same(after_kill, graphs.baseline)

    files = _rerun(tree, db, "--workers", "2")
    if phase == "after-commit":
        assert files["parsed"] == 0 and files["added"] == files["removed"] == 0
    else:  # only what changed is parsed again, nothing was half-recorded
        assert (files["added"], files["modified"], files["removed"]) == (1, 1, 1)
        assert files["parsed"] == 2
    _assert_same(_snapshot_of(db, current_only=True), graphs.edited)


@pytest.mark.parametrize("phase", ["mid-parse", "mid-copy", "after-commit"])
def test_kill_during_first_ingest_leaves_an_openable_db_that_reruns_cleanly(
        phase: str, tmp_path: Path, graphs: Graphs, mark: str) -> None:
    tree = write_tree(tmp_path / "src", _tree_files())
    db = tmp_path / "db"
    _ingest_killed_at(phase, tree, db, mark, "--workers", "2")  # 32 new files: the pool

    after_kill = _snapshot_of(db, current_only=False)
    if phase == "after-commit":
        _assert_same(after_kill, graphs.baseline)
    else:
        assert after_kill == {table: [] for table in after_kill}  # nothing half-written

    files = _rerun(tree, db)
    assert files["added"] == (0 if phase == "after-commit" else N_MODULES + 1)
    _assert_same(_snapshot_of(db, current_only=False), graphs.baseline)


def test_kill_mid_parse_leaves_no_orphaned_parse_workers(tmp_path: Path, mark: str) -> None:
    """The pool's worker processes must not outlive a killed ingest: orphans keep ~60 MB
    each and the ingest's stdout/stderr open for as long as they live."""
    tree = write_tree(tmp_path / "src", _tree_files())
    _ingest_killed_at("mid-parse", tree, tmp_path / "db", mark, "--workers", "2")
    deadline = time.monotonic() + 5
    while _marked(mark) and time.monotonic() < deadline:
        time.sleep(0.1)
    leftovers = {pid: (Path("/proc") / str(pid) / "cmdline").read_bytes()
                 .replace(b"\0", b" ").decode(errors="replace")
                 for pid in _marked(mark)}
    assert leftovers == {}, "processes of the killed ingest still alive 5 s later"


_KILL_IN_SCHEMA = """\
import os, signal, sys
from graphdb import store as st

real_execute = st.Transaction.execute
count = 0

def execute(self, query, params=None):
    global count
    count += 1
    if count == 1:  # the schema_version row: after the tables' script, before the commit
        os.kill(os.getpid(), signal.SIGKILL)
    return real_execute(self, query, params)

st.Transaction.execute = execute
st.Store.open(sys.argv[1])
"""


def test_kill_while_creating_a_new_database_leaves_it_openable(tmp_path: Path) -> None:
    """Not a named failpoint, but the first `vgdb ingest` of a new --db runs it: a kill in
    the DDL transaction of Store.open. The previous state (no database) must stay usable."""
    db = tmp_path / "db"
    proc = subprocess.run([sys.executable, "-c", _KILL_IN_SCHEMA, str(db)], cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
                          text=True, timeout=60, check=False)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    tree = write_tree(tmp_path / "src", {"a.py": "def a():\n    return 1\n"})
    rerun = run_vgdb("ingest", str(tree), "--db", str(db), "--json")
    assert rerun.returncode == 0, rerun.stderr
    with Store.open(db) as store:
        assert store.cypher("MATCH (f:File) RETURN f.path").rows() == [("a.py",)]


def test_same_tree_gives_the_same_coderef_ids(graphs: Graphs, tmp_path: Path) -> None:
    """Rerun-equals-rebuild needs deterministic rows. Every module of the tree has a
    ``super().m()``: two calls whose callee nodes start at the same byte, so the order of the
    stored call sites depends on how those ties are broken."""
    def refs(db: Path) -> list[tuple[object, ...]]:
        with Store.open(db) as store:
            return sorted(store.cypher("MATCH (n:CodeRef) RETURN n.id, n.calls").rows())

    _ingest_in_process(graphs.tree, tmp_path / "again")
    assert refs(tmp_path / "again") == refs(graphs.db)
