"""The graph a detection partitions: a repository's current code at file or symbol level
and its weighted dependencies, aggregated in Kuzu (one polars frame per kind, never row by
row) and turned into one undirected igraph graph."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import polars as pl

from graphdb import Store
from graphdb.communities import MEMBER_SYMBOL_KINDS
from queries.communities.naming import file_stem, identifier_words
from queries.communities.results import SCOPES, Scope
from queries.communities.stored import require_repo
from queries.igraph_headless import igraph
from schema import (
    CALLS,
    CO_CHANGED,
    CONTAINS,
    FILE,
    IMPORTS,
    INHERITS,
    MODULE_QUALNAME,
    SYMBOL,
    QueryError,
    current_code_files,
)

__all__ = ["DEFAULT_WEIGHTS", "DEPENDENCY_KINDS", "SYMBOL_WEIGHTS", "CommunityGraph",
           "community_graph", "file_graph"]

#: file graph: weight of one dependency of each kind (a CALLS edge counts once per call site)
DEFAULT_WEIGHTS: Mapping[str, float] = {IMPORTS.name: 1.0, CALLS.name: 1.0,
                                        INHERITS.name: 2.0, CO_CHANGED.name: 0.5}
#: symbol graph: CONTAINS ties methods to their class and functions to their module
SYMBOL_WEIGHTS: Mapping[str, float] = {IMPORTS.name: 1.0, CALLS.name: 1.0,
                                       INHERITS.name: 2.0, CONTAINS.name: 1.0}
#: the kinds that make one community depend on another (CO_CHANGED and CONTAINS do not)
DEPENDENCY_KINDS: frozenset[str] = frozenset({IMPORTS.name, CALLS.name, INHERITS.name})
_SYMBOL_KINDS = MEMBER_SYMBOL_KINDS


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
    require_repo(store, repo)
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
    words = [identifier_words([file_stem(p), *by_file.get(i, ())])
             for i, p in zip(ids, paths, strict=True)]
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
                  [identifier_words([n]) for n in symbols["name"].to_list()],
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
