"""Module boundaries from Leiden community detection.

A repository's dependencies become a weighted undirected graph, at file level (IMPORTS, CALLS
and INHERITS between files, plus CO_CHANGED when its history was ingested) or at symbol level
(CALLS, INHERITS, IMPORTS of a symbol by a module, and CONTAINS). Edges are aggregated in Kuzu
and arrive as one polars frame per kind, never row by row. Leiden partitions the graph
(seeded, so a run is reproducible), large communities are split again to give levels, and
each community is named, measured and stored as a ``Community`` node whose number survives
re-runs (new communities take the number of the old one they overlap most).

References
----------
.. [1] V. A. Traag, L. Waltman, N. J. van Eck, "From Louvain to Leiden: guaranteeing
   well-connected communities", Scientific Reports 9, 5233 (2019). doi:10.1038/s41598-019-41695-z
.. [2] V. A. Traag, P. Van Dooren, Y. Nesterov, "Narrow scope for resolution-limit-free
   community detection", Physical Review E 84, 016114 (2011). doi:10.1103/PhysRevE.84.016114
.. [3] M. E. J. Newman, M. Girvan, "Finding and evaluating community structure in
   networks", Physical Review E 69, 026113 (2004). doi:10.1103/PhysRevE.69.026113
.. [4] D. Edge et al., "From Local to Global: A Graph RAG Approach to Query-Focused
   Summarization" (2024). arXiv:2404.16130
"""

from __future__ import annotations

import hashlib
import math
import random
import re
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from typing import Literal

import numpy as np
import polars as pl

from graphdb import Store
from graphdb.communities import (
    MEMBER_SYMBOL_KINDS,
    CommunityWrite,
    stored_fingerprint,
    stored_numbers,
    write_communities,
)
from queries.igraph_headless import igraph, leidenalg
from schema import (
    CALLS,
    CO_CHANGED,
    COMMUNITY,
    CONTAINS,
    DEPENDS_ON,
    FILE,
    IMPORTS,
    IN_COMMUNITY,
    INHERITS,
    MODULE_QUALNAME,
    REPOSITORY,
    SUBCOMMUNITY_OF,
    SYMBOL,
    NodeNotFoundError,
    QueryError,
    Source,
    community_id,
    current_code_files,
    frame_schema,
)

__all__ = [
    "DEFAULT_WEIGHTS", "DEPENDENCY_KINDS", "SYMBOL_WEIGHTS", "Community", "CommunityGraph",
    "Dependency", "Detection", "Level", "Matched", "Moved", "communities", "community_graph",
    "detect_communities", "detect_scopes", "file_graph", "hierarchy", "leiden",
    "match_communities", "members",
]

Scope = Literal["file", "symbol"]
Objective = Literal["modularity", "rb", "cpm"]
Backend = Literal["igraph", "leidenalg"]
SCOPES: tuple[str, ...] = ("file", "symbol")
OBJECTIVES: tuple[str, ...] = ("modularity", "rb", "cpm")

#: file graph: weight of one dependency of each kind (a CALLS edge counts once per call site)
DEFAULT_WEIGHTS: Mapping[str, float] = {IMPORTS.name: 1.0, CALLS.name: 1.0,
                                        INHERITS.name: 2.0, CO_CHANGED.name: 0.5}
#: symbol graph: CONTAINS ties methods to their class and functions to their module
SYMBOL_WEIGHTS: Mapping[str, float] = {IMPORTS.name: 1.0, CALLS.name: 1.0,
                                       INHERITS.name: 2.0, CONTAINS.name: 1.0}
#: the kinds that make one community depend on another (CO_CHANGED and CONTAINS do not)
DEPENDENCY_KINDS: frozenset[str] = frozenset({IMPORTS.name, CALLS.name, INHERITS.name})
_SYMBOL_KINDS = MEMBER_SYMBOL_KINDS
#: Leiden passes; -1 (until stable) can run for minutes on a graph without structure
_ITERATIONS = 10


# ----------------------------------------------------------------------------- the graph
@dataclass(frozen=True)
class CommunityGraph:
    """An undirected weighted graph over ``ids`` (node i is ``ids[i]``).

    ``paths[i]`` is node i's file path (for naming and the directory comparison); ``words``
    the identifier words of each node; ``directed`` the dependency edges as they point
    (columns a, b, kind, w; a != b) for boundary analysis.
    """

    ids: tuple[str, ...]
    graph: igraph.Graph
    paths: tuple[str, ...] = ()
    words: tuple[tuple[str, ...], ...] = ()
    directed: pl.DataFrame = field(default_factory=pl.DataFrame)

    @property
    def edges(self) -> int:
        return self.graph.ecount()


def community_graph(store: Store, repo: str, *, scope: Scope = "file",
                    weights: Mapping[str, float] | None = None) -> CommunityGraph:
    """The current code of ``repo`` at ``scope`` and its weighted dependencies."""
    if scope not in SCOPES:
        raise QueryError(f"unknown community scope {scope!r}; use one of {', '.join(SCOPES)}")
    _require_repo(store, repo)
    if scope == "file":
        return file_graph(store, repo, weights if weights is not None else DEFAULT_WEIGHTS)
    return _symbol_graph(store, repo, weights if weights is not None else SYMBOL_WEIGHTS)


def file_graph(store: Store, repo: str,
               weights: Mapping[str, float] = DEFAULT_WEIGHTS) -> CommunityGraph:
    """The current code files of ``repo`` and their weighted dependencies."""
    files = store.cypher(
        f"MATCH (f:{FILE.name}) WHERE {current_code_files()} "
        "RETURN f.id AS id, f.path AS path ORDER BY id", {"r": repo})
    names = store.cypher(
        f"MATCH (f:{FILE.name})-[:{CONTAINS.name}]->(s:{SYMBOL.name}) "
        f"WHERE {current_code_files()} AND s.kind IN $kinds "
        "RETURN f.id AS id, s.name AS name", {"r": repo, "kinds": list(_SYMBOL_KINDS[1:])})
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
    by_file: dict[str, list[str]] = {}
    for node, name in names.iter_rows():
        by_file.setdefault(node, []).append(name)
    ids = files["id"].to_list()
    paths = files["path"].to_list()
    words = [_words([_stem(p), *by_file.get(i, ())]) for i, p in zip(ids, paths, strict=True)]
    return _graph(ids, paths, words, _frames(store, repo, queries, weights))


def _symbol_graph(store: Store, repo: str, weights: Mapping[str, float]) -> CommunityGraph:
    files = store.cypher(
        f"MATCH (f:{FILE.name}) WHERE {current_code_files()} RETURN f.id AS file, "
        "f.path AS path", {"r": repo})
    symbols = (store.cypher(
        f"MATCH (s:{SYMBOL.name}) WHERE s.repo = $r AND s.valid_to IS NULL "
        "AND s.kind IN $kinds RETURN s.id AS id, s.file AS file, s.name AS name",
        {"r": repo, "kinds": list(_SYMBOL_KINDS)})
        .join(files, on="file").sort("id"))
    current = "a.valid_to IS NULL AND b.valid_to IS NULL"
    module = f"'#{MODULE_QUALNAME}'"
    queries = {
        IMPORTS.name: f"MATCH (a:{FILE.name})-[e:{IMPORTS.name}]->(b) WHERE a.repo = $r AND "
                      f"{current} "
                      f"RETURN 'sym:' + substring(a.id, 6, size(a.id)) + {module} AS src, "
                      f"CASE WHEN b.file IS NULL THEN 'sym:' + substring(b.id, 6, size(b.id)) "
                      f"+ {module} ELSE b.id END AS dst, count(*) AS n",
        CALLS.name: f"MATCH (a:{SYMBOL.name})-[e:{CALLS.name}]->(b:{SYMBOL.name}) WHERE "
                    f"a.repo = $r AND {current} RETURN a.id AS src, b.id AS dst, "
                    "sum(e.count) AS n",
        INHERITS.name: f"MATCH (a:{SYMBOL.name})-[e:{INHERITS.name}]->(b:{SYMBOL.name}) "
                       f"WHERE a.repo = $r AND {current} RETURN a.id AS src, b.id AS dst, "
                       "count(*) AS n",
        CONTAINS.name: f"MATCH (a:{SYMBOL.name})-[e:{CONTAINS.name}]->(b:{SYMBOL.name}) "
                       f"WHERE a.repo = $r AND {current} RETURN a.id AS src, b.id AS dst, "
                       "count(*) AS n",
    }
    return _graph(symbols["id"].to_list(), symbols["path"].to_list(),
                  [_words([n]) for n in symbols["name"].to_list()],
                  _frames(store, repo, queries, weights))


def _frames(store: Store, repo: str, queries: Mapping[str, str],
            weights: Mapping[str, float]) -> list[pl.DataFrame]:
    """One (src, dst, kind, w) frame per kind with a positive weight."""
    frames = []
    for kind, query in queries.items():
        weight = float(weights.get(kind, 0.0))
        if weight <= 0 or math.isnan(weight):
            continue
        rows = store.cypher(query, {"r": repo})
        if not rows.is_empty():
            frames.append(rows.select(
                "src", "dst", pl.lit(kind).alias("kind"),
                (pl.col("n").cast(pl.Float64) * weight).alias("w")))
    return frames


def _graph(ids: Sequence[str], paths: Sequence[str], words: Sequence[tuple[str, ...]],
           frames: list[pl.DataFrame]) -> CommunityGraph:
    """Undirected, one edge per pair (weights summed), no self-loops; edges to nodes outside
    ``ids`` (other repositories, non-current code) are dropped."""
    index = pl.DataFrame({"id": list(ids), "i": list(range(len(ids)))},
                         schema={"id": pl.Utf8, "i": pl.Int64})
    graph = igraph.Graph(n=len(ids), directed=False)
    directed = pl.DataFrame(schema={"a": pl.Int64, "b": pl.Int64, "kind": pl.Utf8,
                                    "w": pl.Float64})
    if frames:
        directed = (pl.concat(frames)
                    .join(index.rename({"id": "src", "i": "a"}), on="src")
                    .join(index.rename({"id": "dst", "i": "b"}), on="dst")
                    .filter((pl.col("a") != pl.col("b")) & (pl.col("w") > 0))
                    .group_by("a", "b", "kind").agg(pl.col("w").sum())
                    .sort("a", "b", "kind"))
        edges = (directed
                 .select(pl.min_horizontal("a", "b").alias("a"),
                         pl.max_horizontal("a", "b").alias("b"), "w")
                 .group_by("a", "b").agg(pl.col("w").sum())
                 .sort("a", "b"))
        graph.add_edges(edges.select("a", "b").rows())
        graph.es["weight"] = edges["w"].to_list()
    return CommunityGraph(tuple(ids), graph, tuple(paths), tuple(words), directed)


# ------------------------------------------------------------------------------- Leiden
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


@dataclass(frozen=True)
class Level:
    """One level of the hierarchy: ``membership[i]`` is node i's community; ``parent[c]`` the
    community of the level above that community c splits (None at the top level)."""

    level: int
    membership: tuple[int, ...]
    parent: tuple[int, ...] | None
    modularity: float
    resolution: float = 1.0

    @property
    def count(self) -> int:
        return len(set(self.membership))


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
    top = _renumber(leiden(graph, objective=objective, resolution=resolution, seed=seed,
                           backend=backend, initial=initial))
    out = [Level(0, tuple(top), None, _modularity(graph, top), resolution)]
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
                parts = _renumber(leiden(sub, objective=objective, resolution=gamma,
                                         seed=seed, backend=backend))
                split_any = split_any or max(parts) > 0
            base = len(parent)
            parent.extend([community] * (max(parts) + 1))
            for node, part in zip(members, parts, strict=True):
                membership[node] = base + part
        if not split_any:
            break
        out.append(Level(depth, tuple(membership), tuple(parent),
                         _modularity(graph, membership), gamma))
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


# ------------------------------------------------------------------------- stable numbers
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


# ------------------------------------------------------------------------------- results
@dataclass(frozen=True)
class Dependency:
    """``community`` depends on ``target`` through ``edges`` member pairs of total weight."""

    target: str
    name: str
    weight: float
    edges: int


@dataclass(frozen=True)
class Community:
    """A stored community with its name and summary figures."""

    id: str
    repo: str
    scope: str
    level: int
    number: int
    name: str
    size: int
    prefix: str
    terms: tuple[str, ...]
    top: tuple[str, ...]
    internal: float
    external: float
    quality: float
    resolution: float
    objective: str
    parent: str | None = None
    dependencies: tuple[Dependency, ...] = ()

    @property
    def cohesion(self) -> float | None:
        """Share of its members' edge weight that stays inside (None without edges)."""
        total = self.internal + self.external
        return self.internal / total if total else None

    def to_dict(self) -> dict:
        return {**asdict(self), "cohesion": self.cohesion}


@dataclass(frozen=True)
class Moved:
    """``node`` left community ``old`` for ``new`` (ids) at ``level`` since the last run."""

    node: str
    level: int
    old: str
    new: str


@dataclass(frozen=True)
class Detection:
    """What :func:`detect_communities` found and stored."""

    repo: str
    scope: str
    objective: str
    seed: int
    nodes: int
    edges: int
    isolated: int
    levels: tuple[Level, ...]
    communities: tuple[Community, ...]
    moved: tuple[Moved, ...]
    seconds: float
    #: False for the first detection of this repository and scope (nothing to compare)
    had_previous: bool = False
    notes: tuple[str, ...] = ()

    def top(self, level: int = 0) -> tuple[Community, ...]:
        """Communities of ``level``, largest first."""
        return tuple(c for c in self.communities if c.level == level)

    def to_polars(self) -> pl.DataFrame:
        return _to_polars(self.communities)

    def to_dict(self) -> dict:
        return {"repo": self.repo, "scope": self.scope, "objective": self.objective,
                "seed": self.seed, "nodes": self.nodes, "edges": self.edges,
                "isolated": self.isolated, "seconds": round(self.seconds, 3),
                "levels": self._levels(), "communities": [c.to_dict() for c in self.communities],
                "moved": [asdict(m) for m in self.moved], "had_previous": self.had_previous,
                "notes": list(self.notes)}

    def summary(self) -> dict:
        """:meth:`to_dict` without the communities and the moved nodes (thousands of
        entries on a large repository), plus how many top-level nodes moved: what an
        ingest reports."""
        return {"repo": self.repo, "scope": self.scope, "nodes": self.nodes,
                "edges": self.edges, "isolated": self.isolated,
                "seconds": round(self.seconds, 3), "levels": self._levels(),
                "had_previous": self.had_previous, "notes": list(self.notes),
                "moved": sum(1 for m in self.moved if m.level == 0)}

    def _levels(self) -> list[dict]:
        return [{"level": lv.level, "communities": lv.count, "modularity": lv.modularity,
                 "resolution": lv.resolution} for lv in self.levels]


def _to_polars(found: Sequence[Community]) -> pl.DataFrame:
    return pl.DataFrame(
        [{"id": c.id, "level": c.level, "number": c.number, "name": c.name, "size": c.size,
          "cohesion": c.cohesion, "internal": c.internal, "external": c.external,
          "parent": c.parent} for c in found],
        schema={"id": pl.Utf8, "level": pl.Int64, "number": pl.Int64, "name": pl.Utf8,
                "size": pl.Int64, "cohesion": pl.Float64, "internal": pl.Float64,
                "external": pl.Float64, "parent": pl.Utf8})


# ------------------------------------------------------------------------------ detection
def detect_communities(store: Store, repo: str, *, scope: Scope = "file",
                       objective: Objective = "modularity", resolution: float = 1.0,
                       seed: int = 0, levels: int = 3, min_split: int = 12,
                       weights: Mapping[str, float] | None = None,
                       backend: Backend = "igraph", fresh: bool = False) -> Detection:
    """Partition ``repo``'s ``scope`` graph hierarchically, name and measure each community,
    keep the numbers of the stored run where communities overlap, and store the result in
    place of it.

    Unless ``fresh``, the top level starts from the stored partition (new nodes alone), so
    a small change of the code moves few nodes; ``fresh`` ignores it, and the result then
    depends only on the graph and the seed. Either way an unchanged graph gives the same
    communities again.
    """
    found, write = _detect(store, repo, scope, objective=objective, resolution=resolution,
                           seed=seed, levels=levels, min_split=min_split, weights=weights,
                           backend=backend, fresh=fresh)
    if write is None:
        return found
    started = time.perf_counter()
    write_communities(store, [write], now=datetime.now(UTC).replace(tzinfo=None))
    return replace(found, seconds=found.seconds + time.perf_counter() - started)


def detect_scopes(store: Store, repo: str, *, scopes: Sequence[Scope] = ("file", "symbol"),
                  seed: int = 0) -> tuple[Detection, ...]:
    """:func:`detect_communities` of each of ``scopes`` (default settings), stored in one
    transaction: an ingest's step (one commit, and so one checkpoint of the engine, instead
    of one per scope). Each detection's ``seconds`` holds its share of the write, in
    proportion to the rows it wrote."""
    done = [_detect(store, repo, scope, seed=seed) for scope in scopes]
    writes = [w for _, w in done if w is not None]
    if not writes:
        return tuple(d for d, _ in done)
    started = time.perf_counter()
    write_communities(store, writes, now=datetime.now(UTC).replace(tzinfo=None))
    took = time.perf_counter() - started
    rows = sum(w.rows for w in writes) or 1
    return tuple(d if w is None else replace(d, seconds=d.seconds + took * w.rows / rows)
                 for d, w in done)


def _detect(store: Store, repo: str, scope: Scope, *, objective: Objective = "modularity",
            resolution: float = 1.0, seed: int = 0, levels: int = 3, min_split: int = 12,
            weights: Mapping[str, float] | None = None, backend: Backend = "igraph",
            fresh: bool = False) -> tuple[Detection, CommunityWrite | None]:
    """The detection of :func:`detect_communities` and what to store (None: the stored
    one is kept)."""
    started = time.perf_counter()
    if levels < 1:
        raise QueryError(f"levels must be at least 1, not {levels}")
    cg = community_graph(store, repo, scope=scope, weights=weights)
    previous = stored_numbers(store, repo, scope)
    fingerprint = _fingerprint(cg, objective, resolution, seed, levels, min_split, backend)
    if previous and not fresh and stored_fingerprint(store, repo, scope) == fingerprint:
        return _unchanged(store, cg, repo, scope, objective, seed, previous, started), None
    initial = None if fresh or not previous.get(0) else _warm_start(cg.ids, previous[0])
    found = hierarchy(cg, seed=seed, levels=levels, min_split=min_split,
                      resolution=resolution, objective=objective, backend=backend,
                      initial=initial)
    ids_of: list[dict[int, str]] = []  # per level: local community -> id
    moved: list[Moved] = []
    stable_levels: list[tuple[Level, tuple[int, ...]]] = []
    for lv in found:
        matched = match_communities(cg.ids, lv.membership, previous.get(lv.level, {}))
        ids_of.append({c: community_id(repo, scope, lv.level, n)
                       for c, n in enumerate(matched.numbers)})
        moved.extend(Moved(node, lv.level, community_id(repo, scope, lv.level, old),
                           community_id(repo, scope, lv.level, new))
                     for node, old, new in matched.moved)
        stable_levels.append((lv, matched.numbers))
    built = _describe(cg, repo, scope, objective, stable_levels, ids_of)
    write = _write(repo, scope, cg, stable_levels, ids_of, built, fingerprint)
    notes = _notes(cg, repo, scope)
    return Detection(repo, scope, objective, seed, len(cg.ids), cg.edges, _isolated(cg), found,
                     tuple(sorted(built, key=_order)), tuple(sorted(moved, key=_moved_order)),
                     time.perf_counter() - started, bool(previous), tuple(notes)), write


def _isolated(cg: CommunityGraph) -> int:
    return sum(1 for d in cg.graph.degree() if d == 0)


def _notes(cg: CommunityGraph, repo: str, scope: str) -> list[str]:
    notes = []
    isolated = _isolated(cg)
    if not cg.ids:
        notes.append(f"repository {repo} has no current code at {scope} level: "
                     "no communities")
    elif cg.edges == 0:
        notes.append("no dependencies between the nodes: every node is its own community")
    elif isolated:
        notes.append(f"{isolated} nodes without dependencies are singleton communities")
    return notes


def _fingerprint(cg: CommunityGraph, *settings: object) -> str:
    """What a partition is computed from: the nodes, the weighted edges and the settings.
    Equal fingerprints give equal partitions, so a detection can be skipped."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(repr(settings).encode())
    digest.update("\n".join(cg.ids).encode())
    if cg.edges:
        digest.update(repr(list(zip(cg.graph.get_edgelist(), cg.graph.es["weight"],
                                    strict=True))).encode())
    return digest.hexdigest()


def _unchanged(store: Store, cg: CommunityGraph, repo: str, scope: str, objective: str,
               seed: int, previous: Mapping[int, Mapping[str, int]],
               started: float) -> Detection:
    """The stored detection, for a graph and settings that have not changed since: its
    levels carry the stable numbers as membership (parents are on the communities)."""
    found = []
    stored: list[Community] = []
    for level in sorted(previous):
        level_communities = communities(store, repo, scope=scope, level=level)  # type: ignore[arg-type]
        stored.extend(level_communities)
        first = level_communities[0] if level_communities else None
        found.append(Level(level, tuple(previous[level].get(n, -1) for n in cg.ids), None,
                           first.quality if first else 0.0, first.resolution if first else 1.0))
    notes = [*_notes(cg, repo, scope), "unchanged since the stored detection: kept"]
    return Detection(repo, scope, objective, seed, len(cg.ids), cg.edges, _isolated(cg),
                     tuple(found), tuple(sorted(stored, key=_order)), (),
                     time.perf_counter() - started, True, tuple(notes))


def _warm_start(ids: Sequence[str], numbers: Mapping[str, int]) -> list[int]:
    """The stored top-level partition over the current nodes; new nodes start alone."""
    fresh = max(numbers.values(), default=-1) + 1
    out = []
    for node in ids:
        if node in numbers:
            out.append(numbers[node])
        else:
            out.append(fresh)
            fresh += 1
    return _renumber(out)


def _order(c: Community) -> tuple:
    return (c.level, -c.size, c.number)


def _moved_order(m: Moved) -> tuple:
    return (m.level, m.node)


def _describe(cg: CommunityGraph, repo: str, scope: str, objective: str,
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
        terms = _terms(cg, members)
        for c, nodes in members.items():
            ranked = sorted(nodes, key=lambda i: (-inside[i], -strength[i], cg.ids[i]))
            top = tuple(_short(cg.ids[i]) for i in ranked[:3])
            paths = [cg.paths[i] for i in nodes]
            prefix = _prefix(paths)
            name = _name(prefix, paths, terms.get(c, ()), top)
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


# ------------------------------------------------------------------------------- naming
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_STOP = frozenset((
    "the", "and", "for", "from", "with", "into", "get", "set", "has", "new", "init", "main",
    "self", "cls", "test", "tests", "util", "utils", "helper", "helpers", "base", "impl",
    "internal", "private", "module", "object", "args", "kwargs", "value", "values", "data",
    "item", "items", "name", "names", "type", "types", "run", "make"))


def _words(names: Sequence[str]) -> tuple[str, ...]:
    """Identifier words (snake_case and camelCase split, lower-cased, 3+ letters)."""
    out = []
    for name in names:
        for word in _WORD.findall(name or ""):
            w = word.lower()
            if len(w) >= 3 and w not in _STOP and not w.isdigit():
                out.append(w)
    return tuple(out)


def _stem(path: str) -> str:
    base = path.rsplit("/", 1)[-1]
    return base.split(".", 1)[0]


def _terms(cg: CommunityGraph, members: Mapping[int, Sequence[int]]
           ) -> dict[int, tuple[str, ...]]:
    """Most distinctive words of each community: frequency inside times inverse frequency
    across communities (tf-idf with communities as documents)."""
    counts = {c: Counter(w for i in nodes for w in set(cg.words[i]))
              for c, nodes in members.items()} if cg.words else {}
    df = Counter(w for counter in counts.values() for w in counter)
    total = len(members)
    out = {}
    for c, counter in counts.items():
        scored = sorted(((n * math.log(1 + total / df[w]), w) for w, n in counter.items()
                         if n >= 2 or len(members[c]) == 1), key=lambda t: (-t[0], t[1]))
        out[c] = tuple(w for _, w in scored[:3])
    return out


def _prefix(paths: Sequence[str], share: float = 0.6) -> str:
    """Deepest directory holding at least ``share`` of the paths ('' for the root)."""
    counts: Counter[str] = Counter()
    for path in paths:
        parts = path.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            counts["/".join(parts[:depth]) + "/"] += 1
    needed = share * len(paths)
    best = ""
    for directory, n in counts.items():
        if n >= needed and (len(directory) > len(best)
                            or (len(directory) == len(best) and directory < best)):
            best = directory
    return best


def _short(node_id: str) -> str:
    """``sym:r/a/b.py#C.f`` -> ``C.f``; ``file:r/a/b.py`` -> ``b.py``."""
    path, _, qualname = node_id.partition("#")
    if qualname and qualname != MODULE_QUALNAME:
        return qualname
    return path.rsplit("/", 1)[-1]


def _name(prefix: str, paths: Sequence[str], terms: Sequence[str], top: Sequence[str]) -> str:
    """``<where> · <what>``: the shared directory (or the two commonest ones) and the most
    distinctive words (or the dominant members)."""
    if len(paths) == 1:
        return f"{prefix}{top[0]}" if top else prefix
    where = prefix
    if not where:
        dirs = Counter(p.rsplit("/", 1)[0] + "/" if "/" in p else "./" for p in paths)
        where = "+".join(d for d, _ in sorted(dirs.items(), key=lambda t: (-t[1], t[0]))[:2])
    what = ", ".join(terms) if terms else ", ".join(top[:2])
    return f"{where} · {what}" if what else where


# ------------------------------------------------------------------------------- storing
def _write(repo: str, scope: str, cg: CommunityGraph,
           levels: Sequence[tuple[Level, tuple[int, ...]]], ids_of: Sequence[Mapping[int, str]],
           built: Sequence[Community], fingerprint: str) -> CommunityWrite:
    source = Source.INFERRED.value
    # built column by column: frames from one dict per row cost ~1 s on the standard library
    columns = ("id", "level", "number", "objective", "resolution", "name", "size", "quality",
               "prefix", "terms", "top", "internal", "external")
    values: dict[str, list] = {c: [] for c in columns}
    for c in built:
        for column in columns:
            values[column].append(getattr(c, column))
    # lists of strings (terms, top: words and member names, never empty strings) go in
    # joined and are split by polars: a Python list per row costs a Series each
    lists = ("terms", "top")
    for column in lists:
        values[column] = [_SEP.join(t) for t in values[column]]
    schema = {**_schema(COMMUNITY, columns), **dict.fromkeys(lists, pl.Utf8)}
    communities = pl.DataFrame(values, schema=schema).with_columns(
        pl.col(c).str.split(_SEP).list.eval(pl.element().filter(pl.element() != ""))
        for c in lists).with_columns(
        repo=pl.lit(repo, pl.Utf8), scope=pl.lit(scope, pl.Utf8),
        source=pl.lit(source, pl.Utf8), confidence=pl.lit(1.0, pl.Float64)).select(
        "id", "repo", "scope", "level", "number", "objective", "resolution", "name", "size",
        "quality", "prefix", "terms", "top", "internal", "external", "source", "confidence")
    nodes = pl.Series("from", cg.ids, dtype=pl.Utf8)
    members = pl.concat([
        pl.DataFrame([nodes, pl.Series("to", [ids_of[lv.level][c] for c in
                                              range(len(ids_of[lv.level]))], dtype=pl.Utf8)
                      .gather(pl.Series(lv.membership, dtype=pl.Int64))])
        for lv, _ in levels] or [pl.DataFrame(schema={"from": pl.Utf8, "to": pl.Utf8})]
    ).with_columns(source=pl.lit(source), confidence=pl.lit(1.0))
    child = [c for c in built if c.parent is not None]
    parents = pl.DataFrame({"from": [c.id for c in child], "to": [c.parent for c in child]},
                           schema={"from": pl.Utf8, "to": pl.Utf8}).with_columns(
        source=pl.lit(source))
    edges = [(c.id, d) for c in built for d in c.dependencies]
    depends = pl.DataFrame(
        {"from": [a for a, _ in edges], "to": [d.target for _, d in edges],
         "weight": [d.weight for _, d in edges], "edges": [d.edges for _, d in edges]},
        schema={"from": pl.Utf8, "to": pl.Utf8, "weight": pl.Float64, "edges": pl.Int64}
    ).with_columns(source=pl.lit(source))
    return CommunityWrite(repo, scope, communities, members, parents, depends, fingerprint)


_SEP = "\x1f"


def _schema(table, columns: Sequence[str]) -> dict[str, pl.DataType]:
    full = frame_schema(table)
    return {c: full[c] for c in columns}


# -------------------------------------------------------------------------------- reading
def communities(store: Store, repo: str, *, scope: Scope = "file", level: int = 0,
                limit: int | None = None) -> tuple[Community, ...]:
    """The stored communities of ``repo`` at ``level``, largest first, with their main
    dependencies. Empty when none were detected yet."""
    if scope not in SCOPES:
        raise QueryError(f"unknown community scope {scope!r}; use one of {', '.join(SCOPES)}")
    _require_repo(store, repo)
    rows = store.cypher(
        f"MATCH (c:{COMMUNITY.name}) WHERE c.repo = $r AND c.scope = $s AND c.level = $l "
        f"OPTIONAL MATCH (c)-[:{SUBCOMMUNITY_OF.name}]->(p:{COMMUNITY.name}) "
        "RETURN c.*, p.id AS parent ORDER BY c.size DESC, c.number"
        + (f" LIMIT {int(limit)}" if limit is not None else ""),
        {"r": repo, "s": scope, "l": level})
    deps = store.cypher(
        f"MATCH (c:{COMMUNITY.name})-[d:{DEPENDS_ON.name}]->(t:{COMMUNITY.name}) "
        "WHERE c.repo = $r AND c.scope = $s AND c.level = $l "
        "RETURN c.id AS id, t.id AS target, t.name AS name, d.weight AS weight, "
        "d.edges AS edges ORDER BY id, weight DESC, target",
        {"r": repo, "s": scope, "l": level})
    by_id: dict[str, list[Dependency]] = {}
    for node, target, name, weight, edges in deps.iter_rows():
        by_id.setdefault(node, []).append(Dependency(target, name, weight, edges))
    return tuple(
        Community(r["c.id"], r["c.repo"], r["c.scope"], r["c.level"], r["c.number"],
                  r["c.name"], r["c.size"], r["c.prefix"] or "", tuple(r["c.terms"] or ()),
                  tuple(r["c.top"] or ()), r["c.internal"], r["c.external"], r["c.quality"],
                  r["c.resolution"], r["c.objective"], r["parent"],
                  tuple(by_id.get(r["c.id"], ())))
        for r in rows.to_dicts())


def members(store: Store, community: str) -> tuple[str, ...]:
    """Ids of the files or symbols in ``community``, sorted."""
    rows = store.cypher(
        f"MATCH (m)-[:{IN_COMMUNITY.name}]->(c:{COMMUNITY.name} {{id: $c}}) "
        "RETURN m.id AS id ORDER BY id", {"c": community})
    return tuple(rows["id"].to_list())


def _require_repo(store: Store, repo: str) -> None:
    found = store.cypher(f"MATCH (r:{REPOSITORY.name}) WHERE r.name = $r RETURN r.id",
                         {"r": repo})
    if found.is_empty():
        known = store.cypher(f"MATCH (r:{REPOSITORY.name}) RETURN r.name AS n ORDER BY n")
        names = ", ".join(known["n"].to_list()) or "none"
        raise NodeNotFoundError(f"no repository named {repo!r} (ingested: {names})",
                                node_id=f"repo:{repo}")
