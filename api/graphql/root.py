"""The root Query: lookups (node, repository, file, symbol), lists (communities, papers and the
history entries), and the cross-domain queries of ``queries/`` (provenance, ...).

Every list is a cursor connection with a small default page; the queries API's results come
through the types :mod:`api.graphql.derive` builds from their dataclasses.
"""

import inspect
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import strawberry
from strawberry import relay

from api.graphql.briefing import BriefingType, resolve_briefing
from api.graphql.conditional import IfChangedSince, not_modified
from api.graphql.context import Context
from api.graphql.cost import CostLimitError
from api.graphql.derive import from_result, object_type
from api.graphql.jobs import IngestJob
from api.graphql.nodes import (
    NODE_TYPES,
    OrderBy,
    SortKey,
    make_node,
    needs_props,
    node_type,
    page,
    sort_items,
    sort_keys,
    time_expr,
)
from api.graphql.operate import StatusType, resolve_status
from api.graphql.source import SourceTextType, resolve_source_text
from graphdb import deadline
from graphdb.sessions import scope_matches as scope_match
from ingest.history.diff import diff_changes
from ingest.sessions.plan import session_key
from queries.communities import communities as stored_communities
from queries.entry_time import entry_ends, status_then
from queries.impact import (
    DEFAULT_MIN_SCORE,
    DEFAULT_TEST_BUDGET,
    ImpactResult,
    TestToRun,
    affected_tests,
    impact,
)
from queries.provenance import Provenance, provenance, resolve_node
from queries.search import SearchResult, SimilarResult
from queries.supersession import Supersession, supersession
from schema import (
    AGENT,
    BY,
    COMMIT,
    COMMUNITY,
    ENTRY,
    FILE,
    IN_SESSION,
    PAPER,
    REPOSITORY,
    SESSION,
    SYMBOL,
    NodeNotFoundError,
    NodeTable,
    QueryError,
)

__all__ = ["Query"]

Repository = node_type(REPOSITORY.name)
File = node_type(FILE.name)
Symbol = node_type(SYMBOL.name)
Community = node_type(COMMUNITY.name)
Paper = node_type(PAPER.name)
Entry = node_type(ENTRY.name)
ProvenanceResult = object_type(Provenance, name="Provenance",
                               description="Where a symbol, file or entry came from.")
ImpactType = object_type(ImpactResult, name="Impact")
SearchType = object_type(SearchResult, name="SearchResult")
SimilarType = object_type(SimilarResult, name="Similar")
SupersessionType = object_type(Supersession, name="Supersession")
TestType = object_type(TestToRun, name="TestToRun")


@strawberry.type(description="The tests a change affects, and what the analysis noticed.")
class AffectedTests:
    tests: list[TestType]
    node_ids: list[str]
    notes: list[str]


def _changes(store: Any, repo: str, base: str, head: str | None) -> Any:
    """The change set of base..head (or the working tree) in ``repo``'s ingested tree."""
    rows = store.cypher(f"MATCH (r:{REPOSITORY.name}) WHERE r.name = $r RETURN r.root AS root",
                        {"r": repo})
    if rows.is_empty():
        raise NodeNotFoundError(f"no repository named {repo!r}", node_id=f"repo:{repo}")
    return diff_changes(Path(rows["root"][0]), base=base, head=head)


def _impact_of(store: Any, targets: list[str] | None, repo: str | None, base: str | None,
               head: str | None, **options: Any) -> ImpactResult:
    if bool(targets) == bool(base):
        raise QueryError("pass targets, or repo and base (a git revision), not both")
    if base is not None:
        if repo is None:
            raise QueryError("a diff needs the repository: pass repo with base")
        return impact(store, _changes(store, repo, base, head), repo=repo, **options)
    return impact(store, list(targets or ()), repo=repo, **options)


def _affected_of(store: Any, repo: str, base: str, head: str | None,
                 **options: Any) -> ImpactResult:
    return affected_tests(store, _changes(store, repo, base, head), repo=repo, **options)


_SpreadDepth = Annotated[int | None, strawberry.argument(
    description="A fixed path length in hops; default: spread by budget and minScore (as "
                "the CLI and MCP)")]
_Budget = Annotated[float, strawberry.argument(
    description="Without depth: stop spreading once this share of the tests is reached")]
_MinScore = Annotated[float, strawberry.argument(
    description="Without depth: do not follow a path scoring below this (edge confidences "
                "x 0.8 a hop)")]
_NeverExecuted = Annotated[str, strawberry.argument(
    description="For changed code the coverage recording held but nothing executed: "
                "'unrecorded' (the tests the static graph reaches that the recording holds "
                "no run of), 'static' (all of them) or 'skip' (none)")]
_MaxTokens = Annotated[int | None, strawberry.argument(
    description="Trim the result to about this many tokens (JSON, 4 characters a token): "
                "lists are cut from their ends; extensions.trimmed says what was left out.")]


def _list_types(name: str, target: type) -> tuple[type, type]:
    edge = strawberry.type(type(f"{name}Edge", (), {"__annotations__": {
        "cursor": str, "node": target}}))
    connection = strawberry.type(type(f"{name}Connection", (), {"__annotations__": {
        "edges": list[edge], "page_info": relay.PageInfo, "total_count": int}}))
    return edge, connection


CommunityEdge, CommunityConnection = _list_types("Community", Community)
PaperEdge, PaperConnection = _list_types("Paper", Paper)
EntryEdge, EntryConnection = _list_types("Entry", Entry)
CommitEdge, CommitConnection = _list_types("Commit", node_type(COMMIT.name))
SessionEdge, SessionConnection = _list_types("Session", node_type(SESSION.name))


_Since = Annotated[datetime | None, strawberry.argument(
    description="at or after this time (committedAt of a commit, startedAt of a session, "
                "else validFrom: when it became true)")]
_Until = Annotated[datetime | None, strawberry.argument(description="before this time")]
_OrderArg = Annotated[list[OrderBy] | None, strawberry.argument(
    description="sort keys, first one first (properties in camelCase; ties by key)")]


#: filters the rows of a list before it is paged (see _nodes)
Refine = Callable[[list[dict[str, Any]]], Awaitable[list[dict[str, Any]]]]


def _desc(prop: str) -> SortKey:
    return SortKey(on_edge=False, prop=prop, descending=True)


async def _nodes(info: strawberry.Info, table: NodeTable, where: list[str],
                 params: dict[str, Any], default: tuple[SortKey, ...], *,
                 order_by: list[OrderBy] | None, since: datetime | None,
                 until: datetime | None, first: int | None, after: str | None,
                 last: int | None, before: str | None, edge: type, connection: type,
                 columns: tuple[str, ...] = (), refine: Refine | None = None) -> Any:
    """A connection over the nodes of ``table`` matching ``where``: their ids and sort
    values first (one query), then the properties of the page only, if selected.
    ``refine`` filters those rows (with ``columns``, as ``_c_<prop>``) before paging, for
    conditions Cypher alone does not decide."""
    context: Context = info.context
    keys = sort_keys(order_by, [table], None, info.field_name, default)
    where, params = list(where), dict(params)
    for name, value, test in (("since", since, ">="), ("until", until, "<")):
        if value is not None:
            params[name] = value
            where.append(f"{time_expr([table], 'n')} {test} ${name}")
    props = dict.fromkeys(k.prop for k in keys if k.prop != "id")
    rows = await context.cypher(
        f"MATCH (n:{table.name}) WHERE {' AND '.join(where) or 'true'} RETURN n.id AS _id"
        + "".join(f", n.{p} AS _n_{p}" for p in props)
        + "".join(f", n.{c} AS _c_{c}" for c in columns), params)
    found_rows = rows.to_dicts()
    if refine is not None:
        found_rows = await refine(found_rows)
    items = sort_items(found_rows, keys)
    window, page_info = page(items, first=first, after=after, last=last, before=before,
                             context=context, keys=keys)
    if needs_props(info, [table]):
        found = await context.node_loader.load_many([(table.name, i["_id"])
                                                     for _, i in window])
    else:
        found = [{"id": i["_id"]} for _, i in window]
    edges = []
    for (cursor, item), props in zip(window, found, strict=True):
        if props:
            node = make_node(table.name, props)
            if "_status" in item:  # an entry as it was then (see _entry_states)
                node.status, node.valid_to = item["_status"], item["_end"]
            edges.append(edge(cursor=cursor, node=node))
    return connection(edges=edges, page_info=page_info, total_count=len(items))


async def _by_global_ids(info: strawberry.Info, ids: list[relay.GlobalID]) -> list[Any]:
    """relay.node() cannot serve two schemas in one process (it rewrites its field), so
    the Node lookups are written here: one batched load for all ids."""
    limit = info.context.settings.max_ids
    if len(ids) > limit:  # the cost limiter refused it already, unless called otherwise
        raise CostLimitError(f"nodes takes at most {limit} ids, not {len(ids):,}",
                             cost=len(ids), limit=limit)
    deadline.check()
    for gid in ids:
        if gid.type_name not in NODE_TYPES:
            raise QueryError(f"no node type {gid.type_name!r} (global id {gid})",
                             suggestion="pass an id returned by this API")
    found = await info.context.node_loader.load_many([(g.type_name, g.node_id) for g in ids])
    return [make_node(g.type_name, p) if p else None for g, p in zip(ids, found, strict=True)]


async def _one(context: Context, table: str, node_id: str) -> Any:
    props = await context.node_loader.load((table, node_id))
    return make_node(table, props) if props else None


#: what an entry list reads of each entry to tell its status at a time
_STATE = ("status", "valid_from", "valid_to", "expires_at")


def _entry_states(context: Context, *, at: datetime, known_at: datetime | None,
                  status: str | None, in_force: bool) -> Refine:
    """A ``refine`` for entry lists: each row's status at ``at`` as known at ``known_at``
    (a supersession recorded later does not count: :func:`entry_ends`), kept if it has
    ``status`` and, with ``in_force``, if it had not ended by ``at``. The status and end
    are left on the row (``_status``, ``_end``) for the page's nodes."""

    async def refine(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        stored = [{"id": r["_id"], "valid_to": r["_c_valid_to"]} for r in rows]
        ends = ({r["id"]: r["valid_to"] for r in stored} if known_at is None  # no query
                else await context.run(entry_ends, stored, known_at=known_at))
        kept = []
        for r in rows:
            r["_end"] = ends[r["_id"]]
            r["_status"] = status_then(r["_c_status"], r["_end"], r["_c_expires_at"], at)
            if status is not None and r["_status"] != status:
                continue
            if in_force and r["_end"] is not None and r["_end"] <= at:
                continue
            kept.append(r)
        return kept

    return refine


async def _entry_ids(context: Context, session: str | None, agent: str | None,
                     scope_matches: str | None) -> list[str] | None:
    """Entry ids the session, agent and scope filters allow (None: no such filter)."""
    allowed: set[str] | None = None

    def narrow(ids: list[str]) -> None:
        nonlocal allowed
        allowed = set(ids) if allowed is None else allowed & set(ids)

    if session is not None:
        rows = await context.cypher(
            f"MATCH (e:{ENTRY.name})-[:{IN_SESSION.name}]->(s:{SESSION.name}) WHERE s.id = $s "
            "RETURN e.id AS id", {"s": session_key(session)})
        narrow(rows["id"].to_list())
    if agent is not None:
        rows = await context.cypher(
            f"MATCH (e:{ENTRY.name})-[:{IN_SESSION.name}]->(s:{SESSION.name}) WHERE s.agent = $a "
            "RETURN e.id AS id", {"a": agent})
        by = await context.cypher(
            f"MATCH (e:{ENTRY.name})-[:{BY.name}]->(a:{AGENT.name}) WHERE a.name = $a OR "
            "a.id = $a RETURN e.id AS id", {"a": agent})
        narrow([*rows["id"].to_list(), *by["id"].to_list()])
    if scope_matches is not None:
        rows = await context.cypher(f"MATCH (e:{ENTRY.name}) WHERE size(e.scope) > 0 "
                                    "RETURN e.id AS id, e.scope AS scope")
        narrow([i for i, globs in rows.rows()
                if any(scope_match(g, scope_matches) or scope_match(scope_matches, g)
                       for g in globs)])
    return None if allowed is None else sorted(allowed)


def _entries_resolver(fixed: str | None):
    async def resolve(info: strawberry.Info, kind: str | None = None,
                      repo: str | None = None, category: str | None = None,
                      status: Annotated[str | None, strawberry.argument(
                          description="active | superseded | expired | merged, as it was at "
                                      "asOf (default now) as recorded at knownAt (default "
                                      "now); superseded or merged lists ended entries")]
                      = None,
                      session: Annotated[str | None, strawberry.argument(
                          description="recorded in this session (its id)")] = None,
                      agent: Annotated[str | None, strawberry.argument(
                          description="recorded by this agent (or in its sessions)")] = None,
                      scope_matches: Annotated[str | None, strawberry.argument(
                          description="whose scope globs cover this path (or glob)")] = None,
                      text: Annotated[str | None, strawberry.argument(
                          description="title or content contains this (any case)")] = None,
                      current: bool | None = None,
                      as_of: datetime | None = None, known_at: datetime | None = None,
                      since: _Since = None, until: _Until = None,
                      order_by: _OrderArg = None,
                      first: int | None = None, after: str | None = None,
                      last: int | None = None, before: str | None = None,
                      if_changed_since: IfChangedSince = None) -> EntryConnection | None:
        context: Context = info.context
        if await not_modified(info, if_changed_since, repo=repo):
            return None
        kind = fixed or kind
        where: list[str] = []
        at = as_of or datetime.now(UTC).replace(tzinfo=None)
        params: dict[str, Any] = {}
        for name, value in (("kind", kind), ("repo", repo),
                            ("category", category.lower() if category else None)):
            if value is not None:
                where.append(f"n.{name} = ${name}")
                params[name] = value
        if text is not None:
            where.append("(lower(n.title) CONTAINS lower($text) OR "
                         "lower(n.content) CONTAINS lower($text))")
            params["text"] = text
        ids = await _entry_ids(context, session, agent, scope_matches)
        if ids is not None:
            where.append("n.id IN $ids")
            params["ids"] = ids
        travel = as_of is not None or known_at is not None
        if current is None:  # a status that ends an entry asks for ended ones
            current = not travel and status in (None, "active", "expired")
        if current and not travel:
            where.append("n.valid_to IS NULL AND n.expired_at IS NULL")
        if as_of is not None:
            where.append("(n.valid_from IS NULL OR n.valid_from <= $as_of)")
            params["as_of"] = as_of
        if known_at is not None:
            params["known_at"] = known_at
            where.append("(n.recorded_at IS NULL OR n.recorded_at <= $known_at) AND "
                         "(n.expired_at IS NULL OR n.expired_at > $known_at)")
        # with asOf, what was in force then (unless a status asks otherwise)
        refine = _entry_states(context, at=at, known_at=known_at, status=status,
                               in_force=(current and travel)
                               or (as_of is not None and status is None))
        found = await _nodes(info, ENTRY, where, params, (_desc("valid_from"),),
                             order_by=order_by, since=since, until=until, first=first,
                             after=after, last=last, before=before, edge=EntryEdge,
                             connection=EntryConnection, columns=_STATE, refine=refine)
        return found

    what = f"{fixed.title()} entries" if fixed else "Entries (of any kind, or of `kind`)"
    resolve.__doc__ = (f"{what}, newest first: the current ones, unless current: false, "
                       "asOf/knownAt (in force at asOf as recorded at knownAt, with the status "
                       "then: a supersession recorded after knownAt does not count) or a "
                       "status. Filters: category, status, session, agent, scopeMatches, text.")
    if fixed:  # the kind is the field's own: no `kind` argument
        signature = inspect.signature(resolve)
        resolve.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[p for p in signature.parameters.values() if p.name != "kind"])
        del resolve.__annotations__["kind"]
    return resolve


@strawberry.type(description="Read the graph: code, history and papers, and what connects them.")
class Query:
    @strawberry.field(description="Any node by its global id (null if it does not exist).")
    async def node(self, info: strawberry.Info, id: relay.GlobalID) -> relay.Node | None:
        [found] = await _by_global_ids(info, [id])
        return found

    @strawberry.field(description="Nodes by their global ids, in order (null where missing).")
    async def nodes(self, info: strawberry.Info,
                    ids: list[relay.GlobalID]) -> list[relay.Node | None]:
        return await _by_global_ids(info, ids)

    @strawberry.field(description="How current the graph is: per repository the commits "
                                  "behind HEAD, files changed since the ingest, whether "
                                  "communities, keyword index and embeddings follow the "
                                  "graph; database size and versions (`vgdb status`).")
    async def status(self, info: strawberry.Info, repo: str | None = None,
                     exclude: list[str] | None = None) -> StatusType:
        return await resolve_status(info, repo, exclude)

    @strawberry.field(description="A repository by name.")
    async def repository(self, info: strawberry.Info, name: str) -> Repository | None:
        return await _one(info.context, REPOSITORY.name, f"repo:{name}")

    @strawberry.field(description="Every ingested repository.")
    async def repositories(self, info: strawberry.Info) -> list[Repository]:
        rows = await info.context.cypher(f"MATCH (n:{REPOSITORY.name}) RETURN n.id AS id "
                                         "ORDER BY id")
        found = await info.context.node_loader.load_many(
            [(REPOSITORY.name, i) for i in rows["id"].to_list()])
        return [make_node(REPOSITORY.name, p) for p in found if p]

    @strawberry.field(description="A file by repository and path.")
    async def file(self, info: strawberry.Info, repo: str, path: str) -> File | None:
        return await _one(info.context, FILE.name, f"file:{repo}/{path}")

    @strawberry.field(description="A symbol by its key (sym:<repo>/<path>#<qualname>) or "
                                  "the end of it (pkg/mod.py#Class.method).")
    async def symbol(self, info: strawberry.Info, ref: str) -> Symbol | None:
        context: Context = info.context
        if ref.startswith("sym:"):  # a key already: the node loader says if it exists
            return await _one(context, SYMBOL.name, ref)
        try:
            key = await context.run(resolve_node, ref)
        except NodeNotFoundError:
            return None
        return await _one(context, SYMBOL.name, key) if key.startswith("sym:") else None

    @strawberry.field(description="The stored communities of a repository at one level, "
                                  "largest first.")
    async def communities(self, info: strawberry.Info, repo: str, scope: str = "file",
                          level: int = 0, order_by: _OrderArg = None,
                          first: int | None = None, after: str | None = None,
                          last: int | None = None, before: str | None = None
                          ) -> CommunityConnection:
        found = await _nodes(info, COMMUNITY, ["n.repo = $repo", "n.scope = $scope",
                                               "n.level = $level"],
                             {"repo": repo, "scope": scope, "level": level},
                             (_desc("size"), SortKey(False, "number", False)),
                             order_by=order_by, since=None, until=None, first=first,
                             after=after, last=last, before=before, edge=CommunityEdge,
                             connection=CommunityConnection)
        if not found.total_count:  # an unknown repository or scope is an error, not []
            await info.context.run(stored_communities, repo, scope=scope, level=level,
                                   limit=1)
        return found

    @strawberry.field(description="Papers, RFCs and docs, by kind and title words, newest "
                                  "first.")
    async def papers(self, info: strawberry.Info, kind: str | None = None,
                     title: str | None = None, order_by: _OrderArg = None,
                     first: int | None = None, after: str | None = None,
                     last: int | None = None, before: str | None = None) -> PaperConnection:
        where, params = [], {}
        if kind is not None:
            where.append("n.kind = $kind")
            params["kind"] = kind
        if title is not None:
            where.append("lower(n.title) CONTAINS lower($title)")
            params["title"] = title
        return await _nodes(info, PAPER, where, params, (_desc("year"),), order_by=order_by,
                            since=None, until=None, first=first, after=after, last=last,
                            before=before, edge=PaperEdge, connection=PaperConnection)

    @strawberry.field(description="Commits, newest first: of one repository, by time.")
    async def commits(self, info: strawberry.Info, repo: str | None = None,
                      since: _Since = None, until: _Until = None, order_by: _OrderArg = None,
                      first: int | None = None, after: str | None = None,
                      last: int | None = None, before: str | None = None
                      ) -> CommitConnection:
        where, params = ([], {}) if repo is None else (["n.repo = $repo"], {"repo": repo})
        return await _nodes(info, COMMIT, where, params, (_desc("committed_at"),),
                            order_by=order_by, since=since, until=until, first=first,
                            after=after, last=last, before=before, edge=CommitEdge,
                            connection=CommitConnection)

    @strawberry.field(description="Working sessions (of agents and people), newest first.")
    async def sessions(self, info: strawberry.Info, repo: str | None = None,
                       since: _Since = None, until: _Until = None,
                       order_by: _OrderArg = None, first: int | None = None,
                       after: str | None = None, last: int | None = None,
                       before: str | None = None) -> SessionConnection:
        where, params = ([], {}) if repo is None else (["n.repo = $repo"], {"repo": repo})
        return await _nodes(info, SESSION, where, params, (_desc("started_at"),),
                            order_by=order_by, since=since, until=until, first=first,
                            after=after, last=last, before=before, edge=SessionEdge,
                            connection=SessionConnection)

    entries: EntryConnection | None = strawberry.field(resolver=_entries_resolver(None))
    decisions: EntryConnection | None = strawberry.field(
        resolver=_entries_resolver("decision"))
    failures: EntryConnection | None = strawberry.field(resolver=_entries_resolver("failure"))
    patterns: EntryConnection | None = strawberry.field(resolver=_entries_resolver("pattern"))
    insights: EntryConnection | None = strawberry.field(resolver=_entries_resolver("insight"))
    intents: EntryConnection | None = strawberry.field(resolver=_entries_resolver("intent"))
    notes: EntryConnection | None = strawberry.field(resolver=_entries_resolver("note"))
    source_text: SourceTextType | None = strawberry.field(
        resolver=resolve_source_text,
        description="The code of a symbol (its lines) or a file, read from the tree it was "
                    "ingested from (null if no such node).")
    briefing: BriefingType | None = strawberry.field(
        resolver=resolve_briefing,
        description="What to know before changing some files, symbols or globs (or the code a "
                    "task names): decisions and patterns in force, stale ones, failures and "
                    "their fixes, others' intents, tests, dependents, commits, papers, packed "
                    "to a token budget by priority; every item with its id.")

    @strawberry.field(description="What a change breaks: impacted symbols and files ranked "
                                  "with the path that explains each, tests to run, "
                                  "communities, decisions/failures/patterns, papers. Targets "
                                  "(ids or names), or repo + base (+ head) for a git diff.")
    async def impact(self, info: strawberry.Info, targets: list[str] | None = None,
                     repo: str | None = None, base: str | None = None,
                     head: str | None = None, depth: int = 3,
                     edge_kinds: list[str] | None = None, as_of: datetime | None = None,
                     limit: int = 100, max_tokens: _MaxTokens = None, coverage: bool = True,
                     never_executed: _NeverExecuted = "unrecorded",
                     if_changed_since: IfChangedSince = None) -> ImpactType | None:
        context: Context = info.context
        if await not_modified(info, if_changed_since, repo=repo):
            return None
        if not 0 < limit <= 500:
            raise QueryError(f"limit must be between 1 and 500, not {limit}")
        result = await context.run(_impact_of, targets, repo, base, head, depth=depth,
                                   edge_kinds=edge_kinds, as_of=as_of, limit=limit,
                                   coverage=coverage, never_executed=never_executed)
        return from_result(context.budget("impact", result, max_tokens))

    @strawberry.field(description="Tests to run for repo's change base..head (the working "
                                  "tree without head), as pytest node ids or test files.")
    async def affected_tests(
            self, info: strawberry.Info, repo: str, base: str, head: str | None = None,
            depth: _SpreadDepth = None, budget: _Budget = DEFAULT_TEST_BUDGET,
            min_score: _MinScore = DEFAULT_MIN_SCORE, coverage: bool = True,
            never_executed: _NeverExecuted = "unrecorded") -> AffectedTests:
        result = await info.context.run(_affected_of, repo, base, head, depth=depth,
                                        budget=budget, min_score=min_score,
                                        coverage=coverage, never_executed=never_executed)
        return AffectedTests(tests=from_result(result.tests), node_ids=list(result.test_ids()),
                             notes=list(result.notes))

    @strawberry.field(description="The SUPERSEDES chain of an entry, symbol or paper both "
                                  "ways, its current version, and the state at asOf/knownAt.")
    async def supersession(self, info: strawberry.Info, node: str,
                           as_of: datetime | None = None, known_at: datetime | None = None,
                           max_tokens: _MaxTokens = None) -> SupersessionType:
        result = await info.context.run(supersession, node, as_of=as_of, known_at=known_at)
        return from_result(info.context.budget("supersession", result, max_tokens))

    @strawberry.field(description="Hybrid search over code, history and papers: BM25, vector "
                                  "similarity and graph proximity fused by score (z-score; RRF "
                                  "on request), "
                                  "with each hit's signals, trust and freshness; superseded "
                                  "facts demoted, with what replaced them.")
    async def search(self, info: strawberry.Info, query: str, k: int = 10,
                     domains: list[str] | None = None, tables: list[str] | None = None,
                     language: str | None = None, path: str | None = None,
                     as_of: datetime | None = None, community: str | None = None,
                     near: list[str] | None = None, mmr: bool = False,
                     max_tokens: _MaxTokens = None,
                     if_changed_since: IfChangedSince = None) -> SearchType | None:
        from queries.search import search

        context: Context = info.context
        if await not_modified(info, if_changed_since):
            return None
        if not 0 < k <= context.settings.max_page_size:
            raise QueryError(f"k must be between 1 and {context.settings.max_page_size}, "
                             f"not {k}")
        result = await context.run(search, query, k=k, domains=domains, tables=tables,
                                   language=language, path=path, as_of=as_of,
                                   community=community, near=near, mmr=mmr or None)
        return from_result(context.budget("search", result, max_tokens))

    @strawberry.field(description="The nearest code, history and academic nodes to a node "
                                  "(its key) or a text, each with its linked nodes in the "
                                  "other two domains.")
    async def similar(self, info: strawberry.Info, node_or_query: str,
                      k_per_domain: int = 5) -> SimilarType:
        from queries.search import similar

        if not 0 < k_per_domain <= 20:
            raise QueryError(f"kPerDomain must be between 1 and 20, not {k_per_domain}")
        return from_result(await info.context.run(similar, node_or_query,
                                                  k_per_domain=k_per_domain))

    @strawberry.field(description="An ingest started by the `ingest` mutation: its status "
                                  "and progress (admin scope).")
    async def ingest_job(self, info: strawberry.Info, id: str) -> IngestJob | None:
        info.context.require("admin")
        return info.context.jobs.get(id) if info.context.jobs else None

    @strawberry.field(description="The server's recent ingest jobs, newest first (admin).")
    async def ingest_jobs(self, info: strawberry.Info) -> list[IngestJob]:
        info.context.require("admin")
        return info.context.jobs.all() if info.context.jobs else []

    @strawberry.field(description="Where a symbol, file or entry came from: commits, "
                                  "sessions, decisions, papers, renames.")
    async def provenance(self, info: strawberry.Info, node: str,
                         as_of: datetime | None = None, known_at: datetime | None = None,
                         max_tokens: _MaxTokens = None,
                         if_changed_since: IfChangedSince = None) -> ProvenanceResult | None:
        if await not_modified(info, if_changed_since):
            return None
        result = await info.context.run(provenance, node, as_of=as_of, known_at=known_at)
        return from_result(info.context.budget("provenance", result, max_tokens))
