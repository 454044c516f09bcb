"""Keeping the stored communities in step with a small change, without running Leiden.

A full detection of the standard library costs ~3 s (igraph import, the graph, Leiden on three
levels, and rewriting ~70K membership rows); a file added or removed changes a handful of
nodes. So after a small change the stored partition is *warm-started on the affected part
only*: each new node joins the finest stored community its edges weigh most towards (the
local-moving step of Leiden, for the new nodes alone; its coarser levels follow), a node
without edges to the stored partition becomes a singleton community, and vanished nodes
leave theirs. Every other membership row stays as it is, so identities are trivially stable.

The partition drifts from what Leiden would find as changes accumulate: each update adds
(new + vanished nodes) / nodes to a drift figure kept in ``Meta``; past
:data:`DRIFT_LIMIT` the caller runs a full detection (``queries.communities``), which resets
it. The limit is measured in ``benchmarks/update.py`` (docs/communities.md).

This module does not import igraph: an update that stays under the limit never loads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

import polars as pl

from graphdb import Store
from graphdb.communities import (
    MEMBER_SYMBOL_KINDS,
    communities_drift,
    set_communities_drift,
    stored_numbers,
)
from schema import (
    CALLS,
    COMMUNITY,
    CONTAINS,
    FILE,
    IMPORTS,
    IN_COMMUNITY,
    INHERITS,
    SUBCOMMUNITY_OF,
    SYMBOL,
    Source,
    community_id,
    current_code_files,
)

__all__ = ["DRIFT_LIMIT", "Update", "assign_new_nodes", "update_communities"]

#: accumulated share of nodes added or removed since the last full detection past which a
#: full detection runs again (measured: benchmarks/update.py, docs/communities.md)
DRIFT_LIMIT = 0.02


@dataclass(frozen=True)
class Update:
    """What an incremental update did to one scope."""

    scope: str
    nodes: int
    added: int
    removed: int
    singletons: int
    drift: float
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {"scope": self.scope, "nodes": self.nodes, "added": self.added,
                "removed": self.removed, "singletons": self.singletons,
                "drift": round(self.drift, 5), "seconds": round(self.seconds, 3)}


def update_communities(store: Store, repo: str, scope: str, *,
                       extra_drift: float = 0.0,
                       drift_limit: float = DRIFT_LIMIT) -> Update | None:
    """Bring ``repo``'s stored ``scope`` communities up to date with its current nodes, or
    None when a full detection is due instead (nothing stored, or the accumulated drift
    including this change would pass ``drift_limit``). ``extra_drift`` adds what the
    caller knows changed besides nodes (edited files' share)."""
    import time

    started = time.perf_counter()
    previous = stored_numbers(store, repo, scope)
    if not previous or 0 not in previous:
        return None
    current = _current_nodes(store, repo, scope)
    stored = previous[0]
    new = sorted(set(current) - stored.keys())
    gone = sorted(stored.keys() - set(current))
    drift = communities_drift(store, repo, scope) + extra_drift + \
        (len(new) + len(gone)) / max(len(current), 1)
    if drift > drift_limit:
        return None
    levels = sorted(previous)
    chosen = assign_new_nodes(new, _neighbours(store, repo, scope, new), previous[levels[-1]])
    rows, fresh = _memberships(repo, scope, new, chosen, previous, levels)
    _write(store, repo, scope, gone, rows, fresh, drift)
    return Update(scope, len(current), len(new), len(gone),
                  sum(1 for n in new if n not in chosen), drift,
                  time.perf_counter() - started)


# ----------------------------------------------------------------------------- reading
def _current_nodes(store: Store, repo: str, scope: str) -> list[str]:
    """The nodes a detection of ``scope`` partitions (as ``queries.communities`` builds)."""
    if scope == "file":
        return store.cypher(f"MATCH (f:{FILE.name}) WHERE {current_code_files()} "
                            "RETURN f.id AS id", {"r": repo})["id"].to_list()
    files = store.cypher(f"MATCH (f:{FILE.name}) WHERE {current_code_files()} "
                         "RETURN f.id AS file", {"r": repo})
    symbols = store.cypher(
        f"MATCH (s:{SYMBOL.name}) WHERE s.repo = $r AND s.valid_to IS NULL "
        "AND s.kind IN $kinds RETURN s.id AS id, s.file AS file",
        {"r": repo, "kinds": list(MEMBER_SYMBOL_KINDS)})
    return symbols.join(files, on="file")["id"].to_list()


def _neighbours(store: Store, repo: str, scope: str, nodes: list[str]) -> pl.DataFrame:
    """(node, other, w): the weighted dependencies of ``nodes`` in either direction, with
    the weights of the detection (1 per import, call site or containment, 2 per base)."""
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
    frames = [f for f in frames if not f.is_empty()]
    if not frames:
        return empty
    return pl.concat(frames).filter(pl.col("node") != pl.col("other"))


# ----------------------------------------------------------------------------- assigning
def assign_new_nodes(new: list[str], edges: pl.DataFrame,
                     finest: Mapping[str, int]) -> dict[str, int]:
    """node -> the finest-level community number its edges weigh most towards (ties: the
    lowest number, so the result is deterministic). New nodes joined in the first pass
    pull their new neighbours in the second (a new class and its methods)."""
    chosen: dict[str, int] = {}
    by_node: dict[str, list[tuple[str, float]]] = {}
    for node, other, w in edges.iter_rows():
        by_node.setdefault(node, []).append((other, w))
    for _ in range(2):
        for node in new:
            if node in chosen:
                continue
            weight: dict[int, float] = {}
            for other, w in by_node.get(node, ()):
                number = finest.get(other, chosen.get(other))
                if number is not None:
                    weight[number] = weight.get(number, 0.0) + w
            if weight:
                chosen[node] = min(weight, key=lambda n: (-weight[n], n))
    return chosen


def _memberships(repo: str, scope: str, new: list[str], chosen: Mapping[str, int],
                 previous: Mapping[int, Mapping[str, int]], levels: list[int]
                 ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """IN_COMMUNITY rows of the new nodes at every level, and the singleton communities to
    create (with their parents) for nodes that joined none."""
    finest = levels[-1]
    # a member of each finest community gives its numbers at the coarser levels
    representative: dict[int, str] = {}
    for node, number in previous[finest].items():
        representative.setdefault(number, node)
    next_number = {lv: max(previous[lv].values(), default=-1) + 1 for lv in levels}
    member_from: list[str] = []
    member_to: list[str] = []
    fresh: list[dict] = []
    for node in new:
        if node in chosen:
            rep = representative[chosen[node]]
            numbers = {lv: previous[lv][rep] for lv in levels}
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
def _write(store: Store, repo: str, scope: str, gone: list[str], rows: pl.DataFrame,
           fresh: pl.DataFrame, drift: float) -> None:
    """One transaction: vanished members leave, new ones join, singletons are created,
    sizes of the touched communities are recounted and emptied ones deleted."""
    member = FILE if scope == "file" else SYMBOL
    now = datetime.now(UTC).replace(tzinfo=None)
    source = Source.INFERRED.value
    touched: set[str] = set(rows["to"].to_list())
    with store.write() as tx:
        tx.touch(repo)
        if gone:
            left = tx.execute(
                f"MATCH (m:{member.name})-[e:{IN_COMMUNITY.name}]->(c:{COMMUNITY.name}) "
                "WHERE c.repo = $repo AND c.scope = $scope AND m.id IN $gone "
                "DELETE e RETURN DISTINCT c.id AS id",
                {"repo": repo, "scope": scope, "gone": gone})
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
        set_communities_drift(store, tx, repo, scope, drift)
    store.touch_manifest()
