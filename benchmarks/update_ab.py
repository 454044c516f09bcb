"""Served updates, main against this branch, measured inside the warm process (issue 26).

``update.py --serve`` times ``vgdb ingest`` from a shell while ``vgdb serve`` applies it: on a
loaded machine its wall times swing several-fold. This script measures the same work where
it runs: two worker processes, one per checkout (``--a`` and ``--b``: their sources are put
first on ``sys.path``), each holding its own copy of one database open as a server does
(``Store.open(serving=True)``) and applying the served ``vgdb ingest`` in-process
(``api.resident.run_argv``) after the same change to its own copy of the tree. Each update
reports its wall and CPU seconds (``time.process_time``: the worker's own CPU, steadier under
load) and the ingest's phases; the sides alternate which goes first. Where the checkout
defers derived data after the answer (``api.serve_derive``) and keeps the update's first
reads warm (``ingest.warm``), the worker turns both on as ``vgdb serve --writable`` does,
and times the derivation on its own after the answer ("derived after the answer").

    .venv/bin/python benchmarks/update_ab.py TREE DB --name stdlib --a /work/main --b . \\
        --rel json/encoder.py --reps 7 --ingest-args "--exclude test/ --exclude tests/"

TREE is a git repository and DB a database of it (both are copied, never changed).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from update import add_common, add_unique, edit_function

_WORKER = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from graphdb import Store
from api.resident import run_argv
store = Store.open(sys.argv[2], serving=True)
argv = json.loads(sys.argv[3])
try:  # as `vgdb serve --writable` starts them, where the checkout has them
    from api.graphql.context import WRITE_LOCK
    from api.serve_derive import start_deriving, stop_deriving
    from ingest import warm
    deriver = start_deriving(WRITE_LOCK)
    warm.enable()
except ImportError:
    deriver = None
run_argv(store, argv, {})  # warm: the first served update of a process
if deriver is not None:
    deriver.settle()
print("ready", flush=True)
for line in sys.stdin:
    wall, cpu = time.perf_counter(), time.process_time()
    out = run_argv(store, argv, {})
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    derived = 0.0
    if deriver is not None:  # the derivation after the answer, timed on its own
        derived = time.perf_counter()
        deriver.settle()
        derived = time.perf_counter() - derived
    detail = json.loads(out["stdout"]) if out["code"] == 0 else {"error": out["stderr"]}
    print(json.dumps({"wall": wall, "cpu": cpu, "seconds": detail.get("seconds"),
                      "papers": (detail.get("papers") or {}).get("seconds"),
                      "derived": derived, "error": detail.get("error")}), flush=True)
if deriver is not None:
    stop_deriving(deriver)
store.close()
"""


class Side:
    """One checkout's worker on its own copy of the tree and the database."""

    def __init__(self, label: str, source: Path, tree: Path, db: Path, work: Path,
                 name: str, extra: list[str]) -> None:
        self.label = label
        self.tree = work / f"{label}-tree"
        self.db = work / f"{label}-db"
        shutil.copytree(tree, self.tree, symlinks=True)
        shutil.copytree(db, self.db)
        (self.db / "server.json").unlink(missing_ok=True)
        (self.db / "noop.json").unlink(missing_ok=True)
        argv = ["ingest", str(self.tree), "--db", str(self.db), "--name", name, *extra, "--json"]
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        self.proc = subprocess.Popen([sys.executable, "-c", _WORKER, str(source), str(self.db),
                                      json.dumps(argv)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env,
                                     cwd=str(source))
        assert self.proc.stdout.readline().strip() == "ready"
        self.runs: list[dict] = []

    def update(self) -> dict:
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()
        result = json.loads(self.proc.stdout.readline())
        if result.get("error"):
            raise RuntimeError(f"{self.label}: {result['error'][-2000:]}")
        self.runs.append(result)
        return result

    def stop(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tree", type=Path)
    ap.add_argument("db", type=Path)
    ap.add_argument("--name", required=True)
    ap.add_argument("--a", type=Path, required=True, help="the baseline checkout (main)")
    ap.add_argument("--b", type=Path, default=Path("."), help="the checkout measured")
    ap.add_argument("--rel", required=True, help="the file whose first function is edited")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--changes", default="edit,common,unique")
    ap.add_argument("--ingest-args", default="", help="more `vgdb ingest` options, one string")
    args = ap.parse_args()
    args.extra = shlex.split(args.ingest_args)
    work = Path(tempfile.mkdtemp(prefix="update-ab-"))
    sides = [Side("a", args.a.resolve(), args.tree, args.db, work, args.name, args.extra),
             Side("b", args.b.resolve(), args.tree, args.db, work, args.name, args.extra)]
    changes = {"edit": lambda tree, n: edit_function(tree, args.rel, n),
               "common": add_common, "unique": add_unique}
    print(f"work {work}; load {os.getloadavg()}", flush=True)
    try:
        for label in args.changes.split(","):
            for side in sides:
                side.runs = []
            for rep in range(args.reps):
                n = 900_000 + rep + 1000 * list(changes).index(label)
                order = sides if rep % 2 == 0 else sides[::-1]
                for side in order:
                    changes[label](side.tree, n)
                    side.update()
            for side in sides:
                wall = statistics.median(r["wall"] for r in side.runs)
                cpu = statistics.median(r["cpu"] for r in side.runs)
                phases = {k: round(statistics.median((r["seconds"] or {}).get(k, 0.0)
                                                     for r in side.runs), 3)
                          for k in (side.runs[0]["seconds"] or {})}
                papers = statistics.median(r["papers"] or 0.0 for r in side.runs)
                derived = statistics.median(r["derived"] for r in side.runs)
                print(f"{label:7} {side.label} ({'main' if side.label == 'a' else 'branch'}): "
                      f"wall {wall:.3f} s, CPU {cpu:.3f} s (medians of {args.reps}); phases "
                      f"{phases}, papers {papers:.3f}, derived after the answer "
                      f"{derived:.3f} s; all wall "
                      f"{[round(r['wall'], 3) for r in side.runs]}; load "
                      f"{os.getloadavg()[0]:.1f}", flush=True)
    finally:
        for side in sides:
            side.stop()
        time.sleep(0.1)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
