"""queries.communities (first part): the weighted file graph exported from a real ingest,
seeded Leiden, the hierarchy, and degenerate graphs."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

import igraph
import pytest

import graphdb.transaction as transaction_module
from graphdb import Store
from ingest.pipeline import IngestOptions, ingest_repository
from queries.boundaries import boundaries
from queries.communities import (
    DEFAULT_WEIGHTS,
    CommunityGraph,
    communities,
    community_graph,
    detect_communities,
    detect_scopes,
    file_graph,
    hierarchy,
    leiden,
    match_communities,
)
from schema import NodeNotFoundError, QueryError
from tests.helpers import run_vgdb


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


# ------------------------------------------------------------ detection on ingested code
def _cluster(package: str, other: str | None = None) -> dict[str, str]:
    """Four modules of ``package`` that import and call each other; with ``other``, its
    fourth module also calls into ``other``'s first (a dependency between clusters)."""
    p = package[0]
    files = {
        f"{package}/__init__.py": "",
        f"{package}/{p}1.py": f"from {package}.{p}2 import f{p}2\nfrom {package}.{p}3 import "
                              f"f{p}3\n\n\ndef f{p}1():\n    return f{p}2() + f{p}3() + f{p}2()\n",
        f"{package}/{p}2.py": f"from {package}.{p}3 import f{p}3\nfrom {package}.{p}4 import "
                              f"f{p}4\n\n\ndef f{p}2():\n    return f{p}3() + f{p}4() + f{p}3()\n",
        f"{package}/{p}3.py": f"from {package}.{p}4 import f{p}4\nfrom {package}.{p}1 import "
                              f"f{p}1\n\n\ndef f{p}3():\n    return f{p}4() + f{p}4()\n\n\n"
                              f"def g{p}3():\n    return f{p}1()\n",
        f"{package}/{p}4.py": f"def f{p}4():\n    return 4\n",
    }
    if other:
        o = other[0]
        files[f"{package}/{p}4.py"] = (f"from {other}.{o}1 import f{o}1\n\n\ndef f{p}4():\n"
                                       f"    return f{o}1()\n")
    return files


_STRAY_TO_BETA = ("from beta.b1 import fb1\nfrom beta.b2 import fb2\nfrom beta.b3 import fb3\n\n\n"
                  "def stray():\n    return fb1() + fb2() + fb3() + fb1() + fb2()\n")
_STRAY_TO_ALPHA = ("from alpha.a1 import fa1\nfrom alpha.a2 import fa2\nfrom alpha.a3 import "
                   "fa3\n\n\ndef stray():\n    return fa1() + fa2() + fa3() + fa1() + fa2()\n")


def _two_clusters(tree: Callable[[dict[str, str]], Path]) -> Path:
    return tree({**_cluster("alpha", other="beta"), **_cluster("beta", other="alpha"),
                 "alpha/stray.py": _STRAY_TO_BETA})


def _groups(store: Store, repo: str, scope: str = "file") -> dict[str, set[str]]:
    rows = store.cypher(
        "MATCH (m)-[:IN_COMMUNITY]->(c:Community) WHERE c.repo = $r AND c.scope = $s "
        "AND c.level = 0 RETURN c.id AS c, m.id AS m", {"r": repo, "s": scope})
    out: dict[str, set[str]] = {}
    for c, m in rows.iter_rows():
        out.setdefault(c, set()).add(m.rsplit("/", 1)[-1])
    return out


def test_detection_is_stored_named_measured_and_reproducible(
        store: Store, tree: Callable[[dict[str, str]], Path]) -> None:
    ingest_repository(store, _two_clusters(tree), options=IngestOptions(name="r"))
    first = detect_communities(store, "r", seed=3)
    groups = _groups(store, "r")
    assert sorted(map(sorted, groups.values())) == [
        ["__init__.py"], ["__init__.py"],  # no dependencies: singletons
        ["a1.py", "a2.py", "a3.py", "a4.py"], ["b1.py", "b2.py", "b3.py", "b4.py", "stray.py"]]
    by_members = {frozenset(v): k for k, v in groups.items()}
    alpha = by_members[frozenset({"a1.py", "a2.py", "a3.py", "a4.py"})]
    beta = by_members[frozenset({"b1.py", "b2.py", "b3.py", "b4.py", "stray.py"})]
    stored = {c.id: c for c in communities(store, "r")}
    assert [c.size for c in stored.values()] == [5, 4, 1, 1]  # largest first
    assert alpha.startswith("community:r/file/0/")
    a = stored[alpha]
    assert (a.size, a.prefix, a.level, a.objective) == (4, "alpha/", 0, "modularity")
    assert a.name.startswith("alpha/ · ") and a.top[0] in {"a1.py", "a2.py", "a3.py", "a4.py"}
    # a4 -> b1 (import + call) is alpha's only way out; beta -> alpha is b4 -> a1
    assert [(d.target, d.weight, d.edges) for d in a.dependencies] == [(beta, 2.0, 1)]
    assert a.external == 4.0 and a.internal > 10 and 0.7 < a.cohesion < 1
    assert stored[beta].prefix == "beta/"  # 4 of its 5 files
    # the same graph and seed give the same partition and the same ids
    again = detect_communities(store, "r", seed=3)
    assert again.had_previous and again.moved == ()
    assert again.notes[-1] == "unchanged since the stored detection: kept"
    assert [c.id for c in again.communities] == [c.id for c in first.communities]
    assert _groups(store, "r") == groups
    # from scratch (no warm start, no shortcut) the seed alone decides: the same again
    fresh = detect_communities(store, "r", seed=3, fresh=True)
    assert fresh.moved == () and "unchanged" not in " ".join(fresh.notes)
    assert _groups(store, "r") == groups
    other = detect_communities(store, "r", seed=3, objective="cpm", resolution=0.5)
    assert "unchanged" not in " ".join(other.notes)  # new settings: detected again


def test_ids_survive_a_small_change_and_moved_files_are_reported(
        store: Store, tree: Callable[[dict[str, str]], Path]) -> None:
    root = _two_clusters(tree)
    ingest_repository(store, root, options=IngestOptions(name="r"))
    detect_communities(store, "r")
    before = {frozenset(v): k for k, v in _groups(store, "r").items()}
    alpha = before[frozenset({"a1.py", "a2.py", "a3.py", "a4.py"})]
    beta = before[frozenset({"b1.py", "b2.py", "b3.py", "b4.py", "stray.py"})]
    (root / "alpha" / "stray.py").write_text(_STRAY_TO_ALPHA)
    ingest_repository(store, root, options=IngestOptions(name="r"))
    result = detect_communities(store, "r")
    after = {c: m for c, m in _groups(store, "r").items() if len(m) > 1}
    assert after == {alpha: {"a1.py", "a2.py", "a3.py", "a4.py", "stray.py"},
                     beta: {"b1.py", "b2.py", "b3.py", "b4.py"}}
    assert [(m.node, m.old, m.new) for m in result.moved] == [
        ("file:r/alpha/stray.py", beta, alpha)]


def test_symbol_scope_partitions_symbols(
        store: Store, tree: Callable[[dict[str, str]], Path]) -> None:
    ingest_repository(store, _two_clusters(tree), options=IngestOptions(name="r"))
    result = detect_communities(store, "r", scope="symbol")
    assert result.nodes == 22  # 11 modules + 11 functions
    groups = _groups(store, "r", scope="symbol")
    where = {m: c for c, ms in groups.items() for m in ms}
    # a function sits with its module, and alpha's functions are apart from beta's
    assert where["a1.py#fa1"] == where["a1.py#<module>"] == where["a2.py#fa2"]
    assert where["b1.py#fb1"] == where["b2.py#fb2"] != where["a1.py#fa1"]
    assert all(c.startswith("community:r/symbol/0/") for c in groups)
    assert _groups(store, "r", scope="file") == {}  # scopes are stored apart


@pytest.mark.parametrize("small_insert", [None, 0])
def test_both_scopes_in_one_transaction_store_what_each_alone_stores(
        store: Store, tree: Callable[[dict[str, str]], Path], monkeypatch: pytest.MonkeyPatch,
        small_insert: int | None) -> None:
    """An ingest's detection of both scopes: one commit, the same stored communities and
    the same results as one detection per scope. ``small_insert=0``: written with COPY, as
    a real repository's are (two COPYs into Community in one transaction broke the
    engine's primary-key index)."""
    if small_insert is not None:
        monkeypatch.setattr(transaction_module, "_SMALL_INSERT", small_insert)
    root = _two_clusters(tree)
    ingest_repository(store, root, options=IngestOptions(name="r"))
    one = [detect_communities(store, "r", scope=s, fresh=True) for s in ("file", "symbol")]
    alone = {s: _stored(store, s) for s in ("file", "symbol")}
    both = detect_scopes(store, "r")  # warm-started from the stored ones: nothing moves
    assert [d.scope for d in both] == ["file", "symbol"]
    assert [d.notes[-1] for d in both] == ["unchanged since the stored detection: kept"] * 2
    with store.write() as tx:  # forget them: both scopes are detected and written again
        tx.execute("MATCH (c:Community) DETACH DELETE c")
    both = detect_scopes(store, "r")
    assert [(d.scope, d.nodes, d.edges, d.had_previous, d.moved) for d in both] == \
        [(d.scope, d.nodes, d.edges, False, ()) for d in one]
    assert [[c.to_dict() for c in d.communities] for d in both] == \
        [[c.to_dict() for c in d.communities] for d in one]
    assert {s: _stored(store, s) for s in ("file", "symbol")} == alone
    assert all(d.seconds > 0 for d in both)


def test_both_scopes_of_a_larger_tree_are_written_in_one_transaction(
        store: Store, tree: Callable[[dict[str, str]], Path]) -> None:
    """Hundreds of communities per scope, written with COPY: on click (142 files) copying
    each scope's communities and then their members in turn broke the engine's primary-key
    index in the second scope; one COPY per table does not."""
    files = {}
    for p in range(12):
        for m in range(12):
            calls = "\n".join(f"    f{p}_{(m + k) % 12}_{j}()" for k in (1, 2) for j in range(3))
            body = "".join(f"\n\ndef f{p}_{m}_{j}():\n{calls}\n" for j in range(6))
            imports = "\n".join(f"from pkg{p}.m{(m + k) % 12} import f{p}_{(m + k) % 12}_{j}"
                                 for k in (1, 2) for j in range(3))
            files[f"pkg{p}/m{m}.py"] = imports + "\n" + body
    ingest_repository(store, tree(files), options=IngestOptions(name="big"))
    both = detect_scopes(store, "big")
    assert [(d.scope, d.nodes) for d in both] == [("file", 144), ("symbol", 144 * 7)]
    assert store.cypher("MATCH (m)-[:IN_COMMUNITY]->(c:Community) RETURN c.scope AS s, "
                        "count(*) AS n ORDER BY s").rows() == \
        [("file", 144 * len(both[0].levels)), ("symbol", 144 * 7 * len(both[1].levels))]


def _stored(store: Store, scope: str) -> list[tuple]:
    return store.cypher(
        "MATCH (m)-[:IN_COMMUNITY]->(c:Community) WHERE c.scope = $s "
        "RETURN m.id AS mid, c.id AS cid, c.name AS name, c.size AS size, c.internal AS i, "
        "c.external AS e, c.terms AS terms, c.top AS top ORDER BY mid, cid", {"s": scope}).rows()


def test_boundaries_report_misplaced_files_crossing_edges_and_cycles(
        store: Store, tree: Callable[[dict[str, str]], Path]) -> None:
    ingest_repository(store, _two_clusters(tree), options=IngestOptions(name="r"))
    detect_communities(store, "r")
    b = boundaries(store, "r")
    groups = {frozenset(v): k for k, v in _groups(store, "r").items()}
    alpha = groups[frozenset({"a1.py", "a2.py", "a3.py", "a4.py"})]
    beta = groups[frozenset({"b1.py", "b2.py", "b3.py", "b4.py", "stray.py"})]
    assert [(m.node, m.container, m.community, m.expected, m.weight_own, m.weight_expected)
            for m in b.misplaced] == [("file:r/alpha/stray.py", "alpha", beta, alpha, 8.0, 0.0)]
    # stray -> b1..b3 stay inside beta's community; only the two cluster links cross
    assert [(c.source, c.target, c.source_community, c.weight, c.kinds)
            for c in b.crossing] == [
        ("file:r/alpha/a4.py", "file:r/beta/b1.py", alpha, 2.0, ("CALLS", "IMPORTS")),
        ("file:r/beta/b4.py", "file:r/alpha/a1.py", beta, 2.0, ("CALLS", "IMPORTS")),
    ]
    assert [c.communities for c in b.cycles] == [tuple(sorted((alpha, beta)))]
    assert b.communities == 4 and b.modularity > 0.3  # with the two __init__.py singletons
    assert 0 < b.nmi_containers < 1 and b.nmi_containers == b.nmi_top


def test_degenerate_repositories_give_clear_results(
        store: Store, tree: Callable[[dict[str, str]], Path]) -> None:
    root = tree({"gone.py": "X = 1\n"})
    ingest_repository(store, root, options=IngestOptions(name="empty"))
    (root / "gone.py").unlink()  # the repository is known, but holds no code any more
    ingest_repository(store, root, options=IngestOptions(name="empty"))
    empty = detect_communities(store, "empty")
    assert (empty.nodes, empty.communities, empty.levels) == (0, (), ())
    assert "no current code" in empty.notes[0]
    with pytest.raises(QueryError, match="no communities stored"):
        boundaries(store, "empty")
    with pytest.raises(NodeNotFoundError, match="no repository named 'nope'"):
        detect_communities(store, "nope")
    ingest_repository(store, tree({"x.py": "A = 1\n", "y.py": "B = 2\n", "z.py": "C = 3\n"}),
                      options=IngestOptions(name="flat"))
    flat = detect_communities(store, "flat")
    assert flat.edges == 0 and [c.size for c in flat.communities] == [1, 1, 1]
    assert flat.notes == ("no dependencies between the nodes: every node is its own community",)
    assert sorted(c.name for c in flat.communities) == ["x.py", "y.py", "z.py"]


def test_zero_weights_self_loops_and_multi_edges(
        store: Store, tree: Callable[[dict[str, str]], Path]) -> None:
    ingest_repository(store, _two_clusters(tree), options=IngestOptions(name="r"))
    nothing = community_graph(store, "r", weights={k: 0.0 for k in DEFAULT_WEIGHTS})
    assert (len(nothing.ids), nothing.edges) == (11, 0)
    graph = igraph.Graph(n=4, edges=[(0, 0), (0, 1), (0, 1), (2, 3), (2, 3), (1, 1)])
    graph.es["weight"] = [1.0, 1.0, 2.0, 1.0, 0.5, 3.0]
    assert _renumbered(leiden(graph, seed=1)) == [0, 0, 1, 1]
    with pytest.raises(QueryError, match="unknown objective"):
        leiden(graph, objective="surprise")  # type: ignore[arg-type]
    with pytest.raises(QueryError, match="resolution must be a positive"):
        leiden(graph, objective="cpm", resolution=0)


def _renumbered(membership: list[int]) -> list[int]:
    seen: dict[int, int] = {}
    return [seen.setdefault(c, len(seen)) for c in membership]


@pytest.mark.parametrize(("objective", "backend", "resolution"), [
    ("rb", "igraph", 1.0), ("cpm", "igraph", 0.05), ("modularity", "leidenalg", 1.0),
    ("rb", "leidenalg", 1.0), ("cpm", "leidenalg", 0.05)])
def test_every_objective_and_backend_finds_planted_blocks_reproducibly(
        objective: str, backend: str, resolution: float) -> None:
    cg, truth = _planted(5, 40, seed=9)
    found = leiden(cg.graph, objective=objective, backend=backend, resolution=resolution,
                   seed=4)  # type: ignore[arg-type]
    assert igraph.compare_communities(found, truth, method="nmi") >= 0.9
    assert leiden(cg.graph, objective=objective, backend=backend, resolution=resolution,
                  seed=4) == found  # type: ignore[arg-type]


def test_cli_detects_shows_boundaries_and_ingest_runs_detection(
        tmp_path: Path, tree: Callable[[dict[str, str]], Path]) -> None:
    root = _two_clusters(tree)
    db = str(tmp_path / "clidb")
    ingest = run_vgdb("ingest", str(root), "--db", db, "--name", "r", "--no-history")
    assert ingest.returncode == 0, ingest.stderr
    assert "communities (files): 4 per level, modularity" in ingest.stdout
    shown = run_vgdb("communities", "r", "--db", db, "--boundaries")
    assert shown.returncode == 0, shown.stderr
    assert "4 communities (2 single members)" in shown.stdout
    assert "alpha/ · " in shown.stdout and "file:r/alpha/stray.py: in #" in shown.stdout
    data = json.loads(run_vgdb("communities", "r", "--db", db, "--detect", "--json").stdout)
    assert data["detection"]["had_previous"] and data["detection"]["moved"] == []
    assert sorted(c["size"] for c in data["communities"]) == [1, 1, 4, 5]
    again = run_vgdb("ingest", str(root), "--db", db, "--name", "r", "--no-history")
    assert "communities: kept (0 files changed" in again.stdout
    bad = run_vgdb("communities", "nope", "--db", db)
    assert bad.returncode == 1 and "no repository named 'nope'" in bad.stderr
