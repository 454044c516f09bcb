"""What search shows of a node: its table (for ``near`` ids) and its display fields, dates,
status and superseding ids (symbols from the catalog, entries and papers by primary key)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graphdb import Store
from queries.search.catalog import symbol_catalog
from queries.search.model import SEARCH_TABLES
from schema import ENTRY, NODE_TABLES, PAPER, SYMBOL

__all__ = ["node_metadata", "node_tables"]


def node_tables(store: Store, ids: Sequence[str]) -> dict[str, str]:
    """The table of each of ``ids`` the graph holds, looked up by primary key table by
    table, the searched ones first (an unlabelled ``MATCH (n {id: ...})`` scans them all)."""
    wanted = list(dict.fromkeys(ids))
    found: dict[str, str] = {}
    for table in dict.fromkeys((*SEARCH_TABLES, *(t.name for t in NODE_TABLES))):
        left = [i for i in wanted if i not in found]
        if not left:
            break
        rows = store.cypher(f"UNWIND $ids AS i MATCH (n:{table} {{id: i}}) RETURN n.id AS id",
                            {"ids": left})
        found.update((i, table) for i in rows["id"].to_list())
    return {i: found[i] for i in wanted if i in found}


def node_metadata(store: Store, ids_by_table: dict[str, list[str]]) -> dict[str, dict[str, Any]]:
    """Per hit id: name, kind, location, source, dates, status, superseding ids."""
    out: dict[str, dict[str, Any]] = {}
    if ids_by_table.get(SYMBOL.name):
        cat = symbol_catalog(store)
        for node in ids_by_table[SYMBOL.name]:
            if (row := cat.rows.get(node)) is not None:
                out[node] = {"id": node, "name": row[0], "kind": row[1], "location": row[2],
                             "source": row[3], "resolved": True,
                             "newer": list(cat.newer.get(node, ()))}
        ids_by_table = {t: v for t, v in ids_by_table.items() if t != SYMBOL.name}
    cols = {
        SYMBOL.name: "n.qualname AS name, n.kind AS kind, n.file AS location, "
                     "NULL AS year, true AS resolved",
        ENTRY.name: "n.title AS name, n.kind AS kind, n.display_id AS location, "
                    "NULL AS year, true AS resolved",
        PAPER.name: "n.title AS name, n.kind AS kind, "
                    "CASE WHEN n.doi <> '' THEN n.doi WHEN n.arxiv <> '' THEN n.arxiv "
                    "ELSE n.url END AS location, "
                    "n.year AS year, n.resolved AS resolved",
    }
    for table, ids in ids_by_table.items():
        if not ids:
            continue
        rows = store.cypher(  # by primary key, then the optional edges (queries/batch.py)
            f"UNWIND $ids AS i MATCH (n:{table} {{id: i}}) "
            f"OPTIONAL MATCH (w:{table})-[:SUPERSEDES]->(n) "
            f"RETURN n.id AS id, {cols[table]}, n.source AS source, n.valid_from AS valid_from, "
            "n.recorded_at AS recorded_at, collect(w.id) AS newer, "
            "(n.valid_to IS NULL AND n.expired_at IS NULL) AS current",
            {"ids": list(dict.fromkeys(ids))})
        for r in rows.iter_rows(named=True):
            out[r["id"]] = r
    return out
