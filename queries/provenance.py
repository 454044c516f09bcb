"""Where a symbol, file or entry came from: the commits that introduced and changed it, the
sessions and decisions that touched or justified it, what it replaced, and the papers it
references, each fact with its source, confidence and times.

Bi-temporal filters: ``as_of`` keeps facts already true at that valid time (``valid_from``
not after it), ``known_at`` keeps facts the database had recorded by then (``recorded_at``
not after it, and not expired by then).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from graphdb import Store, deadline
from queries.entry_time import entry_ends
from queries.scope import code_paths, in_scope
from schema import (
    ABOUT,
    AUTHORED,
    BASED_ON,
    BY,
    CHANGED,
    COMMIT,
    ENTRY,
    FILE,
    IN_SESSION,
    PAPER,
    PERSON,
    REFERENCES,
    RESOLVES,
    SESSION,
    SUPERSEDES,
    SYMBOL,
    TOUCHED,
    NodeNotFoundError,
    NodeTable,
)

__all__ = ["CommitFact", "EntryFact", "LineageFact", "PaperFact", "Provenance", "SessionFact",
           "provenance", "resolve_node"]


@dataclass(frozen=True, slots=True)
class CommitFact:
    """A commit that changed the node: ``kind`` added | modified | deleted | renamed."""

    sha: str
    summary: str
    kind: str
    at: datetime
    author: str
    author_id: str
    path: str  # the file's path in that commit (files are followed across renames)
    via: str  # the node the commit changed: this one, or an earlier self (old path, old name)
    lines: int | None
    session: str | None  # the working session that produced the commit, if recorded
    source: str
    confidence: float


@dataclass(frozen=True, slots=True)
class SessionFact:
    id: str
    title: str
    relation: str  # read | modified | about | contains (the entry was recorded in it)
    at: datetime | None
    by: str | None
    source: str


@dataclass(frozen=True, slots=True)
class EntryFact:
    id: str
    display_id: str
    kind: str
    title: str
    status: str
    #: about | in scope: <glob> | resolves | resolved-by | about-commit
    relation: str
    at: datetime | None
    current: bool
    source: str
    confidence: float


@dataclass(frozen=True, slots=True)
class PaperFact:
    id: str
    title: str
    relation: str  # cites | implements | documents | based-on
    location: str
    source: str
    confidence: float


@dataclass(frozen=True, slots=True)
class LineageFact:
    """``direction`` replaces: this node replaced ``other``; replaced-by: ``other`` replaced
    this node."""

    other: str
    direction: str
    reason: str
    evidence: str
    at: datetime | None
    by: str
    confidence: float


@dataclass(frozen=True, slots=True)
class Provenance:
    id: str
    table: str  # Symbol | File | Entry
    name: str
    source: str
    current: bool
    valid_from: datetime | None
    valid_to: datetime | None
    recorded_at: datetime | None
    introduced: CommitFact | None
    last_modified: CommitFact | None
    deleted: CommitFact | None
    commits: tuple[CommitFact, ...]
    sessions: tuple[SessionFact, ...]
    entries: tuple[EntryFact, ...]
    papers: tuple[PaperFact, ...]
    lineage: tuple[LineageFact, ...]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_TABLES: dict[str, NodeTable] = {"sym:": SYMBOL, "file:": FILE, "entry:": ENTRY}


def resolve_node(store: Store, ref: str) -> str:
    """The id of the node ``ref`` names: an id (``sym:...``, ``file:...``, ``entry:...``), a
    display id (``DEC-3``), or the tail of a symbol or file id (``pkg/mod.py#C.m``)."""
    if any(ref.startswith(p) for p in _TABLES):
        return ref
    found = store.cypher(f"MATCH (e:{ENTRY.name}) WHERE e.display_id = $r RETURN e.id AS id",
                         {"r": ref})
    if found.is_empty():
        table = SYMBOL if "#" in ref else FILE
        found = store.cypher(f"MATCH (n:{table.name}) WHERE n.id ENDS WITH $tail "
                             "RETURN n.id AS id ORDER BY id LIMIT 6", {"tail": "/" + ref})
    ids = found["id"].to_list()
    if len(ids) == 1:
        return str(ids[0])
    if not ids:
        raise NodeNotFoundError(f"nothing in the graph is named {ref!r}", node_id=ref,
                                suggestion="pass an id (sym:<repo>/<path>#<qualname>, "
                                           "file:<repo>/<path>, entry:...) or a display id")
    raise NodeNotFoundError(f"{ref!r} is ambiguous: {', '.join(ids[:5])}", node_id=ref,
                            suggestion="pass one of the full ids")


def provenance(store: Store, node: str, *, as_of: datetime | None = None,
               known_at: datetime | None = None) -> Provenance:
    """Where ``node`` (an id, display id or id tail, see :func:`resolve_node`) came from."""
    node_id = resolve_node(store, node)
    table = next(t for p, t in _TABLES.items() if node_id.startswith(p))
    name_col = {SYMBOL.name: "qualname", FILE.name: "path", ENTRY.name: "title"}[table.name]
    rows = store.cypher(
        f"MATCH (n:{table.name}) WHERE n.id = $id RETURN n.{name_col} AS name, "
        "n.source AS source, n.valid_from AS valid_from, n.valid_to AS valid_to, "
        "n.expired_at AS expired_at, n.recorded_at AS recorded_at", {"id": node_id})
    if rows.is_empty():
        raise NodeNotFoundError(f"no node with id {node_id!r}", node_id=node_id)
    n = rows.row(0, named=True)
    window = _Window(as_of, known_at)
    commits = _commits(store, table, node_id, window)
    sessions = _sessions(store, table, node_id, window)
    entries = _entries(store, table, node_id, window)
    if table is ENTRY:
        sessions += _entry_sessions(store, node_id, window)
    return Provenance(
        id=node_id, table=table.name, name=n["name"] or "", source=n["source"] or "",
        current=n["valid_to"] is None and n["expired_at"] is None,
        valid_from=n["valid_from"], valid_to=n["valid_to"], recorded_at=n["recorded_at"],
        introduced=next((c for c in commits if c.kind == "added"), None),
        last_modified=next((c for c in reversed(commits) if c.kind in ("modified", "renamed")),
                           None),
        deleted=next((c for c in reversed(commits) if c.kind == "deleted"), None),
        commits=tuple(commits), sessions=tuple(sessions), entries=tuple(entries),
        papers=tuple(_papers(store, table, node_id, window)),
        lineage=tuple(_lineage(store, table, node_id, window)),
    )


@dataclass(frozen=True, slots=True)
class _Window:
    as_of: datetime | None
    known_at: datetime | None

    def where(self, alias: str) -> str:
        """Cypher conditions on ``alias`` (a node or rel) for the bi-temporal filters."""
        parts = []
        if self.as_of is not None:
            parts.append(f"({alias}.valid_from IS NULL OR {alias}.valid_from <= $as_of)")
        if self.known_at is not None:
            parts.append(f"({alias}.recorded_at IS NULL OR {alias}.recorded_at <= $known_at)")
            parts.append(f"({alias}.expired_at IS NULL OR {alias}.expired_at > $known_at)")
        return " AND ".join(parts) or "true"

    def params(self, **extra: Any) -> dict[str, Any]:
        out = dict(extra)
        if self.as_of is not None:
            out["as_of"] = self.as_of
        if self.known_at is not None:
            out["known_at"] = self.known_at
        return out


def _commit_tail(lines: str, path: str, old_path: str = "''") -> str:
    """The author and session of commit ``c`` reached through rel ``e`` at node ``n``."""
    return (
        f"OPTIONAL MATCH (p:{PERSON.name})-[a:{AUTHORED.name}]->(c) WHERE a.role = 'author' "
        f"OPTIONAL MATCH (c)-[:{IN_SESSION.name}]->(se:{SESSION.name}) "
        "RETURN c.sha AS sha, c.summary AS summary, e.kind AS kind, c.committed_at AS at, "
        f"p.name AS author, p.id AS author_id, {lines} AS lines, se.id AS session, "
        f"e.source AS source, e.confidence AS confidence, {path} AS path, "
        f"{old_path} AS old_path ORDER BY at, sha")


def _commits(store: Store, table: NodeTable, node_id: str, w: _Window) -> list[CommitFact]:
    """Commits that changed the node and, back through renames and moves, its earlier
    selves (a file's old paths; a symbol's SUPERSEDES predecessors)."""
    if table not in (SYMBOL, FILE):
        return []
    facts: list[CommitFact] = []
    seen: set[str] = set()
    pending = [node_id]
    while pending:
        deadline.check()
        nid = pending.pop()
        if nid in seen:
            continue
        seen.add(nid)
        if table is SYMBOL:
            rows = store.cypher(
                f"MATCH (c:{COMMIT.name})-[e:{TOUCHED.name}]->(n:{SYMBOL.name}), "
                f"(f:{FILE.name}) WHERE n.id = $id AND f.id = n.file AND {w.where('e')} "
                + _commit_tail("e.lines", "f.path"), w.params(id=nid))
            older = store.cypher(
                f"MATCH (n:{SYMBOL.name})-[e:{SUPERSEDES.name}]->(o:{SYMBOL.name}) "
                f"WHERE n.id = $id AND {w.where('e')} RETURN o.id AS id", w.params(id=nid))
            pending.extend(older["id"].to_list())
        else:
            rows = store.cypher(
                f"MATCH (c:{COMMIT.name})-[e:{CHANGED.name}]->(n:{FILE.name}) "
                f"WHERE n.id = $id AND {w.where('e')} "
                + _commit_tail("e.additions + e.deletions", "n.path", "e.old_path"),
                w.params(id=nid))
        for r in rows.iter_rows(named=True):
            facts.append(_commit_fact(r, nid))
            if r["kind"] == "renamed" and r["old_path"]:
                pending.append(nid[:len(nid) - len(r["path"])] + r["old_path"])
    return sorted(facts, key=lambda c: (c.at, c.sha, c.via))


def _commit_fact(r: dict[str, Any], via: str) -> CommitFact:
    return CommitFact(sha=r["sha"], summary=r["summary"] or "", kind=r["kind"], at=r["at"],
                      author=r["author"] or "", author_id=r["author_id"] or "",
                      path=r["path"] or "", via=via, lines=r["lines"], session=r["session"],
                      source=r["source"] or "",
                      confidence=_confidence(r))


def _confidence(row: dict[str, Any]) -> float:
    """Rels written before confidence was set read as certain (1.0)."""
    value = row["confidence"]
    return 1.0 if value is None else float(value)


def _sessions(store: Store, table: NodeTable, node_id: str, w: _Window) -> list[SessionFact]:
    if table is ENTRY:
        return []
    rows = store.cypher(
        f"MATCH (s:{SESSION.name})-[e:{ABOUT.name}]->(n:{table.name}) "
        f"WHERE n.id = $id AND {w.where('e')} "
        f"OPTIONAL MATCH (s)-[:{BY.name}]->(who) "
        "RETURN s.id AS id, s.title AS title, e.kind AS relation, e.valid_from AS at, "
        "who.name AS by, e.source AS source ORDER BY at, id", w.params(id=node_id))
    return [SessionFact(r["id"], r["title"] or "", r["relation"] or "about", r["at"], r["by"],
                        r["source"] or "") for r in rows.iter_rows(named=True)]


def _entry_sessions(store: Store, node_id: str, w: _Window) -> list[SessionFact]:
    rows = store.cypher(
        f"MATCH (n:{ENTRY.name})-[e:{IN_SESSION.name}]->(s:{SESSION.name}) "
        f"WHERE n.id = $id AND {w.where('e')} "
        f"OPTIONAL MATCH (s)-[:{BY.name}]->(who) "
        "RETURN s.id AS id, s.title AS title, e.valid_from AS at, who.name AS by, "
        "e.merged AS merged, e.source AS source ORDER BY at, id", w.params(id=node_id))
    return [SessionFact(r["id"], r["title"] or "", "merged" if r["merged"] else "contains",
                        r["at"], r["by"], r["source"] or "") for r in rows.iter_rows(named=True)]


_ENTRY_COLUMNS = ("x.id AS id, x.display_id AS display_id, x.kind AS kind, x.title AS title, "
                  "x.status AS status, x.valid_from AS at, x.valid_to AS valid_to, "
                  "x.expired_at AS expired_at, e.source AS source, e.confidence AS confidence")


def _then(r: dict[str, Any], w: _Window) -> tuple[str, bool]:
    """(status, current) of an entry as it was at ``as_of`` (valid time) and ``known_at``
    (``r["valid_to"]``: its end as known then, :func:`queries.entry_time.entry_ends`; a
    retraction, ``expired_at``, counts once it was made)."""
    valid_to, expired = r["valid_to"], r["expired_at"]
    if w.known_at is not None and expired is not None and expired > w.known_at:
        expired = None
    ended = valid_to is not None and (w.as_of is None or valid_to <= w.as_of)
    current = not ended and expired is None
    status = r["status"] or ""
    if status in ("active", "superseded"):
        status = "superseded" if ended else "active"
    return status, current


def _entries(store: Store, table: NodeTable, node_id: str, w: _Window) -> list[EntryFact]:
    queries: list[tuple[str, str]] = []
    if table in (SYMBOL, FILE):
        queries.append(("about", f"MATCH (x:{ENTRY.name})-[e:{ABOUT.name}]->(n:{table.name}) "
                                 f"WHERE n.id = $id AND {w.where('e')} AND {w.where('x')}"))
    if table is SYMBOL:  # decisions and failures about the commits that changed it
        queries.append(("about-commit",
                        f"MATCH (x:{ENTRY.name})-[e:{ABOUT.name}]->(:{COMMIT.name})"
                        f"-[:{TOUCHED.name}]->(n:{SYMBOL.name}) "
                        f"WHERE n.id = $id AND {w.where('e')} AND {w.where('x')}"))
    if table is ENTRY:
        queries.append(("resolves", f"MATCH (n:{ENTRY.name})-[e:{RESOLVES.name}]->"
                                    f"(x:{ENTRY.name}) WHERE n.id = $id AND {w.where('e')}"))
        queries.append(("resolved-by", f"MATCH (x:{ENTRY.name})-[e:{RESOLVES.name}]->"
                                       f"(n:{ENTRY.name}) WHERE n.id = $id AND "
                                       f"{w.where('e')}"))
    out: list[EntryFact] = []
    for relation, match in queries:
        deadline.check()
        rows = store.cypher(f"{match} RETURN DISTINCT {_ENTRY_COLUMNS} ORDER BY at, id",
                            w.params(id=node_id)).to_dicts()
        ends = entry_ends(store, rows, known_at=w.known_at)  # as known then
        out.extend(EntryFact(r["id"], r["display_id"] or "", r["kind"] or "", r["title"] or "",
                             *_status({**r, "valid_to": ends[r["id"]]}, relation, w),
                             r["source"] or "", _confidence(r))
                   for r in rows)
    if table in (SYMBOL, FILE):  # entries whose scope globs cover the node's file
        about = {f.id for f in out if f.relation == "about"}
        paths = code_paths(store, [node_id])
        matches = in_scope(store, paths, as_of=w.as_of, known_at=w.known_at).get(node_id, [])
        ends = entry_ends(store, [m.row for m in matches], known_at=w.known_at)
        for m in matches:
            r = m.row
            if r["id"] in about:
                continue
            out.append(EntryFact(
                r["id"], r["display_id"] or "", r["kind"] or "", r["title"] or "",
                *_status({**r, "valid_to": ends[r["id"]]}, m.relation, w), r["source"] or "",
                1.0 if r["confidence"] is None else float(r["confidence"])))
    return out


def _status(r: dict[str, Any], relation: str, w: _Window,
            ) -> tuple[str, str, datetime | None, bool]:
    """(status, relation, at, current) of an entry fact, as it was at the window."""
    status, current = _then(r, w)
    return status, relation, r["at"], current


def _papers(store: Store, table: NodeTable, node_id: str, w: _Window) -> list[PaperFact]:
    rows = store.cypher(
        f"MATCH (n:{table.name})-[e:{REFERENCES.name}]->(p:{PAPER.name}) "
        f"WHERE n.id = $id AND {w.where('e')} "
        "RETURN p.id AS id, p.title AS title, e.kind AS relation, e.location AS location, "
        "e.source AS source, e.confidence AS confidence ORDER BY id", w.params(id=node_id))
    facts = [PaperFact(r["id"], r["title"] or "", r["relation"] or "cites",
                       r["location"] or "", r["source"] or "",
                       _confidence(r))
             for r in rows.iter_rows(named=True)]
    if table is ENTRY:
        based = store.cypher(
            f"MATCH (n:{ENTRY.name})-[e:{BASED_ON.name}]->(p:{PAPER.name}) "
            f"WHERE n.id = $id AND {w.where('e')} RETURN p.id AS id, p.title AS title, "
            "e.source AS source, e.confidence AS confidence ORDER BY id", w.params(id=node_id))
        facts += [PaperFact(r["id"], r["title"] or "", "based-on", "", r["source"] or "",
                            _confidence(r))
                  for r in based.iter_rows(named=True)]
    return facts


def _lineage(store: Store, table: NodeTable, node_id: str, w: _Window) -> list[LineageFact]:
    if table is FILE:
        return []
    out: list[LineageFact] = []
    for direction, pattern in (
            ("replaces", f"(n:{table.name})-[e:{SUPERSEDES.name}]->(o:{table.name})"),
            ("replaced-by", f"(o:{table.name})-[e:{SUPERSEDES.name}]->(n:{table.name})")):
        rows = store.cypher(
            f"MATCH {pattern} WHERE n.id = $id AND {w.where('e')} RETURN o.id AS other, "
            "e.reason AS reason, e.evidence AS evidence, e.at AS at, e.by AS by, "
            "e.confidence AS confidence ORDER BY at, other", w.params(id=node_id))
        out.extend(LineageFact(r["other"], direction, r["reason"] or "", r["evidence"] or "",
                               r["at"], r["by"] or "",
                               _confidence(r))
                   for r in rows.iter_rows(named=True))
    return out
