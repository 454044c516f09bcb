"""Name, size, internal and external weight and main dependencies of every detected
community, computed column-wise (numpy, polars) over the graph's edges.

References
----------
.. [1] M. E. J. Newman, M. Girvan, "Finding and evaluating community structure in
   networks", Physical Review E 69, 026113 (2004). doi:10.1103/PhysRevE.69.026113
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import polars as pl

from queries.communities.graph import DEPENDENCY_KINDS, CommunityGraph
from queries.communities.naming import (
    common_prefix,
    community_name,
    distinctive_terms,
    short_name,
)
from queries.communities.results import Community, Dependency, Level

__all__ = ["describe"]


def describe(cg: CommunityGraph, repo: str, scope: str, objective: str,
              levels: Sequence[tuple[Level, tuple[int, ...]]],
              ids_of: Sequence[Mapping[int, str]]) -> list[Community]:
    """Name, size, internal/external weight and main dependencies of every community."""
    out: list[Community] = []
    edges, weight = _edge_arrays(cg)
    strength = np.bincount(edges.ravel(), weights=np.repeat(weight, 2),
                           minlength=len(cg.ids)).tolist()
    for (lv, numbers), ids in zip(levels, ids_of, strict=True):
        members: dict[int, list[int]] = {}
        for node, c in enumerate(lv.membership):
            members.setdefault(c, []).append(node)
        membership = np.asarray(lv.membership, dtype=np.int64)
        internal, external, inside = _weights(edges, weight, membership)
        depends = _dependencies(cg, lv.membership)
        terms = distinctive_terms(cg, members)
        for c, nodes in members.items():
            ranked = sorted(nodes, key=lambda i: (-inside[i], -strength[i], cg.ids[i]))
            top = tuple(short_name(cg.ids[i]) for i in ranked[:3])
            paths = [cg.paths[i] for i in nodes]
            prefix = common_prefix(paths)
            name = community_name(prefix, paths, terms.get(c, ()), top)
            parent = (None if lv.parent is None else ids_of[lv.level - 1][lv.parent[c]])
            deps = tuple(Dependency(ids[b], "", w, n) for b, w, n in depends.get(c, ()))
            out.append(Community(ids[c], repo, scope, lv.level, numbers[c], name, len(nodes),
                                 prefix, terms.get(c, ()), top, internal[c], external[c],
                                 lv.modularity, lv.resolution, objective, parent, deps))
    names = {c.id: c.name for c in out}
    return [_with_dep_names(c, names) for c in out]


def _with_dep_names(c: Community, names: Mapping[str, str]) -> Community:
    deps = tuple(Dependency(d.target, names.get(d.target, ""), d.weight, d.edges)
                 for d in c.dependencies)
    return Community(**{**c.__dict__, "dependencies": deps})


def _edge_arrays(cg: CommunityGraph) -> tuple[np.ndarray, np.ndarray]:
    """The graph's edges as an (E, 2) array of node numbers and their weights."""
    if not cg.edges:
        return np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=np.float64)
    return (np.asarray(cg.graph.get_edgelist(), dtype=np.int64),
            np.asarray(cg.graph.es["weight"], dtype=np.float64))


def _weights(edges: np.ndarray, weight: np.ndarray, membership: np.ndarray
             ) -> tuple[list[float], list[float], list[float]]:
    """Per community the weight of its edges inside and of those leaving it, and per node
    the weight of its edges inside its own community (its strength in the community's
    subgraph). Sums of weights that are multiples of 1/2: exact in any order."""
    n = int(membership.max()) + 1 if membership.size else 0
    ca, cb = membership[edges[:, 0]], membership[edges[:, 1]]
    same = ca == cb
    internal = np.bincount(ca[same], weights=weight[same], minlength=n)
    external = (np.bincount(ca[~same], weights=weight[~same], minlength=n)
                + np.bincount(cb[~same], weights=weight[~same], minlength=n))
    inside = np.bincount(edges[same].ravel(), weights=np.repeat(weight[same], 2),
                         minlength=membership.size)
    return internal.tolist(), external.tolist(), inside.tolist()


def _dependencies(cg: CommunityGraph, membership: Sequence[int]
                  ) -> dict[int, list[tuple[int, float, int]]]:
    """community -> [(community it depends on, weight, member pairs)], heaviest first."""
    if cg.directed.is_empty():
        return {}
    m = pl.DataFrame({"i": range(len(membership)), "c": list(membership)},
                     schema={"i": pl.Int64, "c": pl.Int64})
    rows = (cg.directed.filter(pl.col("kind").is_in(list(DEPENDENCY_KINDS)))
            .group_by("a", "b").agg(pl.col("w").sum())
            .join(m.rename({"i": "a", "c": "ca"}), on="a")
            .join(m.rename({"i": "b", "c": "cb"}), on="b")
            .filter(pl.col("ca") != pl.col("cb"))
            .group_by("ca", "cb").agg(pl.col("w").sum(), pl.len().alias("n"))
            .sort(["ca", "w", "cb"], descending=[False, True, False]))
    out: dict[int, list[tuple[int, float, int]]] = {}
    for ca, cb, w, n in rows.select("ca", "cb", "w", "n").iter_rows():
        out.setdefault(ca, []).append((cb, w, n))
    return out
