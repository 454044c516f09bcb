"""An entry's end and status at a time, as the database knew them at another: the one
reading of bi-temporal entry state that lists, node connections and provenance share.

Supersession writes the old entry's ``valid_to`` in place, so that property cannot say when
the database learned it; with ``known_at`` an entry's end is read from the SUPERSEDES edges
recorded by then (as :mod:`queries.supersession` does for whole chains).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from graphdb import Store
from schema import ENTRY, SUPERSEDES

__all__ = ["entry_ends", "status_then"]

_KNOWN = ("(e.recorded_at IS NULL OR e.recorded_at <= $known_at) AND "
          "(e.expired_at IS NULL OR e.expired_at > $known_at)")


def entry_ends(store: Store, rows: Sequence[Mapping[str, Any]], *,
               known_at: datetime | None) -> dict[str, datetime | None]:
    """Entry id -> when it stopped being in force as the database knew it at ``known_at``
    (``rows``: mappings with ``id`` and ``valid_to``). Without ``known_at`` that is the
    stored ``valid_to``; with it, the earliest SUPERSEDES edge into the entry recorded by
    then and not retracted, since supersession writes ``valid_to`` in place (as
    :func:`queries.supersession.supersession` reads it)."""
    if known_at is None:
        return {r["id"]: r["valid_to"] for r in rows}
    out: dict[str, datetime | None] = dict.fromkeys((r["id"] for r in rows), None)
    if not out:
        return out
    found = store.cypher(
        f"MATCH (a:{ENTRY.name})-[e:{SUPERSEDES.name}]->(b:{ENTRY.name}) WHERE b.id IN $ids "
        f"AND {_KNOWN} RETURN b.id AS id, coalesce(e.at, a.valid_from) AS at",
        {"ids": sorted(out), "known_at": known_at})
    for eid, at in found.iter_rows():
        if at is not None and (out[eid] is None or at < out[eid]):
            out[eid] = at
    return out


def status_then(status: str | None, end: datetime | None, expires_at: datetime | None,
                at: datetime) -> str:
    """An entry's status at ``at``: ``superseded`` once its ``end`` (see :func:`entry_ends`)
    had come, ``expired`` once ``expires_at`` had, else ``active``; other stored statuses
    (``merged``, ...) as they are."""
    if status not in ("active", "superseded"):
        return status or ""
    if end is not None and end <= at:
        return "superseded"
    if expires_at is not None and expires_at <= at:
        return "expired"
    return "active"
