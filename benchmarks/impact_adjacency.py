"""Impact at depth 3 from the in-memory adjacency against the per-hop queries, in one
process on the same database, interleaved (issue 26 item 3); and what building the adjacency
costs, which decides whether a one-shot CLI process should build it (it should not).

    .venv/bin/python benchmarks/impact_adjacency.py --db DIR --targets 20 --reps 3

``DIR``: a database holding the standard library (as ``benchmarks/everyday.py`` builds it).
Targets: ``--targets`` sampled functions with a caller and the ``--targets`` most-called ones
(hubs). Every result from memory is compared with the queries' result (they must be equal).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from everyday import most_called, sample_targets

from graphdb import Store
from queries.impact import adjacency, impact


def _pct(times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"p50 {statistics.median(ordered) * 1000:7.1f}  p95 {p95 * 1000:7.1f}  " \
           f"max {ordered[-1] * 1000:7.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--targets", type=int, default=20)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--seed", type=int, default=26)
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()}")
    groups = {"sampled": [t for t, _, _ in sample_targets(args.db, args.targets, args.seed)],
              "most-called (hubs)": [t for t, _, _ in most_called(args.db, args.targets)]}
    with Store.open(args.db, read_only=True) as store:
        builds = []
        for _ in range(3):
            t = time.perf_counter()
            built = adjacency.build(store)
            builds.append(time.perf_counter() - t)
        print(f"build the adjacency ({built.edges} edges): {_pct(builds)}")
        for label, targets in groups.items():
            for t in targets:  # warm both paths once; the results must be equal
                adjacency.forget(store)
                expected = impact(store, [t], depth=3)
                adjacency.install(store, built)
                if impact(store, [t], depth=3) != expected:
                    raise SystemExit(f"the adjacency answers {t} differently")
            by_queries: list[float] = []
            by_memory: list[float] = []
            for rep in range(args.reps):
                for t in targets:
                    order = (False, True) if rep % 2 == 0 else (True, False)
                    for memory in order:
                        if memory:
                            adjacency.install(store, built)
                        else:
                            adjacency.forget(store)
                        a = time.perf_counter()
                        impact(store, [t], depth=3)
                        (by_memory if memory else by_queries).append(time.perf_counter() - a)
            print(f"impact depth 3, {len(targets)} {label} targets x {args.reps}:")
            print(f"  from memory (adjacency)   {_pct(by_memory)}")
            print(f"  per-hop queries (before)  {_pct(by_queries)}")
    print(f"load average at end: {os.getloadavg()}")



if __name__ == "__main__":
    main()
