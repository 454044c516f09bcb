"""A chosen part of the graph as two polars frames (nodes, edges), bounded in size, and its
conversion to networkx and igraph.

The selection is pushed down to Kuzu: it counts before it fetches, so a subgraph over the
limits is refused (or sampled, with a warning) before anything large is read into memory.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

import polars as pl

from graphdb import Store
from schema import (
    COMMUNITY,
    FILE,
    IN_COMMUNITY,
    NODE_TABLES,
    REL_TABLES,
    REPOSITORY,
    SYMBOL,
    NodeTable,
    QueryError,
    RelTable,
)

if TYPE_CHECKING:
    import igraph
    import networkx

__all__ = ["DOMAINS", "LONG_TEXT", "LimitWarning", "Subgraph", "SubgraphTooLargeError",
           "select_subgraph"]

#: node table domains (schema ``NodeTable.domain``) a subgraph can be chosen by
DOMAINS = ("code", "history", "academic", "derived")
#: long text properties left out of subgraph nodes and edges (``properties="all"`` keeps them)
LONG_TEXT = frozenset({"content", "docstring", "message", "abstract", "signature", "context",
                       "error", "approach", "conflicts", "evidence"})
OnLimit = Literal["raise", "sample"]


class SubgraphTooLargeError(QueryError):
    """The chosen subgraph has more nodes or edges than the limits allow."""

    code = "SUBGRAPH_TOO_LARGE"

    def __init__(self, message: str, *, nodes: int, edges: int, max_nodes: int,
                 max_edges: int) -> None:
        super().__init__(
            message,
            suggestion="narrow it (repo=, community=, edges=, tables=), raise max_nodes/"
                       "max_edges if memory allows, or pass on_limit='sample'")
        self.nodes = nodes
        self.edges = edges
        self.max_nodes = max_nodes
        self.max_edges = max_edges


class LimitWarning(UserWarning):
    """A result was cut or sampled to stay within a limit."""


@dataclass(frozen=True)
class Subgraph:
    """Nodes (``id``, ``table``, properties) and edges (``from_id``, ``to_id``, ``rel``,
    properties) of a selection; ``sampled`` says a limit made it a sample; ``counts`` holds
    the sizes before sampling."""

    nodes: pl.DataFrame
    edges: pl.DataFrame
    sampled: bool = False
    counts: dict[str, int] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def to_networkx(self) -> networkx.MultiDiGraph:
        """A ``MultiDiGraph``: node keys are graph ids, node attribute ``table``; edge keys are
        rel table names (``CALLS``...), edge attribute ``rel``. Null properties are left out
        (so GraphML and GEXF writers accept the graph)."""
        import networkx as nx

        g = nx.MultiDiGraph()
        for row in self.nodes.iter_rows(named=True):
            g.add_node(row["id"], **{k: v for k, v in row.items() if k != "id" and v is not None})
        for row in self.edges.iter_rows(named=True):
            attrs = {k: v for k, v in row.items() if k not in ("from_id", "to_id")
                     and v is not None}
            g.add_edge(row["from_id"], row["to_id"], key=row["rel"], **attrs)
        return g

    def to_igraph(self) -> igraph.Graph:
        """A directed igraph ``Graph``: vertex attribute ``name`` is the graph id (so
        ``g.vs.find(name=...)`` works), ``label`` the node's own ``name`` property (igraph's
        plots show it), ``table`` and the other properties; edge attribute ``rel`` and the
        properties."""
        import igraph

        ids = self.nodes["id"].to_list()
        index = {node: i for i, node in enumerate(ids)}
        pairs = [(index[a], index[b]) for a, b in
                 zip(self.edges["from_id"].to_list(), self.edges["to_id"].to_list(), strict=True)]
        rename = {"id": "name", "name": "label"}  # igraph looks vertices up by "name"
        vertex_attrs = {rename.get(c, c): self.nodes[c].to_list() for c in self.nodes.columns}
        edge_attrs = {c: self.edges[c].to_list() for c in self.edges.columns
                      if c not in ("from_id", "to_id")}
        return igraph.Graph(n=len(ids), edges=pairs, directed=True, vertex_attrs=vertex_attrs,
                            edge_attrs=edge_attrs)


# --------------------------------------------------------------------------- selection
@dataclass(frozen=True)
class _Pred:
    """The WHERE condition on one node table: ``anchored`` tables are filtered by repo or
    community directly; the others only come in as ends of selected edges."""

    table: NodeTable
    anchored: bool
    by: Literal["", "repo", "community"] = ""
    sample_below: str | None = None  # hash threshold when the nodes were sampled

    def where(self, alias: str, *, time: str, filters: bool = True) -> str:
        parts = [time.format(a=alias)] if time else []
        if filters and self.anchored:
            if self.by == "community":
                parts.append(f"EXISTS {{ MATCH ({alias})-[:{IN_COMMUNITY.name}]->"
                             f"(c_:{COMMUNITY.name}) WHERE c_.id = $community }}")
            elif self.by == "repo":
                parts.append(f"{alias}.name = $repo" if self.table is REPOSITORY
                             else f"{alias}.repo = $repo")
            if self.sample_below is not None:
                parts.append(f"md5(concat($seed, {alias}.id)) <= $h_{self.table.name}")
        return " AND ".join(parts) or "true"


def _time(as_of: datetime | None, history: bool) -> str:
    if history:
        return ""
    if as_of is None:
        return "{a}.valid_to IS NULL AND {a}.expired_at IS NULL"
    return ("({a}.valid_from IS NULL OR {a}.valid_from <= $as_of) AND "
            "({a}.valid_to IS NULL OR {a}.valid_to > $as_of) AND {a}.expired_at IS NULL")


def _node_tables(domain: str | Sequence[str] | None,
                 tables: Sequence[str] | None) -> list[NodeTable]:
    by_name = {t.name.lower(): t for t in NODE_TABLES if not t.internal}
    if tables is not None:
        out = []
        for name in tables:
            if name.lower() not in by_name:
                raise QueryError(f"unknown node table {name!r}; choose from "
                                 f"{sorted(t.name for t in by_name.values())}")
            out.append(by_name[name.lower()])
        return out
    domains = [domain] if isinstance(domain, str) else list(domain or DOMAINS)
    bad = sorted(set(domains) - set(DOMAINS))
    if bad:
        raise QueryError(f"unknown domain {bad[0]!r}; choose from {list(DOMAINS)}")
    return [t for t in by_name.values() if t.domain in domains]


def _rel_tables(nodes: list[NodeTable], edges: Sequence[str] | None
                ) -> list[tuple[RelTable, NodeTable, NodeTable]]:
    chosen = {t.name for t in nodes}
    by_name = {r.name.upper(): r for r in REL_TABLES}
    if edges is not None:
        unknown = [e for e in edges if e.upper() not in by_name]
        if unknown:
            raise QueryError(f"unknown edge kind {unknown[0]!r}; choose from "
                             f"{sorted(by_name)}")
        rels = [by_name[e.upper()] for e in edges]
    else:
        rels = list(REL_TABLES)
    return [(r, a, b) for r in rels for a, b in r.pairs if a.name in chosen and b.name in chosen]


def _columns(table: NodeTable | RelTable, properties: str) -> list[str]:
    names = [p.name for p in table.columns if p.name != "id"]
    return names if properties == "all" else [n for n in names if n not in LONG_TEXT]


def _run(store: Store, query: str, params: dict[str, Any]) -> pl.DataFrame:
    """Kuzu refuses parameters a query does not use: pass only those it names."""
    used = set(re.findall(r"\$(\w+)", query))
    return store.cypher(query, {k: v for k, v in params.items() if k in used})


def _count(store: Store, query: str, params: dict[str, Any]) -> int:
    return int(_run(store, query + " RETURN count(*) AS n", params)["n"][0])


def select_subgraph(store: Store, *, domain: str | Sequence[str] | None = "code",
                    tables: Sequence[str] | None = None, edges: Sequence[str] | None = None,
                    repo: str | None = None, community: str | None = None,
                    as_of: datetime | None = None, history: bool = False,
                    max_nodes: int = 50_000, max_edges: int = 200_000,
                    on_limit: OnLimit = "raise", seed: int = 0,
                    properties: Literal["compact", "all"] = "compact") -> Subgraph:
    """The nodes and edges of a chosen part of the graph.

    Parameters
    ----------
    domain, tables
        Node tables: those of a domain (``code``, ``history``, ``academic``, ``derived``, or a
        list; ``None`` = all), or named ``tables`` (which win over ``domain``).
    edges
        Rel tables (``CALLS``, ``IMPORTS``...) to keep; default: every rel table whose both
        ends are chosen node tables.
    repo, community
        Keep nodes of this repository (tables with a ``repo`` property; ``Repository`` by
        name), or members of this community (``community:<repo>/<scope>/<level>/<n>``; files
        or symbols). Nodes of other chosen tables (externals, people, papers, ...) come in only
        as ends of kept edges.
    as_of, history
        Facts valid at ``as_of`` (valid time); default: current facts only; ``history=True``
        keeps every version (superseded entries, deleted symbols...).
    max_nodes, max_edges, on_limit, seed
        Counted in Kuzu before anything is fetched. Over a limit, ``on_limit="raise"`` raises
        :class:`SubgraphTooLargeError`; ``"sample"`` warns (:class:`LimitWarning`) and keeps a
        seeded uniform sample of the nodes (and their edges among them; then of the edges).
    properties
        ``compact`` leaves long texts (docstrings, messages, contents...) out; ``all`` keeps
        every property.
    """
    if on_limit not in ("raise", "sample"):
        raise QueryError(f"on_limit must be 'raise' or 'sample', not {on_limit!r}")
    if max_nodes < 1 or max_edges < 0:
        raise QueryError("max_nodes must be >= 1 and max_edges >= 0")
    node_tables = _node_tables(domain, tables)
    rels = _rel_tables(node_tables, edges)
    filtered = repo is not None or community is not None
    if repo is not None and store.cypher(
            f"MATCH (r:{REPOSITORY.name}) WHERE r.name = $r RETURN r.id", {"r": repo}).is_empty():
        known = store.cypher(f"MATCH (r:{REPOSITORY.name}) RETURN r.name AS n ORDER BY n")
        raise QueryError(f"no repository named {repo!r} (ingested: "
                         f"{', '.join(known['n'].to_list()) or 'none'})")
    member_table = None
    if community is not None:
        found = store.cypher(f"MATCH (c:{COMMUNITY.name}) WHERE c.id = $c RETURN c.scope AS s",
                             {"c": community})
        if found.is_empty():
            raise QueryError(f"no community {community!r}",
                             suggestion="ids look like community:<repo>/file/0/3 "
                                        "(Graph.communities lists them)")
        member_table = FILE if found["s"][0] == "file" else SYMBOL

    def anchored(t: NodeTable) -> bool:
        if not filtered:
            return True
        if member_table is not None:
            return t is member_table
        return t is REPOSITORY or any(p.name == "repo" for p in t.props)

    time = _time(as_of, history)
    params: dict[str, Any] = {"seed": str(seed)}
    if repo is not None:
        params["repo"] = repo
    if community is not None:
        params["community"] = community
    if as_of is not None and not history:
        params["as_of"] = as_of
    by: Literal["", "repo", "community"] = ("community" if community is not None else
                                            "repo" if repo is not None else "")
    preds = {t.name: _Pred(t, anchored(t), by) for t in node_tables}
    rels = [(r, a, b) for r, a, b in rels
            if not filtered or preds[a.name].anchored or preds[b.name].anchored]

    def edge_match(r: RelTable, a: NodeTable, b: NodeTable) -> str:
        conds = [preds[a.name].where("a", time=time), preds[b.name].where("b", time=time)]
        if time:
            conds.append(time.format(a="e"))
        return f"MATCH (a:{a.name})-[e:{r.name}]->(b:{b.name}) WHERE " + " AND ".join(conds)

    node_counts = {t.name: _count(store, f"MATCH (n:{t.name}) WHERE "
                                  + preds[t.name].where("n", time=time), params)
                   for t in node_tables if preds[t.name].anchored}
    edge_counts = {(r.name, a.name, b.name): _count(store, edge_match(r, a, b), params)
                   for r, a, b in rels}
    n_nodes, n_edges = sum(node_counts.values()), sum(edge_counts.values())
    counts = {"nodes": n_nodes, "edges": n_edges}
    sampled = False
    notes: list[str] = []
    if n_nodes > max_nodes or n_edges > max_edges:
        message = (f"subgraph has {n_nodes:,} nodes and {n_edges:,} edges; limits are "
                   f"{max_nodes:,} nodes and {max_edges:,} edges")
        if on_limit == "raise":
            raise SubgraphTooLargeError(message, nodes=n_nodes, edges=n_edges,
                                        max_nodes=max_nodes, max_edges=max_edges)
        sampled = True
        warnings.warn(f"{message}: sampling (seed {seed})", LimitWarning, stacklevel=3)
    if n_nodes > max_nodes:
        for name, count in node_counts.items():
            keep = max(1, max_nodes * count // n_nodes) if count else 0
            if keep >= count:
                continue
            h = _run(store, f"MATCH (n:{name}) WHERE {preds[name].where('n', time=time)} "
                             "RETURN md5(concat($seed, n.id)) AS h ORDER BY h "
                             f"SKIP {keep - 1} LIMIT 1", params)["h"][0]
            preds[name] = replace(preds[name], sample_below=h)
            params[f"h_{name}"] = h
            notes.append(f"{name}: {keep:,} of {count:,} nodes sampled")
        edge_counts = {(r.name, a.name, b.name): _count(store, edge_match(r, a, b), params)
                       for r, a, b in rels}
    total_edges = sum(edge_counts.values())
    edge_frames = []
    for r, a, b in rels:
        count = edge_counts[(r.name, a.name, b.name)]
        if not count:
            continue
        cols = _columns(r, properties)
        query = (edge_match(r, a, b) + " RETURN a.id AS from_id, b.id AS to_id, "
                 + ", ".join([f"'{r.name}' AS `rel`", f"'{a.name}' AS from_table",
                              f"'{b.name}' AS to_table", *(f"e.{c} AS `{c}`" for c in cols)]))
        if total_edges > max_edges:
            keep = max_edges * count // total_edges
            query += f" ORDER BY md5(concat($seed, a.id, b.id)) LIMIT {keep}"
            notes.append(f"{r.name} {a.name}->{b.name}: {keep:,} of {count:,} edges sampled")
        edge_frames.append(_run(store, query, params))
    edge_frame = (pl.concat(edge_frames, how="diagonal_relaxed") if edge_frames else
                  pl.DataFrame(schema={"from_id": pl.Utf8, "to_id": pl.Utf8, "rel": pl.Utf8,
                                       "from_table": pl.Utf8, "to_table": pl.Utf8}))
    node_frames = []
    for t in node_tables:
        cols = _columns(t, properties)
        ret = " RETURN n.id AS id, " + ", ".join(
            [f"'{t.name}' AS `table`", *(f"n.{c} AS `{c}`" for c in cols)]) + " ORDER BY id"
        if preds[t.name].anchored:
            where = preds[t.name].where("n", time=time)
            node_frames.append(_run(store, f"MATCH (n:{t.name}) WHERE {where}" + ret, params))
            continue
        ids = sorted({*edge_frame.filter(pl.col("from_table") == t.name)["from_id"],
                      *edge_frame.filter(pl.col("to_table") == t.name)["to_id"]})
        if ids:
            node_frames.append(_run(
                store, f"UNWIND $ids AS i MATCH (n:{t.name} {{id: i}}) WHERE "
                f"{preds[t.name].where('n', time=time, filters=False)}" + ret,
                {**params, "ids": ids}))
    node_frame = (pl.concat([f for f in node_frames if f.height], how="diagonal_relaxed")
                  if any(f.height for f in node_frames)
                  else pl.DataFrame(schema={"id": pl.Utf8, "table": pl.Utf8}))
    if node_frame.height > max_nodes:
        # ends of kept edges (externals, people, ...) pushed the count over: keep a sample
        if on_limit == "raise":
            raise SubgraphTooLargeError(
                f"subgraph has {node_frame.height:,} nodes with the ends of its edges; "
                f"limit is {max_nodes:,}", nodes=node_frame.height, edges=edge_frame.height,
                max_nodes=max_nodes, max_edges=max_edges)
        if not sampled:
            warnings.warn(f"subgraph has {node_frame.height:,} nodes with the ends of its "
                          f"edges; sampling {max_nodes:,} (seed {seed})", LimitWarning,
                          stacklevel=3)
        sampled = True
        node_frame = (node_frame.with_columns(
            _h=(pl.lit(str(seed)) + pl.col("id")).hash(seed=seed))
            .sort("_h").head(max_nodes).drop("_h"))
    keep = node_frame.select("id")
    edge_frame = (edge_frame.join(keep, left_on="from_id", right_on="id", how="semi")
                  .join(keep, left_on="to_id", right_on="id", how="semi"))
    return Subgraph(node_frame.sort("id"), edge_frame.sort("from_id", "to_id", "rel"),
                    sampled, counts, tuple(notes))

