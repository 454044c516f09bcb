"""Storage of working sessions: what a session load reads first, and how it writes.

A session load is one transaction: :func:`read_context` fetches what the rules need (the
current entries of the groups involved, the nodes references name, display-id counters),
the pure planner in ``ingest.sessions`` decides, and :func:`write_sessions` applies the
result — updates of existing nodes first, then ``COPY``/small inserts of new rows.

Scope globs are matched here too (:func:`scopes_overlap`): the writer's conflict rule and
the readers' scope filters (``queries.sessions``) must agree on them, and ``graphdb`` is the
one package both layers may import.

Entries are bi-temporal: valid time (``valid_from``/``valid_to``, when a decision held) and
transaction time (``recorded_at``/``expired_at``, when this database believed it), the two
times of the temporal-database taxonomy [1]_; a superseded entry gets ``valid_to`` and a
SUPERSEDES edge instead of being deleted, as Graphiti keeps invalidated chat facts [2]_.

References
----------
.. [1] R. T. Snodgrass and I. Ahn, "A Taxonomy of Time in Databases", Proceedings of the
   1985 ACM SIGMOD International Conference on Management of Data, pp. 236-246.
   doi:10.1145/318898.318921
.. [2] P. Rasmussen, P. Paliychuk, T. Beauvais, J. Ryan, D. Chalef, "Zep: A Temporal
   Knowledge Graph Architecture for Agent Memory", 2025. arXiv:2501.13956
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache

import polars as pl

from graphdb.store import Transaction
from schema import (
    ABOUT,
    AGENT,
    BY,
    COMMIT,
    ENTRY,
    FILE,
    IN_SESSION,
    META,
    PAPER,
    PERSON,
    REPOSITORY,
    RESOLVES,
    SESSION,
    SUPERSEDES,
    SYMBOL,
    NodeTable,
    RelTable,
)

__all__ = [
    "COUNTER_PREFIX", "RepoPaths", "SessionContext", "SessionNeeds", "SessionWrite",
    "StoredEntry",
    "glob_pattern", "glob_regex", "read_context", "scope_matches", "scopes_overlap",
    "touched_repos", "write_sessions",
]

#: Meta keys holding the last display-id number per prefix (``entry_seq:DEC``).
COUNTER_PREFIX = "entry_seq:"
#: Longest supersession chain followed to find its head.
_MAX_CHAIN = 30  # Kuzu 0.11.3 caps variable-length rels at 30 hops


# ------------------------------------------------------------------------------- scope globs
@lru_cache(maxsize=4096)
def glob_regex(glob: str) -> re.Pattern[str]:
    """A scope glob as a compiled regex matching a whole path (see :func:`glob_pattern`)."""
    return re.compile(glob_pattern(glob) + r"\Z", re.DOTALL)


def glob_pattern(glob: str) -> str:
    """A path or scope glob as regex source, unanchored (full-match it; Kuzu's ``=~`` does):
    ``**`` spans directories, ``*`` and ``?`` stay inside one, ``[...]`` is a class; a
    trailing ``/`` means everything below that directory."""
    if glob.endswith("/"):
        glob += "**"
    out, i = [], 0
    while i < len(glob):
        c = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[" and "]" in glob[i + 2:]:
            end = glob.index("]", i + 2)
            body = glob[i + 1:end]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def scope_matches(glob: str, path: str) -> bool:
    """Whether scope glob ``glob`` covers ``path`` (a path, API name or another glob taken
    literally)."""
    return glob == path or glob_regex(glob).match(path) is not None


class RepoPaths:
    """A repository's current file paths, with the paths each glob covers (memoized: the
    conflict rule asks about the same globs again and again)."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.paths = tuple(paths)
        self._covered: dict[str, frozenset[str]] = {}

    def covered(self, glob: str) -> frozenset[str]:
        found = self._covered.get(glob)
        if found is None:
            match = glob_regex(glob).match
            found = self._covered[glob] = frozenset(p for p in self.paths if match(p))
        return found


def scopes_overlap(a: Sequence[str], b: Sequence[str],
                   paths: RepoPaths | Iterable[str] = ()) -> bool:
    """Whether two scopes can be about the same thing (the conflict rule, docs/sessions.md).

    An empty scope is the whole repository. Two globs overlap when they are equal, when one
    covers the other taken as a literal path, or when both cover one of ``paths`` (the
    repository's current files).
    """
    if not a or not b:
        return True
    for x in a:
        for y in b:
            if scope_matches(x, y) or scope_matches(y, x):
                return True
    repo = paths if isinstance(paths, RepoPaths) else RepoPaths(paths)
    if not repo.paths:
        return False
    left = frozenset().union(*(repo.covered(x) for x in a))
    return any(not left.isdisjoint(repo.covered(y)) for y in b)


# ------------------------------------------------------------------------------------ reading
@dataclass(frozen=True, slots=True)
class StoredEntry:
    """An entry already in the graph, as the rules see it."""

    id: str
    display_id: str
    kind: str
    category: str
    repo: str
    scope: tuple[str, ...]
    title: str
    content: str
    hash: str
    valid_from: datetime | None
    valid_to: datetime | None
    expired_at: datetime | None
    expires_at: datetime | None
    status: str
    sessions: frozenset[str] = frozenset()
    #: the current head of its supersession chain, when this entry is no longer current
    head: tuple[str, str] | None = None
    #: resolutions: the failures they resolve
    resolves: tuple[str, ...] = ()

    @property
    def current(self) -> bool:
        return self.valid_to is None and self.expired_at is None


@dataclass
class SessionNeeds:
    """What a batch of events refers to, collected before the database is read."""

    sessions: set[str] = field(default_factory=set)
    entry_ids: set[str] = field(default_factory=set)
    display_ids: set[str] = field(default_factory=set)
    #: (kind, category) groups whose current entries are dedup or conflict candidates
    groups: set[tuple[str, str]] = field(default_factory=set)
    paths: set[str] = field(default_factory=set)
    qualnames: set[str] = field(default_factory=set)
    symbol_ids: set[str] = field(default_factory=set)
    commits: set[str] = field(default_factory=set)
    papers: set[str] = field(default_factory=set)
    agents: set[str] = field(default_factory=set)
    persons: set[str] = field(default_factory=set)
    repos: set[str] = field(default_factory=set)
    #: the batch has scoped decisions or patterns: fetch the repositories' file paths
    scoped: bool = False


@dataclass
class SessionContext:
    """The part of the graph a batch of events touches."""

    #: session id -> {repo, agent, parent, ended_at, by: [(table, id)]}
    sessions: dict[str, dict] = field(default_factory=dict)
    entries: dict[str, StoredEntry] = field(default_factory=dict)
    display: dict[str, str] = field(default_factory=dict)
    #: path -> [(repo, file id, current)]
    files: dict[str, list[tuple[str, str, bool]]] = field(default_factory=dict)
    symbols: set[str] = field(default_factory=set)
    #: sha or prefix -> commit ids it matches
    commits: dict[str, list[str]] = field(default_factory=dict)
    papers: set[str] = field(default_factory=set)
    agents: set[str] = field(default_factory=set)
    persons: set[str] = field(default_factory=set)
    #: repo -> its current file paths
    repo_paths: dict[str, list[str]] = field(default_factory=dict)
    counters: dict[str, int] = field(default_factory=dict)
    #: (session, target, kind) of ABOUT edges from the sessions involved
    session_about: set[tuple[str, str, str]] = field(default_factory=set)
    #: (commit, session) IN_SESSION edges into the sessions involved
    commit_sessions: set[tuple[str, str]] = field(default_factory=set)
    #: (resolution, failure, outcome, valid_from) RESOLVES edges of the resolutions involved
    outcomes: set[tuple[str, str, str, datetime]] = field(default_factory=set)


_ENTRY_COLUMNS = ("e.id AS id, e.display_id AS display_id, e.kind AS kind, "
                  "e.category AS category, e.repo AS repo, e.scope AS scope, e.title AS title, "
                  "e.content AS content, e.hash AS hash, e.valid_from AS valid_from, "
                  "e.valid_to AS valid_to, e.expired_at AS expired_at, "
                  "e.expires_at AS expires_at, e.status AS status")


def read_context(tx: Transaction, needs: SessionNeeds) -> SessionContext:
    """Read, inside the load's own transaction, everything the rules need."""
    ctx = SessionContext()
    _read_sessions(tx, needs, ctx)
    _read_entries(tx, needs, ctx)
    _read_code(tx, needs, ctx)
    if needs.commits:
        full = sorted(c for c in needs.commits if len(c) == 40)
        rows = tx.execute(f"MATCH (c:{COMMIT.name}) WHERE c.sha IN $s RETURN c.sha, c.id",
                          {"s": full}) if full else pl.DataFrame()
        for sha, cid in rows.rows():
            ctx.commits.setdefault(sha, []).append(cid)
        short = sorted(c for c in needs.commits if len(c) < 40)
        if short:
            rows = tx.execute(f"UNWIND $p AS p MATCH (c:{COMMIT.name}) "
                              "WHERE starts_with(c.sha, p) RETURN p, c.id", {"p": short})
            for prefix, cid in rows.rows():
                ctx.commits.setdefault(prefix, []).append(cid)
    ctx.papers = _existing(tx, PAPER, needs.papers)
    ctx.agents = _existing(tx, AGENT, needs.agents)
    ctx.persons = _existing(tx, PERSON, needs.persons)
    rows = tx.execute(f"MATCH (m:{META.name}) WHERE starts_with(m.id, $p) RETURN m.id, m.value",
                      {"p": COUNTER_PREFIX})
    ctx.counters = {k.removeprefix(COUNTER_PREFIX): int(v) for k, v in rows.rows()}
    return ctx


def _existing(tx: Transaction, table: NodeTable, ids: Iterable[str]) -> set[str]:
    ids = sorted(ids)
    if not ids:
        return set()
    rows = tx.execute(f"UNWIND $ids AS i MATCH (n:{table.name} {{id: i}}) RETURN n.id",
                      {"ids": ids})
    return set(rows["n.id"].to_list())


def _read_sessions(tx: Transaction, needs: SessionNeeds, ctx: SessionContext) -> None:
    ids = sorted(needs.sessions)
    if not ids:
        return
    rows = tx.execute(f"UNWIND $ids AS i MATCH (s:{SESSION.name} {{id: i}}) RETURN s.id, s.repo, "
                      "s.agent, s.parent, s.ended_at", {"ids": ids})
    for sid, repo, agent, parent, ended in rows.rows():
        ctx.sessions[sid] = {"repo": repo or "", "agent": agent or "", "parent": parent or "",
                             "ended_at": ended, "by": []}
    if not ctx.sessions:
        return
    found = sorted(ctx.sessions)
    for target in (AGENT, PERSON):
        rows = tx.execute(f"UNWIND $ids AS i MATCH (s:{SESSION.name} {{id: i}})-[:{BY.name}]->"
                          f"(x:{target.name}) RETURN s.id, x.id", {"ids": found})
        for sid, xid in rows.rows():
            ctx.sessions[sid]["by"].append((target.name, xid))
    for target in (FILE, SYMBOL, COMMIT):
        rows = tx.execute(f"UNWIND $ids AS i MATCH (s:{SESSION.name} {{id: i}})-[a:{ABOUT.name}]->"
                          f"(x:{target.name}) RETURN s.id, x.id, a.kind", {"ids": found})
        ctx.session_about.update(rows.rows())
    rows = tx.execute(f"UNWIND $ids AS i MATCH (c:{COMMIT.name})-[:{IN_SESSION.name}]->"
                      f"(s:{SESSION.name} {{id: i}}) RETURN c.id, s.id", {"ids": found})
    ctx.commit_sessions.update(rows.rows())
    needs.repos.update(s["repo"] for s in ctx.sessions.values() if s["repo"])


def _read_entries(tx: Transaction, needs: SessionNeeds, ctx: SessionContext) -> None:
    frames = []
    if needs.entry_ids or needs.display_ids:
        # by primary key (UNWIND + {id: i}: an index lookup each; ``e.id IN $list`` compares
        # every entry with every id, measured 5 s for 30K ids against 30K entries), in the
        # order the table stores them (offset), as a scan returns them
        named = [tx.execute(f"UNWIND $ids AS i MATCH (e:{ENTRY.name} {{id: i}}) "
                            f"RETURN {_ENTRY_COLUMNS}, offset(ID(e)) AS _offset",
                            {"ids": sorted(needs.entry_ids)})]
        if needs.display_ids:
            named.append(tx.execute(f"MATCH (e:{ENTRY.name}) WHERE e.display_id IN $d "
                                    f"RETURN {_ENTRY_COLUMNS}, offset(ID(e)) AS _offset",
                                    {"d": sorted(needs.display_ids)}))
        frames.append(pl.concat([f for f in named if f.height], how="vertical_relaxed")
                      .unique("id", keep="first", maintain_order=True)
                      .sort("_offset").drop("_offset")
                      if any(f.height for f in named) else pl.DataFrame())
    if needs.groups:
        kinds = sorted({k for k, _ in needs.groups})
        cats = sorted({c for _, c in needs.groups})
        frames.append(tx.execute(
            f"MATCH (e:{ENTRY.name}) WHERE e.kind IN $k AND e.category IN $c "
            f"AND e.valid_to IS NULL AND e.expired_at IS NULL RETURN {_ENTRY_COLUMNS}",
            {"k": kinds, "c": cats}))
    rows: dict[str, dict] = {}
    for frame in frames:
        for row in frame.iter_rows(named=True):
            if row["id"] in rows:
                continue
            if (row["kind"], row["category"] or "") in needs.groups or (
                    row["id"] in needs.entry_ids or row["display_id"] in needs.display_ids):
                rows[row["id"]] = row
    if not rows:
        return
    ids = sorted(rows)
    sessions: dict[str, set[str]] = defaultdict(set)
    for eid, sid in tx.execute(
            f"UNWIND $ids AS i MATCH (e:{ENTRY.name} {{id: i}})-[:{IN_SESSION.name}]->"
            f"(s:{SESSION.name}) RETURN e.id, s.id", {"ids": ids}).rows():
        sessions[eid].add(sid)
    resolves: dict[str, list[str]] = defaultdict(list)
    for rid, fid, outcome, valid_from in tx.execute(
            f"UNWIND $ids AS i MATCH (e:{ENTRY.name} {{id: i}})-[r:{RESOLVES.name}]->"
            f"(f:{ENTRY.name}) RETURN e.id, f.id, r.outcome, r.valid_from",
            {"ids": ids}).rows():
        if fid not in resolves[rid]:
            resolves[rid].append(fid)
        ctx.outcomes.add((rid, fid, outcome, valid_from))
    stale = [i for i in ids if rows[i]["valid_to"] is not None or rows[i]["expired_at"]]
    heads: dict[str, tuple[str, str]] = {}
    if stale:
        for old, hid, hdisplay in tx.execute(
                f"UNWIND $ids AS i MATCH (h:{ENTRY.name})-[:{SUPERSEDES.name}*1..{_MAX_CHAIN}]->"
                f"(o:{ENTRY.name} {{id: i}}) WHERE h.valid_to IS NULL "
                "AND h.expired_at IS NULL RETURN o.id, h.id, h.display_id",
                {"ids": stale}).rows():
            heads[old] = (hid, hdisplay)
    for eid, r in rows.items():
        entry = StoredEntry(
            id=eid, display_id=r["display_id"] or "", kind=r["kind"] or "",
            category=r["category"] or "", repo=r["repo"] or "", scope=tuple(r["scope"] or ()),
            title=r["title"] or "", content=r["content"] or "", hash=r["hash"] or "",
            valid_from=r["valid_from"], valid_to=r["valid_to"], expired_at=r["expired_at"],
            expires_at=r["expires_at"], status=r["status"] or "",
            sessions=frozenset(sessions.get(eid, ())), head=heads.get(eid),
            resolves=tuple(resolves.get(eid, ())))
        ctx.entries[eid] = entry
        if entry.display_id:
            ctx.display[entry.display_id] = eid
        if entry.repo:
            needs.repos.add(entry.repo)


def _read_code(tx: Transaction, needs: SessionNeeds, ctx: SessionContext) -> None:
    if needs.paths:
        rows = tx.execute(f"MATCH (f:{FILE.name}) WHERE f.path IN $p "
                          "RETURN f.path, f.repo, f.id, f.valid_to IS NULL",
                          {"p": sorted(needs.paths)})
        for path, repo, fid, current in rows.rows():
            ctx.files.setdefault(path, []).append((repo, fid, bool(current)))
    if needs.qualnames or needs.symbol_ids:
        rows = tx.execute(f"MATCH (s:{SYMBOL.name}) WHERE s.qualname IN $q OR s.id IN $ids "
                          "RETURN s.id", {"q": sorted(needs.qualnames),
                                          "ids": sorted(needs.symbol_ids)})
        ctx.symbols = set(rows["s.id"].to_list())
    if needs.scoped and needs.repos:
        rows = tx.execute(f"MATCH (f:{FILE.name}) WHERE f.repo IN $r AND f.valid_to IS NULL "
                          "RETURN f.repo, f.path", {"r": sorted(needs.repos)})
        for repo, path in rows.rows():
            ctx.repo_paths.setdefault(repo, []).append(path)


# ------------------------------------------------------------------------------------ writing
@dataclass
class SessionWrite:
    """Everything one batch of session events adds to the graph."""

    #: new nodes, in insertion order
    nodes: list[tuple[NodeTable, pl.DataFrame]] = field(default_factory=list)
    #: new rels: (rel, from table, to table, frame with from/to and properties)
    rels: list[tuple[RelTable, NodeTable, NodeTable, pl.DataFrame]] = field(default_factory=list)
    #: existing entries that were superseded: id, valid_to (the one in-place change allowed)
    superseded: pl.DataFrame | None = None
    #: existing sessions whose end arrived later: id, ended_at, summary, outcome
    ended: pl.DataFrame | None = None
    #: display-id counters after this batch (prefix -> last number)
    counters: dict[str, int] = field(default_factory=dict)

    def written_ids(self) -> dict[str, list[str]]:
        """Ids of the nodes this write adds or ends, per table: what the keyword and vector
        indexes must follow (:func:`graphdb.findable.findable`)."""
        out: dict[str, list[str]] = {}
        for table, frame in self.nodes:
            if "id" in frame.columns:
                out.setdefault(table.name, []).extend(frame["id"].to_list())
        if self.superseded is not None and not self.superseded.is_empty():
            out.setdefault(ENTRY.name, []).extend(self.superseded["id"].to_list())
        return out


def write_sessions(tx: Transaction, write: SessionWrite) -> dict[str, int]:
    """Apply ``write`` in ``tx``: updates of existing nodes first, then inserts."""
    tx.leaves_code()  # entries, sessions and their links; an insert into code takes it back
    counts: dict[str, int] = {}
    if write.superseded is not None and not write.superseded.is_empty():
        tx.execute(f"LOAD FROM $f MATCH (e:{ENTRY.name} {{id: id}}) "
                   "SET e.valid_to = valid_to, e.status = 'superseded'",
                   {"f": write.superseded})
        counts["superseded_existing"] = write.superseded.height
    if write.ended is not None and not write.ended.is_empty():
        tx.execute(f"LOAD FROM $f MATCH (s:{SESSION.name} {{id: id}}) "
                   "SET s.ended_at = ended_at, s.summary = summary, s.outcome = outcome",
                   {"f": write.ended})
    for table, frame in write.nodes:
        counts[table.name] = counts.get(table.name, 0) + tx.copy_nodes(table, frame, bulk=False)
    for rel, src, dst, frame in write.rels:
        counts[rel.name] = counts.get(rel.name, 0) + tx.copy_rels(rel, frame, src=src, dst=dst,
                                                                  bulk=False)
    for prefix, value in sorted(write.counters.items()):
        tx.execute(f"MERGE (m:{META.name} {{id: $k}}) SET m.value = $v",
                   {"k": COUNTER_PREFIX + prefix, "v": str(value)})
    for repo in touched_repos(tx, write):
        tx.touch(repo)
    return counts


def touched_repos(tx: Transaction, write: SessionWrite) -> set[str]:
    """The repositories whose answers ``write`` changes (their graph versions advance): the
    repositories of the entries and sessions it adds or ends, and of the code and commits
    its edges reach. An entry without a repository that applies by scope (or an intent,
    whose empty scope is every repository) changes every repository's answers."""
    ids: dict[str, set[str]] = defaultdict(set)
    for table, frame in write.nodes:
        if "id" in frame.columns:
            ids[table.name].update(frame["id"].to_list())
    for frame, table in ((write.superseded, ENTRY), (write.ended, SESSION)):
        if frame is not None and not frame.is_empty():
            ids[table.name].update(frame["id"].to_list())
    for _, src, dst, frame in write.rels:
        ids[src.name].update(frame["from"].to_list())
        ids[dst.name].update(frame["to"].to_list())
    repos: set[str] = set()
    everywhere = False
    for table in (ENTRY, SESSION, FILE, SYMBOL, COMMIT):
        some = sorted(i for i in ids.get(table.name, ()) if i)
        if not some:
            continue
        wide = ("size(n.scope) > 0 OR n.kind = 'intent'" if table is ENTRY else "false")
        rows = tx.execute(f"UNWIND $ids AS i MATCH (n:{table.name} {{id: i}}) "
                          f"RETURN DISTINCT n.repo, {wide}", {"ids": some})
        for repo, scoped in rows.rows():
            if repo:
                repos.add(repo)
            elif scoped:
                everywhere = True
    if everywhere:
        rows = tx.execute(f"MATCH (r:{REPOSITORY.name}) RETURN r.name")
        repos.update(name for (name,) in rows.rows() if name)
    return repos
