"""Where a large graph's memory goes once it is loaded (issue 28): a fresh process opens the
database ``benchmarks/scale.py`` left, and prints its resident memory after the open, after
the query probes of ``scale.py`` and after ``malloc_trim``; then how that memory splits
between the engine's buffer pool (its one large reserved mapping), other anonymous memory
(the allocator: engine and Python objects), the C heap and mapped files (/proc/self/smaps).
Run it on a database no other process has open; compare with the RSS the loading process
printed (scale.py's ``rss_mib``) to tell what the load accumulates from what the graph needs.

    VGDB_BUFFER_POOL_MB=2048 .venv/bin/python benchmarks/scale_memory.py --db /tmp/scale-db \
        [--samples 100 --impact-memory]
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.scale import disk_mb, measure_queries, rss_mib  # noqa: E402
from graphdb import Store  # noqa: E402

#: a mapping this large is the engine's buffer pool (it reserves address space up front)
_POOL_MAPPING = 1 << 40


def split() -> dict[str, float]:
    """Resident MiB by kind of mapping, from /proc/self/smaps."""
    out = {"buffer_pool": 0.0, "other_anonymous": 0.0, "heap": 0.0, "files": 0.0}
    name, size = "", 0
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()
        if "-" in head[0] and ":" not in head[0]:
            name = head[5] if len(head) > 5 else ""
        elif head[0] == "Size:":
            size = int(head[1]) * 1024
        elif head[0] == "Rss:":
            kind = ("buffer_pool" if size >= _POOL_MAPPING else "heap" if name == "[heap]"
                    else "other_anonymous" if not name or name.startswith("[anon")
                    else "files")
            out[kind] += int(head[1]) / 1024
    return {k: round(v) for k, v in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--impact-memory", action="store_true",
                        help="also build the columnar impact adjacency, time impact from it "
                             "and check its answers equal the per-hop queries'")
    parser.add_argument("--serving", action="store_true",
                        help="open the database as `vgdb serve` does (one thread per query)")
    args = parser.parse_args()
    start = rss_mib()[0]
    with Store.open(args.db, serving=args.serving) as store:
        opened = {"rss_mib": round(rss_mib()[0]), **split()}
        queries = measure_queries(store, args.samples, args.seed, memory=args.impact_memory)
        queried = {"rss_mib": round(rss_mib()[0]), **split()}
        ctypes.CDLL("libc.so.6").malloc_trim(0)
        trimmed = {"rss_mib": round(rss_mib()[0]), **split()}
        nodes = int(store.cypher("MATCH (n) RETURN count(*)").item())
        edges = int(store.cypher("MATCH ()-[e]->() RETURN count(*)").item())
    print(json.dumps({"nodes": nodes, "edges": edges, "disk_mb": round(disk_mb(args.db)),
                      "interpreter_mib": round(start), "after_open": opened,
                      "after_queries": queried, "after_malloc_trim": trimmed,
                      "peak_rss_mib": round(rss_mib()[1]), "queries": queries,
                      "buffer_pool_mb": os.environ.get("VGDB_BUFFER_POOL_MB", "1024 (default)"),
                      "serving": args.serving,
                      "load_avg": [round(x, 2) for x in os.getloadavg()]}, indent=1))


if __name__ == "__main__":
    main()
