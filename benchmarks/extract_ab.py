"""A/B of two checkouts' parse workers on the same files, interleaved, in CPU seconds.

What one parse worker does per file of an ingest (``ingest.worker.parse_many`` over chunks
of 16 files: read, hash, parse, extract, the load's columns, the papers scan) and what
crosses the process boundary (each chunk's results pickled as a worker sends them, and
unpickled as the ingest process receives them), measured in two long-lived child
processes, one per checkout (``PYTHONPATH`` set to it), that take turns round by round (the
order alternating), so a change of load hits both alike. A 1-thread raw tree-sitter parse
of the same bytes is measured in each round as the baseline. Each figure is the median over
the rounds of the child's own CPU time (``time.process_time``: the work is single-threaded).

    .venv/bin/python benchmarks/extract_ab.py SRC --a /work/main --b . [--rounds 5]
        [--exclude test/ --exclude tests/ --exclude idle_test/]

SRC is walked as ``vgdb ingest`` walks it (default excludes, ``.gitignore``); with the
standard library and the three excludes above it is the 734 files of
``benchmarks/ingest.py --no-tests``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

_CHILD = r"""
import json, pickle, sys, time
from pathlib import Path
from multiprocessing.reduction import ForkingPickler
import tree_sitter as ts, tree_sitter_python
from ingest.walk import walk
from ingest.worker import ParseTask, parse_many

root = Path(sys.argv[1])
excludes = tuple(json.loads(sys.argv[2]))
candidates, _ = walk(root, excludes=excludes, max_file_size=1 << 20)
tasks = [ParseTask(str(root / c.path), c.path, c.language, "", True) for c in candidates]
chunks = [tasks[i:i + 16] for i in range(0, len(tasks), 16)]
blobs = [(root / c.path).read_bytes() for c in candidates if c.language == "python"]
parser = ts.Parser(ts.Language(tree_sitter_python.language()))
parse_many(chunks[0])  # compiles the queries, imports the scan
print(json.dumps({"files": len(tasks), "python_mb": round(sum(map(len, blobs)) / 1e6, 2)}),
      flush=True)
for line in sys.stdin:
    t = time.process_time()
    for data in blobs:
        parser.parse(data)
    raw = time.process_time() - t
    work = dump = 0.0
    sent = []
    for chunk in chunks:  # as a worker: a chunk parsed, its results pickled and dropped
        t = time.process_time()
        results = parse_many(chunk)
        work += time.process_time() - t
        t = time.process_time()
        sent.append(bytes(ForkingPickler.dumps(results)))
        del results
        dump += time.process_time() - t
    t = time.process_time()
    for blob in sent:
        pickle.loads(blob)
    load = time.process_time() - t
    print(json.dumps({"raw_parse": raw, "worker": work, "pickle": dump, "unpickle": load,
                      "mb": sum(map(len, sent)) / 1e6}), flush=True)
"""

FIGURES = ("raw_parse", "worker", "pickle", "unpickle", "mb")


def child(checkout: Path, src: Path, excludes: list[str]) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(checkout.resolve())}
    return subprocess.Popen([sys.executable, "-c", _CHILD, str(src), json.dumps(excludes)],
                            env=env, cwd=checkout, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("src", type=Path)
    parser.add_argument("--a", type=Path, required=True, help="the baseline checkout")
    parser.add_argument("--b", type=Path, default=Path("."), help="the checkout measured")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--exclude", action="append", default=[])
    args = parser.parse_args()
    sides = {"a": child(args.a, args.src, args.exclude), "b": child(args.b, args.src, args.exclude)}
    for name, proc in sides.items():
        print(name, proc.stdout.readline().strip())
    got: dict[str, list[dict]] = {"a": [], "b": []}
    for round_ in range(args.rounds):
        order = ("a", "b") if round_ % 2 == 0 else ("b", "a")
        for name in order:
            proc = sides[name]
            proc.stdin.write("go\n")
            proc.stdin.flush()
            got[name].append(json.loads(proc.stdout.readline()))
        print(json.dumps({"round": round_, "load": round(os.getloadavg()[0], 2),
                          **{n: {k: round(v, 3) for k, v in got[n][-1].items()} for n in "ab"}}),
              flush=True)
    for proc in sides.values():
        proc.stdin.close()
        proc.wait()
    print(f"medians over {args.rounds} rounds, CPU seconds (a = {args.a}, b = {args.b}):")
    for key in FIGURES:
        a = statistics.median(r[key] for r in got["a"])
        b = statistics.median(r[key] for r in got["b"])
        print(f"  {key:10s} a {a:7.3f}  b {b:7.3f}  b/a {b / a:5.2f}")
    a_total = statistics.median(r["worker"] + r["pickle"] for r in got["a"])
    b_total = statistics.median(r["worker"] + r["pickle"] for r in got["b"])
    raw = statistics.median(r["raw_parse"] for r in got["a"] + got["b"])
    print(f"  worker + pickle: a {a_total:.3f} ({a_total / raw:.2f}x the raw parse), "
          f"b {b_total:.3f} ({b_total / raw:.2f}x); raw parse {raw:.3f}")


if __name__ == "__main__":
    main()
