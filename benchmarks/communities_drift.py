"""How far in-place community updates drift from Leiden (issue 26): the measurement behind
``queries.communities.incremental.DRIFT_LIMIT``.

On an ingested repository (default: the standard library, as ``make demo`` ingests it), for
each share f of the graph's nodes: f·N random nodes are held out, Leiden partitions the rest
(the stored state before the change), then the held-out nodes join it as an update does
(``assign_new_nodes``: the community their edges weigh most towards, else alone). Compared
with a detection warm-started from that partition (what a full re-detection stores), per
scope: the modularity of each, and the share of nodes the detection moves. Repeated over
seeds; the figures are medians.

    .venv/bin/python benchmarks/communities_drift.py --db /tmp/incr-work/db --repo stdlib
"""

from __future__ import annotations

import argparse
import os
import random
import statistics

import polars as pl

from graphdb import Store
from queries.communities import community_graph, leiden
from queries.communities.incremental import assign_new_nodes

SHARES = (0.005, 0.01, 0.02, 0.05, 0.10)


def one(cg, share: float, seed: int) -> tuple[float, float, float]:
    """(modularity of the update, of the warm-started detection, share of nodes moved)."""
    graph = cg.graph
    n = graph.vcount()
    rng = random.Random(seed)
    held = set(rng.sample(range(n), max(1, int(share * n))))
    kept = [i for i in range(n) if i not in held]
    sub = graph.induced_subgraph(kept)
    before = leiden(sub, seed=seed)
    finest = {cg.ids[kept[j]]: c for j, c in enumerate(before)}
    rows = [(cg.ids[a], cg.ids[b], w) for (a, b), w in
            zip(graph.get_edgelist(), graph.es["weight"], strict=True)]
    both = rows + [(b, a, w) for a, b, w in rows]
    edges = pl.DataFrame(both, schema={"node": pl.Utf8, "other": pl.Utf8, "w": pl.Float64},
                         orient="row")
    new = sorted(cg.ids[i] for i in held)
    edges = edges.filter(pl.col("node").is_in(new))
    chosen = assign_new_nodes(new, edges, finest)
    top = max(before, default=-1) + 1
    membership = []
    for node in cg.ids:
        if node in finest:
            membership.append(finest[node])
        elif node in chosen:
            membership.append(chosen[node])
        else:
            membership.append(top)
            top += 1
    updated = graph.modularity(membership, weights="weight")
    detected = leiden(graph, seed=seed, initial=membership)
    moved = sum(1 for a, b in zip(_canon(membership), _canon(detected), strict=True) if a != b)
    return updated, graph.modularity(detected, weights="weight"), moved / n


def _canon(membership: list[int]) -> list[int]:
    """Each node labelled by the smallest node of its community (comparable partitions)."""
    first: dict[int, int] = {}
    for i, c in enumerate(membership):
        first.setdefault(c, i)
    return [first[c] for c in membership]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--repo", default="stdlib")
    ap.add_argument("--seeds", type=int, default=5)
    args = ap.parse_args()
    print(f"load {os.getloadavg()}")
    with Store.open(args.db, read_only=True) as store:
        graphs = {s: community_graph(store, args.repo, scope=s) for s in ("file", "symbol")}
    print("scope   share  modularity(update)  modularity(detection)  gap     moved by detection")
    for scope, cg in graphs.items():
        # the floor: a detection warm-started from Leiden's own partition of the same graph
        floor = []
        for seed in range(args.seeds):
            own = leiden(cg.graph, seed=seed)
            again = leiden(cg.graph, seed=seed + 1, initial=own)
            floor.append(sum(1 for a, b in zip(_canon(own), _canon(again), strict=True)
                             if a != b) / cg.graph.vcount())
        q = statistics.median(cg.graph.modularity(leiden(cg.graph, seed=s), weights="weight")
                              for s in range(args.seeds))
        print(f"{scope:7} 0.000  {q:18.4f}  {q:21.4f}  {0:6.4f}  "
              f"{statistics.median(floor):6.1%} (floor: Leiden from its own partition)")
        for share in SHARES:
            runs = [one(cg, share, seed) for seed in range(args.seeds)]
            upd = statistics.median(r[0] for r in runs)
            det = statistics.median(r[1] for r in runs)
            moved = statistics.median(r[2] for r in runs)
            print(f"{scope:7} {share:5.3f}  {upd:18.4f}  {det:21.4f}  {det - upd:6.4f}  "
                  f"{moved:6.1%}", flush=True)
    print(f"load {os.getloadavg()}")


if __name__ == "__main__":
    main()
