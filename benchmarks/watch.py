"""Watch benchmark: from a saved one-function edit to the committed update, on the standard
library's graph (ingested as the Makefile's demo does: ``--name stdlib``, tests excluded).

The standard library is copied into a temporary directory and ingested once. Then edits of
one function body (``json/decoder.py``, ``JSONDecoder.raw_decode``: a statement whose value
changes with each edit) alternate between two ways, interleaved so that both see the same load:

- **watched**: the file is written while an ``ingest.watch.Watcher`` runs in a thread, and
  the time is taken from just before the write to the watcher's callback, which runs after
  the update committed (graph, keyword index, vectors): what ``vgdb watch`` / ``serve
  --watch`` give;
- **baseline**: the file is written and the same update (``ingest.watch.update_tree``) is
  called directly: the incremental ingest alone, without file events and debouncing.

    .venv/bin/python benchmarks/watch.py [--edits 20] [--step-ms 30]
"""

from __future__ import annotations

import argparse
import os
import queue
import shutil
import statistics
import sys
import sysconfig
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from graphdb import Store
from ingest import IngestOptions
from ingest.pipeline import ingest_repository
from ingest.watch import Watcher, WatchUpdate, update_tree

EXCLUDES = ("test/", "tests/", "idle_test/")
TARGET = "json/decoder.py"
ANCHOR = "        try:\n            obj, end = self.scan_once(s, idx)\n"
GOAL_SECONDS = 0.5


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--edits", type=int, default=20, help="edits per way")
    parser.add_argument("--step-ms", type=int, default=30)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="operate-watch-bench-"))
    try:
        run(work, args.edits, args.step_ms)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(work: Path, edits: int, step_ms: int) -> None:
    src = Path(sysconfig.get_paths()["stdlib"])
    root = work / "stdlib"
    shutil.copytree(src, root, ignore=shutil.ignore_patterns("site-packages", "__pycache__"))
    options = IngestOptions(name="stdlib", excludes=EXCLUDES)
    target = root / TARGET
    original = target.read_text(encoding="utf-8")
    assert ANCHOR in original, "the edited function changed shape in this Python"
    with Store.open(work / "db") as store:
        t0 = time.perf_counter()
        summary = ingest_repository(store, root, options=options).to_dict()
        print(f"ingested {summary['files']['seen']} files in {time.perf_counter() - t0:.1f} s")
        updates: queue.Queue[WatchUpdate] = queue.Queue()
        watcher = Watcher([root], lambda r: update_tree(store, r, options=options),
                          ignore=[work / "db"], step_ms=step_ms)
        stop, ready = threading.Event(), threading.Event()
        thread = threading.Thread(target=watcher.run, args=(updates.put,),
                                  kwargs={"stop": stop, "ready": ready}, daemon=True)
        thread.start()
        ready.wait(30)
        watched: list[float] = []
        baseline: list[float] = []
        phases: list[dict[str, float]] = []
        for i in range(2 * edits):
            body = original.replace(ANCHOR, f"        _vgdb_probe = {i}\n{ANCHOR}")
            if i % 2 == 0:  # watched
                start = time.perf_counter()
                target.write_text(body, encoding="utf-8")
                update = updates.get(timeout=30)
                watched.append(time.perf_counter() - start)
                phases.append(update.summary.get("seconds", {}))
                assert update.error is None and update.summary["files"]["modified"] == 1, \
                    update
            else:  # baseline: the same update called directly (the watcher sees the
                stop.set()  # write too: pause it)
                thread.join()
                start = time.perf_counter()
                target.write_text(body, encoding="utf-8")
                done = update_tree(store, root, options=options)
                baseline.append(time.perf_counter() - start)
                assert done["files"]["modified"] == 1, done
                stop, ready = threading.Event(), threading.Event()
                thread = threading.Thread(target=watcher.run, args=(updates.put,),
                                          kwargs={"stop": stop, "ready": ready}, daemon=True)
                thread.start()
                ready.wait(30)
                while not updates.empty():
                    updates.get()
        stop.set()
        thread.join()
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {edits} edits per way "
          f"of {TARGET} (JSONDecoder.raw_decode), step {step_ms} ms")
    for name, values in (("watched: save -> committed", watched),
                         ("baseline: update_tree alone", baseline)):
        print(f"{name:30} p50 {statistics.median(values) * 1000:7.1f} ms   "
              f"p95 {_percentile(values, 0.95) * 1000:7.1f} ms   "
              f"max {max(values) * 1000:7.1f} ms")
    names = sorted({k for p in phases for k in p})
    print("where an update's time goes (p50 per phase, ms): " + ", ".join(
        f"{k} {statistics.median(p.get(k, 0.0) for p in phases) * 1000:.0f}" for k in names))
    p50 = statistics.median(watched)
    print(f"goal p50 < {GOAL_SECONDS * 1000:.0f} ms: "
          f"{'met' if p50 < GOAL_SECONDS else 'NOT met'}")


if __name__ == "__main__":
    main()
