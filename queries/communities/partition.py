"""Leiden partitions (igraph's implementation by default, seeded) and the hierarchy of
levels built from them.

References
----------
.. [1] V. A. Traag, L. Waltman, N. J. van Eck, "From Louvain to Leiden: guaranteeing
   well-connected communities", Scientific Reports 9, 5233 (2019). doi:10.1038/s41598-019-41695-z
.. [2] V. A. Traag, P. Van Dooren, Y. Nesterov, "Narrow scope for resolution-limit-free
   community detection", Physical Review E 84, 016114 (2011). doi:10.1103/PhysRevE.84.016114
.. [3] D. Edge et al., "From Local to Global: A Graph RAG Approach to Query-Focused
   Summarization" (2024). arXiv:2404.16130
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from contextlib import contextmanager

from queries.communities.graph import CommunityGraph
from queries.communities.results import OBJECTIVES, Backend, Level, Objective
from queries.igraph_headless import igraph, leidenalg
from schema import QueryError

__all__ = ["hierarchy", "leiden", "partition_modularity", "renumber"]

#: Leiden passes; -1 (until stable) can run for minutes on a graph without structure
_ITERATIONS = 10


@contextmanager
def _seeded(seed: int):
    """igraph's Leiden takes no seed: it draws from igraph's global generator. Give it a
    private seeded one for the call, then restore Python's."""
    igraph.set_random_number_generator(random.Random(seed))
    try:
        yield
    finally:
        igraph.set_random_number_generator(random)


def leiden(graph: igraph.Graph, *, objective: Objective = "modularity",
           resolution: float = 1.0, seed: int = 0, iterations: int = _ITERATIONS,
           backend: Backend = "igraph", initial: Sequence[int] | None = None) -> list[int]:
    """Leiden partition of ``graph``, deterministic for a seed; nodes without edges stay
    singletons.

    ``objective``: ``modularity`` (resolution 1), ``rb`` (Reichardt-Bornholdt configuration
    model: modularity with a resolution) or ``cpm`` (constant Potts model: communities denser
    than ``resolution``). igraph's own implementation is the default for all three: it is
    the fastest measured here (benchmarks/communities.py); ``backend="leidenalg"`` runs the
    reference implementation. ``initial`` starts from a given partition (a warm start:
    Leiden then only improves it, so a small change of the graph moves few nodes).
    """
    if objective not in OBJECTIVES:
        raise QueryError(f"unknown objective {objective!r}; use one of {', '.join(OBJECTIVES)}")
    if graph.vcount() == 0:
        return []
    if resolution <= 0 or not math.isfinite(resolution):
        raise QueryError(f"resolution must be a positive number, not {resolution}")
    weights = "weight" if graph.ecount() and "weight" in graph.es.attributes() else None
    gamma = 1.0 if objective == "modularity" else resolution
    if backend == "leidenalg":
        kind = {"modularity": leidenalg.ModularityVertexPartition,
                "rb": leidenalg.RBConfigurationVertexPartition,
                "cpm": leidenalg.CPMVertexPartition}[objective]
        extra = {} if objective == "modularity" else {"resolution_parameter": gamma}
        partition = leidenalg.find_partition(
            graph, kind, weights=weights, n_iterations=iterations, seed=seed,
            initial_membership=list(initial) if initial is not None else None, **extra)
        return list(partition.membership)
    with _seeded(seed):
        clustering = graph.community_leiden(
            objective_function="CPM" if objective == "cpm" else "modularity",
            weights=weights, resolution=gamma, n_iterations=iterations,
            initial_membership=list(initial) if initial is not None else None)
    return list(clustering.membership)


def hierarchy(cg: CommunityGraph, *, seed: int = 0, levels: int = 3, min_split: int = 12,
              resolution: float = 1.0, objective: Objective = "modularity",
              backend: Backend = "igraph", initial: Sequence[int] | None = None
              ) -> tuple[Level, ...]:
    """Top-level communities, then each community larger than ``min_split`` split again on
    its own subgraph (as GraphRAG does), up to ``levels`` levels. CPM has no resolution
    limit, so re-running it on a community rarely splits it: its resolution doubles at each
    level instead. ``initial`` warm-starts the top level (see :func:`leiden`)."""
    graph = cg.graph
    if graph.vcount() == 0 or levels < 1:
        return ()
    top = renumber(leiden(graph, objective=objective, resolution=resolution, seed=seed,
                           backend=backend, initial=initial))
    out = [Level(0, tuple(top), None, partition_modularity(graph, top), resolution)]
    for depth in range(1, levels):
        gamma = resolution * (2 ** depth if objective == "cpm" else 1)
        above = out[-1].membership
        membership = [0] * graph.vcount()
        parent: list[int] = []
        split_any = False
        groups: dict[int, list[int]] = {}
        for node, community in enumerate(above):
            groups.setdefault(community, []).append(node)
        for community in sorted(groups):
            members = groups[community]
            parts = [0] * len(members)
            if len(members) > min_split:
                sub = graph.induced_subgraph(members)
                parts = renumber(leiden(sub, objective=objective, resolution=gamma,
                                         seed=seed, backend=backend))
                split_any = split_any or max(parts) > 0
            base = len(parent)
            parent.extend([community] * (max(parts) + 1))
            for node, part in zip(members, parts, strict=True):
                membership[node] = base + part
        if not split_any:
            break
        out.append(Level(depth, tuple(membership), tuple(parent),
                         partition_modularity(graph, membership), gamma))
    return tuple(out)


def renumber(membership: Sequence[int]) -> list[int]:
    """Community numbers in order of first appearance, so equal partitions look equal."""
    seen: dict[int, int] = {}
    return [seen.setdefault(c, len(seen)) for c in membership]


def partition_modularity(graph: igraph.Graph, membership: Sequence[int]) -> float:
    if graph.ecount() == 0:
        return 0.0
    weights = "weight" if "weight" in graph.es.attributes() else None
    return float(graph.modularity(list(membership), weights=weights))
