"""The graph signal of search (``near``): nodes within a few hops of given nodes, over code,
history and paper edges and entries' scope globs, scored 1/distance."""

from __future__ import annotations

from collections.abc import Sequence

from graphdb import Store, deadline
from queries.batch import by_ids, lookup_template
from queries.scope import code_paths, in_scope
from queries.search.filters import Filters
from queries.search.metadata import node_tables
from schema import ABOUT, CALLS, CONTAINS, ENTRY, IMPORTS, INHERITS, REFERENCES

__all__ = ["PROXIMITY_RELS", "graph_signal"]

#: Edges graph proximity walks (either direction).
PROXIMITY_RELS = tuple(r.name for r in (CALLS, IMPORTS, INHERITS, CONTAINS, ABOUT, REFERENCES))
_MAX_FRONTIER = 5_000  # nodes expanded per hop: a hub (a big file, a builtin) stops there
#: Current, or ended because something superseded it (returned, demoted, with a pointer).
_BELIEVED = ("n.expired_at IS NULL AND (n.valid_to IS NULL OR "
             "EXISTS { MATCH (n)<-[:SUPERSEDES]-() })")


def graph_signal(store: Store, near: Sequence[str], f: Filters, hops: int,
                 n: int) -> list[tuple[str, str, float]]:
    """Nodes within ``hops`` of ``near`` (any direction over :data:`PROXIMITY_RELS`), nearest
    first, then by the number of paths reaching them; scored 1/distance. An entry whose
    scope covers a file or symbol reached is one hop from it, as an ABOUT edge would make it
    (:mod:`queries.scope`)."""
    rels = "|".join(PROXIMITY_RELS)
    dist: dict[str, int] = {i: 0 for i in near}
    paths: dict[str, int] = {}
    label: dict[str, str] = {}
    frontier = list(node_tables(store, near).items())
    scoped = ENTRY.name in f.tables and _scoped_entries(store)
    for hop in range(1, hops + 1):
        deadline.check()
        if not frontier:
            break
        reached: list[tuple[str, str, int]] = []
        expanded = frontier[:_MAX_FRONTIER]
        for table in sorted({t for _, t in expanded}):
            rows = by_ids(store, [i for i, t in expanded if t == table], lookup_template(
                f"MATCH (a:{table}{{B}})-[:{rels}]-(b) WHERE {{IN}} "
                "RETURN b.id AS id, label(b) AS t, count(*) AS c", "a"))
            reached += rows.iter_rows()
        if scoped:
            reached += _in_scope_of(store, [i for i, _ in expanded])
        nxt = []
        for node, table, count in reached:
            if node in dist and dist[node] < hop:
                continue
            if node not in dist:
                dist[node] = hop
                nxt.append((node, table))
            paths[node] = paths.get(node, 0) + int(count)
            label[node] = table
        frontier = nxt
    found = [(i, label[i]) for i, d in dist.items() if d > 0 and label.get(i) in f.tables]
    if f.candidates is not None:
        found = [(i, t) for i, t in found if i in f.candidates]
    allowed: set[str] = set()
    for table in f.tables:
        deadline.check()
        ids = [i for i, t in found if t == table]
        if not ids:
            continue
        cond = f.where[table]
        rows = by_ids(store, ids, lookup_template(
            f"MATCH (n:{table}{{B}}) WHERE {{IN}} AND {_BELIEVED}"
            + (f" AND {cond}" if cond else "") + " RETURN n.id AS id", "n"), f.params)
        allowed.update(rows["id"].to_list())
    ranked = sorted(((i, t) for i, t in found if i in allowed),
                    key=lambda x: (dist[x[0]], -paths[x[0]], x[0]))
    return [(i, t, 1.0 / dist[i]) for i, t in ranked[:n]]


def _scoped_entries(store: Store) -> bool:
    """Whether any entry has a scope (else the scope step of the graph signal is skipped)."""
    rows = store.cypher(f"MATCH (x:{ENTRY.name}) WHERE size(x.scope) > 0 RETURN count(x) AS n")
    return bool(rows["n"][0])


def _in_scope_of(store: Store, ids: list[str]) -> list[tuple[str, str, int]]:
    """(entry id, table, number of nodes) for the entries whose scope covers the files and
    symbols among ``ids``."""
    code = [i for i in ids if i.startswith(("file:", "sym:"))]
    count: dict[str, int] = {}
    for matches in in_scope(store, code_paths(store, code)).values():
        for m in matches:
            count[m.row["id"]] = count.get(m.row["id"], 0) + 1
    return [(eid, ENTRY.name, n) for eid, n in count.items()]
