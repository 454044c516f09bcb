"""queries.communities (first part): the weighted file graph exported from a real ingest,
seeded Leiden, the hierarchy, and degenerate graphs."""

from __future__ import annotations

import random
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

import igraph

from graphdb import Store
from ingest.pipeline import IngestOptions, ingest_repository
from queries.communities import (
    CommunityGraph,
    file_graph,
    hierarchy,
    leiden,
    match_communities,
)


def _planted(blocks: int, size: int, seed: int) -> tuple[CommunityGraph, list[int]]:
    """A stochastic block model: dense inside each block, sparse between blocks."""
    igraph.set_random_number_generator(random.Random(seed))
    try:
        pref = [[0.3 if i == j else 0.01 for j in range(blocks)] for i in range(blocks)]
        graph = igraph.Graph.SBM(pref, [size] * blocks)
    finally:
        igraph.set_random_number_generator(random)
    truth = [i // size for i in range(blocks * size)]
    return CommunityGraph(tuple(f"n{i}" for i in range(blocks * size)), graph), truth


def test_planted_blocks_are_found_and_runs_are_reproducible() -> None:
    cg, truth = _planted(6, 40, seed=3)
    first = leiden(cg.graph, seed=7)
    assert igraph.compare_communities(first, truth, method="nmi") >= 0.9
    assert leiden(cg.graph, seed=7) == first
    assert hierarchy(cg, seed=7) == hierarchy(cg, seed=7)


def test_hierarchy_splits_large_communities_under_their_parents() -> None:
    cg, _ = _planted(3, 60, seed=5)
    levels = hierarchy(cg, seed=1, min_split=10)
    assert levels[0].count >= 3 and levels[0].parent is None
    for upper, lower in pairwise(levels):
        assert lower.count >= upper.count
        for node, community in enumerate(lower.membership):
            assert lower.parent[community] == upper.membership[node]


def test_degenerate_graphs_give_clear_results() -> None:
    assert hierarchy(CommunityGraph((), igraph.Graph())) == ()
    isolated = hierarchy(CommunityGraph(("a", "b", "c"), igraph.Graph(n=3)))
    assert [(lv.membership, lv.modularity) for lv in isolated] == [((0, 1, 2), 0.0)]


def test_file_graph_weights_dependencies_between_files(
        store: Store, tree: Callable[[dict[str, str]], Path]) -> None:
    root = tree({
        "pkg/__init__.py": "",
        "pkg/a1.py": "from pkg.a2 import f\n\n\ndef g():\n    return f() + f()\n",
        "pkg/a2.py": "def f():\n    return f\n",
        "pkg/b1.py": "from pkg.b2 import B\n\n\nclass C(B):\n    pass\n",
        "pkg/b2.py": "class B:\n    pass\n",
    })
    ingest_repository(store, root, options=IngestOptions(name="r"))
    cg = file_graph(store, "r")
    edges = {(cg.ids[e.source].split("/")[-1], cg.ids[e.target].split("/")[-1]): e["weight"]
             for e in cg.graph.es}
    # a1 -> a2: one import + two call sites; b1 -> b2: one import + inheritance (2.0)
    assert edges == {("a1.py", "a2.py"): 3.0, ("b1.py", "b2.py"): 3.0}
    top = hierarchy(cg)[0].membership
    by_name = {cg.ids[i].split("/")[-1]: c for i, c in enumerate(top)}
    assert by_name["a1.py"] == by_name["a2.py"] != by_name["b1.py"] == by_name["b2.py"]


def test_community_numbers_survive_a_small_change_and_moves_are_reported() -> None:
    cg, _ = _planted(4, 30, seed=11)
    before = hierarchy(cg, seed=2)[0].membership
    previous = {cg.ids[i]: c + 10 for i, c in enumerate(before)}  # numbers of the last run
    graph = cg.graph.copy()
    graph.add_edges([(0, 35), (0, 36), (0, 37), (0, 38), (0, 39), (0, 40), (0, 41)] * 3)
    graph.delete_edges([e.index for e in graph.es if 0 in e.tuple and max(e.tuple) < 30])
    changed = CommunityGraph(cg.ids, graph)
    after = hierarchy(changed, seed=2)[0].membership
    matched = match_communities(cg.ids, after, previous)
    stable = {cg.ids[i]: matched.numbers[c] for i, c in enumerate(after)}
    # node n0 left block 0 for block 1; everyone else keeps the number they had
    assert matched.moved == (("n0", previous["n0"], previous["n35"]),)
    assert all(stable[n] == previous[n] for n in cg.ids if n != "n0")


def test_new_communities_get_numbers_never_used_before() -> None:
    matched = match_communities(["a", "b", "c", "d"], [0, 0, 1, 2], {"a": 5, "b": 5, "c": 7})
    assert matched.numbers == (5, 7, 8)
    assert matched.moved == ()
