"""The graph file's digest after a bulk write, by algorithm (graphdb/integrity.py): BLAKE2b-128
(checksum records of format 1) against XXH3-128 (format 2), interleaved on the same file, so
both see the same load and page cache. Read-only: the file is only read.

Every batch group's commit ends with this digest of the whole graph file, so it is a part of
the commit that grows with the graph (issue 28: commit cost per row at 10M edges within 2x
of its cost at 100K).

    .venv/bin/python benchmarks/graph_digest.py /tmp/scale-10m/db/graph.lbug --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from graphdb.integrity import graph_digest  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graph", type=Path, help="a graph.lbug file")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    size = args.graph.stat().st_size
    times: dict[str, list[float]] = {"blake2b (format 1)": [], "xxh3_128 (format 2)": []}
    for round_ in range(args.rounds):
        for (name, took), record_format in zip(times.items(), (1, 2), strict=True):
            t0 = time.perf_counter()
            graph_digest(args.graph, record_format)
            took.append(time.perf_counter() - t0)
            print(json.dumps({"round": round_, "digest": name, "seconds": round(took[-1], 2),
                              "load_avg": round(os.getloadavg()[0], 2)}), flush=True)
    print(json.dumps({"file_bytes": size, "median_s": {k: round(statistics.median(v), 2)
                                                       for k, v in times.items()},
                      "gb_per_s": {k: round(size / statistics.median(v) / 1e9, 2)
                                   for k, v in times.items()}}))


if __name__ == "__main__":
    main()
