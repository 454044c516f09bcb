"""Where a node goes when the stored partition follows a small change: Leiden's local-moving
step for the affected nodes alone, the rest of the partition held fixed around them.

Pure (no store, no igraph): ``queries.communities.incremental`` runs it on what it read of
the store, ``benchmarks/communities_drift.py`` on a held-out part of a real graph.

References
----------
.. [1] M. E. J. Newman, M. Girvan, "Finding and evaluating community structure in
   networks", Physical Review E 69, 026113 (2004). doi:10.1103/PhysRevE.69.026113
.. [2] V. A. Traag, L. Waltman, N. J. van Eck, "From Louvain to Leiden: guaranteeing
   well-connected communities", Scientific Reports 9, 5233 (2019). doi:10.1038/s41598-019-41695-z
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

__all__ = ["place_nodes"]


def place_nodes(nodes: Sequence[str], edges: pl.DataFrame, finest: Mapping[str, int], *,
                degree: Mapping[int, float], total: float,
                current: Mapping[str, int] | None = None) -> dict[str, int]:
    """node -> the finest community it belongs in after the change; a node left out has no
    community worth joining (a new node then starts one of its own).

    ``edges`` (node, other, w) are the weighted dependencies of ``nodes``; ``finest`` the
    stored finest-level community of the other nodes; ``degree`` each stored community's
    total degree and ``total`` the graph's total edge weight (m); ``current`` the community
    the already-placed ``nodes`` are in (an edited file, a symbol whose calls changed).

    Joining community c gains ``w(node, c) - k(node) * D(c) / 2m`` of modularity (resolution
    1), with w the weight of the node's edges into c, k its weighted degree and D(c) the
    degree of c's other members. A node moves only when another community gains strictly
    more than its own (stability first); a new node joins the community of largest positive
    gain. Nodes are taken in order, twice: new nodes placed in the first pass pull in their
    new neighbours in the second (a new class and its methods). Ties go to the lowest number,
    so the result is deterministic.
    """
    current = current or {}
    by_node: dict[str, list[tuple[str, float]]] = {}
    for node, other, w in edges.iter_rows():
        by_node.setdefault(node, []).append((other, w))
    strength = {node: sum(w for _, w in by_node.get(node, ())) for node in nodes}
    sizes = dict(degree)  # D(c), kept up to date as nodes come and go
    scale = 1 / (2 * total) if total > 0 else 0.0
    placed: dict[str, int] = dict(current)
    settled: set[str] = set()
    for _ in range(2):
        for node in nodes:
            if node in settled:
                continue
            weight: dict[int, float] = {}
            for other, w in by_node.get(node, ()):
                number = placed.get(other, finest.get(other)) if other != node else None
                if number is not None:
                    weight[number] = weight.get(number, 0.0) + w
            if not weight:
                continue
            k = strength[node]
            own = placed.get(node)
            if own is not None:
                sizes[own] = sizes.get(own, 0.0) - k

            def gain(c: int, k: float = k, weight: dict[int, float] = weight) -> float:
                return weight.get(c, 0.0) - k * sizes.get(c, 0.0) * scale

            best = min(weight, key=lambda c: (-gain(c), c))
            if own is not None and gain(own) >= gain(best):
                best = own
            if own is not None or gain(best) > 0:
                placed[node] = best
                sizes[best] = sizes.get(best, 0.0) + k
                settled.add(node)
    return {node: placed[node] for node in nodes if node in placed}
