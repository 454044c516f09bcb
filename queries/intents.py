"""Who else means to change this: the active intents of other sessions that overlap a scope.

An intent is a session's notice of what it is about to change (paths or globs in its scope,
until ``expires_at``). Two sessions with overlapping intents are about to collide, so a new
intent, decision or file change is answered with the others' intents it falls into — the
same overlap rule as the conflict rule (:func:`graphdb.sessions.scopes_overlap`; an empty
scope is the whole repository).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from graphdb import Store
from graphdb.sessions import scopes_overlap
from schema import ENTRY, IN_SESSION, SESSION

__all__ = ["IntentNotice", "overlapping_intents"]


@dataclass(frozen=True, slots=True)
class IntentNotice:
    """An active intent of another session whose scope overlaps the one asked about."""

    id: str
    display_id: str
    title: str
    session: str
    agent: str
    scope: tuple[str, ...]
    valid_from: datetime | None
    expires_at: datetime | None


def overlapping_intents(store: Store, scope: Sequence[str], *, session: str | None = None,
                        repo: str | None = None, at: datetime | None = None,
                        whole: bool = False) -> tuple[IntentNotice, ...]:
    """Active intents (at ``at``, default now) of sessions other than ``session`` whose scope
    overlaps ``scope``, oldest first. An empty ``scope`` overlaps nothing unless ``whole``
    (it means the whole repository: an intent without a scope)."""
    if not scope and not whole:
        return ()
    now = at or datetime.now(UTC).replace(tzinfo=None)
    rows = store.cypher(
        f"MATCH (e:{ENTRY.name})-[:{IN_SESSION.name}]->(s:{SESSION.name}) "
        "WHERE e.kind = 'intent' AND e.valid_to IS NULL AND e.expired_at IS NULL "
        "AND (e.expires_at IS NULL OR e.expires_at > $now) "
        "AND (e.valid_from IS NULL OR e.valid_from <= $now) "
        "RETURN e.id AS id, e.display_id AS display_id, e.title AS title, e.scope AS scope, "
        "e.repo AS repo, e.valid_from AS valid_from, e.expires_at AS expires_at, "
        "s.id AS session, s.agent AS agent ORDER BY valid_from, id", {"now": now}).to_dicts()
    mine: set[str] = set()
    if session is not None:
        mine = {r["id"] for r in rows if r["session"] == session}
    out: dict[str, IntentNotice] = {}
    for r in rows:
        if r["id"] in mine or r["id"] in out:
            continue
        if repo and r["repo"] and r["repo"] != repo:
            continue
        theirs = tuple(r["scope"] or ())
        if scopes_overlap(theirs, tuple(scope)):
            out[r["id"]] = IntentNotice(
                r["id"], r["display_id"] or "", r["title"] or "",
                r["session"].removeprefix("session:"), r["agent"] or "", theirs,
                r["valid_from"], r["expires_at"])
    return tuple(out.values())
