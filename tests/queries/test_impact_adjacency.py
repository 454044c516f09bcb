"""The in-memory adjacency answers impact exactly as the per-hop queries do (issue 26): on
real standard-library packages after an update that left history behind, for every file and
a spread of symbols, with edge-kind subsets, per-kind limits and as-of questions; a serving
store builds it in the background and drops it after a write."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from graphdb import Store
from ingest.pipeline import IngestOptions, ingest_repository
from queries.impact import ImpactOptions, adjacency, impact
from queries.impact_context import TimeFilter


def _ingest(store: Store, root: Path) -> None:
    ingest_repository(store, root, options=IngestOptions(name="lib", workers=1))


def _targets(store: Store) -> list[str]:
    files = store.cypher("MATCH (f:File) WHERE f.valid_to IS NULL AND f.language = 'python' "
                         "RETURN f.id ORDER BY f.id")["f.id"].to_list()
    symbols = store.cypher("MATCH (s:Symbol) WHERE s.valid_to IS NULL RETURN s.id ORDER BY "
                           "s.id")["s.id"].to_list()
    return files + symbols[::7]


def _edit(root: Path) -> None:
    """Rename a function that others call and add a module-level statement: its node ends
    (valid_to set, the as-of questions still see it), a new one starts."""
    path = root / "json" / "decoder.py"
    text = path.read_text().replace("def py_scanstring(", "def py_scanstring_v2(")
    path.write_text(text + "\nLATE = JSONDecoder()\n")


def _both(store: Store, targets: list[str], **kw: object) -> tuple[list, list]:
    adjacency.forget(store)
    by_queries = [impact(store, [t], **kw) for t in targets]
    adjacency.warm(store)
    by_memory = [impact(store, [t], **kw) for t in targets]
    return by_queries, by_memory


def test_adjacency_equals_the_per_hop_queries(tmp_path: Path,
                                              stdlib_copy: Callable[[str], Path]) -> None:
    stdlib_copy("json")
    root = stdlib_copy("email")
    with Store.open(tmp_path / "db") as store:
        _ingest(store, root)
        before = datetime.now(UTC)
        time.sleep(0.01)
        _edit(root)
        _ingest(store, root)
        ended = store.cypher("MATCH (s:Symbol) WHERE s.valid_to IS NOT NULL "
                             "RETURN count(s) AS n")["n"][0]
        assert ended > 0  # the graph holds history the as-of questions see
        targets = _targets(store)
        assert len(targets) > 150
        queries, memory = _both(store, targets, depth=3)
        assert memory == queries
        assert sum(len(r.symbols) for r in memory) > 1000
        # edge-kind subsets and per-kind limits pick rows out of the same adjacency
        limited = ImpactOptions(max_depth={"CALLS": 1, "IMPORTS": 2})
        some = targets[::3]
        for kw in ({"depth": 4, "options": limited}, {"depth": 2, "edge_kinds": ["CALLS"]},
                   {"depth": 3, "edge_kinds": ["IMPORTS", "CONTAINS"]}):
            queries, memory = _both(store, some, **kw)
            assert memory == queries, kw
        # as-of questions never use it, and see the removed callers
        assert adjacency.current(store, TimeFilter(before)) is None
        then_queries, then_memory = _both(store, some, depth=3, as_of=before)
        assert then_memory == then_queries
        assert then_memory != [impact(store, [t], depth=3) for t in some]


def test_a_serving_store_builds_it_in_the_background_and_drops_it_after_a_write(
        tmp_path: Path, stdlib_copy: Callable[[str], Path]) -> None:
    root = stdlib_copy("json")
    current = TimeFilter(None)
    with Store.open(tmp_path / "db", serving=True) as store:
        _ingest(store, root)
        target = "sym:lib/json/decoder.py#JSONDecoder"
        assert adjacency.current(store, current) is None  # starts the build
        built = _wait_for(store)
        assert built.version == store.graph_version() and built.edges > 50
        first = impact(store, [target], depth=3)
        _edit(root)
        _ingest(store, root)
        assert adjacency.current(store, current) is None  # stale: rebuilt in the background
        rebuilt = _wait_for(store)
        assert rebuilt.version == store.graph_version() > built.version
        second = impact(store, [target], depth=3)
        adjacency.forget(store)
        assert second == impact(store, [target], depth=3) != first


def _wait_for(store: Store) -> adjacency.Adjacency:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = adjacency.current(store, TimeFilter(None))
        if found is not None:
            return found
        time.sleep(0.02)
    raise AssertionError("the adjacency was not built within 60 s")


def test_the_columnar_index_finds_known_ids_only() -> None:
    """Ids are found through their hashes and checked by value: unknown ids, offsets that
    hold no node and an empty question behave."""
    import polars as pl

    from queries.impact.columnar import DESCRIPTION, Index

    ids = [f"sym:r/m{i}.py#f{i}" for i in range(1000)]
    # engine offsets with gaps (deleted nodes): codes follow the offsets
    described = pl.DataFrame({"o": [2 * i for i in range(1000)], "src": ids,
                              **{c: [None] * 1000 for c in DESCRIPTION}},
                             schema={"o": pl.UInt64, "src": pl.String,
                                     **{c: pl.String for c in DESCRIPTION}})
    index = Index({"Symbol": described, "File": described.head(0)})
    assert len(index) == 1999 and index.bases == {"Symbol": 0, "File": 1999}
    wanted = [ids[7], "sym:r/nowhere.py#x", ids[999], ids[0]]
    assert index.codes(wanted).tolist() == [14, 1998, 0]
    assert [index.ids[int(c)] for c in index.codes(wanted)] == [ids[7], ids[999], ids[0]]
    assert index.codes([]).tolist() == []
    assert index.codes(["file:r/none.py"]).tolist() == []


def test_an_empty_graph_has_an_empty_adjacency(tmp_path: Path) -> None:
    with Store.open(tmp_path / "db") as store:
        built = adjacency.build(store)
        assert built.edges == 0
        nodes: dict = {}
        assert built.hop({"Symbol": ["sym:x/a.py#f"], "File": ["file:x/a.py"]},
                         {"CALLS", "IMPORTS"}, nodes) == [] and nodes == {}
