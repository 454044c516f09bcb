"""kill -9 in the middle of a checkpoint of a sizeable write-ahead log, at many moments.

A database gets 200,000 File rows (bulk) and then many small committed writes that stay in
its write-ahead log (each process ends without closing, as the CLI does). Each trial copies
it, opens the copy in a child process (the open replays the large log and checkpoints it,
then the child closes), and SIGKILLs the child after a delay swept over the clean run's
duration, or at the store's named failpoints. The killed copy must then open (read-only
first: that path finishes an interrupted checkpoint itself; then read-write), pass its
checksum, and hold every committed fact: each row and each meta value compared with the
uncut database. ``--pool MB`` also runs the child with a buffer pool too small for the
checkpoint (the engine's failure at scale).

    .venv/bin/python benchmarks/checkpoint_kill.py [--trials 24] [--tree TREE]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: small writes in the log: enough for a multi-megabyte WAL whose checkpoint takes a while
WAL_WRITES = 150
ROWS_PER_WRITE = 240

_BUILD = r"""
import os, sys
import polars as pl
from graphdb import Store
from schema import FILE
db = sys.argv[1]
def files(a, b, tag):
    return pl.DataFrame({"id": [f"file:r/p{i:07d}.py" for i in range(a, b)],
                         "repo": ["r"] * (b - a), "path": [f"p{i:07d}.py" for i in range(a, b)],
                         "sha": [f"{tag}{i:030x}" for i in range(a, b)]})
s = Store.open(db)
if sys.argv[2] == "0":
    with s.write() as tx:
        tx.copy_nodes(FILE, files(0, 200_000, "aa"))
    s.close()
    sys.exit(0)
for step in range(1, int(sys.argv[2]) + 1):
    with s.write() as tx:  # row by row: the log holds it (UNWIND ... CREATE)
        base = 200_000 + step * int(sys.argv[3])
        tx.copy_nodes(FILE, files(base, base + int(sys.argv[3]), "bb"), bulk=False)
    with s.write() as tx:
        s.set_meta(tx, f"step{step}", str(step))
        tx.execute("MATCH (f:File) WHERE f.id = $i SET f.sha = $s",
                   {"i": f"file:r/p{step:07d}.py", "s": f"edited{step}"})
os._exit(0)  # no close: the writes stay in the log
"""

_CHECKPOINT = r"""
import sys
from graphdb import Store
s = Store.open(sys.argv[1])  # replays the large log, checkpoints it
s.close()
"""

_FACTS = r"""
import hashlib, json, sys
from graphdb import Store
out = {}
for read_only in (True, False):
    try:
        with Store.open(sys.argv[1], read_only=read_only) as s:
            rows = s.cypher("MATCH (f:File) RETURN f.id AS id, f.sha AS sha ORDER BY id")
            meta = s.cypher("MATCH (m:Meta) RETURN m.id AS id, m.value AS v ORDER BY id")
            digest = hashlib.blake2b(rows.write_csv().encode() + meta.write_csv().encode(),
                                     digest_size=16).hexdigest()
            out["rw" if not read_only else "ro"] = {"rows": rows.height, "digest": digest}
    except Exception as exc:
        out["rw" if not read_only else "ro"] = {"refused": f"{type(exc).__name__}: {exc}"}
print(json.dumps(out))
"""


@dataclass
class Trial:
    how: str
    killed: bool
    facts: dict

    def ok(self, expected: dict) -> bool:
        return all(self.facts.get(k) == expected for k in ("ro", "rw"))


def _py(tree: Path) -> str:
    return str(tree / ".venv" / "bin" / "python")


def build(tree: Path, db: Path, writes: int = WAL_WRITES) -> None:
    subprocess.run([_py(tree), "-c", _BUILD, str(db), "0"], cwd=tree, check=True)
    subprocess.run([_py(tree), "-c", _BUILD, str(db), str(writes), str(ROWS_PER_WRITE)],
                   cwd=tree, check=True)


def facts(tree: Path, db: Path) -> dict:
    done = subprocess.run([_py(tree), "-c", _FACTS, str(db)], cwd=tree, capture_output=True,
                          text=True, timeout=600)
    return json.loads(done.stdout.splitlines()[-1])


def checkpoint_child(tree: Path, db: Path, *, delay: float | None = None,
                     env: dict | None = None) -> tuple[bool, float]:
    """Run the checkpointing child; SIGKILL it after ``delay`` s. (killed, seconds)."""
    start = time.perf_counter()
    child = subprocess.Popen([_py(tree), "-c", _CHECKPOINT, str(db)], cwd=tree,
                             env={**os.environ, **(env or {})},
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if delay is not None:
        try:
            child.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            child.send_signal(signal.SIGKILL)
    child.wait()
    return child.returncode < 0, time.perf_counter() - start


def run(tree: Path, work: Path, *, trials: int, pool_mb: int | None = None,
        writes: int = WAL_WRITES, log=print) -> tuple[dict, list[Trial]]:
    base = work / "base"
    build(tree, base, writes)
    wal = base / "graph.lbug.wal"
    log(f"log to checkpoint: {wal.stat().st_size / 1e6:.1f} MB")
    clean = work / "clean"
    shutil.copytree(base, clean)
    _, seconds = checkpoint_child(tree, clean)
    expected = facts(tree, clean)["rw"]
    log(f"clean open+checkpoint+close: {seconds:.2f} s; facts {expected}")
    results: list[Trial] = []
    plans: list[tuple[str, float | None, dict]] = [
        (f"kill at {seconds * (i + 0.5) / trials:.3f} s", seconds * (i + 0.5) / trials, {})
        for i in range(trials)]
    plans += [(f"failpoint {p}", None, {"VGDB_FAILPOINT": p})
              for p in ("store:checkpoint", "store:checkpointed")]
    if pool_mb:
        plans.append((f"buffer pool {pool_mb} MB", None, {"VGDB_BUFFER_POOL_MB": str(pool_mb)}))
    for how, delay, env in plans:
        db = work / "trial"
        shutil.rmtree(db, ignore_errors=True)
        shutil.copytree(base, db)
        killed, _ = checkpoint_child(tree, db, delay=delay, env=env)
        left = sorted(p.name for p in db.iterdir())
        trial = Trial(how, killed, facts(tree, db))
        results.append(trial)
        log(f"{'OK  ' if trial.ok(expected) else 'FAIL'} {how:28} killed={killed!s:5} "
            f"left={left} -> {json.dumps(trial.facts)[:160]}")
    return expected, results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=24)
    parser.add_argument("--tree", type=Path, default=ROOT)
    parser.add_argument("--pool", type=int, default=0, help="buffer pool MB for one trial")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="trust-ckpt-kill-") as tmp:
        expected, trials = run(args.tree, Path(tmp), trials=args.trials,
                               pool_mb=args.pool or None)
    good = sum(t.ok(expected) for t in trials)
    print(f"{good}/{len(trials)} killed copies opened, verified and held every committed fact")
    print(f"load average {os.getloadavg()}")
    sys.exit(0 if good == len(trials) else 1)


if __name__ == "__main__":
    main()
