"""The entries that apply to code: named by an ABOUT edge, or covered by one of their scope
globs (DESIGN §5: scope globs are relations). This is what the ``entries`` connection of
files and symbols returns; it takes many nodes at once, so a request's DataLoader answers a
whole level of a query with one call (a fixed number of statements, whatever the number of
nodes).

Time: ``known_at`` keeps the entries and edges recorded by then and reads an entry's end from
the supersessions recorded by then (:func:`queries.supersession.entry_ends`); ``as_of`` keeps
what was in force then; ``current`` what is in force now.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from graphdb import Store
from queries.entry_time import entry_ends, status_then
from queries.impact_context import by_code_ids
from queries.scope import code_paths, in_scope
from schema import ABOUT, ENTRY

__all__ = ["AppliedEntry", "entries_applying"]


@dataclass(frozen=True, slots=True)
class AppliedEntry:
    """Entry ``id`` applies to code node ``node``: ``relation`` is ``about`` (an ABOUT edge
    names the node; it wins over a scope) or ``in scope: <glob>`` (the glob covers the node's
    file). ``status`` and ``current`` are as of ``as_of`` (now) as recorded at ``known_at``;
    ``valid_to`` is the end known then. ``source``/``confidence``: the ABOUT edge's, or the
    entry's own for a scope."""

    node: str
    id: str
    relation: str
    status: str
    current: bool
    valid_from: datetime | None
    valid_to: datetime | None
    source: str
    confidence: float


def _about(store: Store, ids: Sequence[str], *, current: bool, as_of: datetime | None,
           known_at: datetime | None) -> list[dict[str, Any]]:
    """ABOUT edges into the code ``ids`` (as the edge filters of node connections)."""
    where, params = [], {}
    if current:
        where.append("a.valid_to IS NULL AND a.expired_at IS NULL")
    if as_of is not None:
        params["as_of"] = as_of
        where.append("(a.valid_from IS NULL OR a.valid_from <= $as_of) AND "
                     "(a.valid_to IS NULL OR a.valid_to > $as_of) AND "
                     "(x.valid_from IS NULL OR x.valid_from <= $as_of)")
    if known_at is not None:
        params["known_at"] = known_at
        for v in ("a", "x"):
            where.append(f"({v}.recorded_at IS NULL OR {v}.recorded_at <= $known_at) AND "
                         f"({v}.expired_at IS NULL OR {v}.expired_at > $known_at)")
    cond = "".join(f" AND {w}" for w in where)
    return by_code_ids(
        store, ids, f"MATCH (x:{ENTRY.name})-[a:{ABOUT.name}]->(n:{{T}}{{B}}) WHERE {{IN}}"
        f"{cond} RETURN n.id AS node, x.id AS id, x.kind AS kind, x.status AS status, "
        "x.valid_from AS at, x.valid_to AS valid_to, x.expired_at AS expired_at, "
        "x.expires_at AS expires_at, a.source AS source, a.confidence AS confidence", params)


def entries_applying(store: Store, ids: Sequence[str], *, kind: str | None = None,
                     current: bool = True, as_of: datetime | None = None,
                     known_at: datetime | None = None) -> dict[str, tuple[AppliedEntry, ...]]:
    """File and symbol id -> the entries that apply to it (of ``kind``), oldest first.

    Parameters
    ----------
    ids : file and symbol ids (others apply to nothing here)
    current : only entries (and ABOUT edges) in force now
    as_of : only what was in force at this valid time; status and ``current`` are then's
    known_at : as recorded at this time (later supersessions do not count)
    """
    ids = [i for i in dict.fromkeys(ids) if i.startswith(("file:", "sym:"))]
    if not ids:
        return {}
    found: dict[str, dict[str, tuple[dict[str, Any], str]]] = {}
    for r in _about(store, ids, current=current, as_of=as_of, known_at=known_at):
        found.setdefault(r["node"], {})[r["id"]] = (r, "about")
    scoped = in_scope(store, code_paths(store, ids), as_of=as_of, known_at=known_at)
    for node, matches in scoped.items():
        for m in matches:  # an ABOUT edge says more than a glob: it is kept
            found.setdefault(node, {}).setdefault(m.row["id"], (dict(m.row), m.relation))
    rows = {r["id"]: r for by in found.values() for r, _ in by.values()}
    ends = entry_ends(store, list(rows.values()), known_at=known_at)
    at = as_of or datetime.now(UTC).replace(tzinfo=None)
    out: dict[str, tuple[AppliedEntry, ...]] = {}
    for node, by in found.items():
        hits = []
        for eid, (r, relation) in by.items():
            end = ends[eid]
            # expired_at past known_at was filtered out: a later retraction does not count
            retracted = known_at is None and r["expired_at"] is not None
            in_force = not retracted and (end is None or (as_of is not None and end > at))
            if (kind is not None and r["kind"] != kind) or (current and not in_force) \
                    or (as_of is not None and not in_force):
                continue
            hits.append(AppliedEntry(
                node=node, id=eid, relation=relation,
                status=status_then(r["status"], end, r["expires_at"], at), current=in_force,
                valid_from=r["at"], valid_to=end, source=r["source"] or "",
                confidence=1.0 if r["confidence"] is None else float(r["confidence"])))
        if hits:
            out[node] = tuple(sorted(hits, key=lambda h: (h.valid_from or datetime.min, h.id)))
    return out
