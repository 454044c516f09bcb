"""The analyst API (vectorgraphdb): frames, subgraphs and limits on a real ingested git repo."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import igraph
import networkx as nx
import polars as pl
import pytest

import vectorgraphdb
from graphdb import Store
from ingest import IngestOptions, ingest_repository
from ingest.sessions import load_sessions
from queries.boundaries import Misplaced
from schema import NodeNotFoundError, QueryError, ReadOnlyViolationError, StoreError
from tests.gitrepo import GitRepo
from vectorgraphdb import LimitWarning, SubgraphTooLargeError

ROOT = Path(__file__).resolve().parent.parent
SESSION = ROOT / "datasets" / "sessions" / "example-session.jsonl"

CORE = '''
class Base:
    def run(self):
        return helper()


def helper():
    return 1
'''
APP = '''
from pkg.core import Base, helper


class App(Base):
    def start(self):
        return helper()


def main():
    return App().start()
'''
TEST = '''
from pkg.app import main


def test_main():
    assert main() == 1
'''
SYMBOLS = [
    "sym:demo/pkg/__init__.py#<module>", "sym:demo/pkg/app.py#<module>",
    "sym:demo/pkg/app.py#App", "sym:demo/pkg/app.py#App.start", "sym:demo/pkg/app.py#main",
    "sym:demo/pkg/core.py#<module>", "sym:demo/pkg/core.py#Base",
    "sym:demo/pkg/core.py#Base.run", "sym:demo/pkg/core.py#helper",
    "sym:demo/tests/test_app.py#<module>", "sym:demo/tests/test_app.py#test_main",
]
FILES = ["file:demo/pkg/__init__.py", "file:demo/pkg/app.py", "file:demo/pkg/core.py",
         "file:demo/tests/test_app.py"]
CALLS = [
    ("sym:demo/pkg/app.py#App.start", "sym:demo/pkg/core.py#helper"),
    ("sym:demo/pkg/app.py#main", "sym:demo/pkg/app.py#App"),
    ("sym:demo/pkg/app.py#main", "sym:demo/pkg/app.py#App.start"),  # App().start()
    ("sym:demo/pkg/core.py#Base.run", "sym:demo/pkg/core.py#helper"),
    ("sym:demo/tests/test_app.py#test_main", "sym:demo/pkg/app.py#main"),
]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two commits by two people, ingested with history, communities and a session log."""
    base = tmp_path_factory.mktemp("analyst")
    repo = GitRepo(base / "demo")
    repo.commit("core", {"pkg/__init__.py": "", "pkg/core.py": CORE})
    repo.commit("app", {"pkg/app.py": APP, "tests/test_app.py": TEST},
                author="Bo Builder <bo@example.org>")
    path = base / "db"
    with Store.open(path) as store:
        ingest_repository(store, repo.root, options=IngestOptions(name="demo", workers=1))
        load_sessions(store, [SESSION])
    with vectorgraphdb.open(path, read_only=False) as g:
        g.detect_communities("demo", seed=0)
    return path


@pytest.fixture(scope="module")
def g(db: Path) -> Iterator[vectorgraphdb.Graph]:
    with vectorgraphdb.open(db) as graph:
        yield graph


# --------------------------------------------------------------------------------- cypher
def test_cypher_returns_a_polars_frame(g: vectorgraphdb.Graph) -> None:
    frame = g.cypher("MATCH (s:Symbol) WHERE s.kind = $k RETURN s.id AS id ORDER BY id",
                     {"k": "function"})
    assert isinstance(frame, pl.DataFrame)
    assert frame["id"].to_list() == ["sym:demo/pkg/app.py#main", "sym:demo/pkg/core.py#helper",
                                     "sym:demo/tests/test_app.py#test_main"]


def test_cypher_syntax_error_carries_kuzus_message(g: vectorgraphdb.Graph) -> None:
    with pytest.raises(QueryError) as caught:
        g.cypher("MATC (n:File) RETURN n.path")
    err = caught.value
    assert str(err).startswith("Kuzu rejected the query: Parser exception: extraneous input "
                               "'MATC' expecting")
    assert '"MATC (n:File) RETURN n.path"\n ^^^^' in str(err)
    assert err.query == "MATC (n:File) RETURN n.path"
    assert err.suggestion == "fix the Cypher syntax at the position Kuzu marks with ^"


def test_cypher_unknown_table_names_the_tables(g: vectorgraphdb.Graph) -> None:
    with pytest.raises(QueryError, match=r"^Kuzu rejected the query: Binder exception: "
                                         r"Table Nope does not exist\.$") as caught:
        g.cypher("MATCH (n:Nope) RETURN n")
    assert caught.value.suggestion.startswith("tables: Meta, Repository, File, Symbol,")


def test_cypher_is_read_only(g: vectorgraphdb.Graph) -> None:
    with pytest.raises(ReadOnlyViolationError, match="CREATE is not allowed"):
        g.cypher("CREATE (:File {id: 'x'})")


# ---------------------------------------------------------------------------------- tables
def test_table_filters_on_properties(g: vectorgraphdb.Graph) -> None:
    frame = g.table("Symbol", kind=["class", "method"], columns=["qualname", "kind"])
    assert frame.columns == ["id", "qualname", "kind"]
    assert frame.rows() == [
        ("sym:demo/pkg/app.py#App", "App", "class"),
        ("sym:demo/pkg/app.py#App.start", "App.start", "method"),
        ("sym:demo/pkg/core.py#Base", "Base", "class"),
        ("sym:demo/pkg/core.py#Base.run", "Base.run", "method"),
    ]
    assert g.table("symbol", qualname="helper", is_test=False)["id"].to_list() == [
        "sym:demo/pkg/core.py#helper"]
    assert g.table("Commit", valid_to=None, current=True).height == 2


def test_rel_table_rows_have_their_ends(g: vectorgraphdb.Graph) -> None:
    every = g.table("CALLS")
    assert sorted(zip(every["from_id"], every["to_id"], strict=True)) == CALLS
    assert set(every["from_table"]) == {"Symbol"} and set(every["to_table"]) == {"Symbol"}
    by_kind = g.table("INHERITS", kind="extends", columns=["kind", "resolution"])
    assert by_kind.columns == ["from_id", "to_id", "from_table", "to_table", "kind",
                               "resolution"]
    assert by_kind.select("from_id", "to_id").rows() == [
        ("sym:demo/pkg/app.py#App", "sym:demo/pkg/core.py#Base")]


def test_table_over_its_limit_warns_with_the_total(g: vectorgraphdb.Graph) -> None:
    with pytest.warns(LimitWarning, match=r"^Symbol: showing 3 of 11 rows"):
        frame = g.table("Symbol", limit=3)
    assert frame["id"].to_list() == SYMBOLS[:3]


def test_table_bad_names_are_clear_errors(g: vectorgraphdb.Graph) -> None:
    with pytest.raises(QueryError, match="no table named 'Symbols'"):
        g.table("Symbols")
    with pytest.raises(QueryError, match="Symbol has no property 'path'") as caught:
        g.table("Symbol", path="pkg/core.py")
    assert "qualname" in caught.value.suggestion


def test_tables_counts_rows(g: vectorgraphdb.Graph) -> None:
    counts = dict(g.tables().select("table", "rows").iter_rows())
    assert (counts["Symbol"], counts["Commit"], counts["Person"], counts["CALLS"]) == (11, 2, 3, 5)


# ------------------------------------------------------------------------------- subgraphs
def test_code_subgraph_of_a_repository(g: vectorgraphdb.Graph) -> None:
    sub = g.subgraph(repo="demo")
    assert sub.nodes["id"].to_list() == sorted(["repo:demo", *FILES, *SYMBOLS])
    assert not sub.sampled and sub.counts == {"nodes": 16, "edges": 25}
    kinds = dict(sub.edges.group_by("rel").len().iter_rows())
    assert kinds == {"CONTAINS": 15, "CALLS": 5, "IMPORTS": 3, "INHERITS": 1, "TESTS": 1}
    assert "docstring" not in sub.nodes.columns  # long texts are left out unless asked


def test_to_networkx_and_to_igraph(g: vectorgraphdb.Graph) -> None:
    graph = g.to_networkx(repo="demo", edges=["CALLS", "INHERITS"], tables=["Symbol"])
    assert isinstance(graph, nx.MultiDiGraph)
    assert sorted(graph.nodes) == SYMBOLS
    assert sorted((a, b) for a, b, k in graph.edges(keys=True) if k == "CALLS") == CALLS
    assert list(graph.edges(keys=True)).count(
        ("sym:demo/pkg/app.py#App", "sym:demo/pkg/core.py#Base", "INHERITS")) == 1
    assert graph.nodes["sym:demo/pkg/core.py#helper"]["kind"] == "function"
    assert graph.nodes["sym:demo/pkg/core.py#helper"]["table"] == "Symbol"
    ig = g.to_igraph(repo="demo", edges=["CALLS"], tables=["Symbol"])
    assert isinstance(ig, igraph.Graph) and ig.is_directed()
    assert (ig.vcount(), ig.ecount()) == (11, 5)
    helper = ig.vs.find(name="sym:demo/pkg/core.py#helper")
    assert sorted(ig.vs[n]["name"] for n in ig.predecessors(helper)) == [
        "sym:demo/pkg/app.py#App.start", "sym:demo/pkg/core.py#Base.run"]


def test_history_subgraph_brings_in_people_through_edges(g: vectorgraphdb.Graph) -> None:
    sub = g.subgraph(domain="history", repo="demo", edges=["AUTHORED", "PARENT"])
    tables = dict(sub.nodes.group_by("table").len().iter_rows())
    assert tables == {"Commit": 2, "Person": 2}
    assert sorted(sub.nodes.filter(pl.col("table") == "Person")["id"]) == [
        "person:ann@example.org", "person:bo@example.org"]
    assert sorted(sub.edges["rel"]) == ["AUTHORED", "AUTHORED", "PARENT"]


def test_subgraph_as_of_a_past_time(g: vectorgraphdb.Graph) -> None:
    between = datetime(2023, 11, 14, 23, 30)  # after the first commit, before the second
    sub = g.subgraph(repo="demo", tables=["Symbol"], as_of=between)
    assert sub.nodes["id"].to_list() == [
        "sym:demo/pkg/__init__.py#<module>", "sym:demo/pkg/core.py#<module>",
        "sym:demo/pkg/core.py#Base", "sym:demo/pkg/core.py#Base.run",
        "sym:demo/pkg/core.py#helper"]
    # code edges are valid from the ingest that found them (the working tree's structure is
    # not versioned, docs/history.md): at a time before the ingest there are none
    assert sub.edges.height == 0
    assert g.subgraph(repo="demo", tables=["Symbol"]).edges.height == 9


def test_community_subgraph(g: vectorgraphdb.Graph) -> None:
    membership = g.membership("demo")
    big = membership.group_by("community").len().sort("len", descending=True)["community"][0]
    files = membership.filter(pl.col("community") == big)["id"].sort().to_list()
    assert files == ["file:demo/pkg/app.py", "file:demo/pkg/core.py",
                     "file:demo/tests/test_app.py"]
    sub = g.subgraph(community=big, tables=["File", "Symbol"], edges=["IMPORTS"])
    # the community's files, and the symbols they import (brought in by the edges)
    assert sub.nodes.select("id", "table").rows() == [
        *((f, "File") for f in files), ("sym:demo/pkg/app.py#main", "Symbol"),
        ("sym:demo/pkg/core.py#Base", "Symbol"), ("sym:demo/pkg/core.py#helper", "Symbol")]
    assert sub.edges.select("from_id", "to_id").rows() == [
        ("file:demo/pkg/app.py", "sym:demo/pkg/core.py#Base"),
        ("file:demo/pkg/app.py", "sym:demo/pkg/core.py#helper"),
        ("file:demo/tests/test_app.py", "sym:demo/pkg/app.py#main")]


def test_subgraph_over_the_limit_is_refused(g: vectorgraphdb.Graph) -> None:
    with pytest.raises(SubgraphTooLargeError, match=r"^subgraph has 16 nodes and 25 edges; "
                                                    r"limits are 10 nodes and 200,000 edges") \
            as caught:
        g.to_networkx(repo="demo", max_nodes=10)
    assert (caught.value.nodes, caught.value.edges) == (16, 25)
    assert "on_limit='sample'" in caught.value.suggestion
    with pytest.raises(SubgraphTooLargeError, match="limits are 50,000 nodes and 5 edges"):
        g.subgraph(repo="demo", max_edges=5)


def test_subgraph_over_the_limit_samples_with_a_warning(g: vectorgraphdb.Graph) -> None:
    with pytest.warns(LimitWarning, match=r"subgraph has 16 nodes .*sampling \(seed 3\)"):
        sub = g.subgraph(repo="demo", max_nodes=8, on_limit="sample", seed=3)
    assert sub.sampled and 1 <= sub.nodes.height <= 8
    kept = set(sub.nodes["id"])
    assert set(sub.edges["from_id"]) <= kept and set(sub.edges["to_id"]) <= kept
    with pytest.warns(LimitWarning):
        again = g.subgraph(repo="demo", max_nodes=8, on_limit="sample", seed=3)
    assert again.nodes.equals(sub.nodes) and again.edges.equals(sub.edges)
    with pytest.warns(LimitWarning, match="limits are 50,000 nodes and 5 edges"):
        few = g.subgraph(repo="demo", max_edges=5, on_limit="sample")
    assert few.edges.height <= 5


def test_ends_of_edges_count_against_the_node_limit(g: vectorgraphdb.Graph) -> None:
    """Two commits fit max_nodes=3, but their authors come in with the AUTHORED edges."""
    choice = {"domain": "history", "repo": "demo", "edges": ["AUTHORED"], "max_nodes": 3}
    with pytest.raises(SubgraphTooLargeError, match="has 4 nodes with the ends of its edges; "
                                                    "limit is 3"):
        g.subgraph(**choice)
    with pytest.warns(LimitWarning, match="sampling 3"):
        sub = g.subgraph(**choice, on_limit="sample")
    assert sub.sampled and sub.nodes.height == 3
    kept = set(sub.nodes["id"])
    assert set(sub.edges["from_id"]) | set(sub.edges["to_id"]) <= kept


def test_subgraph_properties(g: vectorgraphdb.Graph) -> None:
    full = g.subgraph(repo="demo", tables=["Symbol"], edges=[], properties="all")
    assert {"docstring", "signature"} <= set(full.nodes.columns)
    assert full.edges.height == 0 and full.nodes.height == 11
    with pytest.raises(QueryError, match="on_limit must be 'raise' or 'sample'"):
        g.subgraph(on_limit="ignore")  # type: ignore[arg-type]


def test_subgraph_bad_choices_are_clear_errors(g: vectorgraphdb.Graph) -> None:
    with pytest.raises(QueryError, match=r"no repository named 'nope' \(ingested: demo\)"):
        g.subgraph(repo="nope")
    with pytest.raises(QueryError, match="unknown domain 'codes'"):
        g.subgraph(domain="codes")
    with pytest.raises(QueryError, match="unknown edge kind 'CALL'"):
        g.subgraph(edges=["CALL"])
    with pytest.raises(QueryError, match="no community 'community:demo/file/0/99'"):
        g.subgraph(community="community:demo/file/0/99")


# ------------------------------------------------------------------- wrappers over queries
def test_communities_as_frames(g: vectorgraphdb.Graph) -> None:
    frame = g.communities("demo")
    assert frame["size"].sum() == 4  # every code file in one community of level 0
    membership = g.membership("demo")
    assert sorted(membership["id"]) == FILES
    for cid, size in frame.select("id", "size").iter_rows():
        assert g.members(cid)["id"].to_list() == sorted(
            membership.filter(pl.col("community") == cid)["id"])
        assert len(g.members(cid)) == size
    deps = g.community_dependencies("demo")
    assert deps.columns == ["from_id", "to_id", "from_name", "to_name", "weight", "edges"]
    misplaced = g.misplaced("demo")
    assert misplaced.columns == [f for f in Misplaced.__dataclass_fields__]


def test_entries_failures_and_supersession(g: vectorgraphdb.Graph) -> None:
    entries = g.entries(history=True)
    assert entries["display_id"].to_list() == ["INT-1", "DEC-1", "PAT-1", "FAIL-1", "RES-1",
                                               "FAIL-2", "INS-1", "DEC-2", "DEC-3", "NOTE-1"]
    assert g.entries(kind="decision")["display_id"].to_list() == ["DEC-2", "DEC-3"]
    failures = g.failures()
    assert failures.height == 1 and len(failures["failures"][0]) == 2
    assert failures["resolutions"][0][0]["display_id"] == "RES-1"
    chain = g.supersession("DEC-1")
    assert chain.select("display_id", "current").rows() == [("DEC-1", False), ("DEC-2", True)]
    assert chain["superseded_by"][0] == chain["id"][1]
    assert chain["reason"][0].startswith("COPY into a populated table")


def test_impact_and_provenance(g: vectorgraphdb.Graph) -> None:
    frame = g.impact(["pkg/core.py#helper"], depth=1).to_polars()
    assert frame.filter(pl.col("distance") == 1)["id"].sort().to_list() == [
        "file:demo/pkg/app.py", "sym:demo/pkg/app.py#App.start",
        "sym:demo/pkg/core.py#Base.run"]
    p = g.provenance("pkg/app.py#main")
    commits = vectorgraphdb.to_frame(p.commits)
    assert commits["kind"].to_list() == ["added"]
    with pytest.raises(NodeNotFoundError):
        g.provenance("pkg/app.py#nothing")


def test_to_frame_keeps_types_when_empty() -> None:
    frame = vectorgraphdb.to_frame([], cls=Misplaced)
    assert frame.schema == {"node": pl.Utf8, "container": pl.Utf8, "community": pl.Utf8,
                            "expected": pl.Utf8, "weight_own": pl.Float64,
                            "weight_expected": pl.Float64}
    with pytest.raises(TypeError, match="dataclass"):
        vectorgraphdb.to_frame([1, 2])


def test_graph_is_read_only_and_closes(db: Path) -> None:
    graph = vectorgraphdb.open(db)
    assert "read-only" in repr(graph)
    with pytest.raises(StoreError, match="read-only"):
        graph.detect_communities("demo", fresh=True)
    graph.close()
    with pytest.raises(StoreError, match="closed"):
        graph.cypher("MATCH (n:File) RETURN count(*)")
    with pytest.raises(StoreError, match="no database"):
        vectorgraphdb.open(db.parent / "missing")
