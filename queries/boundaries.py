"""Boundary analysis: how the detected communities compare with the code's own structure.

For one repository and level: modularity of the stored partition, its agreement with the
directory structure (NMI and ARI against parent directories and against top-level
directories; for the symbol graph, against files), the members whose community differs from
the one most of their directory (or file) is in ("misplaced"), the dependency edges that
cross community boundaries ranked by weight, and the cycles between communities.

References
----------
.. [1] L. Danon, A. Díaz-Guilera, J. Duch, A. Arenas, "Comparing community structure
   identification", Journal of Statistical Mechanics P09008 (2005).
   doi:10.1088/1742-5468/2005/09/P09008
.. [2] L. Hubert, P. Arabie, "Comparing partitions", Journal of Classification 2, 193-218
   (1985). doi:10.1007/BF01908075
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import polars as pl

from graphdb import Store
from graphdb.communities import stored_numbers
from queries.communities import (
    DEPENDENCY_KINDS,
    CommunityGraph,
    Scope,
    communities,
    community_graph,
)
from queries.igraph_headless import igraph
from schema import QueryError, community_id

__all__ = ["Boundaries", "Crossing", "Cycle", "Misplaced", "boundaries"]


@dataclass(frozen=True)
class Misplaced:
    """``node`` sits in ``community`` while most of its ``container`` (directory, or file
    for a symbol) is in ``expected``; ``weight_own`` / ``weight_expected`` are its edge
    weights to members of each, the evidence for where it belongs."""

    node: str
    container: str
    community: str
    expected: str
    weight_own: float
    weight_expected: float


@dataclass(frozen=True)
class Crossing:
    """Dependencies of ``source`` on ``target`` (members of different communities)."""

    source: str
    target: str
    source_community: str
    target_community: str
    weight: float
    kinds: tuple[str, ...]


@dataclass(frozen=True)
class Cycle:
    """Communities that depend on each other in a circle (a strongly connected group), with
    the dependency edges among them, lightest first: the cheapest ones to cut."""

    communities: tuple[str, ...]
    edges: tuple[tuple[str, str, float], ...]  # at most ten
    edge_count: int


@dataclass(frozen=True)
class Boundaries:
    """The boundary report of one stored detection level."""

    repo: str
    scope: str
    level: int
    communities: int
    modularity: float
    #: agreement with the parent directories (symbol scope: the defining files)
    nmi_containers: float
    ari_containers: float
    #: agreement with the top-level directories
    nmi_top: float
    ari_top: float
    misplaced: tuple[Misplaced, ...]
    crossing: tuple[Crossing, ...]
    cycles: tuple[Cycle, ...]
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return asdict(self)

    def crossing_frame(self) -> pl.DataFrame:
        return pl.DataFrame(
            [{"source": c.source, "target": c.target, "source_community": c.source_community,
              "target_community": c.target_community, "weight": c.weight,
              "kinds": list(c.kinds)} for c in self.crossing],
            schema={"source": pl.Utf8, "target": pl.Utf8, "source_community": pl.Utf8,
                    "target_community": pl.Utf8, "weight": pl.Float64,
                    "kinds": pl.List(pl.Utf8)})


def boundaries(store: Store, repo: str, *, scope: Scope = "file", level: int = 0,
               limit: int = 20) -> Boundaries:
    """Boundary report of the stored communities of ``repo`` at ``level`` (run
    :func:`queries.communities.detect_communities` first). Nodes added since the detection
    are left out of the comparison."""
    numbers = stored_numbers(store, repo, scope).get(level)
    cg = community_graph(store, repo, scope=scope)
    if not numbers:
        raise QueryError(f"no communities stored for {repo} ({scope} level {level}); "
                         f"run `vgdb communities {repo} --detect` first")
    known = [i for i, node in enumerate(cg.ids) if node in numbers]
    membership = [numbers.get(node, -1) for node in cg.ids]
    notes = []
    if len(known) < len(cg.ids):
        notes.append(f"{len(cg.ids) - len(known)} nodes are newer than the detection and "
                     "were left out; re-run the detection to include them")
    containers = [_container(cg, i, scope) for i in range(len(cg.ids))]
    tops = [p.split("/", 1)[0] if "/" in p else "." for p in cg.paths]
    nmi_c, ari_c = _agreement([membership[i] for i in known], [containers[i] for i in known])
    nmi_t, ari_t = _agreement([membership[i] for i in known], [tops[i] for i in known])
    sub = cg.graph.induced_subgraph(known) if known else igraph.Graph()
    modularity = (float(sub.modularity([membership[i] for i in known], weights="weight"))
                  if sub.ecount() else 0.0)

    def cid(n: int) -> str:
        return community_id(repo, scope, level, n)

    crossing = _crossing(cg, membership, cid, limit)
    stored = communities(store, repo, scope=scope, level=level)
    return Boundaries(repo, scope, level, len(set(numbers.values())), modularity,
                      nmi_c, ari_c, nmi_t, ari_t,
                      _misplaced(cg, membership, containers, cid, limit), crossing,
                      _cycles(stored), tuple(notes))


def _container(cg: CommunityGraph, i: int, scope: str) -> str:
    path = cg.paths[i]
    if scope == "symbol":
        return path
    return path.rsplit("/", 1)[0] if "/" in path else "."


def _agreement(membership: Sequence[int], labels: Sequence[str]) -> tuple[float, float]:
    if len(membership) < 2:
        return 1.0, 1.0
    index: dict[str, int] = {}
    other = [index.setdefault(label, len(index)) for label in labels]
    return (float(igraph.compare_communities(membership, other, method="nmi")),
            float(igraph.compare_communities(membership, other, method="adjusted_rand")))


def _misplaced(cg: CommunityGraph, membership: Sequence[int], containers: Sequence[str],
               cid, limit: int) -> tuple[Misplaced, ...]:
    """Members with dependencies outside the community most of their container's members
    are in (containers of at least three known members with a clear majority)."""
    groups: dict[str, list[int]] = {}
    for i, container in enumerate(containers):
        if membership[i] >= 0:
            groups.setdefault(container, []).append(i)
    out = []
    for container, nodes in groups.items():
        if len(nodes) < 3:
            continue
        (expected, count), = Counter(membership[i] for i in nodes).most_common(1)
        if count * 2 <= len(nodes):
            continue
        for i in nodes:
            if membership[i] == expected:
                continue
            own = expected_w = 0.0
            for edge in cg.graph.es[cg.graph.incident(i)]:
                j = edge.target if edge.source == i else edge.source
                if membership[j] == membership[i]:
                    own += edge["weight"]
                elif membership[j] == expected:
                    expected_w += edge["weight"]
            if own or expected_w:  # a member without edges shows nowhere it belongs
                out.append(Misplaced(cg.ids[i], container, cid(membership[i]),
                                     cid(expected), own, expected_w))
    out.sort(key=lambda m: (-(m.weight_own - m.weight_expected), m.node))
    return tuple(out[:limit])


def _crossing(cg: CommunityGraph, membership: Sequence[int], cid,
              limit: int) -> tuple[Crossing, ...]:
    if cg.directed.is_empty():
        return ()
    m = pl.DataFrame({"i": range(len(membership)), "c": list(membership)},
                     schema={"i": pl.Int64, "c": pl.Int64})
    rows = (cg.directed.filter(pl.col("kind").is_in(list(DEPENDENCY_KINDS)))
            .join(m.rename({"i": "a", "c": "ca"}), on="a")
            .join(m.rename({"i": "b", "c": "cb"}), on="b")
            .filter((pl.col("ca") != pl.col("cb")) & (pl.col("ca") >= 0) & (pl.col("cb") >= 0))
            .group_by("a", "b", "ca", "cb")
            .agg(pl.col("w").sum(), pl.col("kind").unique().sort())
            .sort(["w", "a", "b"], descending=[True, False, False])
            .head(limit))
    return tuple(Crossing(cg.ids[a], cg.ids[b], cid(ca), cid(cb), w, tuple(kinds))
                 for a, b, ca, cb, w, kinds in rows.select("a", "b", "ca", "cb", "w", "kind")
                 .iter_rows())


def _cycles(stored) -> tuple[Cycle, ...]:
    """Strongly connected groups of the community dependency graph (DEPENDS_ON)."""
    ids = [c.id for c in stored]
    index = {c: i for i, c in enumerate(ids)}
    edges = [(index[c.id], index[d.target], d.weight) for c in stored for d in c.dependencies
             if d.target in index]
    graph = igraph.Graph(n=len(ids), edges=[(a, b) for a, b, _ in edges], directed=True)
    out = []
    for group in graph.connected_components(mode="strong"):
        if len(group) < 2:
            continue
        members = set(group)
        inner = sorted(((ids[a], ids[b], w) for a, b, w in edges
                        if a in members and b in members), key=lambda e: (e[2], e[0], e[1]))
        out.append(Cycle(tuple(sorted(ids[i] for i in group)), tuple(inner[:10]),
                         len(inner)))
    out.sort(key=lambda c: (-len(c.communities), c.communities))
    return tuple(out)
