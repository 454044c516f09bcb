"""Reading what sessions recorded: entries, supersession chains, failures and what fixed them.

Every function takes ``as_of`` (valid time: what was true then) and ``known_at`` (transaction
time: what the database knew then), both naive UTC datetimes; None means now. Supersession
sets the old entry's ``valid_to`` in place, so ``known_at`` reads it back from the SUPERSEDES
edges instead: an entry counts as superseded at ``known_at`` only if the edge that replaced
it had been recorded by then.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from graphdb import Store
from graphdb.sessions import scopes_overlap
from queries.batch import by_ids, lookup_template
from queries.supersession import chain_ids
from schema import (
    ENTRY,
    IN_SESSION,
    RESOLVES,
    SESSION,
    SUPERSEDES,
    NodeNotFoundError,
)

__all__ = [
    "OUTCOME_RANK", "ChainLink", "EntryView", "FailureGroup", "RankedResolution",
    "SupersessionChain", "failure_groups", "get_entry", "list_entries", "supersession_chain",
]

#: Outcomes best first: resolutions are ranked by this, then by how recent their outcome is.
OUTCOME_RANK: dict[str, int] = {"success": 0, "partial": 1, "pending": 2, "failed": 3,
                                "worsened": 4}

_COLUMNS = ("e.id AS id, e.display_id AS display_id, e.kind AS kind, e.title AS title, "
            "e.content AS content, e.category AS category, e.scope AS scope, e.repo AS repo, "
            "e.outcome AS outcome, e.signature AS signature, e.error AS error, "
            "e.approach AS approach, e.context AS context, e.unresolved AS unresolved, "
            "e.expires_at AS expires_at, e.source AS source, e.valid_from AS valid_from, "
            "e.valid_to AS valid_to, e.recorded_at AS recorded_at, e.expired_at AS expired_at")


@dataclass(frozen=True, slots=True)
class EntryView:
    """An entry as known at ``known_at``; ``status`` is active, superseded or expired."""

    id: str
    display_id: str
    kind: str
    title: str
    content: str
    category: str
    scope: tuple[str, ...]
    repo: str
    status: str
    #: resolutions: the current outcome (latest RESOLVES edge); else the stored one
    outcome: str
    signature: str
    error: str
    approach: str
    context: str
    unresolved: tuple[str, ...]
    source: str
    valid_from: datetime | None
    valid_to: datetime | None
    recorded_at: datetime | None
    expires_at: datetime | None
    superseded_by: str
    sessions: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class ChainLink:
    """One entry of a chain and how the next one replaced it (empty for the last)."""

    entry: EntryView
    superseded_by: str
    reason: str
    evidence: str
    at: datetime | None
    by: str


@dataclass(frozen=True, slots=True)
class SupersessionChain:
    """Oldest first; ``current`` is the chain's one active entry (None if none is)."""

    links: tuple[ChainLink, ...]
    current: EntryView | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class RankedResolution:
    id: str
    display_id: str
    title: str
    outcome: str
    outcome_at: datetime | None
    failures: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class FailureGroup:
    """Failures with one signature, and every resolution tried, best outcome first."""

    signature: str
    category: str
    file: str
    failures: tuple[str, ...]
    sessions: tuple[str, ...]
    first_seen: datetime | None
    last_seen: datetime | None
    resolutions: tuple[RankedResolution, ...]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


@dataclass(frozen=True, slots=True)
class _Edge:
    src: str
    src_display: str
    at: datetime | None
    recorded_at: datetime | None
    reason: str
    evidence: str
    by: str


def _supersessions(store: Store, ids: list[str], known_at: datetime) -> dict[str, _Edge]:
    """Entry id -> the (earliest) SUPERSEDES edge into it known at ``known_at``."""
    if not ids:
        return {}
    rows = by_ids(store, ids, lookup_template(  # ordered per entry
        f"MATCH (n:{ENTRY.name})-[s:{SUPERSEDES.name}]->(e:{ENTRY.name}{{B}}) WHERE {{IN}} "
        "AND s.recorded_at <= $k RETURN e.id, n.id, n.display_id, s.at, s.recorded_at, "
        "s.reason, s.evidence, s.by ORDER BY s.at", "e"), {"k": known_at})
    out: dict[str, _Edge] = {}
    for eid, *rest in rows.rows():
        out.setdefault(eid, _Edge(*rest))
    return out


def _outcomes(store: Store, ids: list[str], as_of: datetime, known_at: datetime,
              ) -> dict[str, tuple[str, datetime | None, tuple[str, ...]]]:
    """Resolution id -> (current outcome, when, failures it resolves)."""
    if not ids:
        return {}
    rows = by_ids(store, ids, lookup_template(  # ordered per resolution
        f"MATCH (r:{ENTRY.name}{{B}})-[o:{RESOLVES.name}]->(f:{ENTRY.name}) WHERE {{IN}} "
        "AND o.recorded_at <= $k AND o.valid_from <= $a "
        "RETURN r.id, f.id, o.outcome, o.valid_from, o.recorded_at "
        "ORDER BY o.valid_from, o.recorded_at", "r"), {"k": known_at, "a": as_of})
    out: dict[str, tuple[str, datetime | None, tuple[str, ...]]] = {}
    for rid, fid, outcome, valid_from, _ in rows.rows():
        _, _, failures = out.get(rid, ("", None, ()))
        out[rid] = (outcome, valid_from, failures if fid in failures else (*failures, fid))
    return out


def _sessions(store: Store, ids: list[str]) -> dict[str, tuple[str, ...]]:
    if not ids:
        return {}
    rows = by_ids(store, ids, lookup_template(  # ordered per entry
        f"MATCH (e:{ENTRY.name}{{B}})-[:{IN_SESSION.name}]->(s:{SESSION.name}) WHERE {{IN}} "
        "RETURN e.id, s.id ORDER BY s.id", "e"))
    out: dict[str, list[str]] = defaultdict(list)
    for eid, sid in rows.rows():
        out[eid].append(sid)
    return {k: tuple(v) for k, v in out.items()}


def _views(store: Store, rows: list[dict], *, as_of: datetime | None,
           known_at: datetime | None, history: bool) -> list[EntryView]:
    now = _now()
    known = known_at or now
    at = as_of or now
    rows = [r for r in rows if r["recorded_at"] is None or r["recorded_at"] <= known]
    rows = [r for r in rows if r["expired_at"] is None or r["expired_at"] > known]
    ids = [r["id"] for r in rows]
    edges = _supersessions(store, ids, known)
    outcomes = _outcomes(store, [r["id"] for r in rows if r["kind"] == "resolution"], at, known)
    sessions = _sessions(store, ids)
    out = []
    for r in rows:
        edge = edges.get(r["id"])
        valid_to = edge.at if edge else None
        lapsed = r["expires_at"] is not None and r["expires_at"] <= at
        if not history:
            if r["valid_from"] is not None and r["valid_from"] > at:
                continue
            if (valid_to is not None and valid_to <= at) or lapsed:
                continue
        status = ("superseded" if valid_to is not None and valid_to <= at
                  else "expired" if lapsed else "active")
        outcome = outcomes.get(r["id"], (r["outcome"] or "",))[0]
        out.append(EntryView(
            id=r["id"], display_id=r["display_id"] or "", kind=r["kind"] or "",
            title=r["title"] or "", content=r["content"] or "", category=r["category"] or "",
            scope=tuple(r["scope"] or ()), repo=r["repo"] or "", status=status,
            outcome=outcome or "", signature=r["signature"] or "", error=r["error"] or "",
            approach=r["approach"] or "", context=r["context"] or "",
            unresolved=tuple(r["unresolved"] or ()), source=r["source"] or "",
            valid_from=r["valid_from"], valid_to=valid_to, recorded_at=r["recorded_at"],
            expires_at=r["expires_at"], superseded_by=edge.src if edge else "",
            sessions=sessions.get(r["id"], ())))
    return out


def list_entries(store: Store, *, kind: str | None = None, category: str | None = None,
                 scope: str | None = None, repo: str | None = None, session: str | None = None,
                 as_of: datetime | None = None, known_at: datetime | None = None,
                 history: bool = False, limit: int | None = None) -> tuple[EntryView, ...]:
    """Entries valid at ``as_of`` as known at ``known_at`` (both default to now), oldest
    first; ``history`` returns every entry known at ``known_at`` whatever its validity.

    ``scope`` keeps entries whose scope overlaps that path or glob (an entry without a scope
    covers its whole repository); ``session`` is a session id (``session:...``).
    """
    where, params = [], {}
    for name, value in (("kind", kind), ("category", category), ("repo", repo)):
        if value is not None:
            where.append(f"e.{name} = ${name}")
            params[name] = value.lower() if name == "category" else value
    match = f"MATCH (e:{ENTRY.name})"
    if session is not None:
        match += f"-[:{IN_SESSION.name}]->(s:{SESSION.name} {{id: $session}})"
        params["session"] = session
    cond = f" WHERE {' AND '.join(where)}" if where else ""
    rows = store.cypher(f"{match}{cond} RETURN DISTINCT {_COLUMNS} ORDER BY valid_from, id",
                        params).to_dicts()
    if scope is not None:
        rows = [r for r in rows if scopes_overlap(tuple(r["scope"] or ()), (scope,))]
    views = _views(store, rows, as_of=as_of, known_at=known_at, history=history)
    return tuple(views[:limit] if limit is not None else views)


def _fetch(store: Store, ref: str) -> dict:
    rows = store.cypher(f"MATCH (e:{ENTRY.name}) WHERE e.id = $r OR e.display_id = $r "
                        f"RETURN {_COLUMNS}", {"r": ref}).to_dicts()
    if not rows:
        raise NodeNotFoundError(f"no entry {ref!r}", node_id=ref,
                                suggestion="pass an entry id (entry:...) or a display id "
                                           "(DEC-12)")
    return rows[0]


def get_entry(store: Store, ref: str, *, as_of: datetime | None = None,
              known_at: datetime | None = None) -> EntryView:
    """One entry by id or display id, with its status at ``as_of``/``known_at``."""
    views = _views(store, [_fetch(store, ref)], as_of=as_of, known_at=known_at, history=True)
    if not views:
        raise NodeNotFoundError(f"entry {ref!r} was not yet recorded at {known_at}",
                                node_id=ref)
    return views[0]


def supersession_chain(store: Store, ref: str, *,
                       known_at: datetime | None = None) -> SupersessionChain:
    """The whole chain ``ref`` belongs to, oldest first, and its current entry."""
    start = _fetch(store, ref)["id"]
    known = known_at or _now()
    ids, _ = chain_ids(store, ENTRY.name, start)
    rows = by_ids(store, ids, lookup_template(
        f"MATCH (e:{ENTRY.name}{{B}}) WHERE {{IN}} RETURN {_COLUMNS}", "e")).to_dicts()
    views = {v.id: v for v in _views(store, rows, as_of=None, known_at=known, history=True)}
    edges = _supersessions(store, list(views), known)
    ordered = sorted(views.values(), key=lambda v: (v.valid_from or datetime.min, v.id))
    links = tuple(ChainLink(v, edges[v.id].src if v.id in edges else "",
                            edges[v.id].reason if v.id in edges else "",
                            edges[v.id].evidence if v.id in edges else "",
                            edges[v.id].at if v.id in edges else None,
                            edges[v.id].by if v.id in edges else "")
                  for v in ordered)
    current = [v for v in ordered if v.status == "active" and v.id not in edges]
    return SupersessionChain(links, current[-1] if current else None)


def failure_groups(store: Store, *, repo: str | None = None, category: str | None = None,
                   file: str | None = None, as_of: datetime | None = None,
                   known_at: datetime | None = None) -> tuple[FailureGroup, ...]:
    """Failures grouped by signature (most frequent first), each with the resolutions tried
    for any of them, ranked by current outcome (success > partial > pending > failed >
    worsened), then most recent outcome first."""
    failures = [v for v in list_entries(store, kind="failure", category=category, repo=repo,
                                        as_of=as_of, known_at=known_at, history=True)
                if as_of is None or (v.valid_from is not None and v.valid_from <= as_of)]
    groups: dict[str, list[EntryView]] = defaultdict(list)
    for f in failures:
        groups[f.signature].append(f)
    if file is not None:
        wanted = file.strip().removeprefix("./")
        groups = {s: fs for s, fs in groups.items() if _parts(s)[1] == wanted}
    resolutions = _resolutions(store, [f.id for fs in groups.values() for f in fs],
                               as_of or _now(), known_at or _now())
    out = []
    for signature, members in groups.items():
        ids = {f.id for f in members}
        ranked = sorted({r.id: r for r in resolutions if set(r.failures) & ids}.values(),
                        key=lambda r: r.id)
        ranked.sort(key=lambda r: r.outcome_at or datetime.min, reverse=True)
        ranked.sort(key=lambda r: OUTCOME_RANK.get(r.outcome, len(OUTCOME_RANK)))
        category_, file_ = _parts(signature)
        times = [f.valid_from for f in members if f.valid_from is not None]
        out.append(FailureGroup(
            signature=signature, category=category_, file=file_,
            failures=tuple(f.id for f in members),
            sessions=tuple(sorted({s for f in members for s in f.sessions})),
            first_seen=min(times) if times else None, last_seen=max(times) if times else None,
            resolutions=tuple(ranked)))
    out.sort(key=lambda g: (-len(g.failures), g.signature))
    return tuple(out)


def _parts(signature: str) -> tuple[str, str]:
    """(category, file) of a failure signature ``category | file | error``."""
    parts = signature.split(" | ", 2)
    return (parts[0], parts[1]) if len(parts) == 3 else ("", "")


def _resolutions(store: Store, failures: list[str], as_of: datetime,
                 known_at: datetime) -> list[RankedResolution]:
    if not failures:
        return []
    rows = by_ids(store, failures, lookup_template(
        f"MATCH (r:{ENTRY.name})-[:{RESOLVES.name}]->(f:{ENTRY.name}{{B}}) WHERE {{IN}} "
        "AND r.recorded_at <= $k AND r.valid_from <= $a "
        "RETURN DISTINCT r.id, r.display_id, r.title", "f"),
        {"k": known_at, "a": as_of}).unique(maintain_order=True)
    outcomes = _outcomes(store, rows["r.id"].to_list(), as_of, known_at)
    return [RankedResolution(rid, display or "", title or "", *outcomes[rid])
            for rid, display, title in rows.rows() if rid in outcomes]
