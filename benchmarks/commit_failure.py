"""A COMMIT that fails on a real full disk: is what vgdb reports true after reopening?

Each scenario mounts a fresh tmpfs (root), builds a database there (100 File rows, three
small commits left in the write-ahead log), fills the disk leaving ``free`` KiB, then runs
one transaction (a META ``SET`` + ``rows`` File rows, as a bulk ``COPY`` or row by row), in
a child process of the tree under test. The disk is then freed and the database opened
read-write by a new process. A report is *true* when "committed" means every row of the
transaction is there and "not committed" means none is, and the three earlier commits are
always there.

    .venv/bin/python benchmarks/commit_failure.py [--baseline TREE] [--trials 3]

``--baseline``: another checkout (with its .venv) run on the same scenarios, interleaved.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASE_ROWS = 100


@dataclass(frozen=True)
class Scenario:
    name: str
    free_kib: int
    rows: int
    mode: str  # "copy": one bulk COPY; "wal": rows created one by one (WAL only)
    what: str
    pool_mb: int = 0  # a buffer pool this small for the writing process (0: the default)


#: free space picked so that each case of graphdb.wal happens (measured, LadybugDB 0.22)
SCENARIOS = (
    Scenario("copy-checkpoint-fails", 6500, 30_000, "copy",
             "the COPY's post-commit checkpoint fails before its commit point"),
    Scenario("copy-checkpoint-half-done", 20_000, 100_000, "copy",
             "the COPY's checkpoint fails after its commit point (shadow file complete)"),
    Scenario("wal-checkpoint-fails", 1024, 200, "wal",
             "a small write commits; the checkpoint its commit triggers fails"),
    Scenario("wal-record-torn", 16, 200, "wal",
             "the WAL append itself fails: the engine aborts the process mid-record"),
    Scenario("copy-buffer-pool-full", 0, 200_000, "copy",
             "no disk limit: the COPY's checkpoint runs out of a 120 MB buffer pool", 120),
)

_WRITE = r"""
import json, os, sys
import polars as pl
from graphdb import Store
from schema import FILE
mnt, free_kib, rows, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
BASE = int(sys.argv[5])
db = os.path.join(mnt, "db")
def files(a, b):
    return pl.DataFrame({"id": [f"file:r/p{i:07d}.py" for i in range(a, b)],
                         "repo": ["r"] * (b - a), "path": [f"p{i:07d}.py" for i in range(a, b)],
                         "sha": [f"{i:032x}" for i in range(a, b)]})
with Store.open(db) as s, s.write() as tx:
    tx.copy_nodes(FILE, files(0, BASE))
s = Store.open(db)
for i in range(3):
    with s.write() as tx:
        s.set_meta(tx, f"pre{i}", "x")
if mode == "wal":  # the engine checkpoints at the next commit
    with s.write() as tx:
        tx.execute("CALL checkpoint_threshold=1")
st = os.statvfs(mnt)
with open(os.path.join(mnt, "fill"), "wb") as fh:
    fh.write(b"\0" * (max(0, st.f_bavail * st.f_frsize - free_kib * 1024) if free_kib else 0))
try:
    with s.write() as tx:
        s.set_meta(tx, "k", "1")
        tx.copy_nodes(FILE, files(BASE, BASE + rows), bulk=mode == "copy")
    print(json.dumps({"reported": "committed"}))
except Exception as exc:
    committed = getattr(exc, "committed", False)
    print(json.dumps({"reported": "committed" if committed is True else "not committed",
                      "error": str(exc), "detail": getattr(exc, "detail", "")[:300]}))
sys.stdout.flush()
sys.exit(0)  # an ordinary exit: the store's finalizer closes the engine
"""

_REOPEN = r"""
import json, sys
from graphdb import Store
try:
    with Store.open(sys.argv[1]) as s:
        rows = s.cypher("MATCH (f:File) RETURN count(*) AS c")["c"][0]
        print(json.dumps({"rows": int(rows), "k": s.meta("k"),
                          "pre": [s.meta(f"pre{i}") for i in range(3)]}))
except Exception as exc:
    print(json.dumps({"refused": f"{type(exc).__name__}: {exc}"}))
"""


@dataclass
class Result:
    scenario: str
    reported: str  # committed | not committed | process died (signal N)
    reopened: dict
    seconds: float
    exit_code: int
    stderr: str = ""

    @property
    def true(self) -> bool:
        """The report matches what a reopen finds, and every earlier commit is there."""
        found = self.reopened
        if self.reported in ("committed", "not committed") and self.exit_code != 0:
            return False  # it answered, then died on its way out
        if "refused" in found or found["pre"] != ["x", "x", "x"]:
            return False
        whole = found["rows"] == BASE_ROWS + _rows(self.scenario) and found["k"] == "1"
        nothing = found["rows"] == BASE_ROWS and found["k"] is None
        if self.reported == "committed":
            return whole
        if self.reported == "not committed":
            return nothing
        return whole or nothing  # died before answering: atomic either way

    def line(self) -> str:
        return (f"{self.scenario:27} {self.reported:22} exit {self.exit_code:3} "
                f"{json.dumps(self.reopened)[:100]}")


def _rows(name: str) -> int:
    return next(s.rows for s in SCENARIOS if s.name == name)


def run(scenario: Scenario, tree: Path = ROOT) -> Result:
    """One scenario in ``tree`` (its .venv) on a fresh tmpfs; needs root to mount it."""
    python = str(tree / ".venv" / "bin" / "python")
    mount = Path(tempfile.mkdtemp(prefix="trust-commit-failure-"))
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256m", "tmpfs", str(mount)], check=True)
    try:
        env = {**os.environ, **({"VGDB_BUFFER_POOL_MB": str(scenario.pool_mb)}
                                if scenario.pool_mb else {})}
        start = time.perf_counter()
        done = subprocess.run([python, "-c", _WRITE, str(mount), str(scenario.free_kib),
                               str(scenario.rows), scenario.mode, str(BASE_ROWS)], cwd=tree,
                              capture_output=True, text=True, timeout=300, env=env)
        seconds = time.perf_counter() - start
        lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
        reported = (json.loads(lines[-1])["reported"] if lines
                    else f"process died ({done.returncode})")
        (mount / "fill").unlink(missing_ok=True)
        again = subprocess.run([python, "-c", _REOPEN, str(mount / "db")], cwd=tree,
                               capture_output=True, text=True, timeout=300)
        reopened = json.loads(again.stdout.splitlines()[-1])
        return Result(scenario.name, reported, reopened, seconds, done.returncode,
                      done.stderr)
    finally:
        subprocess.run(["umount", str(mount)], check=False)
        mount.rmdir()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="another checkout with its .venv")
    parser.add_argument("--trials", type=int, default=1)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()}")
    trees = [("this tree", ROOT)] + ([("baseline", args.baseline)] if args.baseline else [])
    tally: dict[str, list[int]] = {label: [0, 0] for label, _ in trees}
    for trial in range(args.trials):
        for scenario in SCENARIOS:
            for label, tree in trees:
                result = run(scenario, tree)
                tally[label][0] += result.true
                tally[label][1] += 1
                print(f"[{trial}] {label:9} {'TRUE ' if result.true else 'FALSE'} "
                      f"{result.line()}", flush=True)
    for label, (true, total) in tally.items():
        print(f"{label}: {true}/{total} reports true after reopening")
    print(f"load average {os.getloadavg()}")
    sys.exit(0 if tally["this tree"][0] == tally["this tree"][1] else 1)


if __name__ == "__main__":
    main()
