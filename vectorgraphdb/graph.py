"""The analyst's handle on a database: Cypher and tables as polars frames, subgraphs as
networkx/igraph graphs, and the query API with tabular answers as frames."""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

import polars as pl

import queries
from graphdb import DEFAULT_DB, Store
from schema import (
    COMMUNITY,
    IN_COMMUNITY,
    NODE_TABLES,
    REL_TABLES,
    NodeTable,
    QueryError,
    ReadOnlyViolationError,
    RelTable,
    StoreError,
)
from vectorgraphdb.frames import to_frame
from vectorgraphdb.subgraph import LimitWarning, OnLimit, Subgraph, select_subgraph

if TYPE_CHECKING:
    import igraph
    import networkx

    from queries.boundaries import Boundaries
    from queries.communities import Detection, Scope

# queries.boundaries and queries.communities are imported where they are used: boundaries
# needs igraph (~0.3 s and a C library to load), which a notebook that only reads tables
# or searches never uses (tests/test_analyst.py checks importing this module leaves it out).

__all__ = ["Graph", "open"]

#: rows :meth:`Graph.table` returns unless told otherwise
TABLE_LIMIT = 10_000


def _table(name: str) -> NodeTable | RelTable:
    tables: dict[str, NodeTable | RelTable] = {t.name.lower(): t for t in NODE_TABLES}
    tables.update({t.name.lower(): t for t in REL_TABLES})
    found = tables.get(name.lower())
    if found is None:
        raise QueryError(f"no table named {name!r}",
                         suggestion="tables: " + ", ".join(
                             t.name for t in (*NODE_TABLES, *REL_TABLES)))
    return found


class Graph:
    """An open database for analysis. Read-only by default (many notebooks and the CLI may
    read one database at once); ``read_only=False`` holds the writer lock, which
    :meth:`detect_communities` needs.

    Use as a context manager, or call :meth:`close`. ``store`` is the underlying
    :class:`graphdb.Store`, for the rest of the ``queries`` API.
    """

    def __init__(self, store: Store) -> None:
        self._store: Store | None = store
        self.path = store.path
        self.read_only = store.read_only

    # -- plumbing ---------------------------------------------------------------------------
    @property
    def store(self) -> Store:
        """The open :class:`graphdb.Store` (for the rest of the ``queries`` API)."""
        if self._store is None:
            raise StoreError(f"database {self.path} is closed",
                             suggestion="open it again with vectorgraphdb.open()")
        return self._store

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    def __enter__(self) -> Graph:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        mode = "read-only" if self.read_only else "read-write"
        state = ", closed" if self._store is None else ""
        return f"<vectorgraphdb.Graph {self.path} ({mode}{state})>"

    # -- reading ----------------------------------------------------------------------------
    def cypher(self, query: str, params: dict[str, Any] | None = None) -> pl.DataFrame:
        """Rows of a read-only Cypher query (Kuzu's dialect) as a polars frame.

        Writes, DDL and file access raise :class:`schema.ReadOnlyViolationError`; a query Kuzu
        rejects raises :class:`schema.QueryError` whose message is Kuzu's own (``Parser
        exception: ...``, ``Binder exception: ...``) and whose ``query`` is the query.
        """
        try:
            return queries.run_cypher(self.store, query, params)
        except ReadOnlyViolationError:
            raise
        except QueryError as exc:
            text = getattr(exc, "message", str(exc))
            hint = exc.suggestion
            if not hint and text.startswith("Parser exception"):
                hint = "fix the Cypher syntax at the position Kuzu marks with ^"
            elif not hint and "does not exist" in text:
                hint = "tables: " + ", ".join(t.name for t in (*NODE_TABLES, *REL_TABLES))
            raise QueryError(f"Kuzu rejected the query: {text}", query=query,
                             suggestion=hint) from exc

    def tables(self) -> pl.DataFrame:
        """Every node and rel table with its domain and current row count."""
        rows = []
        for t in NODE_TABLES:
            if t.internal:
                continue
            n = self.store.cypher(f"MATCH (n:{t.name}) RETURN count(*) AS n")["n"][0]
            rows.append({"table": t.name, "kind": "node", "domain": t.domain, "rows": n})
        for r in REL_TABLES:
            n = self.store.cypher(f"MATCH ()-[e:{r.name}]->() RETURN count(*) AS n")["n"][0]
            rows.append({"table": r.name, "kind": "rel", "domain": r.pairs[0][0].domain,
                         "rows": n})
        return pl.DataFrame(rows, schema={"table": pl.Utf8, "kind": pl.Utf8,
                                          "domain": pl.Utf8, "rows": pl.Int64})

    def table(self, name: str, *, limit: int | None = TABLE_LIMIT,
              columns: Sequence[str] | None = None, current: bool = False,
              **filters: Any) -> pl.DataFrame:
        """Rows of the node or rel table ``name`` whose properties equal ``filters``.

        A filter value that is a list, tuple or set matches any of its items; ``None`` matches
        a missing value. ``current`` keeps rows not ended in valid or transaction time.
        Node rows have ``id`` and the properties; rel rows ``from_id``, ``to_id``,
        ``from_table``, ``to_table`` and the properties. Rows are ordered by id (rels: by
        ends). At most ``limit`` rows (``None``: all); when more match, a
        :class:`LimitWarning` says how many were left out.
        """
        table = _table(name)
        props = [p.name for p in table.columns]
        for key in (*filters, *(columns or ())):
            if key not in props:
                raise QueryError(f"{table.name} has no property {key!r}",
                                 suggestion=f"properties: {', '.join(props)}")
        alias = "n" if isinstance(table, NodeTable) else "e"
        where, params = [], {}
        for i, (key, value) in enumerate(sorted(filters.items())):
            if value is None:
                where.append(f"{alias}.{key} IS NULL")
            elif isinstance(value, (list, tuple, set, frozenset)):
                where.append(f"{alias}.{key} IN $f{i}")
                params[f"f{i}"] = sorted(value) if isinstance(value, (set, frozenset)) \
                    else list(value)
            else:
                where.append(f"{alias}.{key} = $f{i}")
                params[f"f{i}"] = value
        if current:
            where.append(f"{alias}.valid_to IS NULL AND {alias}.expired_at IS NULL")
        cond = f" WHERE {' AND '.join(where)}" if where else ""
        chosen = list(columns) if columns is not None else [p for p in props]
        if isinstance(table, NodeTable):
            cols = ["n.id AS id", *(f"n.{c} AS `{c}`" for c in chosen if c != "id")]
            match, order = f"MATCH (n:{table.name})", "id"
        else:
            cols = ["a.id AS from_id", "b.id AS to_id", "label(a) AS from_table",
                    "label(b) AS to_table", *(f"e.{c} AS `{c}`" for c in chosen)]
            match, order = f"MATCH (a)-[e:{table.name}]->(b)", "from_id, to_id"
        query = f"{match}{cond} RETURN {', '.join(cols)} ORDER BY {order}"
        if limit is not None:
            query += f" LIMIT {int(limit) + 1}"
        frame = self.store.cypher(query, params)
        if limit is not None and frame.height > limit:
            total = self.store.cypher(f"{match}{cond} RETURN count(*) AS n", params)["n"][0]
            warnings.warn(f"{table.name}: showing {limit:,} of {total:,} rows (limit=); pass "
                          "filters or a larger limit", LimitWarning, stacklevel=2)
            frame = frame.head(limit)
        return frame

    # -- subgraphs --------------------------------------------------------------------------
    def subgraph(self, *, domain: str | Sequence[str] | None = "code",
                 tables: Sequence[str] | None = None, edges: Sequence[str] | None = None,
                 repo: str | None = None, community: str | None = None,
                 as_of: datetime | None = None, history: bool = False,
                 max_nodes: int = 50_000, max_edges: int = 200_000,
                 on_limit: OnLimit = "raise", seed: int = 0,
                 properties: Literal["compact", "all"] = "compact") -> Subgraph:
        """Nodes and edges of a chosen part of the graph as frames; see
        :func:`vectorgraphdb.subgraph.select_subgraph` for the options."""
        return select_subgraph(self.store, domain=domain, tables=tables, edges=edges,
                               repo=repo, community=community, as_of=as_of, history=history,
                               max_nodes=max_nodes, max_edges=max_edges, on_limit=on_limit,
                               seed=seed, properties=properties)

    def to_networkx(self, **selection: Any) -> networkx.MultiDiGraph:
        """The chosen subgraph (keywords as :meth:`subgraph`) as a networkx ``MultiDiGraph``."""
        return self.subgraph(**selection).to_networkx()

    def to_igraph(self, **selection: Any) -> igraph.Graph:
        """The chosen subgraph (keywords as :meth:`subgraph`) as a directed igraph Graph."""
        return self.subgraph(**selection).to_igraph()

    # -- communities ------------------------------------------------------------------------
    def communities(self, repo: str, *, scope: Scope = "file", level: int = 0) -> pl.DataFrame:
        """Stored communities of ``repo`` at ``level``, largest first: id, number, name, size,
        cohesion, internal/external weight, prefix, terms, top members, parent."""
        from queries.communities import communities

        rows = [{"id": c.id, "level": c.level, "number": c.number, "name": c.name,
                 "size": c.size, "cohesion": c.cohesion, "internal": c.internal,
                 "external": c.external, "prefix": c.prefix, "terms": list(c.terms),
                 "top": list(c.top), "parent": c.parent}
                for c in communities(self.store, repo, scope=scope, level=level)]
        return pl.DataFrame(rows, schema={
            "id": pl.Utf8, "level": pl.Int64, "number": pl.Int64, "name": pl.Utf8,
            "size": pl.Int64, "cohesion": pl.Float64, "internal": pl.Float64,
            "external": pl.Float64, "prefix": pl.Utf8, "terms": pl.List(pl.Utf8),
            "top": pl.List(pl.Utf8), "parent": pl.Utf8})

    def community_dependencies(self, repo: str, *, scope: Scope = "file",
                               level: int = 0) -> pl.DataFrame:
        """Dependencies between the communities of one level (DEPENDS_ON): from, to, summed
        weight and member pairs, heaviest first."""
        from queries.communities import communities

        rows = [{"from_id": c.id, "to_id": d.target, "from_name": c.name, "to_name": d.name,
                 "weight": d.weight, "edges": d.edges}
                for c in communities(self.store, repo, scope=scope, level=level)
                for d in c.dependencies]
        frame = pl.DataFrame(rows, schema={"from_id": pl.Utf8, "to_id": pl.Utf8,
                                           "from_name": pl.Utf8, "to_name": pl.Utf8,
                                           "weight": pl.Float64, "edges": pl.Int64})
        return frame.sort(["weight", "from_id", "to_id"], descending=[True, False, False])

    def membership(self, repo: str, *, scope: Scope = "file") -> pl.DataFrame:
        """One row per member and level: member id, level, community id and name."""
        return self.store.cypher(
            f"MATCH (m)-[:{IN_COMMUNITY.name}]->(c:{COMMUNITY.name}) "
            "WHERE c.repo = $r AND c.scope = $s RETURN m.id AS id, c.level AS level, "
            "c.id AS community, c.name AS name ORDER BY level, id", {"r": repo, "s": scope})

    def members(self, community: str) -> pl.DataFrame:
        """Ids of the files or symbols in ``community``."""
        from queries.communities import members

        return pl.DataFrame({"id": list(members(self.store, community))},
                            schema={"id": pl.Utf8})

    def detect_communities(self, repo: str, **options: Any) -> Detection:
        """Run and store a new detection (needs ``read_only=False``); options as
        :func:`queries.communities.detect_communities`."""
        from queries.communities import detect_communities

        return detect_communities(self.store, repo, **options)

    def boundaries(self, repo: str, *, scope: Scope = "file", level: int = 0,
                   limit: int = 20) -> Boundaries:
        """The boundary report (modularity, agreement with directories, misplaced members,
        crossing dependencies, cycles); its parts convert with :func:`to_frame` and
        ``crossing_frame()``."""
        from queries.boundaries import boundaries

        return boundaries(self.store, repo, scope=scope, level=level, limit=limit)

    def misplaced(self, repo: str, *, scope: Scope = "file", level: int = 0,
                  limit: int = 20) -> pl.DataFrame:
        """Members whose community differs from the one most of their directory is in."""
        from queries.boundaries import Misplaced

        return to_frame(self.boundaries(repo, scope=scope, level=level, limit=limit).misplaced,
                        cls=Misplaced)

    # -- history and knowledge --------------------------------------------------------------
    def provenance(self, node: str, *, as_of: datetime | None = None,
                   known_at: datetime | None = None) -> queries.Provenance:
        """Where ``node`` came from (commits, sessions, entries, papers, lineage); the parts
        convert with :func:`to_frame` (``to_frame(p.commits)``)."""
        return queries.provenance(self.store, node, as_of=as_of, known_at=known_at)

    def entries(self, *, kind: str | None = None, repo: str | None = None,
                history: bool = False, as_of: datetime | None = None,
                known_at: datetime | None = None, limit: int | None = None) -> pl.DataFrame:
        """Decisions, failures, patterns... (``queries.list_entries``), one row each, oldest
        first; ``history=True`` includes superseded and expired ones."""
        return to_frame(queries.list_entries(self.store, kind=kind, repo=repo, history=history,
                                             as_of=as_of, known_at=known_at, limit=limit),
                        cls=queries.EntryView)

    def failures(self, *, repo: str | None = None) -> pl.DataFrame:
        """Failure groups by signature with the resolutions tried (best outcome first)."""
        return to_frame(queries.failure_groups(self.store, repo=repo),
                        cls=queries.FailureGroup)

    def supersession(self, node: str, *, as_of: datetime | None = None,
                     known_at: datetime | None = None) -> pl.DataFrame:
        """The versions of ``node``'s supersession chain (entry, symbol or paper), oldest
        first, each with what replaced it, why and when."""
        result = queries.supersession(self.store, node, as_of=as_of, known_at=known_at)
        edges = pl.DataFrame(
            [{"id": e.older, "superseded_by": e.newer, "reason": e.reason, "at": e.at}
             for e in result.edges],
            schema={"id": pl.Utf8, "superseded_by": pl.Utf8, "reason": pl.Utf8,
                    "at": pl.Datetime("us")})
        return result.to_polars().join(edges, on="id", how="left", maintain_order="left")

    def search(self, query: str, *, k: int = 10, **options: Any) -> pl.DataFrame:
        """Hybrid search (BM25, vectors, graph proximity; ``queries.search.search``, options
        as there): one row per hit, best first, with each signal's rank and score, trust,
        freshness and what superseded it."""
        from queries.search import search

        return search(self.store, query, k=k, **options).to_polars()

    def similar(self, node_or_query: str, *, k_per_domain: int = 5) -> Any:
        """The nearest code, history and academic nodes to a node or a text, each with its
        linked nodes in the other domains (``queries.search.similar``)."""
        from queries.search import similar

        return similar(self.store, node_or_query, k_per_domain=k_per_domain)

    def impact(self, targets: Sequence[str] | Any, **options: Any) -> queries.ImpactResult:
        """What depends on ``targets`` (ids, names or a ``ChangeSet``); options as
        :func:`queries.impact`. ``.to_polars()`` gives the ranked symbols and files with
        their explaining paths; ``to_frame(result.tests)`` the tests to run."""
        return queries.impact(self.store, targets, **options)


def open(path: str | os.PathLike[str] = DEFAULT_DB, *, read_only: bool = True) -> Graph:
    """Open the database directory ``path`` for analysis (read-only unless told)."""
    return Graph(Store.open(path, read_only=read_only))
