"""Node with neighbours on a large graph in a fresh process (issue 28: p95 < 20 ms at 10M
edges): the undirected statement of ``benchmarks/scale.py`` and the one-statement-per-
direction variant, interleaved over ``--samples`` random current functions (seeded, three
warm-up lookups).

    VGDB_BUFFER_POOL_MB=4096 .venv/bin/python benchmarks/scale_nodes.py --db /tmp/scale-10m/db
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.scale import (  # noqa: E402
    node_with_neighbours,
    node_with_neighbours_directed,
    percentiles,
    rss_mib,
)
from graphdb import Store  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--samples", type=int, default=60)
    parser.add_argument("--seed", type=int, default=2)
    args = parser.parse_args()
    with Store.open(args.db, read_only=True) as store:
        ids = store.cypher("MATCH (s:Symbol) WHERE s.valid_to IS NULL AND s.kind = 'function' "
                           "RETURN s.id AS id")["id"].to_list()
        edges = int(store.cypher("MATCH ()-[e]->() RETURN count(*)").item())
        picked = random.Random(args.seed).sample(ids, min(args.samples, len(ids)))
        for sid in picked[:3]:
            node_with_neighbours(store, sid)
            node_with_neighbours_directed(store, sid)
        took: dict[str, list[float]] = {"node_with_neighbours": [],
                                        "node_with_neighbours_directed": []}
        for sid in picked:  # interleaved: both see the same load
            for name, fn in (("node_with_neighbours", node_with_neighbours),
                             ("node_with_neighbours_directed", node_with_neighbours_directed)):
                t0 = time.perf_counter()
                fn(store, sid)
                took[name].append(time.perf_counter() - t0)
    print(json.dumps({"edges": edges, "samples": len(picked),
                      **{k: percentiles(v) for k, v in took.items()},
                      "rss_mib": round(rss_mib()[0]),
                      "load_avg": [round(x, 2) for x in os.getloadavg()]}))


if __name__ == "__main__":
    main()
