"""Per-request context: the store, DataLoaders (one batch query per kind of lookup), the
request's deadline, and database access off the event loop.

Kuzu calls block, so every query runs in a worker thread (``anyio.to_thread``); the Store
gives each thread its own connection. Loaders live for one request (DataLoader caches must
not outlive it: a later request may see a newer graph).
"""

import threading
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
from graphdb import Store
from graphdb.tokens import ApiToken
from queries.batch import by_ids
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

__all__ = ["WRITE_LOCK", "Context", "EdgeKey", "Settings", "other_tables"]

_TABLES = {t.name: t for t in NODE_TABLES if not t.internal}
WRITE_LOCK = threading.Lock()


@dataclass(frozen=True)
class Settings:
    """Limits of the GraphQL surface (see docs/api.md)."""

    page_size: int = 20
    max_page_size: int = 100
    max_depth: int = 12
    max_aliases: int = 30
    max_tokens: int = 5_000
    max_cost: int = 50_000
    timeout: float = 10.0  # seconds per request
    #: requests without a token may read (never write)
    allow_anonymous: bool = False
    #: largest request body (query and variables), bytes
    max_body: int = 1_000_000


@dataclass(frozen=True)
class EdgeKey:
    """One connection to load: the rel ``rel`` from (``forward``) or to node ``node``, with
    the filters of the field (a hashable tuple of (name, value))."""

    rel: str
    forward: bool
    owner: str  # the owner's table
    node: str
    filters: tuple[tuple[str, Any], ...]


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
    node_loader: DataLoader = field(init=False)
    edge_loader: DataLoader = field(init=False)

    def __post_init__(self) -> None:
        self.node_loader = DataLoader(load_fn=self._load_nodes)
        self.edge_loader = DataLoader(load_fn=self._load_edges)

    # -- database access ------------------------------------------------------------------
    def remaining(self) -> float:
        left = self.settings.timeout - (time.monotonic() - self.started)
        if left <= 0:
            raise QueryError(f"request took longer than {self.settings.timeout:g} s",
                             suggestion="ask for less (smaller pages, fewer nested lists)")
        return left

    async def cypher(self, query: str, params: dict[str, Any] | None = None) -> pl.DataFrame:
        """Run a read query in a worker thread, within the request's time limit."""
        timeout = self.remaining()
        self.queries += 1
        return await anyio.to_thread.run_sync(
            lambda: self.store.cypher(query, params, timeout=timeout))

    async def write(self, fn: Callable[[Store], Any]) -> Any:
        """Run ``fn(store)`` in a worker thread, one write at a time (Kuzu has one writer)."""
        if self.store.read_only:
            raise QueryError("this server opened the database read-only",
                             suggestion="start it with `vgdb serve --writable`")
        self.queries += 1

        def locked() -> Any:
            with WRITE_LOCK:
                return fn(self.store)

        return await anyio.to_thread.run_sync(locked)

    async def lookup(self, template: str, ids: Sequence[str],
                     params: dict[str, Any] | None = None) -> pl.DataFrame:
        """``template`` (see ``queries.batch``) for all ``ids`` in one statement that uses
        the primary-key index (Kuzu 0.11.3 scans the table for ``IN $ids``)."""
        timeout = self.remaining()
        self.queries += 1
        return await anyio.to_thread.run_sync(
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
        """Run a queries-API function (which queries the store itself) in a worker thread."""
        self.remaining()
        self.queries += 1
        return await anyio.to_thread.run_sync(lambda: fn(self.store, *args, **kwargs))

    # -- loaders --------------------------------------------------------------------------
    async def _load_nodes(self, keys: Sequence[tuple[str, str]]) -> list[dict | None]:
        """(table, id) -> the node's properties, one query per table."""
        by_table: dict[str, list[str]] = defaultdict(list)
        for table, node in keys:
            by_table[table].append(node)
        found: dict[tuple[str, str], dict] = {}
        for table, ids in by_table.items():
            if table not in _TABLES:
                continue
            rows = await self.lookup(f"MATCH (n:{table}{{B}}) WHERE {{IN:n}} RETURN n.*",
                                     sorted(set(ids)))
            for row in rows.to_dicts():
                props = {k.removeprefix("n."): v for k, v in row.items()}
                found[(table, props["id"])] = props
        return [found.get(key) for key in keys]

    async def _load_edges(self, keys: Sequence[EdgeKey]) -> list[list[dict]]:
        """EdgeKey -> [{table, id, props of the edge}] ordered by id, one query per
        (rel, direction, owner table, filters)."""
        groups: dict[tuple, list[EdgeKey]] = defaultdict(list)
        for key in keys:
            groups[(key.rel, key.forward, key.owner, key.filters)].append(key)
        out: dict[EdgeKey, list[dict]] = {}
        for (rel, forward, owner, filters), group in groups.items():
            query, params = _edge_query(rel, forward, owner, dict(filters))
            rows = await self.lookup(query, sorted({k.node for k in group}), params)
            lists: dict[str, list[dict]] = defaultdict(list)
            for row in rows.sort("_id").to_dicts():
                src = row.pop("_src")
                lists[src].append({k.removeprefix("e."): v for k, v in row.items()})
            for key in group:
                out[key] = lists.get(key.node, [])
        return [out[key] for key in keys]


_RELS: dict[str, RelTable] = {r.name: r for r in REL_TABLES}


def other_tables(rel: RelTable, forward: bool, owner: str) -> list[NodeTable]:
    """The tables at the other end of ``rel`` seen from ``owner``."""
    return [b if forward else a for a, b in rel.pairs if (a if forward else b).name == owner]


def _has(tables: Sequence[NodeTable], prop: str) -> bool:
    return any(prop in {p.name for p in t.columns} for t in tables)


def _edge_query(rel_name: str, forward: bool, owner: str,
                filters: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Cypher for one connection: the other end's table and id, and the edge's properties.
    A filter on a property none of the other end's tables has matches nothing."""
    rel = _RELS[rel_name]
    others = other_tables(rel, forward, owner)
    me, other = ("a", "b") if forward else ("b", "a")
    pattern = (f"(a:{owner}{{B}})-[e:{rel.name}]->(b)" if forward
               else f"(a)-[e:{rel.name}]->(b:{owner}{{B}})")
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
    # ordered by the caller (a UNION ALL of index probes cannot take one ORDER BY)
    query = (f"MATCH {pattern} WHERE {' AND '.join(where)} "
             f"RETURN {me}.id AS _src, label({other}) AS _table, {other}.id AS _id, e.*")
    return query, params
