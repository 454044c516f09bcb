"""Does a COPY + commit cost more per row as the tables grow, and does grouping rows into one
transaction buy it back? (issue 28, item 1)

Through ``Store.write()`` and ``Transaction.copy_nodes``/``copy_rels`` (the calls
``graphdb.loader.load_code`` makes for a fresh repository), on the real schema: Symbol nodes
and CALLS rels between them, ``--fanout`` CALLS per symbol. The graph is filled in large
transactions up to each ``--sizes`` CALLS count; at each size two probes are timed, each one
transaction (COPY of the nodes, COPY of the rels, COMMIT):

- ``small``: ``--small`` rels (one repository's worth: a 500-file synthetic repository has
  ~22K edges),
- ``group``: ``--group`` times that (a group of repositories in one transaction).

Printed per size: seconds and microseconds per row of each probe, the ratio to the first
size, RSS and load average; then ``impact(store, [s], depth=3)`` and the node with its
neighbours (``benchmarks/scale.py``) p50 / p95 over ``--samples`` symbols spread over the
graph. This graph is CALLS only (no files, modules, references): a floor for the engine,
not the code-shaped graph of ``benchmarks/scale.py``. The probes are kept (they count
toward the next size).

    nice -n 15 .venv/bin/python benchmarks/commit_growth.py --db /tmp/scale-cg \
        --sizes 10000,100000,1000000,10000000
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.scale import disk_mb, node_with_neighbours, rss_mib, timed  # noqa: E402
from graphdb import Store  # noqa: E402
from queries.impact import impact  # noqa: E402
from schema import CALLS, FILE, SYMBOL  # noqa: E402

FILES = 1000  # symbols are spread over this many File nodes (impact reports files)


def files_frame() -> pl.DataFrame:
    paths = [f"m{i}.py" for i in range(FILES)]
    return pl.DataFrame({"id": [f"file:s/{p}" for p in paths], "path": paths, "repo": "s",
                         "language": "python"})


class Filler:
    """Symbols ``s<i>`` and CALLS from each to ``fanout`` earlier symbols (seeded by index)."""

    def __init__(self, fanout: int) -> None:
        self.fanout = fanout
        self.next = 0

    def frames(self, rels: int) -> tuple[pl.DataFrame, pl.DataFrame]:
        n = max(1, rels // self.fanout)
        ids = pl.int_range(self.next, self.next + n, eager=True)
        path = "m" + (ids % FILES).cast(pl.Utf8) + ".py"
        nodes = pl.DataFrame({"id": ("sym:s/" + ids.cast(pl.Utf8)),
                              "name": ("f" + ids.cast(pl.Utf8)), "kind": "function",
                              "repo": "s", "path": path, "file": "file:s/" + path,
                              "language": "python", "qualname": ("f" + ids.cast(pl.Utf8))})
        src = ids.to_list() * self.fanout
        hops = [(k * 7919 + 1) for k in range(self.fanout) for _ in range(n)]
        dst = [max(0, s - h % (s + 1)) if s else 0 for s, h in zip(src, hops, strict=True)]
        edges = pl.DataFrame({"from": [f"sym:s/{s}" for s in src],
                              "to": [f"sym:s/{d}" for d in dst], "line": 1,
                              "resolution": "same_module", "count": 1})
        self.next += n
        return nodes, edges


def write(store: Store, filler: Filler, rels: int) -> tuple[float, int, int]:
    """One transaction; returns its seconds, rows (nodes + rels) and rels."""
    nodes, edges = filler.frames(rels)
    t0 = time.perf_counter()
    with store.write() as tx:
        tx.copy_nodes(SYMBOL, nodes)
        tx.copy_rels(CALLS, edges, src=SYMBOL, dst=SYMBOL)
    return time.perf_counter() - t0, nodes.height + edges.height, edges.height


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--sizes", default="10000,100000,1000000,10000000")
    parser.add_argument("--small", type=int, default=22_000)
    parser.add_argument("--group", type=int, default=10)
    parser.add_argument("--fanout", type=int, default=3)
    parser.add_argument("--fill", type=int, default=2_000_000, help="rels per fill transaction")
    parser.add_argument("--samples", type=int, default=40)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if args.db.exists():
        shutil.rmtree(args.db)
    filler, total, points = Filler(args.fanout), 0, []
    with Store.open(args.db) as store:
        with store.write() as tx:
            tx.copy_nodes(FILE, files_frame())
        for size in (int(s) for s in args.sizes.split(",")):
            while total < size:
                total += write(store, filler, min(args.fill, size - total))[2]
            point: dict[str, object] = {"calls_before": total}
            for probe, rels in (("small", args.small), ("group", args.small * args.group)):
                seconds, rows, written = write(store, filler, rels)
                total += written
                point[probe] = {"rows": rows, "seconds": round(seconds, 3),
                                "us_per_row": round(seconds / rows * 1e6, 2)}
            picked = [f"sym:s/{(i * 104_729) % filler.next}" for i in range(args.samples)]
            point["impact_depth3"] = timed(lambda s: impact(store, [s], depth=3), picked)
            point["node_with_neighbours"] = timed(lambda s: node_with_neighbours(store, s),
                                                  picked)
            point.update(rss_mib=[round(x) for x in rss_mib()],
                         disk_mb=round(disk_mb(args.db), 1),
                         load_avg=[round(x, 2) for x in os.getloadavg()])
            points.append(point)
            print(json.dumps(point), flush=True)
    first = points[0]
    for p in points:
        for probe in ("small", "group"):
            p[probe]["x_first"] = round(p[probe]["us_per_row"] / first[probe]["us_per_row"], 2)
    print(json.dumps(points, indent=1))
    if args.out:
        args.out.write_text(json.dumps(points, indent=1) + "\n")


if __name__ == "__main__":
    main()
