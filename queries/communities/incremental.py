"""Keeping the stored communities in step with a small change, without running Leiden.

A full detection costs the igraph import (~0.3-0.5 s), the graph, Leiden on three levels and
rewriting every membership row (~70K on the standard library); a file added, removed or
edited changes a handful of nodes. So after a small change the stored partition is
*warm-started on the affected part only*: the new nodes, and the nodes of the edited files,
go through Leiden's local-moving step with the rest of the partition fixed
(:func:`~queries.communities.placement.place_nodes`: the finest community of largest
modularity gain; coarser levels follow that community's parents), a new node with no
community worth joining starts its own at every level, and vanished nodes leave theirs. Only
the rows of those nodes are written, so every other identity stays as it is.

The partition drifts from what Leiden would find as changes accumulate, so each update adds
the nodes it touched (new, vanished, moved, and one per edited file -- once per file until
the next detection) to a count kept in ``Meta``. Past :func:`drift_limit` nodes --
:data:`DRIFT_LIMIT` of the scope's nodes, but never fewer than :data:`DRIFT_MIN_NODES` --
the caller runs a full detection instead, which resets it. Both figures are measured with
``benchmarks/communities_drift.py`` (docs/communities.md): a share alone made every third
one-file add on click (143 files, 0.7% each) a full detection, and every add on a repository
of fewer than 50 files.

This module does not import igraph: an update that stays under the limit never loads it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import polars as pl

from graphdb import Store
from graphdb.communities import (
    MEMBER_SYMBOL_KINDS,
    communities_drift,
    communities_edited,
    set_communities_drift,
)
from queries.communities.placement import place_nodes
from schema import (
    CALLS,
    CO_CHANGED,
    COMMUNITY,
    CONTAINS,
    FILE,
    IMPORTS,
    IN_COMMUNITY,
    INHERITS,
    MODULE_QUALNAME,
    SUBCOMMUNITY_OF,
    SYMBOL,
    Source,
    community_id,
    current_code_files,
)

__all__ = ["DRIFT_LIMIT", "DRIFT_MIN_NODES", "Update", "drift_limit", "update_communities"]

#: nodes touched by in-place updates since the last detection, as a share of the scope's
#: nodes, past which a detection runs again (benchmarks/communities_drift.py)
DRIFT_LIMIT = 0.02
#: ... but never fewer nodes than this: on a small graph a share is a node or two
DRIFT_MIN_NODES = 8


def drift_limit(nodes: int, *, share: float = DRIFT_LIMIT,
                min_nodes: int = DRIFT_MIN_NODES) -> float:
    """How many touched nodes a scope of ``nodes`` nodes takes before a detection is due."""
    return max(share * nodes, float(min_nodes))


@dataclass(frozen=True)
class Update:
    """What an incremental update did to one scope: ``drift`` is the count of nodes touched
    since the last detection (this update's included), ``limit`` the count that calls for
    the next one."""

    scope: str
    nodes: int
    added: int
    removed: int
    moved: int
    singletons: int
    drift: float
    limit: float
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {"scope": self.scope, "nodes": self.nodes, "added": self.added,
                "removed": self.removed, "moved": self.moved, "singletons": self.singletons,
                "drift": round(self.drift, 3), "limit": round(self.limit, 3),
                "seconds": round(self.seconds, 3)}


def update_communities(store: Store, repo: str, scope: str, *,
                       edited: Sequence[str] = (), share: float = DRIFT_LIMIT,
                       min_nodes: int = DRIFT_MIN_NODES) -> Update | None:
    """Bring ``repo``'s stored ``scope`` communities up to date with its current nodes and
    edges, or None when a full detection is due instead (nothing stored, or the nodes touched
    since the last detection, this change's included, would pass :func:`drift_limit`).

    New and vanished nodes are found wherever they are; ``edited`` names the files (ids) whose
    content changed, whose existing nodes are placed again (their edges changed)."""
    started = time.perf_counter()
    tops = _level_tops(store, repo, scope)
    if 0 not in tops:
        return None
    nodes = _count_nodes(store, repo, scope)
    new = _new_nodes(store, repo, scope)
    gone = _gone_nodes(store, repo, scope)
    old = _edited_nodes(store, repo, scope, sorted(set(edited)))
    # one touched node per edited file that had nodes before (its edited definition), once
    # per file since the last detection: a file saved ten times is one node placed again
    # (the latest placement stands), not ten
    counted = communities_edited(store, repo, scope)
    edited_files = {node.split("#", 1)[0] for node in old}
    files = len(edited_files - counted)
    limit = drift_limit(nodes, share=share, min_nodes=min_nodes)
    drift = communities_drift(store, repo, scope) + len(new) + len(gone) + files
    if drift > limit:
        return None
    affected = [*new, *old]
    edges = _neighbours(store, repo, scope, affected)
    around = _memberships(store, repo, scope, [*edges["other"].unique().to_list(), *old])
    levels = sorted(tops)
    # the local-moving step at the top level, whose partition is the one optimised on the
    # whole graph (finer levels split each community on its own subgraph)
    top = {node: numbers[0] for node, numbers in around.items() if 0 in numbers}
    degree, total = _degrees(store, repo, scope, sorted(set(top.values())))
    placed = place_nodes(affected, edges, top, degree=degree, total=total,
                         current={node: top[node] for node in old if node in top})
    moved = [node for node in old if node in placed and placed[node] != top.get(node)]
    drift += max(0, len(moved) - files)
    joining = [node for node in [*new, *moved] if node in placed]
    chosen = _finer_levels(joining, edges, placed, around, levels)
    rows, fresh = _rows(repo, scope, [*new, *moved], chosen, tops, levels)
    _write(store, repo, scope, [*gone, *moved], rows, fresh, drift, counted | edited_files)
    return Update(scope, nodes, len(new), len(gone), len(moved),
                  sum(1 for n in new if n not in chosen), drift, limit,
                  time.perf_counter() - started)


# ----------------------------------------------------------------------------- reading
def _level_tops(store: Store, repo: str, scope: str) -> dict[int, int]:
    """level -> the highest community number stored at it."""
    rows = store.cypher(f"MATCH (c:{COMMUNITY.name}) WHERE c.repo = $r AND c.scope = $s "
                        "RETURN c.level AS level, max(c.number) AS top",
                        {"r": repo, "s": scope})
    return dict(rows.iter_rows())


def _member(scope: str):
    return FILE if scope == "file" else SYMBOL


def _current(scope: str, alias: str) -> str:
    """Cypher condition: ``alias`` is a node a detection of ``scope`` partitions (as
    ``queries.communities.graph`` builds it); ``$r`` the repository, ``$kinds`` the kinds. A
    current symbol's file is a current code file: removing a file ends its symbols."""
    if scope == "file":
        return current_code_files(alias)
    return f"{alias}.repo = $r AND {alias}.valid_to IS NULL AND {alias}.kind IN $kinds"


def _params(repo: str, scope: str, **more: object) -> dict:
    return {"r": repo, "s": scope, "kinds": list(MEMBER_SYMBOL_KINDS), **more}


def _count_nodes(store: Store, repo: str, scope: str) -> int:
    rows = store.cypher(f"MATCH (n:{_member(scope).name}) WHERE {_current(scope, 'n')} "
                        "RETURN count(*) AS n", _params(repo, scope))
    return int(rows["n"][0])


def _new_nodes(store: Store, repo: str, scope: str) -> list[str]:
    """Current nodes of ``scope`` in no community of it."""
    rows = store.cypher(
        f"MATCH (n:{_member(scope).name}) WHERE {_current(scope, 'n')} AND NOT EXISTS {{ "
        f"MATCH (n)-[:{IN_COMMUNITY.name}]->(c:{COMMUNITY.name}) WHERE c.repo = $r AND "
        "c.scope = $s } RETURN n.id AS id ORDER BY id", _params(repo, scope))
    return rows["id"].to_list()


def _gone_nodes(store: Store, repo: str, scope: str) -> list[str]:
    """Members of ``scope``'s communities that are no longer current nodes of it."""
    rows = store.cypher(
        f"MATCH (n:{_member(scope).name})-[:{IN_COMMUNITY.name}]->(c:{COMMUNITY.name}) "
        f"WHERE c.repo = $r AND c.scope = $s AND c.level = 0 AND NOT ({_current(scope, 'n')}) "
        "RETURN n.id AS id ORDER BY id", _params(repo, scope))
    return rows["id"].to_list()


def _edited_nodes(store: Store, repo: str, scope: str, files: list[str]) -> list[str]:
    """The current nodes of the edited ``files`` that already have a community."""
    if not files:
        return []
    where = "n.id IN $files" if scope == "file" else "n.file IN $files"
    rows = store.cypher(
        f"MATCH (n:{_member(scope).name})-[:{IN_COMMUNITY.name}]->(c:{COMMUNITY.name}) "
        f"WHERE {where} AND c.repo = $r AND c.scope = $s AND c.level = 0 AND "
        f"{_current(scope, 'n')} RETURN n.id AS id ORDER BY id",
        _params(repo, scope, files=files))
    return rows["id"].to_list()


def _neighbours(store: Store, repo: str, scope: str, nodes: list[str]) -> pl.DataFrame:
    """(node, other, w): the weighted dependencies of ``nodes`` in either direction, with
    the detection's default weights (1 per import, call site or containment, 2 per base,
    0.5 per shared commit)."""
    empty = pl.DataFrame(schema={"node": pl.Utf8, "other": pl.Utf8, "w": pl.Float64})
    if not nodes:
        return empty
    live = "a.valid_to IS NULL AND b.valid_to IS NULL"
    if scope == "file":
        queries = [
            (f"MATCH (a:{FILE.name})-[:{IMPORTS.name}]-(b) WHERE a.id IN $ids AND {live} "
             "RETURN a.id AS node, coalesce(b.file, b.id) AS other, count(*) * 1.0 AS w"),
            (f"MATCH (a:{SYMBOL.name})-[e:{CALLS.name}]-(b:{SYMBOL.name}) WHERE a.file IN $ids "
             f"AND {live} RETURN a.file AS node, b.file AS other, sum(e.count) * 1.0 AS w"),
            (f"MATCH (a:{SYMBOL.name})-[:{INHERITS.name}]-(b:{SYMBOL.name}) WHERE a.file IN "
             f"$ids AND {live} RETURN a.file AS node, b.file AS other, count(*) * 2.0 AS w"),
            (f"MATCH (a:{FILE.name})-[e:{CO_CHANGED.name}]-(b:{FILE.name}) WHERE a.id IN $ids "
             f"AND {live} RETURN a.id AS node, b.id AS other, sum(e.count) * 0.5 AS w"),
        ]
    else:
        queries = [
            (f"MATCH (a:{SYMBOL.name})-[e:{CALLS.name}]-(b:{SYMBOL.name}) WHERE a.id IN $ids "
             f"AND {live} RETURN a.id AS node, b.id AS other, sum(e.count) * 1.0 AS w"),
            (f"MATCH (a:{SYMBOL.name})-[:{INHERITS.name}]-(b:{SYMBOL.name}) WHERE a.id IN $ids "
             f"AND {live} RETURN a.id AS node, b.id AS other, count(*) * 2.0 AS w"),
            (f"MATCH (a:{SYMBOL.name})-[:{CONTAINS.name}]-(b:{SYMBOL.name}) WHERE a.id IN $ids "
             f"AND {live} RETURN a.id AS node, b.id AS other, count(*) * 1.0 AS w"),
        ]
    frames = [store.cypher(q, {"ids": nodes}).select(
        "node", "other", pl.col("w").cast(pl.Float64)) for q in queries]
    if scope == "symbol":
        frames.extend(_symbol_imports(store, repo, nodes))
    frames = [f for f in frames if not f.is_empty()]
    if not frames:
        return empty
    return (pl.concat(frames).filter(pl.col("node") != pl.col("other"))
            .group_by("node", "other", maintain_order=True).agg(pl.col("w").sum()))


def _symbol_imports(store: Store, repo: str, nodes: list[str]) -> list[pl.DataFrame]:
    """The symbol graph's IMPORTS edges (importing module -> imported symbol, or module) at
    ``nodes``, both ways. A module symbol's id is its file's with ``#<module>``: the
    imports are found from the files of the module nodes, and from the imported nodes."""
    suffix = f"#{MODULE_QUALNAME}"
    files = ["file:" + n[4:-len(suffix)] for n in nodes if n.endswith(suffix)]
    live = "a.valid_to IS NULL AND b.valid_to IS NULL"
    module = f"'{suffix}'"
    as_module = "'sym:' + substring({0}.id, 6, size({0}.id)) + " + module
    target = (f"CASE WHEN b.file IS NULL THEN {as_module.format('b')} ELSE b.id END")
    queries = [
        (f"MATCH (a:{FILE.name})-[:{IMPORTS.name}]->(b) WHERE a.id IN $files AND {live} "
         f"RETURN {as_module.format('a')} AS node, {target} AS other, count(*) * 1.0 AS w"),
        (f"MATCH (a:{FILE.name})-[:{IMPORTS.name}]->(b:{SYMBOL.name}) WHERE b.id IN $ids "
         f"AND {live} RETURN b.id AS node, {as_module.format('a')} AS other, "
         "count(*) * 1.0 AS w"),
        (f"MATCH (a:{FILE.name})-[:{IMPORTS.name}]->(b:{FILE.name}) WHERE b.id IN $files "
         f"AND {live} RETURN {as_module.format('b')} AS node, {as_module.format('a')} "
         "AS other, count(*) * 1.0 AS w"),
    ]
    return [store.cypher(q, {"files": files, "ids": nodes}).select(
        "node", "other", pl.col("w").cast(pl.Float64)) for q in queries]


def _memberships(store: Store, repo: str, scope: str, nodes: list[str]
                 ) -> dict[str, dict[int, int]]:
    """node -> {level: stored community number} of those of ``nodes`` that have one."""
    out: dict[str, dict[int, int]] = {}
    if not nodes:
        return out
    rows = store.cypher(
        f"MATCH (n:{_member(scope).name})-[:{IN_COMMUNITY.name}]->(c:{COMMUNITY.name}) "
        "WHERE n.id IN $ids AND c.repo = $r AND c.scope = $s "
        "RETURN n.id AS id, c.level AS level, c.number AS number",
        {"r": repo, "s": scope, "ids": sorted(set(nodes))})
    for node, level, number in rows.iter_rows():
        out.setdefault(node, {})[level] = number
    return out


def _degrees(store: Store, repo: str, scope: str, numbers: list[int]
             ) -> tuple[dict[int, float], float]:
    """The total degree of each top-level community in ``numbers`` and the graph's total
    edge weight, from the figures the last detection stored (2 internal + external; the sum
    of internal + external / 2). In-place updates do not refresh them: a stale figure only
    shifts a gain a little, and the drift limit bounds how stale."""
    rows = store.cypher(
        f"MATCH (c:{COMMUNITY.name}) WHERE c.repo = $r AND c.scope = $s AND c.level = 0 "
        "RETURN c.number AS number, 2 * c.internal + c.external AS d",
        {"r": repo, "s": scope})
    degree = {n: float(d or 0.0) for n, d in rows.iter_rows()}
    total = sum(degree.values()) / 2
    wanted = set(numbers)
    return {n: d for n, d in degree.items() if n in wanted}, \
        total if math.isfinite(total) else 0.0


# ----------------------------------------------------------------------------- assigning
def _finer_levels(nodes: list[str], edges: pl.DataFrame, placed: Mapping[str, int],
                  around: Mapping[str, Mapping[int, int]], levels: list[int]
                  ) -> dict[str, Mapping[int, int]]:
    """node -> its stored community number at every level: inside the top-level community
    it was placed in, the finest community its edges weigh most towards (ties: the lowest
    number; with no neighbour there, the lowest-numbered one of that community)."""
    finest = levels[-1]
    by_node: dict[str, list[tuple[str, float]]] = {}
    for node, other, w in edges.iter_rows():
        by_node.setdefault(node, []).append((other, w))
    joining = set(nodes)
    members: dict[int, list[Mapping[int, int]]] = {}
    for node, numbers in around.items():
        if node not in joining and all(lv in numbers for lv in levels):
            members.setdefault(numbers[0], []).append(numbers)
    chosen: dict[str, Mapping[int, int]] = {}
    for node in nodes:
        weight: dict[int, float] = {}
        chains: dict[int, Mapping[int, int]] = {}
        for other, w in by_node.get(node, ()):
            if other in chosen:
                numbers = chosen[other]
            elif other in joining:
                continue  # not placed yet, or moving away from what ``around`` says
            else:
                numbers = around.get(other, {})
            if numbers.get(0) == placed[node] and all(lv in numbers for lv in levels):
                weight[numbers[finest]] = weight.get(numbers[finest], 0.0) + w
                chains[numbers[finest]] = numbers
        if weight:
            chosen[node] = chains[min(weight, key=lambda c: (-weight[c], c))]
        elif members.get(placed[node]):
            chosen[node] = min(members[placed[node]], key=lambda n: n[finest])
    return chosen


def _rows(repo: str, scope: str, nodes: list[str], chosen: Mapping[str, Mapping[int, int]],
          tops: Mapping[int, int], levels: list[int]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """IN_COMMUNITY rows of ``nodes`` at every level, and the communities to create (with
    their parents) for the nodes that start their own."""
    next_number = {lv: tops[lv] + 1 for lv in levels}
    member_from: list[str] = []
    member_to: list[str] = []
    fresh: list[dict] = []
    for node in nodes:
        if node in chosen:
            numbers = chosen[node]
        else:
            numbers = {}
            for lv in levels:
                numbers[lv] = next_number[lv]
                next_number[lv] += 1
                parent = community_id(repo, scope, lv - 1, numbers[lv - 1]) if lv else None
                fresh.append({"id": community_id(repo, scope, lv, numbers[lv]), "level": lv,
                              "number": numbers[lv], "name": _short(node), "parent": parent})
        for lv in levels:
            member_from.append(node)
            member_to.append(community_id(repo, scope, lv, numbers[lv]))
    rows = pl.DataFrame({"from": member_from, "to": member_to},
                        schema={"from": pl.Utf8, "to": pl.Utf8})
    fresh_frame = pl.DataFrame(fresh, schema={"id": pl.Utf8, "level": pl.Int64,
                                              "number": pl.Int64, "name": pl.Utf8,
                                              "parent": pl.Utf8})
    return rows, fresh_frame


def _short(node: str) -> str:
    return node.split("/", 1)[-1] if node.startswith(("file:", "sym:")) else node


# ----------------------------------------------------------------------------- writing
def _write(store: Store, repo: str, scope: str, leaving: list[str], rows: pl.DataFrame,
           fresh: pl.DataFrame, drift: float, edited: frozenset[str]) -> None:
    """One transaction: vanished and moved members leave, new and moved ones join,
    singletons are created, sizes of the touched communities are recounted and emptied ones
    deleted."""
    member = _member(scope)
    now = datetime.now(UTC).replace(tzinfo=None)
    source = Source.INFERRED.value
    touched: set[str] = set(rows["to"].to_list())
    with store.write() as tx:
        tx.touch(repo)
        if leaving:
            left = tx.execute(
                f"MATCH (m:{member.name})-[e:{IN_COMMUNITY.name}]->(c:{COMMUNITY.name}) "
                "WHERE c.repo = $repo AND c.scope = $scope AND m.id IN $gone "
                "DELETE e RETURN DISTINCT c.id AS id",
                {"repo": repo, "scope": scope, "gone": leaving})
            touched |= set(left["id"].to_list())
        if not fresh.is_empty():
            tx.copy_nodes(COMMUNITY, fresh.select(
                "id", pl.lit(repo).alias("repo"), pl.lit(scope).alias("scope"), "level",
                "number", "name", pl.lit(1).alias("size"), pl.lit("").alias("prefix"),
                pl.lit(0.0).alias("internal"), pl.lit(0.0).alias("external"),
                pl.lit(source).alias("source"), pl.lit(1.0).alias("confidence"),
                pl.lit(now).alias("recorded_at")), bulk=False)
            parents = fresh.filter(pl.col("parent").is_not_null()).select(
                pl.col("id").alias("from"), pl.col("parent").alias("to"),
                pl.lit(source).alias("source"), pl.lit(now).alias("recorded_at"))
            tx.copy_rels(SUBCOMMUNITY_OF, parents, src=COMMUNITY, dst=COMMUNITY, bulk=False)
        if not rows.is_empty():
            tx.copy_rels(IN_COMMUNITY, rows.with_columns(
                source=pl.lit(source), confidence=pl.lit(1.0), recorded_at=pl.lit(now)),
                src=member, dst=COMMUNITY, bulk=False)
        if touched:
            tx.execute(
                f"MATCH (c:{COMMUNITY.name}) WHERE c.id IN $ids "
                f"OPTIONAL MATCH (m)-[:{IN_COMMUNITY.name}]->(c) "
                "WITH c, count(m) AS n SET c.size = n",
                {"ids": sorted(touched)})
            tx.execute(f"MATCH (c:{COMMUNITY.name}) WHERE c.id IN $ids AND c.size = 0 "
                       "DETACH DELETE c", {"ids": sorted(touched)})
        set_communities_drift(store, tx, repo, scope, drift, edited)
    store.touch_manifest()
