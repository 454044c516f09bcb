"""Module boundaries from Leiden community detection (first part: graph export and a seeded,
hierarchical Leiden; storing, naming, stable ids and boundary analysis are still to come).

The file-level graph is weighted by dependency kind: IMPORTS, CALLS and INHERITS between
different files of a repository, plus CO_CHANGED when its history was ingested. Edges are
aggregated in Kuzu and arrive as one polars frame per kind, never row by row.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import igraph
import polars as pl

from graphdb import Store
from schema import CALLS, CO_CHANGED, FILE, IMPORTS, INHERITS, SYMBOL, current_code_files

__all__ = ["DEFAULT_WEIGHTS", "CommunityGraph", "Level", "Matched", "file_graph", "hierarchy",
           "leiden", "match_communities"]

#: weight of one dependency of each kind (a CALLS edge counts once per call site)
DEFAULT_WEIGHTS: Mapping[str, float] = {IMPORTS.name: 1.0, CALLS.name: 1.0,
                                        INHERITS.name: 2.0, CO_CHANGED.name: 0.5}
#: Leiden passes; -1 (until stable) can run for minutes on a graph without structure
_ITERATIONS = 10


@dataclass(frozen=True)
class CommunityGraph:
    """An undirected weighted graph over ``ids`` (node i is ``ids[i]``)."""

    ids: tuple[str, ...]
    graph: igraph.Graph

    @property
    def edges(self) -> int:
        return self.graph.ecount()


@dataclass(frozen=True)
class Level:
    """One level of the hierarchy: ``membership[i]`` is node i's community; ``parent[c]`` the
    community of the level above that community c splits (None at the top level)."""

    level: int
    membership: tuple[int, ...]
    parent: tuple[int, ...] | None
    modularity: float

    @property
    def count(self) -> int:
        return len(set(self.membership))


def file_graph(store: Store, repo: str,
               weights: Mapping[str, float] = DEFAULT_WEIGHTS) -> CommunityGraph:
    """The current code files of ``repo`` and their weighted dependencies."""
    files = store.cypher(
        f"MATCH (f:{FILE.name}) WHERE {current_code_files()} RETURN f.id AS id ORDER BY id",
        {"r": repo})
    ids = tuple(files["id"].to_list())
    current = "a.valid_to IS NULL AND b.valid_to IS NULL"
    queries = {
        IMPORTS.name: f"MATCH (a:{FILE.name})-[e:{IMPORTS.name}]->(b) WHERE a.repo = $r AND "
                      f"{current} RETURN a.id AS src, coalesce(b.file, b.id) AS dst, "
                      "count(*) AS n",
        CALLS.name: f"MATCH (a:{SYMBOL.name})-[e:{CALLS.name}]->(b:{SYMBOL.name}) WHERE "
                    f"a.repo = $r AND {current} RETURN a.file AS src, b.file AS dst, "
                    "sum(e.count) AS n",
        INHERITS.name: f"MATCH (a:{SYMBOL.name})-[e:{INHERITS.name}]->(b:{SYMBOL.name}) "
                       f"WHERE a.repo = $r AND {current} RETURN a.file AS src, "
                       "b.file AS dst, count(*) AS n",
        CO_CHANGED.name: f"MATCH (a:{FILE.name})-[e:{CO_CHANGED.name}]->(b:{FILE.name}) "
                         f"WHERE a.repo = $r AND {current} RETURN a.id AS src, b.id AS dst, "
                         "e.count AS n",
    }
    frames = []
    for kind, query in queries.items():
        weight = float(weights.get(kind, 0.0))
        if weight <= 0:
            continue
        rows = store.cypher(query, {"r": repo})
        if not rows.is_empty():
            frames.append(rows.select("src", "dst",
                                      (pl.col("n").cast(pl.Float64) * weight).alias("w")))
    return _graph(ids, frames)


def _graph(ids: tuple[str, ...], frames: list[pl.DataFrame]) -> CommunityGraph:
    """Undirected, one edge per pair (weights summed), no self-loops."""
    index = pl.DataFrame({"id": list(ids), "i": list(range(len(ids)))},
                         schema={"id": pl.Utf8, "i": pl.Int64})
    graph = igraph.Graph(n=len(ids), directed=False)
    if frames:
        edges = (pl.concat(frames)
                 .join(index.rename({"id": "src", "i": "a"}), on="src")
                 .join(index.rename({"id": "dst", "i": "b"}), on="dst")
                 .filter(pl.col("a") != pl.col("b"))
                 .select(pl.min_horizontal("a", "b").alias("a"),
                         pl.max_horizontal("a", "b").alias("b"), "w")
                 .group_by("a", "b").agg(pl.col("w").sum())
                 .filter(pl.col("w") > 0)
                 .sort("a", "b"))
        graph.add_edges(edges.select("a", "b").rows())
        graph.es["weight"] = edges["w"].to_list()
    return CommunityGraph(ids, graph)


@contextmanager
def _seeded(seed: int):
    """igraph's Leiden takes no seed: it draws from igraph's global generator. Give it a
    private seeded one for the call, then restore Python's."""
    igraph.set_random_number_generator(random.Random(seed))
    try:
        yield
    finally:
        igraph.set_random_number_generator(random)


def leiden(graph: igraph.Graph, *, resolution: float = 1.0, seed: int = 0,
           iterations: int = _ITERATIONS) -> list[int]:
    """Modularity Leiden (igraph's implementation: the fastest measured here); deterministic
    for a seed. Nodes without edges stay singletons."""
    if graph.vcount() == 0:
        return []
    weights = "weight" if graph.ecount() and "weight" in graph.es.attributes() else None
    with _seeded(seed):
        clustering = graph.community_leiden(objective_function="modularity",
                                            weights=weights, resolution=resolution,
                                            n_iterations=iterations)
    return list(clustering.membership)


def hierarchy(cg: CommunityGraph, *, seed: int = 0, levels: int = 3, min_split: int = 12,
              resolution: float = 1.0) -> tuple[Level, ...]:
    """Top-level communities, then each community larger than ``min_split`` split again on
    its own subgraph (as GraphRAG does), up to ``levels`` levels."""
    graph = cg.graph
    if graph.vcount() == 0:
        return ()
    top = _renumber(leiden(graph, resolution=resolution, seed=seed))
    out = [Level(0, tuple(top), None, _modularity(graph, top))]
    for depth in range(1, levels):
        above = out[-1].membership
        membership = [0] * graph.vcount()
        parent: list[int] = []
        split_any = False
        for community in sorted(set(above)):
            members = [i for i, c in enumerate(above) if c == community]
            parts = [0] * len(members)
            if len(members) > min_split:
                sub = graph.induced_subgraph(members)
                parts = _renumber(leiden(sub, resolution=resolution, seed=seed))
                split_any = split_any or max(parts) > 0
            base = len(parent)
            parent.extend([community] * (max(parts) + 1))
            for node, part in zip(members, parts, strict=True):
                membership[node] = base + part
        if not split_any:
            break
        out.append(Level(depth, tuple(membership), tuple(parent),
                         _modularity(graph, membership)))
    return tuple(out)


def _renumber(membership: Sequence[int]) -> list[int]:
    """Community numbers in order of first appearance, so equal partitions look equal."""
    seen: dict[int, int] = {}
    return [seen.setdefault(c, len(seen)) for c in membership]


def _modularity(graph: igraph.Graph, membership: Sequence[int]) -> float:
    if graph.ecount() == 0:
        return 0.0
    weights = "weight" if "weight" in graph.es.attributes() else None
    return float(graph.modularity(list(membership), weights=weights))


@dataclass(frozen=True)
class Matched:
    """New communities under stable numbers: ``numbers[c]`` is the stable number of new
    community c; ``moved`` the nodes whose stable community changed, as (node, old, new)."""

    numbers: tuple[int, ...]
    moved: tuple[tuple[str, int, int], ...]


def match_communities(ids: Sequence[str], membership: Sequence[int],
                      previous: Mapping[str, int]) -> Matched:
    """Keep community numbers across runs: each new community takes the number of the old one
    it overlaps most (by Jaccard index, best pairs first, one to one); the others get numbers
    never used before. ``previous`` maps node id -> stable number from the last run."""
    new_sets: dict[int, set[str]] = {}
    for node, community in zip(ids, membership, strict=True):
        new_sets.setdefault(community, set()).add(node)
    old_sets: dict[int, set[str]] = {}
    for node, number in previous.items():
        old_sets.setdefault(number, set()).add(node)
    pairs = []
    for c, members in new_sets.items():
        for number in {previous[n] for n in members if n in previous}:
            old = old_sets[number]
            shared = len(members & old)
            pairs.append((-shared / len(members | old), c, number))
    numbers: dict[int, int] = {}
    taken: set[int] = set()
    for _, c, number in sorted(pairs):
        if c not in numbers and number not in taken:
            numbers[c] = number
            taken.add(number)
    fresh = max(old_sets, default=-1) + 1
    for c in sorted(new_sets):
        if c not in numbers:
            numbers[c] = fresh
            fresh += 1
    moved = tuple(sorted((node, previous[node], numbers[c])
                         for node, c in zip(ids, membership, strict=True)
                         if node in previous and previous[node] != numbers[c]))
    return Matched(tuple(numbers[c] for c in range(max(new_sets, default=-1) + 1)), moved)
