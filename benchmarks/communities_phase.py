"""The communities step of a cold ingest, alone (issue 24 item 3): igraph's import, the
graphs, Leiden's levels, names and figures, and the write, on a database ingested with
``--no-communities``. Each run is a fresh process on a fresh copy of that database, so the
import is cold and the detection is a first one (nothing stored to match). ``--baseline``
runs another checkout's code (put on ``PYTHONPATH``) alternately with this one.

    vgdb ingest STDLIB --db /tmp/std-nocomm --name stdlib --no-communities --no-history \\
        --exclude test/ --exclude tests/ --exclude idle_test/
    .venv/bin/python benchmarks/communities_phase.py /tmp/std-nocomm --repo stdlib \\
        --baseline /work/main --runs 3
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_CHILD = r"""
import json, sys, time
started = time.perf_counter()
from graphdb import Store
with Store.open(sys.argv[1]) as store:
    opened = time.perf_counter()
    from queries.communities import detect_scopes
    imported = time.perf_counter()
    found = detect_scopes(store, sys.argv[2])
    done = time.perf_counter()
print(json.dumps({"import": imported - opened, "detect_and_write": done - imported,
                  "step": done - opened, "igraph": "igraph" in sys.modules,
                  "nodes": [d.nodes for d in found],
                  "communities": [len(d.communities) for d in found]}))
"""


def run(code: Path, db: Path, repo: str) -> dict:
    work = Path(tempfile.mkdtemp(prefix="comm-phase-"))
    try:
        shutil.copytree(db, work / "db")
        env = {**os.environ, "PYTHONPATH": str(code)}
        out = subprocess.run([sys.executable, "-c", _CHILD, str(work / "db"), repo],
                             capture_output=True, text=True, env=env, cwd=code, check=True)
        return json.loads(out.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(work)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("db", type=Path, help="a database ingested with --no-communities")
    ap.add_argument("--repo", default="stdlib")
    ap.add_argument("--baseline", type=Path, help="another checkout, run alternately")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    codes = {"this checkout": ROOT, **({"baseline": args.baseline} if args.baseline else {})}
    results: dict[str, list[dict]] = {name: [] for name in codes}
    print(f"load {os.getloadavg()}")
    for i in range(args.runs):
        for name, code in (codes.items() if i % 2 == 0 else reversed(codes.items())):
            r = run(code, args.db, args.repo)
            results[name].append(r)
            print(f"{name:14} import {r['import']:.2f} s  detect+write "
                  f"{r['detect_and_write']:.2f} s  step {r['step']:.2f} s  "
                  f"(nodes {r['nodes']}, communities {r['communities']}; "
                  f"load {os.getloadavg()[0]:.1f})", flush=True)
    for name, rs in results.items():
        print(f"{name:14} median: import {statistics.median(r['import'] for r in rs):.2f} s, "
              f"detect+write {statistics.median(r['detect_and_write'] for r in rs):.2f} s, "
              f"step {statistics.median(r['step'] for r in rs):.2f} s")
    print(f"load {os.getloadavg()}")


if __name__ == "__main__":
    main()
