"""A detection from end to end: the graph, Leiden's levels (warm-started from the stored
partition), stable numbers, names and figures, and the frames that replace the stored
communities; skipped when the graph and settings did not change since the stored one."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime

from graphdb import Store
from graphdb.communities import (
    SCOPES,
    CommunityWrite,
    clear_detection_due,
    communities_drift,
    detection_due,
    stored_fingerprint,
    stored_numbers,
    write_communities,
)
from queries.communities.graph import CommunityGraph, community_graph
from queries.communities.matching import match_communities
from queries.communities.partition import hierarchy, renumber
from queries.communities.results import (
    Backend,
    Community,
    Detection,
    Level,
    Moved,
    Objective,
    Scope,
)
from queries.communities.stored import communities
from queries.communities.summary import describe
from queries.communities.writing import community_write
from schema import QueryError, community_id

__all__ = ["detect_communities", "detect_scopes"]


def detect_communities(store: Store, repo: str, *, scope: Scope = "file",
                       objective: Objective = "modularity", resolution: float = 1.0,
                       seed: int = 0, levels: int = 3, min_split: int = 12,
                       weights: Mapping[str, float] | None = None,
                       backend: Backend = "igraph", fresh: bool = False) -> Detection:
    """Partition ``repo``'s ``scope`` graph hierarchically, name and measure each community,
    keep the numbers of the stored run where communities overlap, and store the result in
    place of it.

    Unless ``fresh``, the top level starts from the stored partition (new nodes alone), so
    a small change of the code moves few nodes; ``fresh`` ignores it, and the result then
    depends only on the graph and the seed. Either way an unchanged graph gives the same
    communities again.
    """
    found, write = _detect(store, repo, scope, objective=objective, resolution=resolution,
                           seed=seed, levels=levels, min_split=min_split, weights=weights,
                           backend=backend, fresh=fresh)
    if write is None:
        return found
    started = time.perf_counter()
    write_communities(store, [write], now=datetime.now(UTC).replace(tzinfo=None))
    return replace(found, seconds=found.seconds + time.perf_counter() - started)


def detect_scopes(store: Store, repo: str, *, scopes: Sequence[Scope] = ("file", "symbol"),
                  seed: int = 0) -> tuple[Detection, ...]:
    """:func:`detect_communities` of each of ``scopes`` (default settings), stored in one
    transaction: an ingest's step (one commit, and so one checkpoint of the engine, instead
    of one per scope). Each detection's ``seconds`` holds its share of the write, in
    proportion to the rows it wrote."""
    done = [_detect(store, repo, scope, seed=seed) for scope in scopes]
    writes = [w for _, w in done if w is not None]
    if not writes:
        if set(scopes) >= set(SCOPES) and detection_due(store, repo):
            clear_detection_due(store, repo)
        return tuple(d for d, _ in done)
    started = time.perf_counter()
    write_communities(store, writes, now=datetime.now(UTC).replace(tzinfo=None))
    took = time.perf_counter() - started
    rows = sum(w.rows for w in writes) or 1
    return tuple(d if w is None else replace(d, seconds=d.seconds + took * w.rows / rows)
                 for d, w in done)


def _detect(store: Store, repo: str, scope: Scope, *, objective: Objective = "modularity",
            resolution: float = 1.0, seed: int = 0, levels: int = 3, min_split: int = 12,
            weights: Mapping[str, float] | None = None, backend: Backend = "igraph",
            fresh: bool = False) -> tuple[Detection, CommunityWrite | None]:
    """The detection of :func:`detect_communities` and what to store (None: the stored
    one is kept)."""
    started = time.perf_counter()
    if levels < 1:
        raise QueryError(f"levels must be at least 1, not {levels}")
    cg = community_graph(store, repo, scope=scope, weights=weights)
    previous = stored_numbers(store, repo, scope)
    fingerprint = _fingerprint(cg, objective, resolution, seed, levels, min_split, backend)
    # the stored partition is the detection of the fingerprinted graph unless in-place
    # updates changed it since (a node added then removed again leaves the graph as it was)
    if previous and not fresh and stored_fingerprint(store, repo, scope) == fingerprint \
            and not communities_drift(store, repo, scope):
        return _unchanged(store, cg, repo, scope, objective, seed, previous, started), None
    initial = None if fresh or not previous.get(0) else _warm_start(cg.ids, previous[0])
    found = hierarchy(cg, seed=seed, levels=levels, min_split=min_split,
                      resolution=resolution, objective=objective, backend=backend,
                      initial=initial)
    ids_of: list[dict[int, str]] = []  # per level: local community -> id
    moved: list[Moved] = []
    stable_levels: list[tuple[Level, tuple[int, ...]]] = []
    for lv in found:
        matched = match_communities(cg.ids, lv.membership, previous.get(lv.level, {}))
        ids_of.append({c: community_id(repo, scope, lv.level, n)
                       for c, n in enumerate(matched.numbers)})
        moved.extend(Moved(node, lv.level, community_id(repo, scope, lv.level, old),
                           community_id(repo, scope, lv.level, new))
                     for node, old, new in matched.moved)
        stable_levels.append((lv, matched.numbers))
    built = describe(cg, repo, scope, objective, stable_levels, ids_of)
    write = community_write(repo, scope, cg, stable_levels, ids_of, built, fingerprint)
    notes = _notes(cg, repo, scope)
    return Detection(repo, scope, objective, seed, len(cg.ids), cg.edges, _isolated(cg), found,
                     tuple(sorted(built, key=_order)), tuple(sorted(moved, key=_moved_order)),
                     time.perf_counter() - started, bool(previous), tuple(notes)), write


def _isolated(cg: CommunityGraph) -> int:
    return sum(1 for d in cg.graph.degree() if d == 0)


def _notes(cg: CommunityGraph, repo: str, scope: str) -> list[str]:
    notes = []
    isolated = _isolated(cg)
    if not cg.ids:
        notes.append(f"repository {repo} has no current code at {scope} level: "
                     "no communities")
    elif cg.edges == 0:
        notes.append("no dependencies between the nodes: every node is its own community")
    elif isolated:
        notes.append(f"{isolated} nodes without dependencies are singleton communities")
    return notes


def _fingerprint(cg: CommunityGraph, *settings: object) -> str:
    """What a partition is computed from: the nodes, the weighted edges and the settings.
    Equal fingerprints give equal partitions, so a detection can be skipped."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(repr(settings).encode())
    digest.update("\n".join(cg.ids).encode())
    if cg.edges:
        digest.update(repr(list(zip(cg.graph.get_edgelist(), cg.graph.es["weight"],
                                    strict=True))).encode())
    return digest.hexdigest()


def _unchanged(store: Store, cg: CommunityGraph, repo: str, scope: str, objective: str,
               seed: int, previous: Mapping[int, Mapping[str, int]],
               started: float) -> Detection:
    """The stored detection, for a graph and settings that have not changed since: its
    levels carry the stable numbers as membership (parents are on the communities)."""
    found = []
    stored: list[Community] = []
    for level in sorted(previous):
        level_communities = communities(store, repo, scope=scope, level=level)  # type: ignore[arg-type]
        stored.extend(level_communities)
        first = level_communities[0] if level_communities else None
        found.append(Level(level, tuple(previous[level].get(n, -1) for n in cg.ids), None,
                           first.quality if first else 0.0, first.resolution if first else 1.0))
    notes = [*_notes(cg, repo, scope), "unchanged since the stored detection: kept"]
    return Detection(repo, scope, objective, seed, len(cg.ids), cg.edges, _isolated(cg),
                     tuple(found), tuple(sorted(stored, key=_order)), (),
                     time.perf_counter() - started, True, tuple(notes))


def _warm_start(ids: Sequence[str], numbers: Mapping[str, int]) -> list[int]:
    """The stored top-level partition over the current nodes; new nodes start alone."""
    fresh = max(numbers.values(), default=-1) + 1
    out = []
    for node in ids:
        if node in numbers:
            out.append(numbers[node])
        else:
            out.append(fresh)
            fresh += 1
    return renumber(out)


def _order(c: Community) -> tuple:
    return (c.level, -c.size, c.number)


def _moved_order(m: Moved) -> tuple:
    return (m.level, m.node)
