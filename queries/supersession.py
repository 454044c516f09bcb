"""What replaced what: the whole SUPERSEDES chain of an entry, a symbol (renames and moves
found by history ingest) or a paper, both ways, its current version, and the version valid
at a given time as the database knew it at another.

SUPERSEDES points newer -> older (DESIGN §2). A chain may branch (a decision split in two, two
symbols merged into one), so the result is the whole connected set of versions with its edges,
oldest first, not just a list.

Bi-temporal reading:

- ``known_at`` (transaction time) keeps the versions and SUPERSEDES edges recorded by then.
  Supersession writes the old version's ``valid_to`` in place, so that property cannot say
  when it was learned; with ``known_at`` an end is read from the edges recorded by then, and
  from the node's own ``valid_to`` only when nothing supersedes it (a deleted symbol, a
  lapsed entry).
- ``as_of`` (valid time) picks the versions valid then: begun (``valid_from`` not after it)
  and not yet ended (no known edge replacing them with ``at`` not after it, and no own end).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

import polars as pl

from graphdb import Store, deadline
from queries.batch import by_ids, lookup_template
from queries.provenance import resolve_node
from schema import ENTRY, MODULE_QUALNAME, PAPER, SUPERSEDES, SYMBOL, NodeNotFoundError

__all__ = ["MAX_VERSIONS", "Supersession", "SupersessionEdge", "Version", "chain_ids",
           "supersession"]

#: A chain is read up to this many versions (a note says when it is cut).
MAX_VERSIONS = 10_000

_NAME = {ENTRY.name: "n.title", SYMBOL.name: "n.qualname", PAPER.name: "n.title"}
_EXTRA = {ENTRY.name: "n.display_id AS display_id, n.kind AS kind, n.status AS status",
          SYMBOL.name: "n.file AS display_id, n.kind AS kind, '' AS status",
          PAPER.name: "n.doi AS display_id, n.kind AS kind, n.status AS status"}


@dataclass(frozen=True, slots=True)
class Version:
    """One version of the chain. ``current``: not ended now (as known at ``known_at``);
    ``valid_at``: valid at ``as_of`` (equal to ``current`` without ``as_of``); ``status``:
    an entry's status at ``as_of`` (now without it)."""

    id: str
    table: str
    name: str  # entry or paper title, symbol qualname
    display_id: str  # entry display id, symbol's file id, paper DOI
    kind: str
    status: str
    current: bool
    valid_at: bool
    valid_from: datetime | None
    valid_to: datetime | None
    recorded_at: datetime | None
    source: str


@dataclass(frozen=True, slots=True)
class SupersessionEdge:
    """``newer`` SUPERSEDES ``older``: why, on what evidence, when (valid time), by whom."""

    newer: str
    older: str
    reason: str
    evidence: str
    at: datetime | None
    by: str
    source: str
    confidence: float
    recorded_at: datetime | None


@dataclass(frozen=True, slots=True)
class Supersession:
    """The chain ``node`` belongs to. ``replaces``/``replaced_by``: versions transitively
    older/newer than ``node``; ``current``: the versions in force now (normally one);
    ``at``: the versions valid at ``as_of``."""

    node: str
    table: str
    versions: tuple[Version, ...]
    edges: tuple[SupersessionEdge, ...]
    replaces: tuple[str, ...]
    replaced_by: tuple[str, ...]
    current: tuple[str, ...]
    at: tuple[str, ...]
    as_of: datetime | None = None
    known_at: datetime | None = None
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_polars(self) -> pl.DataFrame:
        """One row per version, oldest first."""
        schema = {"id": pl.Utf8, "table": pl.Utf8, "name": pl.Utf8, "display_id": pl.Utf8,
                  "kind": pl.Utf8, "status": pl.Utf8, "current": pl.Boolean,
                  "valid_at": pl.Boolean, "valid_from": pl.Datetime, "valid_to": pl.Datetime,
                  "recorded_at": pl.Datetime, "source": pl.Utf8}
        return pl.DataFrame([asdict(v) for v in self.versions], schema=schema)


def _known(alias: str, known_at: datetime | None) -> str:
    if known_at is None:
        return "true"
    return (f"({alias}.recorded_at IS NULL OR {alias}.recorded_at <= $known_at) AND "
            f"({alias}.expired_at IS NULL OR {alias}.expired_at > $known_at)")


def chain_ids(store: Store, table: str, start: str, *, known_at: datetime | None = None,
              limit: int = MAX_VERSIONS) -> tuple[list[str], bool]:
    """Ids of every node of ``table`` connected to ``start`` through SUPERSEDES edges (either
    way) known at ``known_at``, and whether ``limit`` cut the walk. One statement per hop
    for the whole frontier (a chain of n versions costs O(n) queries at worst, a few for
    the usual short chains)."""
    params: dict[str, Any] = {} if known_at is None else {"known_at": known_at}
    seen = {start}
    frontier = [start]
    step = lookup_template(f"MATCH (b:{table}{{B}})-[e:{SUPERSEDES.name}]-(o:{table}) WHERE "
                           f"{{IN}} AND {_known('e', known_at)} RETURN o.id AS o", "b")
    while frontier:
        deadline.check()
        found = set(by_ids(store, frontier, step, params)["o"].to_list())
        frontier = sorted(found - seen)
        seen.update(frontier)
        if len(seen) > limit:
            return sorted(seen)[:limit], True
    return sorted(seen), False


def _table_of(store: Store, node: str) -> tuple[str, str, list[str]]:
    """(id, table, notes) for ``node``; a file stands for its module symbol, whose chain
    follows the file's renames and moves."""
    if node.startswith("paper:"):
        return node, PAPER.name, []
    nid = resolve_node(store, node)
    if nid.startswith("entry:"):
        return nid, ENTRY.name, []
    if nid.startswith("file:"):
        sid = "sym:" + nid[len("file:"):] + "#" + MODULE_QUALNAME
        return sid, SYMBOL.name, [f"{nid} is a file: showing the chain of its module symbol "
                                  f"{sid} (file renames and moves)"]
    return nid, SYMBOL.name, []


def supersession(store: Store, node: str, *, as_of: datetime | None = None,
                 known_at: datetime | None = None) -> Supersession:
    """The supersession chain of ``node`` (an entry, symbol or paper id, a display id such as
    ``DEC-3``, or the end of a symbol id; a file means its module symbol).

    Raises :class:`schema.NodeNotFoundError` if the node does not exist, or was not yet
    recorded at ``known_at``.
    """
    nid, table, notes = _table_of(store, node)
    ids, cut = chain_ids(store, table, nid, known_at=known_at)
    if cut:
        notes.append(f"the chain has more than {MAX_VERSIONS} versions; showing {MAX_VERSIONS}")
    params: dict[str, Any] = {} if known_at is None else {"known_at": known_at}
    rows = by_ids(store, ids, lookup_template(
        f"MATCH (n:{table}{{B}}) WHERE {{IN}} AND {_known('n', known_at)} "
        f"RETURN n.id AS id, {_NAME[table]} AS name, {_EXTRA[table]}, "
        "n.valid_from AS valid_from, n.valid_to AS valid_to, n.expired_at AS expired_at, "
        "n.recorded_at AS recorded_at, n.source AS source", "n"), params).to_dicts()
    if not any(r["id"] == nid for r in rows):
        when = f" at {known_at}" if known_at is not None else ""
        raise NodeNotFoundError(f"no {table} {nid!r} known{when}", node_id=nid,
                                suggestion="pass an entry, symbol or paper id or display id")
    present = {r["id"] for r in rows}
    erows = by_ids(store, ids, lookup_template(
        f"MATCH (a:{table}{{B}})-[e:{SUPERSEDES.name}]->(b:{table}) WHERE {{IN}} "
        "RETURN a.id AS a, b.id AS b, e.reason AS reason, e.evidence AS evidence, e.at AS at, "
        "e.by AS by, e.source AS source, e.confidence AS confidence, "
        "e.recorded_at AS recorded_at, e.expired_at AS expired_at, a.valid_from AS newer_from",
        "a"))
    edges = []
    ended: dict[str, list[datetime | None]] = {}
    replaced_ever: set[str] = set()
    for newer, older, reason, evidence, at, by, source, conf, rec, expired, newer_from in \
            erows.iter_rows():
        replaced_ever.add(older)
        if newer not in present or older not in present:
            continue
        if known_at is not None and ((rec is not None and rec > known_at)
                                     or (expired is not None and expired <= known_at)):
            continue
        when = at if at is not None else newer_from
        edges.append(SupersessionEdge(newer, older, reason or "", evidence or "", when,
                                      by or "", source or "", 1.0 if conf is None else
                                      float(conf), rec))
        ended.setdefault(older, []).append(when)
    edges.sort(key=lambda e: (e.at or datetime.min, e.newer, e.older))
    versions = [_version(r, table, ended.get(r["id"]), as_of=as_of,
                         own_end=known_at is None or (table != ENTRY.name
                                                      and r["id"] not in replaced_ever))
                for r in rows]
    versions.sort(key=lambda v: (v.valid_from or datetime.min, v.id))
    older_of: dict[str, list[str]] = {}
    newer_of: dict[str, list[str]] = {}
    for e in edges:
        older_of.setdefault(e.newer, []).append(e.older)
        newer_of.setdefault(e.older, []).append(e.newer)
    order = {v.id: i for i, v in enumerate(versions)}
    return Supersession(
        node=nid, table=table, versions=tuple(versions), edges=tuple(edges),
        replaces=_closure(nid, older_of, order), replaced_by=_closure(nid, newer_of, order),
        current=tuple(v.id for v in versions if v.current),
        at=tuple(v.id for v in versions if v.valid_at), as_of=as_of, known_at=known_at,
        notes=tuple(notes))


def _closure(start: str, links: dict[str, list[str]], order: dict[str, int]) -> tuple[str, ...]:
    seen: set[str] = set()
    stack = list(links.get(start, ()))
    while stack:
        deadline.check()
        x = stack.pop()
        if x not in seen and x != start:
            seen.add(x)
            stack.extend(links.get(x, ()))
    return tuple(sorted(seen, key=lambda x: (order.get(x, 0), x)))


def _version(r: dict[str, Any], table: str, ends: list[datetime | None] | None, *,
             as_of: datetime | None, own_end: bool) -> Version:
    """``ends``: when known successors replaced it; ``own_end``: whether the node's own
    ``valid_to`` may be trusted (see the module docstring)."""
    end_times = [e for e in (ends or []) if e is not None]
    if own_end and r["valid_to"] is not None:
        end_times.append(r["valid_to"])
    current = not ends and not end_times
    if as_of is None:
        valid_at = current
    else:
        begun = r["valid_from"] is None or r["valid_from"] <= as_of
        timeless = bool(ends) and not end_times  # replaced, but nobody said when
        valid_at = begun and not timeless and not any(t <= as_of for t in end_times)
    status = r["status"] or ""
    if table == SYMBOL.name:
        status = "current" if current else ("superseded" if ends else "deleted")
    elif table == ENTRY.name and status in ("active", "superseded"):
        # the status then: with as_of, an entry superseded later was still active then
        status = "superseded" if (ends if as_of is None else not valid_at and any(
            t <= as_of for t in end_times)) else "active"
    return Version(id=r["id"], table=table, name=r["name"] or "",
                   display_id=r["display_id"] or "", kind=r["kind"] or "", status=status,
                   current=current, valid_at=valid_at, valid_from=r["valid_from"],
                   valid_to=r["valid_to"], recorded_at=r["recorded_at"],
                   source=r["source"] or "")
