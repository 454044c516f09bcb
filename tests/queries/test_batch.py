"""queries.batch.by_ids answers what ``WHERE n.id IN $ids`` answers, through the primary-key
index: node-only lookups as one UNWIND, lookups through relationships as chunks of UNION ALL
probes (more ids than one chunk holds, duplicates, unknown ids, an empty list). Real
database, a real ingested tree."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import polars as pl

from graphdb import Store
from ingest import IngestOptions, ingest_repository
from queries.batch import PROBE_MAX, by_ids, lookup_template

_NODE = lookup_template("MATCH (n:Symbol{B}) WHERE {IN} AND n.kind = $kind "
                        "RETURN n.id AS id, n.name AS name", "n")
_CALLS = lookup_template("MATCH (n:Symbol{B})-[e:CALLS]->(m:Symbol) WHERE {IN} "
                         "RETURN n.id AS id, m.id AS callee ORDER BY callee", "n")


def _tree(tree: Callable[[dict[str, str]], Path]) -> Path:
    """60 functions, each calling the next two (so every lookup reaches real edges)."""
    body = "\n\n".join(f"def f{i}():\n    f{(i + 1) % 60}()\n    f{(i + 2) % 60}()"
                       for i in range(60))
    return tree({"m.py": body + "\n"})


def _sorted(frame: pl.DataFrame) -> list[tuple[object, ...]]:
    return sorted(frame.rows())


def test_lookups_equal_the_in_list_scan(store: Store,
                                        tree: Callable[[dict[str, str]], Path]) -> None:
    ingest_repository(store, _tree(tree), options=IngestOptions(name="r"))
    ids = [f"sym:r/m.py#f{i}" for i in range(60)]
    asked = [*ids[:PROBE_MAX + 7], "sym:r/m.py#nope", ids[0], ids[3]]  # past one chunk
    scan_node = store.cypher("MATCH (n:Symbol) WHERE n.id IN $ids AND n.kind = $kind "
                             "RETURN n.id AS id, n.name AS name",
                             {"ids": asked, "kind": "function"})
    scan_calls = store.cypher("MATCH (n:Symbol)-[e:CALLS]->(m:Symbol) WHERE n.id IN $ids "
                              "RETURN n.id AS id, m.id AS callee", {"ids": asked})
    node = by_ids(store, asked, _NODE, {"kind": "function"})
    calls = by_ids(store, asked, _CALLS)
    assert node.height == PROBE_MAX + 7  # each id once, the unknown one left out
    assert _sorted(node) == _sorted(scan_node)
    assert calls.height == 2 * (PROBE_MAX + 7)
    assert _sorted(calls) == _sorted(scan_calls)
    # each id's rows keep the template's order (ORDER BY applies per looked-up node)
    for node_id in ids[:3]:
        callees = calls.filter(pl.col("id") == node_id)["callee"].to_list()
        assert callees == sorted(callees)


def test_an_empty_list_gives_an_empty_frame_with_the_template_columns(
        store: Store, tree: Callable[[dict[str, str]], Path]) -> None:
    ingest_repository(store, _tree(tree), options=IngestOptions(name="r"))
    assert by_ids(store, [], _NODE, {"kind": "function"}).columns == ["id", "name"]
    assert by_ids(store, [], _NODE, {"kind": "function"}).height == 0
    assert by_ids(store, [], _CALLS).columns == ["id", "callee"]
    assert by_ids(store, [], _CALLS).height == 0
