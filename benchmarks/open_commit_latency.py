"""Open and small-commit latency of this tree against another checkout, interleaved.

Each round, in a fresh process of each tree: open a database holding 100,000 File rows
(read-write: lock, checksum stamp, engine open, schema check; pyarrow, which the first
query imports lazily, is imported before), then 50 small write transactions (one META
value each: WAL only, the checksum record written twice per commit), then close. Prints the
medians over rounds next to the baseline's.

    .venv/bin/python benchmarks/open_commit_latency.py --baseline /work/main [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_BUILD = r"""
import sys
import polars as pl
from graphdb import Store
from schema import FILE
with Store.open(sys.argv[1]) as s, s.write() as tx:
    n = 100_000
    tx.copy_nodes(FILE, pl.DataFrame({"id": [f"file:r/p{i:07d}.py" for i in range(n)],
                                      "repo": ["r"] * n, "path": [f"p{i}" for i in range(n)]}))
"""

_MEASURE = r"""
import json, statistics, sys, time
import pyarrow  # imported lazily by the first query: not part of opening
from graphdb import Store
start = time.perf_counter()
s = Store.open(sys.argv[1])
opened = time.perf_counter() - start
commits = []
for i in range(50):
    t = time.perf_counter()
    with s.write() as tx:
        s.set_meta(tx, f"k{i % 5}", str(i))
    commits.append(time.perf_counter() - t)
t = time.perf_counter()
s.close()
print(json.dumps({"open": opened, "commit_p50": statistics.median(commits),
                  "commit_p95": sorted(commits)[47], "close": time.perf_counter() - t}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()}")
    trees = {"this tree": ROOT, "baseline": args.baseline}
    figures: dict[str, list[dict]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory(prefix="trust-latency-") as tmp:
        for name, tree in trees.items():
            db = Path(tmp) / name.replace(" ", "-")
            subprocess.run([str(tree / ".venv/bin/python"), "-c", _BUILD, str(db)], cwd=tree,
                           check=True)
        for _ in range(args.rounds):
            for name, tree in trees.items():
                db = Path(tmp) / name.replace(" ", "-")
                work = db.with_name(db.name + "-round")
                shutil.rmtree(work, ignore_errors=True)
                shutil.copytree(db, work)
                done = subprocess.run([str(tree / ".venv/bin/python"), "-c", _MEASURE,
                                       str(work)], cwd=tree, check=True, capture_output=True,
                                      text=True)
                figures[name].append(json.loads(done.stdout.splitlines()[-1]))
    print(f"{'':12} {'this tree':>10} {'baseline':>10} {'ratio':>6}   (medians of "
          f"{args.rounds} rounds, ms)")
    for key in ("open", "commit_p50", "commit_p95", "close"):
        ours = statistics.median(f[key] for f in figures["this tree"]) * 1000
        base = statistics.median(f[key] for f in figures["baseline"]) * 1000
        print(f"{key:12} {ours:10.2f} {base:10.2f} {ours / base:6.2f}")
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
