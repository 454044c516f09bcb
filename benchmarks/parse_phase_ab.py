"""A/B of two checkouts' parse phase, interleaved: ``ingest.parsing.parse_tasks`` with a pool of
2 workers over the files a cold ingest reads (the papers scan included), as ``vgdb ingest``
runs it, without the rest of the ingest around it.

Each round runs one child process per checkout (``PYTHONPATH`` set to it; the order
alternates per round): it walks SRC as the ingest does, starts the fork server and warms it
(a cold ingest starts it while it opens the database), then times ``parse_tasks`` from the
first submit to the last result: the wall time, the ingest process's CPU (unpickling,
waiting), each worker's CPU (read from ``/proc`` before the pool shuts down), and the tail:
from the second-to-last chunk done to the last (one worker idle, the other finishing). A
1-thread raw tree-sitter parse of the same Python files is timed in each round.

    .venv/bin/python benchmarks/parse_phase_ab.py SRC --a /work/main --b . [--rounds 6]
        [--exclude test/ --exclude tests/ --exclude idle_test/]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

_CHILD = r"""
import gc, json, os, sys, time
from pathlib import Path
import ingest.parsing as parsing
from ingest.changes import plan_reads
from ingest.pipeline import IngestOptions, _NOTHING_STORED
from ingest.pool import process_pool, start_fork_server
from ingest.walk import walk

root = Path(sys.argv[1]).resolve()
candidates, _ = walk(root, excludes=tuple(json.loads(sys.argv[2])),
                     max_file_size=IngestOptions().max_file_size)
tasks, _ = plan_reads(root, candidates, _NOTHING_STORED, scan=True)
gc.disable()  # as the ingest process (ingest.pipeline.without_cyclic_gc)
start_fork_server()
with process_pool(2) as pool:
    for _ in range(2):
        pool.submit(os.getpid).result()
workers = []
made = parsing.process_pool

def measured_pool(n):
    pool = made(n)
    shutdown = pool.shutdown
    def read_cpu_then_shutdown(*args, **kwargs):
        for pid in list(pool._processes):
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
            workers.append((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"))
        return shutdown(*args, **kwargs)
    pool.shutdown = read_cpu_then_shutdown
    submit = pool.submit
    def timed_submit(*args, **kwargs):
        future = submit(*args, **kwargs)
        future.add_done_callback(lambda _: done.append(time.perf_counter()))
        return future
    pool.submit = timed_submit
    return pool

done = []

parsing.process_pool = measured_pool
wall, cpu = time.perf_counter(), time.process_time()
results = parsing.parse_tasks(tasks, workers=2, progress=None)
done.sort()
print(json.dumps({"files": len(results), "wall": time.perf_counter() - wall,
                  "parent_cpu": time.process_time() - cpu, "workers_cpu": sorted(workers),
                  "tail": done[-1] - done[-2]}))
"""


def raw_parse(root: Path, excludes: list[str]) -> float:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import tree_sitter as ts
    import tree_sitter_python

    from ingest.walk import walk

    candidates, _ = walk(root, excludes=excludes, max_file_size=1 << 20)
    blobs = [(root / c.path).read_bytes() for c in candidates if c.language == "python"]
    parser = ts.Parser(ts.Language(tree_sitter_python.language()))
    start = time.perf_counter()
    for data in blobs:
        parser.parse(data)
    return time.perf_counter() - start


def run(checkout: Path, src: Path, excludes: list[str]) -> dict:
    env = {**os.environ, "PYTHONPATH": str(checkout.resolve())}
    done = subprocess.run([sys.executable, "-c", _CHILD, str(src), json.dumps(excludes)],
                          env=env, cwd=checkout, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{checkout}: {done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("src", type=Path)
    parser.add_argument("--a", type=Path, required=True, help="the baseline checkout")
    parser.add_argument("--b", type=Path, default=Path("."), help="the checkout measured")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--exclude", action="append", default=[])
    args = parser.parse_args()
    got: dict[str, list[dict]] = {"a": [], "b": []}
    raws = []
    for round_ in range(args.rounds):
        raws.append(raw_parse(args.src, args.exclude))
        for name in ("a", "b") if round_ % 2 == 0 else ("b", "a"):
            got[name].append(run(getattr(args, name), args.src, args.exclude))
        print(json.dumps({"round": round_, "load": round(os.getloadavg()[0], 2),
                          "raw_parse": round(raws[-1], 3),
                          **{n: {k: (round(v, 3) if isinstance(v, float) else v)
                                 for k, v in got[n][-1].items()} for n in "ab"}}), flush=True)
    raw = statistics.median(raws)
    print(f"medians over {args.rounds} rounds (a = {args.a}, b = {args.b}); "
          f"raw 1-thread parse {raw:.3f} s:")
    for name in "ab":
        rows = got[name]
        wall = statistics.median(r["wall"] for r in rows)
        total = statistics.median(sum(r["workers_cpu"]) for r in rows)
        spread = statistics.median(r["workers_cpu"][-1] - r["workers_cpu"][0] for r in rows)
        parent = statistics.median(r["parent_cpu"] for r in rows)
        tail = statistics.median(r["tail"] for r in rows)
        print(f"  {name}: wall {wall:.3f} s ({wall / raw:.2f}x the raw parse), workers' CPU "
              f"{total:.3f} s (busier minus idler worker {spread:.3f} s), ingest process "
              f"CPU {parent:.3f} s, tail {tail:.3f} s")


if __name__ == "__main__":
    main()
