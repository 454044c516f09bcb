"""queries.impact on a real multi-file Python repository (git, ingested into Kuzu): exact
impacted sets and tests, explaining paths, change sets from git diffs, communities, entries,
papers, bad input, and the CLI in every format."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphdb import Store
from ingest.history.diff import RefNotFoundError, diff_changes
from ingest.pipeline import IngestOptions, ingest_repository
from queries.impact import MAX_DEPTH, ImpactOptions, impact
from schema import NodeNotFoundError, QueryError
from tests.gitrepo import GitRepo
from tests.helpers import run_vgdb
from tests.helpers import vgdb_in_process as _vgdb

FILES: dict[str, str | bytes] = {
    "pkg/__init__.py": "",
    "pkg/core.py": """
        class Base:
            def run(self):
                return helper()


        def helper():
            return 1


        def unused():
            return 0
        """,
    "pkg/sub.py": """
        from pkg.core import Base, helper


        class Child(Base):
            def go(self):
                return helper() + 1


        class GrandChild(Child):
            pass
        """,
    "pkg/use.py": """
        import pkg.sub


        def main():
            return pkg.sub.Child().go()
        """,
    "pkg/config.py": """
        from pkg.core import helper

        LIMIT = helper()
        """,
    "pkg/app.py": """
        from pkg import config


        def get_limit():
            return config.LIMIT
        """,
    "tests/test_core.py": """
        from pkg.core import helper, unused
        from pkg.sub import Child


        def test_helper():
            assert helper() == 1


        def test_unused():
            assert unused() == 0


        class TestChild:
            def test_go(self):
                assert Child().go() == 2
        """,
    "tests/test_app.py": """
        import pytest
        from pkg.app import get_limit


        @pytest.fixture
        def lim():
            return get_limit()


        def test_limit(lim):
            assert lim == 1
        """,
    "README.md": "# shop\n",
    "logo.bin": b"\x89PNG\x00\x01\x02",
}


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[GitRepo, Path]]:
    """The repository above, committed and ingested (code and history) as ``shop``."""
    base = tmp_path_factory.mktemp("impact")
    repo = GitRepo(base / "shop")
    repo.commit("init", FILES)
    db = base / "db"
    with Store.open(db) as store:
        ingest_repository(store, repo.root, options=IngestOptions(name="shop"))
    yield repo, db


@pytest.fixture
def reader(shop: tuple[GitRepo, Path]) -> Iterator[Store]:
    with Store.open(shop[1], read_only=True) as store:
        yield store


def _ids(nodes: object) -> dict[str, tuple[int, float]]:
    return {n.id.split("/", 1)[1]: (n.distance, round(n.score, 4))  # type: ignore[attr-defined]
            for n in nodes}  # type: ignore[attr-defined]


def test_helper_impacts_callers_classes_importers_and_tests(reader: Store) -> None:
    r = impact(reader, ["pkg/core.py#helper"])
    assert r.targets == ("sym:shop/pkg/core.py#helper",)
    assert _ids(r.symbols) == {
        "pkg/core.py#helper": (0, 1.0),
        "pkg/core.py#Base.run": (1, 0.76),
        "pkg/sub.py#Child.go": (1, 0.76),
        "pkg/config.py#<module>": (1, 0.76),
        "tests/test_core.py#test_helper": (1, 0.76),
        "pkg/core.py#Base": (2, 0.5472),
        "pkg/sub.py#Child": (2, 0.5472),
        "pkg/sub.py#GrandChild": (3, 0.4159),
        "pkg/use.py#main": (2, 0.5776),
        "tests/test_core.py#TestChild.test_go": (2, 0.5776),
    }
    assert [n.id for n in r.symbols][:1] == ["sym:shop/pkg/core.py#helper"]
    assert [s.score for s in r.symbols] == sorted((s.score for s in r.symbols), reverse=True)
    # a file's best: its own node (app.py: through the module code of config.py it imports)
    # or its best impacted symbol; sub.py's import of helper alone does not spread to use.py
    assert _ids(r.files) == {
        "pkg/core.py": (0, 1.0), "pkg/sub.py": (1, 0.76), "pkg/config.py": (1, 0.76),
        "tests/test_core.py": (1, 0.76), "pkg/app.py": (3, 0.3743), "pkg/use.py": (2, 0.5776),
    }
    assert [t.node_id for t in r.tests] == ["tests/test_core.py::test_helper",
                                           "tests/test_core.py::TestChild::test_go"]
    assert r.test_ids() == ("tests/test_core.py::TestChild::test_go",
                            "tests/test_core.py::test_helper")
    assert r.notes == () and not r.truncated


def test_every_impacted_node_explains_itself_with_its_best_path(reader: Store) -> None:
    r = impact(reader, ["pkg/core.py#helper"])
    by = {n.id: n for n in r.symbols}
    grand = by["sym:shop/pkg/sub.py#GrandChild"]
    assert [(e.src, e.kind, e.dst) for e in grand.via] == [
        ("sym:shop/pkg/sub.py#Child.go", "CALLS", "sym:shop/pkg/core.py#helper"),
        ("sym:shop/pkg/sub.py#Child", "CONTAINS", "sym:shop/pkg/sub.py#Child.go"),
        ("sym:shop/pkg/sub.py#GrandChild", "INHERITS", "sym:shop/pkg/sub.py#Child"),
    ]
    assert [(e.resolution, e.source, e.confidence) for e in grand.via] == [
        ("import", "ast", 0.95), ("", "ast", 1.0), ("same_module", "ast", 0.95)]
    assert grand.explain() == ("sym:shop/pkg/core.py#helper <-CALLS- "
                               "sym:shop/pkg/sub.py#Child.go <-CONTAINS- "
                               "sym:shop/pkg/sub.py#Child <-INHERITS- "
                               "sym:shop/pkg/sub.py#GrandChild")
    # score = product of confidence x weight x decay along the path
    assert grand.score == pytest.approx(0.95 * 0.8 * 0.9 * 0.8 * 0.95 * 0.8, abs=1e-6)
    app = next(f for f in r.files if f.path == "pkg/app.py")
    assert [e.kind for e in app.via] == ["CALLS", "CONTAINS", "IMPORTS"]
    frame = r.to_polars()
    assert frame.columns == ["id", "table", "name", "kind", "path", "is_test", "distance",
                             "score", "target", "via"]
    assert frame.height == len(r.symbols) + len(r.files)


def test_module_level_use_spreads_through_importers_and_runs_their_test_files(
        reader: Store) -> None:
    """config.py calls helper at import time: its import-time state changed, so its
    importers (app.py) and theirs (tests/test_app.py, importing app.get_limit) are impacted and
    that test file runs whole; ordinary imports of helper (sub.py) do not spread."""
    r = impact(reader, ["pkg/core.py#helper"], depth=5)
    assert [(t.node_id, t.reason) for t in r.tests] == [
        ("tests/test_core.py::test_helper", "reached"),
        ("tests/test_core.py::TestChild::test_go", "reached"),
        ("tests/test_app.py", "module")]
    test_app = r.tests[2]
    assert [(e.src, e.kind, e.dst) for e in test_app.via] == [
        ("sym:shop/pkg/config.py#<module>", "CALLS", "sym:shop/pkg/core.py#helper"),
        ("file:shop/pkg/config.py", "CONTAINS", "sym:shop/pkg/config.py#<module>"),
        ("file:shop/pkg/app.py", "IMPORTS", "file:shop/pkg/config.py"),
        ("file:shop/tests/test_app.py", "IMPORTS", "sym:shop/pkg/app.py#get_limit")]
    assert "sym:shop/pkg/app.py#get_limit" not in {n.id for n in r.symbols}


def test_a_reached_fixture_selects_the_tests_requesting_it(reader: Store) -> None:
    """app.get_limit is used by a fixture, which test_limit requests as a parameter."""
    r = impact(reader, ["pkg/app.py#get_limit"])
    assert _ids(r.symbols) == {"pkg/app.py#get_limit": (0, 1.0),
                               "tests/test_app.py#lim": (1, 0.76),
                               "tests/test_app.py#test_limit": (2, 0.5472)}
    assert [(t.node_id, t.reason, t.id) for t in r.tests] == [
        ("tests/test_app.py::test_limit", "reached", "sym:shop/tests/test_app.py#test_limit")]


def test_file_target_stands_for_its_symbols(reader: Store) -> None:
    r = impact(reader, ["pkg/core.py"], depth=0)
    assert {n.id for n in r.symbols} == {
        "sym:shop/pkg/core.py#<module>", "sym:shop/pkg/core.py#Base",
        "sym:shop/pkg/core.py#Base.run", "sym:shop/pkg/core.py#helper",
        "sym:shop/pkg/core.py#unused"}
    assert all(n.distance == 0 and n.score == 1.0 for n in r.symbols)
    assert [f.id for f in r.files] == ["file:shop/pkg/core.py"]
    assert r.tests == ()
    one = impact(reader, ["pkg/core.py"], depth=1)
    # a file target's import-time state changed: test files importing from it run whole
    assert [(t.node_id, t.reason) for t in one.tests] == [("tests/test_core.py", "module")]
    # importers of the file's symbols are impacted files
    assert {"file:shop/pkg/sub.py", "file:shop/pkg/config.py",
            "file:shop/tests/test_core.py"} <= {f.id for f in one.files}


def test_a_class_impacts_its_subclasses_and_a_test_target_is_its_own_test(reader: Store
                                                                           ) -> None:
    r = impact(reader, ["sym:shop/pkg/core.py#Base"], depth=2, edge_kinds=["INHERITS"])
    assert _ids(r.symbols) == {"pkg/core.py#Base": (0, 1.0),
                               "pkg/core.py#Base.run": (0, 1.0),
                               "pkg/sub.py#Child": (1, 0.76),
                               "pkg/sub.py#GrandChild": (2, 0.5776)}
    t = impact(reader, ["tests/test_core.py#TestChild"], depth=3)
    assert [x.node_id for x in t.tests] == ["tests/test_core.py::TestChild"]
    assert {n.id for n in t.symbols} == {"sym:shop/tests/test_core.py#TestChild",
                                        "sym:shop/tests/test_core.py#TestChild.test_go"}


def test_per_kind_depth_limits(reader: Store) -> None:
    calls_once = ImpactOptions(max_depth=(("CALLS", 1),))
    r = impact(reader, ["pkg/core.py#helper"], options=calls_once)
    assert "sym:shop/pkg/use.py#main" not in {n.id for n in r.symbols}
    assert "sym:shop/pkg/sub.py#GrandChild" in {n.id for n in r.symbols}


def test_depth_zero_huge_depth_limit_and_bad_options(reader: Store) -> None:
    zero = impact(reader, ["pkg/core.py#helper"], depth=0)
    assert [n.id for n in zero.symbols] == ["sym:shop/pkg/core.py#helper"]
    assert zero.tests == ()
    huge = impact(reader, ["pkg/core.py#helper"], depth=1000)
    assert huge.depth == MAX_DEPTH
    assert huge.notes == (f"depth 1000 capped at {MAX_DEPTH}",)
    cut = impact(reader, ["pkg/core.py#helper"], limit=2)
    assert cut.truncated and len(cut.symbols) == 2 and len(cut.files) == 2
    assert len(cut.tests) == 2  # tests are never cut
    whole = impact(reader, ["pkg/core.py#helper"])  # uncut: counts what the cut left out
    assert not whole.truncated and (whole.symbols_omitted, whole.files_omitted) == (0, 0)
    assert (cut.symbols_omitted, cut.files_omitted) == (
        len(whole.symbols) - 2, len(whole.files) - 2) and cut.symbols_omitted > 0
    assert cut.to_dict()["symbols_omitted"] == cut.symbols_omitted  # what --json prints
    with pytest.raises(QueryError, match="depth must be >= 0"):
        impact(reader, ["pkg/core.py#helper"], depth=-1)
    with pytest.raises(QueryError, match="unknown edge kinds"):
        impact(reader, ["pkg/core.py#helper"], edge_kinds=["FOLLOWS"])


def test_unknown_targets_are_one_error_naming_all(reader: Store) -> None:
    with pytest.raises(NodeNotFoundError) as err:
        impact(reader, ["pkg/core.py#helper", "nope.py#f", "sym:shop/pkg/core.py#gone"])
    assert err.value.message == "unknown targets: nope.py#f, sym:shop/pkg/core.py#gone"
    assert err.value.node_id == "nope.py#f"
    with pytest.raises(QueryError, match="is not code"):
        impact(reader, ["entry:nope"])


def test_empty_graph(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "proj")
    repo.commit("init", {"a.py": "def f():\n    return 1\n"})
    with Store.open(tmp_path / "db") as store:
        with pytest.raises(NodeNotFoundError, match=r"unknown targets: a\.py#f"):
            impact(store, ["a.py#f"])
        nothing = impact(store, [])
        assert (nothing.symbols, nothing.files, nothing.tests) == ((), (), ())
        with pytest.raises(NodeNotFoundError, match="no repository in the graph was ingested"):
            impact(store, diff_changes(repo.root))


def test_communities_entries_and_papers_around_the_impact(tmp_path: Path) -> None:
    from ingest.sessions import Recorder

    repo = GitRepo(tmp_path / "shop")
    repo.commit("init", {k: v for k, v in FILES.items() if k.endswith(".py")})
    with Store.open(tmp_path / "db") as store:
        ingest_repository(store, repo.root, options=IngestOptions(name="shop"))
        assert impact(store, ["pkg/core.py#helper"]).communities == ()
        rec = Recorder(store, session="s-1", title="helpers", agent="claude-code",
                       model="opus", repo="shop")
        first = rec.record_decision("helper returns 1", category="api", scope=["pkg/core.py"],
                                    symbols=["pkg/core.py#helper"])
        second = rec.record_decision("helper returns one", category="api",
                                     scope=["pkg/core.py"], symbols=["pkg/core.py#helper"],
                                     supersedes=[first.id], reason="wording")
        failure = rec.record_failure("AssertionError in go", file="pkg/sub.py",
                                     symbols=["pkg/sub.py#Child.go"])
        with store.write() as tx:
            tx.execute("CREATE (:Community {id: 'community:shop/file/0/1', name: 'core', "
                       "level: 0}), (:Community {id: 'community:shop/file/0/2', name: 'rest', "
                       "level: 0})")
            for sym, com in (("pkg/core.py#helper", 1), ("pkg/sub.py#Child.go", 2),
                             ("pkg/use.py#main", 2)):
                tx.execute("MATCH (s:Symbol {id: $s}), (c:Community {id: $c}) "
                           "CREATE (s)-[:IN_COMMUNITY]->(c)",
                           {"s": f"sym:shop/{sym}", "c": f"community:shop/file/0/{com}"})
            tx.execute("CREATE (:Paper {id: 'paper:doi:10.1/x', title: 'Helpers considered', "
                       "kind: 'paper'})")
            tx.execute("MATCH (s:Symbol {id: 'sym:shop/pkg/core.py#helper'}), "
                       "(p:Paper {id: 'paper:doi:10.1/x'}) CREATE (s)-[:REFERENCES "
                       "{kind: 'implements', source: 'ast', confidence: 0.9}]->(p)")
        r = impact(store, ["pkg/core.py#helper"])
    assert [(c.id, c.name, c.members) for c in r.communities] == [
        ("community:shop/file/0/1", "core", ("sym:shop/pkg/core.py#helper",)),
        ("community:shop/file/0/2", "rest", ("sym:shop/pkg/sub.py#Child.go",
                                             "sym:shop/pkg/use.py#main"))]
    assert [(e.display_id, e.current, e.superseded_by) for e in r.entries] == [
        (second.display_id, True, ()), (failure.display_id, True, ()),
        (first.display_id, False, (second.id,))]
    assert r.entries[2].status == "superseded"
    assert [(p.id, p.relation, p.about, p.confidence) for p in r.papers] == [
        ("paper:doi:10.1/x", "implements", ("sym:shop/pkg/core.py#helper",), 0.9)]


# ------------------------------------------------------------------------------ change sets
@pytest.fixture
def changed(tmp_path: Path) -> tuple[GitRepo, Path, str]:
    """shop at ``base``, then a commit that edits helper, deletes unused, renames use.py,
    edits README and the binary; ingested at that head."""
    repo = GitRepo(tmp_path / "shop")
    base = repo.commit("init", FILES)
    core = str(FILES["pkg/core.py"]).replace("return 1", "return 2")
    core = core[:core.index("        def unused")].rstrip() + "\n"
    repo.write({"pkg/core.py": core, "README.md": "# shop v2\n", "logo.bin": b"\x89PNG\x00\x09"})
    repo.move("pkg/use.py", "pkg/entry.py")
    repo.commit("change")
    with Store.open(tmp_path / "db") as store:
        ingest_repository(store, repo.root, options=IngestOptions(name="shop"))
    return repo, tmp_path / "db", base


def test_diff_maps_lines_to_symbols_and_deleted_ones_to_their_scope(
        changed: tuple[GitRepo, Path, str]) -> None:
    repo, db, base = changed
    cs = diff_changes(repo.root, base=base, head="HEAD")
    with Store.open(db, read_only=True) as store:
        r = impact(store, cs)
        deep = impact(store, cs, depth=5)
    c = r.changes
    assert c is not None and c.repo == "shop" and c.head == repo.git("rev-parse", "HEAD")
    assert c.files == (("README.md", "modified"), ("logo.bin", "modified"),
                       ("pkg/core.py", "modified"), ("pkg/entry.py", "renamed"))
    assert [(s.id, s.change, s.in_graph) for s in c.symbols] == [
        ("sym:shop/pkg/core.py#<module>", "modified", True),
        ("sym:shop/pkg/core.py#helper", "modified", True),
        ("sym:shop/pkg/core.py#unused", "deleted", True),  # history keeps deleted symbols
    ]
    # the deleted function starts impact from its enclosing scope (the module); a renamed
    # file from the file itself (its module name changed)
    assert c.seeds == ("sym:shop/pkg/core.py#helper", "sym:shop/pkg/core.py#<module>",
                       "file:shop/pkg/entry.py")
    assert r.notes == ("2 changed file(s) are binary or not code and start no impact: "
                       "README.md, logo.bin",)
    # module-level change of core.py: every test file importing from it runs whole
    assert [(t.node_id, t.reason) for t in r.tests] == [("tests/test_core.py", "module")]
    assert [(e.src, e.kind) for e in r.tests[0].via] == [
        ("file:shop/pkg/core.py", "CONTAINS"), ("file:shop/tests/test_core.py", "IMPORTS")]
    assert [(t.node_id, t.reason) for t in deep.tests] == [
        ("tests/test_core.py", "module"), ("tests/test_app.py", "module")]


def test_working_tree_diff_and_mismatch_notes(changed: tuple[GitRepo, Path, str]) -> None:
    repo, db, base = changed
    (repo.root / "pkg" / "sub.py").write_text(
        str(FILES["pkg/sub.py"]).replace("helper() + 1", "helper() + 10 + 1")
        .replace("\n        ", "\n").lstrip("\n"), encoding="utf-8")
    (repo.root / "notes.txt").write_text("untracked\n", encoding="utf-8")
    cs = diff_changes(repo.root)
    assert [(f.path, f.status) for f in cs.files] == [("notes.txt", "added"),
                                                      ("pkg/sub.py", "modified")]
    with Store.open(db, read_only=True) as store:
        r = impact(store, cs, depth=1)
        assert [s.id for s in r.changes.symbols] == ["sym:shop/pkg/sub.py#Child.go"]
        assert any("pkg/sub.py changed since it was ingested" in n for n in r.notes)
        old = impact(store, diff_changes(repo.root, base=base, head=base), depth=1)
        assert any(f"but the diff's head is {base[:12]}" in n for n in old.notes)
        assert old.symbols == () and "the change touches no code in the graph" in old.notes


def test_bad_refs_are_clear_errors(changed: tuple[GitRepo, Path, str]) -> None:
    repo, _, _ = changed
    with pytest.raises(RefNotFoundError, match="git revision 'no-such-branch' not found"):
        diff_changes(repo.root, base="no-such-branch")


# ---------------------------------------------------------------------------------------- CLI


def test_cli_impact_in_every_format(shop: tuple[GitRepo, Path],
                                    capsys: pytest.CaptureFixture[str]) -> None:
    _, db = shop
    text = _vgdb(capsys, "impact", "pkg/core.py#helper", "--db", str(db), "--depth", "1",
                 "--wide")  # whole lines: the assertions below match them
    assert text.returncode == 0, text.stderr
    assert text.stdout.splitlines()[0] == ("impact of 1 target(s) at depth 1: 5 symbols, "
                                           "4 files, 1 tests to run")
    assert ("  0.760 1 pkg/sub.py#Child.go  pkg/core.py#helper <-[CALLS import 0.95]- "
            "pkg/sub.py#Child.go") in text.stdout.splitlines()
    assert "  tests/test_core.py::test_helper  (reached, 0.760)" in text.stdout
    data = json.loads(_vgdb(capsys, "impact", "pkg/core.py#helper", "--db", str(db),
                            "--format", "json").stdout)
    assert data["targets"] == ["sym:shop/pkg/core.py#helper"]
    assert data["symbols"][1]["via"][0]["kind"] == "CALLS"
    md = _vgdb(capsys, "impact", "pkg/core.py#helper", "--db", str(db), "--format", "markdown")
    assert md.stdout.startswith("## Change impact\n")
    assert "| 0.760 | 1 | `pkg/sub.py#Child.go` |" in md.stdout
    assert "tests/test_core.py::TestChild::test_go" in md.stdout
    bad = _vgdb(capsys, "impact", "nope.py#f", "--db", str(db))
    assert (bad.returncode, bad.stdout) == (1, "")
    assert "unknown targets: nope.py#f" in bad.stderr
    usage = _vgdb(capsys, "impact", "--db", str(db))
    assert usage.returncode == 2 and "pass TARGET" in usage.stderr


def test_cli_affected_tests_prints_node_ids(changed: tuple[GitRepo, Path, str],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    _, db, base = changed
    out = run_vgdb("affected-tests", "--base", base, "--head", "HEAD", "--db", str(db))
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["tests/test_app.py", "tests/test_core.py"]
    assert "note: 2 changed file(s) are binary or not code" in out.stderr
    none = _vgdb(capsys, "affected-tests", "--base", "HEAD", "--head", "HEAD", "--db", str(db))
    assert (none.returncode, none.stdout) == (0, "")
    assert "the change touches no code in the graph" in none.stderr
    js = json.loads(_vgdb(capsys, "affected-tests", "--base", base, "--head", "HEAD", "--db",
                          str(db), "--format", "json").stdout)
    assert [(t["node_id"], t["reason"]) for t in js["tests"]] == [
        ("tests/test_core.py", "module"), ("tests/test_app.py", "module")]
    assert js["tests"][0]["why"] == [
        "file:shop/pkg/core.py -CONTAINS-> sym:shop/pkg/core.py#<module>",
        # `from pkg.core import unused`: the name is gone, the import resolves to the module
        "file:shop/tests/test_core.py -IMPORTS-> file:shop/pkg/core.py"]
    one = _vgdb(capsys, "affected-tests", "pkg/core.py#helper", "--db", str(db), "--depth", "1")
    assert one.stdout.splitlines() == ["tests/test_core.py::test_helper"]
    bad = _vgdb(capsys, "affected-tests", "--base", "nope", "--db", str(db))
    assert bad.returncode == 2 and "git revision 'nope' not found" in bad.stderr


def test_a_fixture_in_conftest_selects_the_tests_requesting_it(tmp_path: Path) -> None:
    """Tests name their fixtures as parameters: a change reaching a fixture (here through a
    fixture requesting another one) selects exactly those tests, not the directory."""
    repo = GitRepo(tmp_path / "lib")
    repo.commit("init", {
        "pkg/__init__.py": "",
        "pkg/core.py": "def make():\n    return 1\n\n\ndef other():\n    return 2\n",
        "tests/__init__.py": "",
        "tests/conftest.py": ("import pytest\nfrom pkg.core import make\n\n\n@pytest.fixture\n"
                              "def thing():\n    return make()\n\n\n@pytest.fixture\n"
                              "def wrapped(thing):\n    return thing\n"),
        "tests/test_thing.py": ("def test_thing(thing):\n    assert thing == 1\n\n\n"
                                "def test_wrapped(wrapped):\n    assert wrapped == 1\n\n\n"
                                "def test_other():\n    assert True\n"),
    })
    with Store.open(tmp_path / "db") as store:
        ingest_repository(store, repo.root, options=IngestOptions(name="lib", workers=1))
        result = impact(store, ["pkg/core.py#make"], depth=5)
        assert sorted((t.node_id, t.reason) for t in result.tests) == [
            ("tests/test_thing.py::test_thing", "reached"),
            ("tests/test_thing.py::test_wrapped", "reached")]
        # other() is imported by no conftest and called by nothing: no test
        assert impact(store, ["pkg/core.py#other"], depth=5).tests == ()


def test_an_autouse_fixture_in_conftest_selects_the_tests_of_its_directory(
        tmp_path: Path) -> None:
    """Nobody names an autouse fixture (or a hook): it may serve any test of its directory,
    and pytest collects nothing from a conftest.py named alone, so the directory runs."""
    repo = GitRepo(tmp_path / "lib")
    repo.commit("init", {
        "pkg/__init__.py": "",
        "pkg/core.py": "def make():\n    return 1\n",
        "tests/__init__.py": "",
        "tests/conftest.py": ("import pytest\nfrom pkg.core import make\n\n\n"
                              "@pytest.fixture(autouse=True)\ndef thing():\n    make()\n"),
        "tests/test_thing.py": "def test_thing():\n    assert True\n",
    })
    with Store.open(tmp_path / "db") as store:
        ingest_repository(store, repo.root, options=IngestOptions(name="lib", workers=1))
        result = impact(store, ["pkg/core.py#make"], depth=5)
    assert [(t.node_id, t.path, t.reason) for t in result.tests] == [
        ("tests/", "tests/conftest.py", "file")]
