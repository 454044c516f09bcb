"""Storing detected communities: one repository's partition of one scope (file or symbol
graph) replaces the previous one in a single transaction.

Communities are derived, not facts from the world: a new detection replaces the old one
whole (their stable numbers carry identity across runs, see ``queries.communities``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import polars as pl

from graphdb.store import Store, Transaction
from schema import (
    COMMUNITY,
    DEPENDS_ON,
    FILE,
    IN_COMMUNITY,
    SUBCOMMUNITY_OF,
    SYMBOL,
    NodeTable,
)

__all__ = ["MEMBER_SYMBOL_KINDS", "SCOPES", "CommunityWrite", "clear_detection_due",
           "communities_drift", "communities_due", "communities_edited", "detection_due",
           "mark_communities_due", "set_communities_drift", "stored_fingerprint",
           "stored_numbers", "write_communities"]

SCOPES = ("file", "symbol")
#: symbol kinds that are nodes of the symbol graph (variables and constants would be
#: thousands of near-isolated singletons)
MEMBER_SYMBOL_KINDS = ("module", "class", "interface", "struct", "enum", "trait", "function",
                       "method")


@dataclass(frozen=True)
class CommunityWrite:
    """Frames of one detection (columns per :func:`schema.frame_schema`).

    ``members`` holds (``from`` = file or symbol id, ``to`` = community id) at every level;
    ``parents`` (finer -> coarser) and ``depends`` (community -> community) are rel frames.
    """

    repo: str
    scope: str  # "file" | "symbol"
    communities: pl.DataFrame
    members: pl.DataFrame
    parents: pl.DataFrame
    depends: pl.DataFrame
    #: what the partition was computed from (graph and settings), see ``stored_fingerprint``
    fingerprint: str = ""

    @property
    def rows(self) -> int:
        """Nodes and rels it writes."""
        return sum(f.height for f in (self.communities, self.members, self.parents,
                                      self.depends))


def write_communities(store: Store, writes: Sequence[CommunityWrite], *,
                      now: datetime) -> None:
    """Replace the stored communities of each write's repository and scope with it, all in
    one transaction (one commit, so one checkpoint of the engine after its COPYs).

    Each table is copied into once: LadybugDB 0.22 corrupts a node table's primary-key
    index when a transaction COPYs into it twice and then COPYs rels to it ("Primary-key
    index contains an invalid local node offset", seen with both scopes' communities)."""
    if not writes:
        return
    stamp = pl.lit(now).alias("recorded_at")
    with store.write() as tx:
        for write in writes:
            tx.touch(write.repo)
            tx.execute(f"MATCH (c:{COMMUNITY.name}) WHERE c.repo = $repo AND c.scope = $scope "
                       "DETACH DELETE c", {"repo": write.repo, "scope": write.scope})
        tx.copy_nodes(COMMUNITY, pl.concat([w.communities for w in writes],
                                           how="vertical_relaxed").with_columns(stamp),
                      bulk=False)
        for member_table in (FILE, SYMBOL):
            members = [w.members for w in writes if _member_table(w) is member_table]
            if members:
                tx.copy_rels(IN_COMMUNITY, pl.concat(members).with_columns(stamp),
                             src=member_table, dst=COMMUNITY, bulk=False)
        for rel, frames in ((SUBCOMMUNITY_OF, [w.parents for w in writes]),
                            (DEPENDS_ON, [w.depends for w in writes])):
            frame = pl.concat(frames, how="vertical_relaxed")
            if not frame.is_empty():
                tx.copy_rels(rel, frame.with_columns(stamp), src=COMMUNITY, dst=COMMUNITY,
                             bulk=False)
        for write in writes:
            store.set_meta(tx, _fingerprint_key(write.repo, write.scope), write.fingerprint)
            store.set_meta(tx, _due_key(write.repo, write.scope), "")
            store.set_meta(tx, _drift_key(write.repo, write.scope), "")
            store.set_meta(tx, _edited_key(write.repo, write.scope), "")
        for repo in {w.repo for w in writes}:
            if {w.scope for w in writes if w.repo == repo} >= set(SCOPES):
                store.set_meta(tx, _detect_key(repo), "")
    store.touch_manifest()


def _member_table(write: CommunityWrite) -> NodeTable:
    return FILE if write.scope == "file" else SYMBOL


def mark_communities_due(store: Store, tx: Transaction, repo: str, *,
                         detect: bool = False) -> None:
    """In the transaction that changes ``repo``'s structure: its communities are to be
    brought up to date (in place, or by a detection when ``detect``: new commits change
    co-change weights everywhere). Committed with the change, so a process killed before
    that step leaves the mark for the next ingest (each scope's update clears its own mark,
    a detection both)."""
    for scope in SCOPES:
        store.set_meta(tx, _due_key(repo, scope), "1")
    if detect:
        store.set_meta(tx, _detect_key(repo), "1")


def communities_due(store: Store, repo: str) -> bool:
    """Whether a committed change of ``repo`` still waits for its communities step."""
    return detection_due(store, repo) or any(
        store.meta(_due_key(repo, scope)) == "1" for scope in SCOPES)


def detection_due(store: Store, repo: str) -> bool:
    """Whether a committed change of ``repo`` still waits for a full community detection."""
    return store.meta(_detect_key(repo)) == "1"


def clear_detection_due(store: Store, repo: str) -> None:
    """A detection of every scope found each unchanged since the stored one: nothing is due."""
    with store.write() as tx:
        store.set_meta(tx, _detect_key(repo), "")


def communities_drift(store: Store, repo: str, scope: str) -> float:
    """Nodes touched by in-place updates since the last detection (added, removed, moved,
    and one per file edited since; ``queries.communities.incremental``)."""
    return float(store.meta(_drift_key(repo, scope)) or 0.0)


def communities_edited(store: Store, repo: str, scope: str) -> frozenset[str]:
    """The files (their node id prefixes) whose edits in-place updates have counted in the
    drift since the last detection: an edited file counts once, however often it is edited
    again."""
    found = store.meta(_edited_key(repo, scope))
    return frozenset(json.loads(found)) if found else frozenset()


def set_communities_drift(store: Store, tx: Transaction, repo: str, scope: str,
                          drift: float, edited: frozenset[str] = frozenset()) -> None:
    """In the transaction of an incremental update: its drift and the files counted in it
    as edited, and no update left due (a detection still due stays due)."""
    store.set_meta(tx, _drift_key(repo, scope), repr(drift))
    store.set_meta(tx, _edited_key(repo, scope), json.dumps(sorted(edited)) if edited else "")
    store.set_meta(tx, _due_key(repo, scope), "")


def _drift_key(repo: str, scope: str) -> str:
    return f"communities-drift:{repo}:{scope}"


def _edited_key(repo: str, scope: str) -> str:
    return f"communities-edited:{repo}:{scope}"


def _due_key(repo: str, scope: str) -> str:
    return f"communities-due:{repo}:{scope}"


def _detect_key(repo: str) -> str:
    return f"communities-detect:{repo}"


def stored_fingerprint(store: Store, repo: str, scope: str) -> str | None:
    """The fingerprint given with the stored detection of ``repo`` / ``scope``, if any."""
    return store.meta(_fingerprint_key(repo, scope)) or None


def _fingerprint_key(repo: str, scope: str) -> str:
    return f"communities:{repo}:{scope}"


def stored_numbers(store: Store, repo: str, scope: str) -> dict[int, dict[str, int]]:
    """level -> {member id: stable community number} of the stored detection."""
    rows = store.cypher(
        f"MATCH (m)-[:{IN_COMMUNITY.name}]->(c:{COMMUNITY.name}) "
        "WHERE c.repo = $repo AND c.scope = $scope "
        "RETURN c.level AS level, m.id AS id, c.number AS number",
        {"repo": repo, "scope": scope})
    out: dict[int, dict[str, int]] = {}
    for level, node, number in rows.iter_rows():
        out.setdefault(level, {})[node] = number
    return out
