"""How far in-place community updates drift from Leiden (issue 26): the measurement behind
``queries.communities.incremental.DRIFT_LIMIT`` and ``DRIFT_MIN_NODES``.

On an ingested repository, for each number k of nodes (given as counts, or as shares of the
graph): k random nodes are held out, Leiden partitions the rest (the stored state before the
change), then the held-out nodes are placed as an in-place update places them
(``place_nodes``: the community of largest modularity gain, else alone; and, for
comparison, the rule used before: the community of largest edge weight). Compared with a
detection warm-started from that partition (what a full re-detection stores), per scope: the
modularity of each, and the share of nodes the detection moves. The noise floor is the
spread of Leiden's own modularity over seeds on the whole graph. Medians over seeds.

    .venv/bin/python benchmarks/communities_drift.py --db DB --repo click \
        --counts 1,2,3,5,8,12,20
    .venv/bin/python benchmarks/communities_drift.py --db DB --repo stdlib \
        --shares 0.005,0.01,0.02,0.05,0.1
"""

from __future__ import annotations

import argparse
import os
import random
import statistics

import polars as pl

from graphdb import Store
from queries.communities import CommunityGraph, community_graph, leiden
from queries.communities.placement import place_nodes


def one(cg: CommunityGraph, held_n: int, seed: int) -> tuple[float, float, float, float]:
    """(modularity after the update, after the old max-weight rule, after the warm-started
    detection, share of nodes the detection moves)."""
    graph = cg.graph
    n = graph.vcount()
    rng = random.Random(seed)
    held = set(rng.sample(range(n), min(n, max(1, held_n))))
    kept = [i for i in range(n) if i not in held]
    sub = graph.induced_subgraph(kept)
    before = leiden(sub, seed=seed)
    finest = {cg.ids[kept[j]]: c for j, c in enumerate(before)}
    # the stored figures: each community's degree and the total weight, before the change
    degree: dict[int, float] = {}
    for c, s in zip(before, sub.strength(weights="weight") if sub.ecount() else
                    [0.0] * len(before), strict=True):
        degree[c] = degree.get(c, 0.0) + s
    total = float(sum(sub.es["weight"])) if sub.ecount() else 0.0
    rows = [(cg.ids[a], cg.ids[b], w) for (a, b), w in
            zip(graph.get_edgelist(), graph.es["weight"], strict=True)]
    both = rows + [(b, a, w) for a, b, w in rows]
    edges = pl.DataFrame(both, schema={"node": pl.Utf8, "other": pl.Utf8, "w": pl.Float64},
                         orient="row")
    new = sorted(cg.ids[i] for i in held)
    edges = edges.filter(pl.col("node").is_in(new))
    placed = place_nodes(new, edges, finest, degree=degree, total=total)
    # total 0: no degree term, so the community of largest edge weight (the rule before)
    heaviest = place_nodes(new, edges, finest, degree=degree, total=0.0)
    membership = _membership(cg, finest, placed, max(before, default=-1) + 1)
    old_rule = _membership(cg, finest, heaviest, max(before, default=-1) + 1)
    detected = leiden(graph, seed=seed, initial=membership)
    moved = sum(1 for a, b in zip(_canon(membership), _canon(detected), strict=True) if a != b)
    return (_q(graph, membership), _q(graph, old_rule), _q(graph, detected), moved / n)


def _membership(cg: CommunityGraph, finest: dict[str, int], placed: dict[str, int],
                top: int) -> list[int]:
    out = []
    for node in cg.ids:
        if node in finest:
            out.append(finest[node])
        elif node in placed:
            out.append(placed[node])
        else:
            out.append(top)
            top += 1
    return out


def _q(graph, membership: list[int]) -> float:
    return graph.modularity(membership, weights="weight") if graph.ecount() else 0.0


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
    ap.add_argument("--counts", default="", help="numbers of nodes held out, e.g. 1,2,5,8")
    ap.add_argument("--shares", default="0.005,0.01,0.02,0.05,0.1",
                    help="shares of the graph's nodes held out (with no --counts)")
    args = ap.parse_args()
    print(f"load {os.getloadavg()}")
    with Store.open(args.db, read_only=True) as store:
        graphs = {s: community_graph(store, args.repo, scope=s) for s in ("file", "symbol")}
    print("scope   nodes  held  update   max-weight  detection  gap      moved by detection")
    for scope, cg in graphs.items():
        n = cg.graph.vcount()
        fresh = [_q(cg.graph, leiden(cg.graph, seed=s)) for s in range(args.seeds)]
        spread = statistics.pstdev(fresh)
        print(f"{scope:7} {n:5}  0     {statistics.median(fresh):.4f}                       "
              f"         (Leiden over {args.seeds} seeds: spread {spread:.4f}, "
              f"range {max(fresh) - min(fresh):.4f})")
        counts = ([int(c) for c in args.counts.split(",")] if args.counts else
                  [max(1, round(float(s) * n)) for s in args.shares.split(",")])
        for k in counts:
            runs = [one(cg, k, seed) for seed in range(args.seeds)]
            upd, old, det, moved = (statistics.median(r[i] for r in runs) for i in range(4))
            print(f"{scope:7} {n:5}  {k:<4}  {upd:.4f}   {old:.4f}      {det:.4f}     "
                  f"{det - upd:+.4f}  {moved:6.1%}", flush=True)
    print(f"load {os.getloadavg()}")


if __name__ == "__main__":
    main()
