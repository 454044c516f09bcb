"""Per-request context: the store, DataLoaders (one batch query per kind of lookup), the
request's deadline, and database access off the event loop.

Kuzu calls block, so every query runs in a worker thread (``anyio.to_thread``); the Store
gives each thread its own connection. Loaders live for one request (DataLoader caches must
not outlive it: a later request may see a newer graph).
"""

import asyncio
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio.to_thread
import polars as pl
from strawberry.dataloader import DataLoader

from api.graphql.budget import trim
from api.write_lock import WriteLock
from graphdb import Store, deadline
from graphdb.tokens import ApiToken
from queries.batch import by_ids
from queries.code_entries import AppliedEntry, entries_applying
from schema import (
    IN_COMMUNITY,
    NODE_TABLES,
    REL_TABLES,
    AuthError,
    NodeTable,
    PermissionDeniedError,
    QueryError,
    RelTable,
)

__all__ = ["TIME_PROPS", "WRITE_LOCK", "Context", "EdgeKey", "Settings", "other_tables",
           "time_expr"]

_TABLES = {t.name: t for t in NODE_TABLES if not t.internal}
WRITE_LOCK = WriteLock()


@dataclass(frozen=True)
class Settings:
    """Limits of the GraphQL surface (see docs/api.md)."""

    page_size: int = 20
    max_page_size: int = 100
    max_depth: int = 12
    max_aliases: int = 30
    max_tokens: int = 5_000
    max_cost: int = 50_000
    #: ids one ``nodes(ids:)`` may take
    max_ids: int = 100
    timeout: float = 10.0  # seconds per request, everything included (graphdb.deadline)
    #: requests without a token may read (never write)
    allow_anonymous: bool = False
    #: largest request body (query and variables), bytes, counted as it is read
    max_body: int = 1_000_000
    #: largest answer, bytes of JSON
    max_response: int = 10_000_000
    #: introspection (``__schema``, ``__type``); None: on only with ``allow_anonymous``
    introspection: bool | None = None

    @property
    def introspects(self) -> bool:
        return self.allow_anonymous if self.introspection is None else self.introspection


@dataclass(frozen=True)
class EdgeKey:
    """One connection to load: the rel ``rel`` from (``forward``) or to node ``node``, with
    the filters of the field (a hashable tuple of (name, value)) and the edge properties to
    return (those the query selects or sorts by: fewer columns, faster queries)."""

    rel: str
    forward: bool
    owner: str  # the owner's table
    node: str
    filters: tuple[tuple[str, Any], ...]
    columns: tuple[str, ...] = ()


@dataclass
class Context:
    store: Store
    settings: Settings
    request_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    started: float = field(default_factory=time.monotonic)
    queries: int = 0  # database round trips of this request (tests count them)
    token: ApiToken | None = None
    auth_error: AuthError | None = None
    #: what maxTokens cut from which field (reported in the response's extensions)
    trimmed: list[dict[str, Any]] = field(default_factory=list)
    #: the server's ingest jobs (None outside a server)
    jobs: Any = None
    #: the graph version this request answers at (extensions.graphVersion)
    graph_version: int | None = None
    #: response keys of the fields answered NOT_MODIFIED (ifChangedSince)
    not_modified: list[str] = field(default_factory=list)
    #: the HTTP response being built (its status: 401/403 for auth errors); None in-process
    response: Any = None
    #: the token's own cost limit, where lower than the server's
    max_cost: int | None = None
    node_loader: DataLoader = field(init=False)
    edge_loader: DataLoader = field(init=False)
    #: (code node id, filters) -> the entries that apply to it (File/Symbol.entries)
    entries_loader: DataLoader = field(init=False)

    def __post_init__(self) -> None:
        self.node_loader = DataLoader(load_fn=self._load_nodes)
        self.edge_loader = DataLoader(load_fn=self._load_edges)
        self.entries_loader = DataLoader(load_fn=self._load_entries)

    # -- database access ------------------------------------------------------------------
    def remaining(self) -> float:
        """Seconds left to the request's deadline (raises DEADLINE_EXCEEDED when none)."""
        left = deadline.remaining()
        if left is None:  # executed without the server's middleware (tests, scripts)
            left = self.settings.timeout - (time.monotonic() - self.started)
            if left <= 0:
                raise deadline.Deadline(self.settings.timeout,
                                        self.started + self.settings.timeout).error()
        return left

    async def cypher(self, query: str, params: dict[str, Any] | None = None) -> pl.DataFrame:
        """Run a read query in a worker thread, within the request's time limit."""
        timeout = self.remaining()
        self.queries += 1
        return await self._read(lambda: self.store.cypher(query, params, timeout=timeout))

    async def write(self, fn: Callable[[Store], Any]) -> Any:
        """Run ``fn(store)`` in a worker thread, one write at a time (Kuzu has one writer)."""
        if self.store.read_only:
            raise QueryError("this server opened the database read-only",
                             suggestion="start it with `vgdb serve --writable`")
        self.queries += 1
        who = (f"a write of API token {self.token.id} ({self.token.name})" if self.token
               else "a write")

        def locked() -> Any:
            with WRITE_LOCK.hold(who):
                return fn(self.store)

        return await anyio.to_thread.run_sync(locked)

    async def lookup(self, template: str, ids: Sequence[str],
                     params: dict[str, Any] | None = None) -> pl.DataFrame:
        """``template`` (see ``queries.batch``) for all ``ids``, through the primary-key
        index (the engine scans the table for ``IN $ids``)."""
        timeout = self.remaining()
        self.queries += 1
        return await self._read(
            lambda: by_ids(self.store, list(ids), template, params, timeout=timeout))

    def require(self, scope: str) -> None:
        """Raise unless the request's token has ``scope`` (queries and mutations need read
        and write, checked before they run; admin fields call this)."""
        if self.token is None or not self.token.allows(scope):
            who = f"API token {self.token.id} ({self.token.name})" if self.token else \
                "an anonymous request"
            raise PermissionDeniedError(f"{who} may not do this: it needs the {scope} scope",
                                        suggestion=f"use a token with the {scope} scope")

    def budget(self, path: str, result: Any, max_tokens: int | None) -> Any:
        """``result`` trimmed to ``max_tokens`` (see api.graphql.budget), noting the cut."""
        if max_tokens is None:
            return result
        if max_tokens < 100:
            raise QueryError(f"maxTokens must be at least 100, not {max_tokens}")
        trimmed, dropped = trim(result, max_tokens)
        if dropped:
            self.trimmed.append({"path": path, "maxTokens": max_tokens, "dropped": dropped})
        return trimmed

    async def run(self, fn, /, *args: Any, **kwargs: Any) -> Any:
        """Run a read of the queries API (which queries the store itself) in a worker thread."""
        self.queries += 1
        return await self._read(lambda: fn(self.store, *args, **kwargs))

    async def _read(self, fn: Callable[[], Any]) -> Any:
        """``fn()`` in a worker thread, answered by the deadline at the latest: a read still
        running then is abandoned (its thread stops at its next deadline check, the engine
        interrupts its query). Writes are never abandoned (:meth:`write`)."""
        left = self.remaining()
        with anyio.move_on_after(left + 0.05) as scope:  # after: a typed error goes first
            return await anyio.to_thread.run_sync(fn, abandon_on_cancel=True)
        assert scope.cancelled_caught
        current = deadline.current() or deadline.Deadline(
            self.settings.timeout, self.started + self.settings.timeout)
        raise current.error()

    # -- loaders --------------------------------------------------------------------------
    async def _load_nodes(self, keys: Sequence[tuple[str, str]]) -> list[dict | None]:
        """(table, id) -> the node's properties, one query per table."""
        by_table: dict[str, list[str]] = defaultdict(list)
        for table, node in keys:
            by_table[table].append(node)
        found: dict[tuple[str, str], dict] = {}

        async def load(table: str, ids: list[str]) -> None:
            rows = await self.lookup(f"MATCH (n:{table}{{B}}) WHERE {{IN:n}} RETURN n.*",
                                     sorted(set(ids)))
            for row in rows.to_dicts():
                props = {k.removeprefix("n."): v for k, v in row.items()}
                found[(table, props["id"])] = props

        await asyncio.gather(*(load(table, ids) for table, ids in by_table.items()
                               if table in _TABLES))
        return [found.get(key) for key in keys]

    async def _load_entries(self, keys: Sequence[tuple[str, tuple[tuple[str, Any], ...]]],
                            ) -> list[tuple[AppliedEntry, ...]]:
        """(code node id, filters) -> the entries applying to it (about or in scope): one
        call of :func:`queries.code_entries.entries_applying` per set of filters."""
        groups: dict[tuple, list[str]] = defaultdict(list)
        for node, filters in keys:
            groups[filters].append(node)
        out: dict[tuple, tuple[AppliedEntry, ...]] = {}

        async def load(filters: tuple, nodes: list[str]) -> None:
            found = await self.run(entries_applying, nodes, **dict(filters))
            for node in nodes:
                out[(node, filters)] = found.get(node, ())

        await asyncio.gather(*(load(f, nodes) for f, nodes in groups.items()))
        return [out[key] for key in keys]

    async def _load_edges(self, keys: Sequence[EdgeKey]) -> list[list[dict]]:
        """EdgeKey -> [{_table, _id, props of the edge, _n_<prop> of the other end's
        properties to sort by}], one query per (rel, direction, owner table, filters)."""
        groups: dict[tuple, list[EdgeKey]] = defaultdict(list)
        for key in keys:
            groups[(key.rel, key.forward, key.owner, key.filters)].append(key)
        out: dict[EdgeKey, list[dict]] = {}

        async def load(rel: str, forward: bool, owner: str, filters: tuple,
                       group: list[EdgeKey]) -> None:
            columns = sorted({c for k in group for c in k.columns})
            query, params = _edge_query(rel, forward, owner, dict(filters), columns)
            rows = await self.lookup(query, sorted({k.node for k in group}), params)
            lists: dict[str, list[dict]] = defaultdict(list)
            for row in rows.to_dicts():  # the connection sorts (see nodes.sort_items)
                src = row.pop("_src")
                lists[src].append({k.removeprefix("_e_"): v for k, v in row.items()})
            for key in group:
                out[key] = lists.get(key.node, [])

        # each group in its own worker thread (and Kuzu connection): callers and callees
        # of a node are two queries, run at the same time
        await asyncio.gather(*(load(*name, group) for name, group in groups.items()))
        return [out[key] for key in keys]


_RELS: dict[str, RelTable] = {r.name: r for r in REL_TABLES}


def other_tables(rel: RelTable, forward: bool, owner: str) -> list[NodeTable]:
    """The tables at the other end of ``rel`` seen from ``owner``."""
    return [b if forward else a for a, b in rel.pairs if (a if forward else b).name == owner]


#: the property a time range (``since``/``until``) filters on, where it is not ``valid_from``
TIME_PROPS = {"Commit": "committed_at", "Session": "started_at", "Repository": "ingested_at"}


def time_expr(tables: Sequence[NodeTable], var: str) -> str:
    """The Cypher expression of ``var``'s time: its table's :data:`TIME_PROPS` entry, else
    when it became true (``valid_from``)."""
    props = list(dict.fromkeys(TIME_PROPS.get(t.name, "valid_from") for t in tables))
    return (f"{var}.{props[0]}" if len(props) == 1
            else f"coalesce({', '.join(f'{var}.{p}' for p in props)})")


def _has(tables: Sequence[NodeTable], prop: str) -> bool:
    return any(prop in {p.name for p in t.columns} for t in tables)


def _edge_query(rel_name: str, forward: bool, owner: str, filters: dict[str, Any],
                columns: Sequence[str] = ()) -> tuple[str, dict[str, Any]]:
    """Cypher for one connection: the other end's table and id, and the edge's properties
    ``columns``. A filter on a property none of the other end's tables has matches nothing."""
    rel = _RELS[rel_name]
    others = other_tables(rel, forward, owner)
    me, other = ("a", "b") if forward else ("b", "a")
    # the other end's tables named: Kuzu plans a labelled pattern faster (measured 3.3 ms
    # against 4.9 for the callers of a symbol)
    names = list(dict.fromkeys(t.name for t in others))
    labels = ":" + ":".join(names)
    pattern = (f"(a:{owner}{{B}})-[e:{rel.name}]->(b{labels})" if forward
               else f"(a{labels})-[e:{rel.name}]->(b:{owner}{{B}})")
    where = [f"{{IN:{me}}}"]
    params: dict[str, Any] = {}
    if filters.get("current"):
        where.append(f"{other}.valid_to IS NULL AND {other}.expired_at IS NULL "
                     "AND e.valid_to IS NULL AND e.expired_at IS NULL")
    if filters.get("as_of") is not None:
        params["as_of"] = filters["as_of"]
        for x in (other, "e"):
            where.append(f"({x}.valid_from IS NULL OR {x}.valid_from <= $as_of) AND "
                         f"({x}.valid_to IS NULL OR {x}.valid_to > $as_of)")
    if filters.get("known_at") is not None:
        params["known_at"] = filters["known_at"]
        for x in (other, "e"):
            where.append(f"({x}.recorded_at IS NULL OR {x}.recorded_at <= $known_at) AND "
                         f"({x}.expired_at IS NULL OR {x}.expired_at > $known_at)")
    for prop in ("kind", "language"):
        if filters.get(prop) is not None:
            if not _has(others, prop):
                where.append("false")
                continue
            params[prop] = filters[prop]
            where.append(f"{other}.{prop} = ${prop}")
    if filters.get("path_regex") is not None:
        params["path_regex"] = filters["path_regex"]
        tests = []
        if _has(others, "path"):
            tests.append(f"coalesce({other}.path, '') =~ $path_regex")
        if _has(others, "file"):
            tests.append(f"regexp_replace(coalesce({other}.file, ''), '^file:[^/]*/', '') "
                         "=~ $path_regex")
        where.append(f"({' OR '.join(tests)})" if tests else "false")
    if filters.get("community") is not None:
        if not any(t in {a for a, _ in IN_COMMUNITY.pairs} for t in others):
            where.append("false")
        else:
            params["community"] = filters["community"]
            where.append(f"EXISTS {{ MATCH ({other})-[:{IN_COMMUNITY.name}]->(c) "
                         "WHERE c.id = $community }")
    since, until = filters.get("since"), filters.get("until")
    if since is not None or until is not None:
        at = time_expr(others, other)
        if since is not None:
            params["since"] = since
            where.append(f"{at} >= $since")
        if until is not None:
            params["until"] = until
            where.append(f"{at} < $until")
    # the other end's properties to sort by (validated against the schema by the caller)
    extra = "".join(f", {other}.{prop} AS _n_{prop}" for prop in filters.get("order") or ())
    extra += "".join(f", e.{prop} AS _e_{prop}" for prop in columns)
    table = f"label({other})" if len(names) > 1 else f"'{names[0]}'"
    # ordered by the caller (a UNION ALL of index probes cannot take one ORDER BY)
    query = (f"MATCH {pattern} WHERE {' AND '.join(where)} "
             f"RETURN {me}.id AS _src, {table} AS _table, {other}.id AS _id{extra}")
    return query, params
