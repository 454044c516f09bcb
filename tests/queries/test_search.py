"""queries.search: BM25 (tantivy) + vectors + graph proximity fused (z-score, RRF), trust and
freshness, superseded facts, filters that still return k, keyword index updates, bad query text,
"similar across domains", and `vgdb search`. Real Kuzu over a small ingested repository with
entries and papers."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from api.cli import main
from graphdb import Store, bm25, ensure_keyword, index_nodes, keyword_terms, make_searchable
from ingest.pipeline import IngestOptions, ingest_repository
from ingest.sessions import Recorder
from queries.search import DEFAULT_WEIGHTS, SearchWeights, fuse, search, similar
from schema import QueryError
from tests.gitrepo import GitRepo

FILES = {
    "fs/__init__.py": "",
    "fs/tree.py": (
        "from fs.walk import walk_files\n\n\n"
        "def remove_tree(path):\n"
        "    \"\"\"Delete a directory and everything below it.\"\"\"\n"
        "    for f in walk_files(path):\n        f.unlink()\n\n\n"
        "def copy_tree(src, dst):\n"
        "    \"\"\"Copy a directory recursively to another place.\"\"\"\n"
        "    return [dst for _ in walk_files(src)]\n"),
    "fs/walk.py": (
        "def walk_files(root):\n"
        "    \"\"\"Yield every file below root.\"\"\"\n    return []\n"),
    "net/headers.py": (
        "def parse_header_line(line):\n"
        "    \"\"\"Split one HTTP header line into its name and value.\"\"\"\n"
        "    return line.split(':', 1)\n\n\n"
        "class HeaderParser:\n"
        "    def getHeaderBlock(self, text):\n"
        "        \"\"\"Read the block of headers before the body.\"\"\"\n"
        "        return text\n"),
    "util/checksum.py": (
        "def crc32_of_file(path):\n"
        "    \"\"\"Compute the CRC-32 checksum of a file's bytes.\"\"\"\n    return 0\n"),
    "web/tree.js": (
        "// Delete a directory tree from the browser cache.\n"
        "function removeCachedTree(dir) { return dir; }\n"),
}
NOW = datetime.now(UTC).replace(tzinfo=None)
PAPER = "paper:doi:10.1/crc"
FS = "community:proj/file/0/0"


def _build(root: Path) -> Path:
    repo = GitRepo(root / "proj")
    repo.commit("add", FILES)
    db = root / "db"
    with Store.open(db) as store:
        ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
        rec = Recorder(store, session="s-1", title="cleanup", agent="claude-code", model="m")
        old = rec.record_decision("Delete directories with shutil rmtree",
                                  "Use shutil.rmtree to delete a directory tree.",
                                  category="fs", scope=["fs/tree.py"], at=NOW - timedelta(60))
        rec.record_decision("Delete directories with remove_tree",
                            "Use fs.tree.remove_tree to delete a directory tree: it logs.",
                            category="fs", scope=["fs/tree.py"], supersedes=[old.id],
                            reason="logging", at=NOW - timedelta(2))
        with store.write() as tx:
            tx.execute(
                "CREATE (:Paper {id: $id, title: 'Cyclic redundancy checks for file "
                "integrity', abstract: 'How a CRC-32 checksum detects corrupted file bytes.', "
                "kind: 'paper', year: $y, resolved: true, status: 'active', source: 'import', "
                "confidence: 1.0})", {"id": PAPER, "y": NOW.year})
            tx.execute("MATCH (s:Symbol {id: 'sym:proj/util/checksum.py#crc32_of_file'}), "
                       "(p:Paper {id: $id}) CREATE (s)-[:REFERENCES {kind: 'implements', "
                       "source: 'user', confidence: 1.0}]->(p)", {"id": PAPER})
            # a community of fs/tree.py with a sub-community of fs/walk.py (as Leiden writes)
            tx.execute(f"CREATE (:Community {{id: '{FS}', repo: 'proj', scope: 'file', "
                       f"level: 0, number: 0}}), (:Community {{id: '{FS}/sub', repo: 'proj', "
                       "scope: 'file', level: 1, number: 0})")
            tx.execute(f"MATCH (a:Community {{id: '{FS}/sub'}}), (b:Community {{id: '{FS}'}}) "
                       "CREATE (a)-[:SUBCOMMUNITY_OF]->(b)")
            for file, com in (("fs/tree.py", FS), ("fs/walk.py", f"{FS}/sub")):
                tx.execute("MATCH (f:File {id: $f}), (c:Community {id: $c}) "
                           "CREATE (f)-[:IN_COMMUNITY]->(c)", {"f": f"file:proj/{file}", "c": com})
        make_searchable(store)  # the paper above was written by raw Cypher, no write path
    return db


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build(tmp_path_factory.mktemp("search"))


@pytest.fixture
def ro(db: Path):
    with Store.open(db, read_only=True) as store:
        yield store


def test_bm25_over_names_words_and_docstrings(ro: Store) -> None:
    assert keyword_terms('getHeaderLine "AND" (x*)') == "getheaderline get header line and x"
    assert [h.id for h in bm25(ro, "header line", table="Symbol", k=1)] == [
        "sym:proj/net/headers.py#parse_header_line"]
    # camelCase is found as written and by its words (the index holds both) ...
    assert bm25(ro, "getHeaderBlock", table="Symbol", k=1)[0].id == \
        "sym:proj/net/headers.py#HeaderParser.getHeaderBlock"
    assert bm25(ro, "header block", table="Symbol", k=1)[0].id == \
        "sym:proj/net/headers.py#HeaderParser.getHeaderBlock"
    # ... and snake_case by its words (the tokenizer splits on '_' and '.')
    assert bm25(ro, "crc32 file", table="Symbol", k=1)[0].id == \
        "sym:proj/util/checksum.py#crc32_of_file"
    assert bm25(ro, "crc checksum", table="Paper", k=5)[0].id == PAPER
    assert bm25(ro, "!!! ()", table="Symbol") == []


def test_hybrid_top_hits_and_signals(ro: Store) -> None:
    result = search(ro, "delete a directory and everything below it", k=3, domains=["code"])
    top = result.hits[0]
    assert top.id == "sym:proj/fs/tree.py#remove_tree"
    assert (top.bm25.rank, top.vector.rank, top.graph) == (1, 1, None)
    assert (top.trust, top.freshness, top.domain, top.name) == (100, 1.0, "code", "remove_tree")
    assert result.signals == ("bm25", "vector")
    rrf = search(ro, "delete a directory and everything below it", k=3, domains=["code"],
                 weights=SearchWeights(bm25=1.0, fusion="rrf")).hits[0]
    assert (rrf.id, rrf.fused) == (top.id, pytest.approx(2 / 61))
    assert len(result.hits) == 3
    frame = result.to_polars()
    assert frame["id"].to_list() == [h.id for h in result.hits]
    assert frame.columns[:4] == ["id", "table", "domain", "name"]
    paper = search(ro, "checksum to detect corrupted bytes", k=1, domains=["academic"]).hits[0]
    assert (paper.id, paper.trust) == (PAPER, 60)
    age = max(0.0, (NOW - datetime(NOW.year, 7, 1)).days)  # a year only: from mid-year
    assert paper.freshness == pytest.approx(max(0.3, 1 - 0.7 * age / 365), abs=0.01)


def test_filters_still_return_k(ro: Store) -> None:
    # only one fs/ symbol has the word "checksum"-like text; vectors fill up to k
    fs = search(ro, "checksum", k=4, path="fs/*.py")
    assert len(fs.hits) == 4
    assert {h.location for h in fs.hits} <= {"file:proj/fs/tree.py", "file:proj/fs/walk.py",
                                             "file:proj/fs/__init__.py"}
    assert len(search(ro, "checksum", k=4, path="**/walk.py").hits) == 2  # all there are
    js = search(ro, "delete a directory tree", k=5, language="javascript")
    assert {h.id for h in js.hits[:2]} == {"sym:proj/web/tree.js#removeCachedTree",
                                           "sym:proj/web/tree.js#<module>"}
    assert {h.table for h in js.hits} == {"Symbol"}
    assert all(h.location == "file:proj/web/tree.js" for h in js.hits)
    everything = search(ro, "directory", k=100)
    assert len(everything.hits) == len({h.id for h in everything.hits})
    with pytest.raises(QueryError, match="unknown domain"):
        search(ro, "x", domains=["gossip"])


def test_community_filter_still_returns_k(ro: Store) -> None:
    members = {"sym:proj/fs/tree.py#<module>", "sym:proj/fs/tree.py#remove_tree",
               "sym:proj/fs/tree.py#copy_tree", "sym:proj/fs/walk.py#<module>",
               "sym:proj/fs/walk.py#walk_files"}  # both files' symbols, sub-community included
    # no member has the word "checksum": BM25 gives nothing, the vectors fill up to k
    found = search(ro, "checksum", k=4, community=FS)
    assert len(found.hits) == 4
    assert {h.id for h in found.hits} < members
    assert {h.id for h in search(ro, "checksum", k=10, community=FS).hits} == members
    assert {h.id for h in search(ro, "files", k=10, community=f"{FS}/sub").hits} == {
        "sym:proj/fs/walk.py#<module>", "sym:proj/fs/walk.py#walk_files"}
    with pytest.raises(QueryError, match="no community"):
        search(ro, "x", community="community:proj/file/0/9")


def test_as_of_filter_still_returns_k(ro: Store) -> None:
    then = NOW - timedelta(30)  # after the first decision (60 days ago), before the second
    history = search(ro, "delete directories", k=5, domains=["history"], as_of=then)
    assert [h.name for h in history.hits] == ["Delete directories with shutil rmtree"]
    assert history.hits[0].trust == 40  # 30 days old at `then`
    # every symbol (committed in 2023), the paper (no start date) and that decision: 16
    assert len(search(ro, "directory", k=5, as_of=then).hits) == 5
    everything = search(ro, "directory", k=50, as_of=then)
    assert len(everything.hits) == 16
    assert "Delete directories with remove_tree" not in {h.name for h in everything.hits}
    early = search(ro, "directory", k=5, as_of=datetime(2020, 1, 1, tzinfo=UTC))
    assert [h.id for h in early.hits] == [PAPER]  # only what has no start date


def test_fuse_zscore_and_rrf() -> None:
    lists = {"bm25": [("a", 4.0), ("b", 2.0), ("c", 2.0)],
             "vector": [("b", 0.9), ("a", 0.5), ("d", 0.4)]}
    std_b = float(np.std([4.0, 2.0, 2.0]))
    std_v = float(np.std([0.9, 0.5, 0.4]))
    got = fuse(lists, SearchWeights(bm25=0.5, vector=1.0))
    assert got == pytest.approx({"a": 0.5 * 2 / std_b + 0.1 / std_v, "b": 0.5 / std_v,
                                 "c": 0.0, "d": 0.0})
    # a short BM25 list is everything BM25 matched: the missing count as zeros
    assert fuse({"bm25": [("a", 3.0)]}, SearchWeights(), depth=4) == pytest.approx(
        {"a": 0.33 * 3 / float(np.std([3.0, 0, 0, 0]))})
    assert fuse({"vector": [("a", 0.7)]}, SearchWeights(), depth=4) == {"a": 1.0}
    rrf = fuse(lists, SearchWeights(bm25=1.0, fusion="rrf"))
    assert rrf == pytest.approx({"a": 1 / 61 + 1 / 62, "b": 1 / 62 + 1 / 61, "c": 1 / 63,
                                 "d": 1 / 63})
    assert fuse(lists, SearchWeights(bm25=0.0, vector=0.0)) == {}


def test_default_fusion_lets_a_lone_bm25_match_win(ro: Store) -> None:
    with pytest.raises(QueryError, match="unknown fusion"):
        search(ro, "x", weights=SearchWeights(fusion="max"))
    # "crc32" is in one symbol's name only: BM25 has one hit, standing far out
    top = search(ro, "crc32", k=3, domains=["code"]).hits[0]
    assert top.id == "sym:proj/util/checksum.py#crc32_of_file"
    assert top.bm25 is not None and top.bm25.rank == 1


def test_trust_and_freshness_tables() -> None:
    """The issue's figures, one by one (the integration tests cover code, papers, entries)."""
    from queries.search import _freshness, _trust

    assert _trust("Symbol", {}, None) == 100
    assert [_trust("Entry", {}, d) for d in (1.0, 6.9, 7.0, 29.9, 30.0, None)] == [
        80, 80, 60, 60, 40, 40]
    assert [_trust("Paper", {"kind": k}, 10.0) for k in ("rfc", "standard", "doc", "software",
                                                         "paper", "book", "blog")] == [
        70, 70, 70, 70, 60, 60, 30]
    assert _trust("Entry", {"source": "inferred"}, 1.0) == 20  # unverified
    assert _trust("Paper", {"resolved": False}, 1.0) == 20  # a stub known from a reference
    assert _freshness("Symbol", 900.0) == 1.0
    assert [_freshness("Entry", d) for d in (0.0, 90.0, 180.0, 400.0)] == [1.0, 0.6, 0.2, 0.2]
    assert [_freshness("Paper", d) for d in (0.0, 365.0, 900.0)] == [1.0, 0.3, 0.3]


def test_node_type_and_language_filters_return_k(ro: Store) -> None:
    papers = search(ro, "directory", k=3, tables=["Paper"])
    assert [h.id for h in papers.hits] == [PAPER]  # the only paper
    entries = search(ro, "delete", k=5, tables=["Entry"])
    assert {h.table for h in entries.hits} == {"Entry"} and len(entries.hits) == 2
    py = search(ro, "delete a directory tree", k=6, language="python")
    assert len(py.hits) == 6 and all(h.location.endswith(".py") for h in py.hits)
    with pytest.raises(QueryError, match="covers no table"):
        search(ro, "x", tables=["Commit"])


def test_superseded_entry_is_demoted_with_a_pointer(ro: Store) -> None:
    result = search(ro, "delete directories", k=5, domains=["history"])
    new, old = result.hits
    assert new.name == "Delete directories with remove_tree"
    assert old.name == "Delete directories with shutil rmtree"
    assert old.superseded_by == (new.id,)
    assert (old.freshness, new.superseded_by) == (0.1, ())
    assert (new.trust, old.trust) == (80, 40)  # 2 days old, 60 days old
    assert new.freshness == pytest.approx(1 - 0.8 * 2 / 180, abs=1e-3)
    assert old.vector is None  # ended in valid time: not in the vector index, found by BM25
    assert old.score < new.score


def test_graph_proximity_and_mmr(ro: Store) -> None:
    result = search(ro, "files", k=3, near=["sym:proj/fs/tree.py#remove_tree"])
    walk = next(h for h in result.hits if h.id == "sym:proj/fs/walk.py#walk_files")
    assert walk.graph is not None and walk.graph.score == 1.0
    assert "graph" in result.signals
    only_graph = search(ro, "", k=10, near=["sym:proj/fs/tree.py#remove_tree"],
                        domains=["code"])
    assert only_graph.signals == ("graph",)
    assert only_graph.hits[0].graph.rank == 1
    with pytest.raises(QueryError, match="no node"):
        search(ro, "x", near=["sym:nope"])
    plain = search(ro, "delete a directory", k=4)
    diverse = search(ro, "delete a directory", k=4, mmr=0.3)
    assert {h.id for h in diverse.hits} <= {h.id for h in search(ro, "delete a directory",
                                                                    k=50).hits}
    assert diverse.hits[0].id == plain.hits[0].id


def test_bad_query_text_never_crashes(ro: Store) -> None:
    for text in ('"unterminated', "(* OR AND NOT)", "a:b", "'; DROP TABLE Symbol; --", "ü ß"):
        result = search(ro, text, k=3)
        assert len(result.hits) == 3  # the vector signal still answers
    for text in ("", "   "):
        with pytest.raises(QueryError, match="empty search query"):
            search(ro, text)
    with pytest.raises(QueryError, match="k must be"):
        search(ro, "x", k=0)


def test_weights_preset_is_frozen_and_switches_signals(ro: Store) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT_WEIGHTS.bm25 = 2.0  # type: ignore[misc]
    only_bm25 = search(ro, "header line", k=2, weights=SearchWeights(vector=0.0))
    assert only_bm25.signals == ("bm25",)
    assert only_bm25.hits[0].id == "sym:proj/net/headers.py#parse_header_line"


def test_similar_across_domains_with_context(ro: Store) -> None:
    found = similar(ro, "sym:proj/util/checksum.py#crc32_of_file", k_per_domain=2)
    code = found.domain("code")
    assert "sym:proj/util/checksum.py#crc32_of_file" not in {h.id for h in code}
    paper = found.domain("academic")[0]
    assert paper.id == PAPER
    assert [(x.id, x.rel, x.domain) for x in paper.links] == [
        ("sym:proj/util/checksum.py#crc32_of_file", "REFERENCES", "code")]
    history = found.domain("history")
    assert len(history) == 1  # the superseded decision is not current: only the new one
    assert found.to_polars().height == len(found.hits)
    text = similar(ro, "delete a directory tree", k_per_domain=1)
    assert [h.domain for h in text.hits] == ["code", "history", "academic"]


def test_keyword_index_follows_an_update(tmp_path: Path) -> None:
    db = _build(tmp_path)
    with Store.open(db) as store:
        assert ensure_keyword(store).tables == (("Symbol", "ok"), ("Entry", "ok"),
                                                ("Paper", "ok"))
        # an in-place SET of an indexed field, then the ids handed to the index
        with store.write() as tx:
            tx.execute("MATCH (s:Symbol {id: 'sym:proj/fs/walk.py#walk_files'}) "
                       "SET s.docstring = 'Enumerate the leaves of a hierarchy.'")
        assert index_nodes(store, "Symbol", ["sym:proj/fs/walk.py#walk_files"]) == 1
        assert [h.id for h in bm25(store, "hierarchy leaves", table="Symbol")] == [
            "sym:proj/fs/walk.py#walk_files"]
        assert bm25(store, "yield", table="Symbol") == []  # the old docstring's word
        assert search(store, "hierarchy leaves", k=1).hits[0].id == \
            "sym:proj/fs/walk.py#walk_files"
    # a re-ingest of a changed file: the ingest's last step syncs the index (digests)
    repo = tmp_path / "proj"
    (repo / "util/checksum.py").write_text(
        "def crc32_of_file(path):\n    \"\"\"Fingerprint the contents of a file.\"\"\"\n")
    with Store.open(db) as store:
        summary = ingest_repository(store, repo, options=IngestOptions(name="proj"))
        assert summary.search is not None
        assert summary.search["keyword"]["Symbol"]["updated"] == 1
        assert summary.search["keyword"]["Symbol"]["added"] == 0
        assert ensure_keyword(store).of("Symbol") == "ok"
        assert bm25(store, "fingerprint contents", table="Symbol", k=1)[0].id == \
            "sym:proj/util/checksum.py#crc32_of_file"
        assert bm25(store, "compute bytes", table="Symbol") == []  # the old docstring
        assert search(store, "fingerprint contents", k=1).hits[0].id == \
            "sym:proj/util/checksum.py#crc32_of_file"


def test_recorded_decision_ranks_first_at_once(db: Path, tmp_path: Path) -> None:
    """The function the API's recordDecision calls (Recorder.record_decision) leaves the
    entry findable by keyword and vector before it returns: no embed, no sync."""
    import shutil

    copy = tmp_path / "db"
    shutil.copytree(db, copy)
    title = "Quarantine flaky zeppelin fixtures behind a marker"
    with Store.open(copy) as store:
        rec = Recorder(store, session="s-2", title="tests", agent="claude-code", model="m")
        made = rec.record_decision(title, "Mark them so CI can skip them.", category="tests")
        found = search(store, title, k=3)
        assert found.hits[0].id == made.id
        assert found.hits[0].bm25 is not None and found.hits[0].bm25.rank == 1
        assert found.hits[0].vector is not None and found.hits[0].vector.rank == 1
        assert ensure_keyword(store).of("Entry") == "ok"


def test_read_only_without_keyword_index_says_so(tmp_path: Path) -> None:
    import shutil

    repo = GitRepo(tmp_path / "proj")
    repo.commit("add", {"a.py": "def remove_tree(p):\n    \"\"\"Delete it.\"\"\"\n"})
    with Store.open(tmp_path / "db") as store:
        ingest_repository(store, repo.root, options=IngestOptions(name="proj", embed=False))
    shutil.rmtree(tmp_path / "db" / "keyword" / "Symbol")
    with Store.open(tmp_path / "db", read_only=True) as store:
        result = search(store, "delete", k=2)
    assert result.hits == ()
    assert any(n.startswith("bm25 off for Symbol: no index on this read-only database")
               for n in result.notes)
    assert any("vector off" in n for n in result.notes)
    assert not (tmp_path / "db" / "keyword" / "Symbol").exists()  # nothing written


def test_cli_search(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["search", "crc32 checksum", "--db", str(db), "--k", "2", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["hits"][0]["id"] == "sym:proj/util/checksum.py#crc32_of_file"
    assert data["hits"][0]["bm25"]["rank"] == 1
    assert len(data["hits"]) == 2
    main(["search", "delete", "--db", str(db), "--k", "3", "--path", "fs/*.py",
          "--near", "sym:proj/fs/walk.py#walk_files"])
    out = capsys.readouterr().out
    assert "search: delete" in out and "3 rows" in out


def test_graph_proximity_counts_entries_in_scope_as_near(tmp_path: Path) -> None:
    """An entry whose scope covers a near file or symbol is one hop from it, as one linked
    by ABOUT is; one scoped elsewhere is not near."""
    root = tmp_path / "src"
    root.mkdir()
    for path, text in FILES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    with Store.open(tmp_path / "db") as store:
        ingest_repository(store, root, options=IngestOptions(name="proj"))
        me = Recorder(store, session="near", repo="proj")
        about = me.record_decision("tree removal unlinks files", symbols=["fs/tree.py#remove_tree"])
        scoped = me.record_decision("fs stays synchronous", scope=["fs/**"])
        elsewhere = me.record_decision("headers are bytes", scope=["net/*.py"])
        one_hop = dataclasses.replace(DEFAULT_WEIGHTS, hops=1)
        found = search(store, "", k=10, near=["sym:proj/fs/tree.py#remove_tree"],
                       tables=["Entry"], weights=one_hop)
        assert {h.id: h.graph.score for h in found.hits} == {about.id: 1.0, scoped.id: 1.0}
        from_file = search(store, "", k=10, near=["file:proj/net/headers.py"],
                           tables=["Entry"], weights=one_hop)
        assert [h.id for h in from_file.hits] == [elsewhere.id]
