"""Recorded coverage beside the static graph, on a real git repository whose real pytest suite
runs under pytest-cov with per-test contexts (in a subprocess): what ``ingest-coverage``
stores, how ``impact``/``affected-tests`` combine coverage, the static graph and the
conservative rules, bi-temporal replacement, bad coverage files, the CLI, and the pytest
plugin (``pytest --vgdb-select``)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pytest
from coverage import CoverageData

from graphdb import Store
from graphdb.coverage import coverage_state, ran_outside_tests
from ingest.coverage import ingest_coverage, parse_context
from ingest.history.diff import diff_changes
from ingest.pipeline import IngestOptions, ingest_repository
from queries.impact import impact
from schema import EXECUTES, CoverageDataError, QueryError
from tests.gitrepo import GitRepo
from tests.helpers import vgdb_in_process as _vgdb

FILES: dict[str, str | bytes] = {
    "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    "calc/__init__.py": """
        from calc.core import add, mul


        def __getattr__(name):
            raise AttributeError(name)
        """,
    "calc/core.py": """
        SCALE = 1


        def add(a, b):
            return a + b


        def mul(a, b):
            return a * b * SCALE


        def dec(f):
            f.tagged = True
            return f


        def square(x):
            return x * x


        def clamp(x):
            return max(x, 0)


        def unused(x):
            return x
        """,
    "tests/conftest.py": """
        import pytest


        @pytest.fixture
        def two():
            from calc import add
            return add(1, 1)
        """,
    "tests/data/table.json": '{"rows": []}\n',
    "tests/helpers.py": """
        from calc.core import square

        SQUARES = [square(i) for i in range(3)]
        """,
    "tests/test_add.py": """
        import pytest

        from calc import add
        from calc.core import clamp


        def test_add():
            assert add(1, 2) == 3


        def test_add_positive():
            total = add(1, 2)
            assert total > 0 or clamp(total) == 0


        class TestMore:
            @pytest.mark.parametrize("x", [1, 2])
            def test_add_param(self, x):
                assert add(x, 0) == x
        """,
    "tests/test_mul.py": """
        from calc.core import dec, mul


        @dec
        def helper():
            return 1


        def test_mul(two):
            assert mul(two, 3) == 6
        """,
    "tests/test_square.py": """
        import pytest

        import calc  # noqa: F401 - pytest's collection asks it for fixture markers
        from calc.core import add, mul
        from helpers import SQUARES


        def test_squares():
            assert SQUARES == [0, 1, 4]


        @pytest.mark.parametrize("n", [0, 2])
        def test_scale(n):
            assert (mul(n, 1) if n else add(n, 0)) == n
        """,
    "tests/test_unused.py": """
        import pytest

        from calc.core import unused


        @pytest.mark.skip(reason="never runs: no coverage")
        def test_unused():
            assert unused(1) == 1
        """,
}
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
VGDB_BIN = str(Path(sys.executable).with_name("vgdb"))


def record(root: Path, data: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """Run the repository's suite under pytest-cov with per-test contexts; data to ``data``
    (outside the tree, so the working tree stays clean)."""
    env = {**os.environ, "COVERAGE_FILE": str(data)}
    env.pop("PYTHONPATH", None)
    return subprocess.run([*PYTEST, "--cov=calc", *extra], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


@dataclass
class Recorded:
    repo: GitRepo
    db: Path
    data: Path
    head: str
    first: str


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    """calc at two commits (the first without ``unused``), ingested at the second, with
    coverage recorded there and stored."""
    base = tmp_path_factory.mktemp("cov")
    repo = GitRepo(base / "calc")
    first_files = dict(FILES)
    first_files["calc/core.py"] = str(FILES["calc/core.py"]).split("        def unused")[0]
    first_files.pop("tests/test_unused.py")
    first = repo.commit("init", first_files)
    head = repo.commit("unused", FILES)
    data = base / "cov.data"
    run = record(repo.root, data, "--cov-context=test")
    assert run.returncode == 0, run.stdout + run.stderr
    db = base / "db"
    with Store.open(db) as store:
        ingest_repository(store, repo.root, options=IngestOptions(name="calc"))
        ingest_coverage(store, data, repo="calc")
    return Recorded(repo, db, data, head, first)


def _edges(store: Store, *, current: bool = True) -> list[tuple[str, ...]]:
    cond = "e.valid_to IS NULL" if current else "e.valid_to IS NOT NULL"
    rows = store.cypher(f"MATCH (t)-[e:{EXECUTES.name}]->(x) WHERE {cond} RETURN t.id, x.id, "
                        "e.lines, e.phases, e.cases, e.source, e.commit ORDER BY t.id, x.id")
    return [tuple(r) for r in rows.rows()]


def test_contexts_name_tests_and_phases() -> None:
    assert parse_context("tests/t.py::A::test_b[x::y]|run") == ("tests/t.py", ("A", "test_b"),
                                                                "run", "x::y")
    assert parse_context("tests/t.py|collect") == ("tests/t.py", (), "collect", "")
    assert parse_context("src/pkg/m.py|import") == ("src/pkg/m.py", (), "import", "")
    assert parse_context("tests/t.py::test_c|setup") == ("tests/t.py", ("test_c",), "setup",
                                                         "")
    assert parse_context("tests/t.py::test_d[a-[b]]") == ("tests/t.py", ("test_d",), "run",
                                                          "a-[b]")
    assert parse_context("") is None
    assert parse_context("label") is None


def test_ingest_stores_which_test_executed_which_symbol(recorded: Recorded) -> None:
    with Store.open(recorded.db, read_only=True) as store:
        edges = _edges(store)
        state = coverage_state(store, "calc")
        outside = ran_outside_tests(store, "calc")
    h = recorded.head
    p = "sym:calc/"
    assert edges == [
        # importing the package (the plugin's import contexts, from each module's symbol):
        # module-level lines and def lines
        (f"{p}calc/__init__.py#<module>", f"{p}calc/__init__.py#<module>", "1,4", "import",
         "", "coverage", h),
        (f"{p}calc/core.py#<module>", f"{p}calc/core.py#<module>", "4,8,12,17,21,25",
         "import", "", "coverage", h),
        (f"{p}calc/core.py#<module>", f"{p}calc/core.py#SCALE", "1", "import", "", "coverage",
         h),
        # a test helper module ran square while it was imported
        (f"{p}tests/helpers.py#<module>", f"{p}calc/core.py#square", "18", "import", "",
         "coverage", h),
        (f"{p}tests/test_add.py#TestMore.test_add_param", f"{p}calc/core.py#add", "5", "run",
         "", "coverage", h),
        (f"{p}tests/test_add.py#test_add", f"{p}calc/core.py#add", "5", "run", "", "coverage",
         h),
        (f"{p}tests/test_add.py#test_add_positive", f"{p}calc/core.py#add", "5", "run", "",
         "coverage", h),
        # a module-level decorator of the test module ran while it was imported
        (f"{p}tests/test_mul.py#<module>", f"{p}calc/core.py#dec", "13-14", "collect", "",
         "coverage", h),
        # the conftest fixture ran add while test_mul was set up
        (f"{p}tests/test_mul.py#test_mul", f"{p}calc/core.py#add", "5", "setup", "",
         "coverage", h),
        (f"{p}tests/test_mul.py#test_mul", f"{p}calc/core.py#mul", "9", "run", "", "coverage",
         h),
        # each case of a parametrized test ran one of them
        (f"{p}tests/test_square.py#test_scale", f"{p}calc/core.py#add", "5", "run", '["0"]',
         "coverage", h),
        (f"{p}tests/test_square.py#test_scale", f"{p}calc/core.py#mul", "9", "run", '["2"]',
         "coverage", h),
    ]
    assert (state or {})["commit"] == h and state["tests"] == 6 and state["edges"] == 12
    assert state["import_contexts"] == 3
    # pytest's collection (not the import) called calc.__getattr__: no test owns it, and it
    # is kept as code that ran outside the tests (so it is no never-executed code)
    assert outside == {f"{p}calc/__init__.py#__getattr__"}


def test_covered_function_selects_exactly_the_tests_that_executed_it(
        recorded: Recorded) -> None:
    with Store.open(recorded.db, read_only=True) as store:
        mul = impact(store, ["calc/core.py#mul"], depth=5)
        add = impact(store, ["calc/core.py#add"], depth=5)
        static = impact(store, ["calc/core.py#add"], depth=5, coverage=False)
    # per parametrized case: test_scale[0] ran add, not mul
    assert [(t.node_id, t.evidence, t.reason) for t in mul.tests] == [
        ("tests/test_mul.py::test_mul", "coverage", "executed"),
        ("tests/test_square.py::test_scale[2]", "coverage", "executed")]
    t = mul.tests[0]
    assert [(e.src, e.kind, e.dst, e.source) for e in t.via] == [
        ("sym:calc/tests/test_mul.py#test_mul", "EXECUTES", "sym:calc/calc/core.py#mul",
         "coverage")]
    assert t.why == f"executed calc/core.py#mul (lines 9) when coverage was recorded at " \
                    f"{recorded.head[:12]}"
    # add: the tests that ran it, including through the conftest fixture test_mul requests
    assert add.test_ids() == ("tests/test_add.py::TestMore::test_add_param",
                              "tests/test_add.py::test_add",
                              "tests/test_add.py::test_add_positive",
                              "tests/test_mul.py::test_mul",
                              "tests/test_square.py::test_scale[0]")
    assert {t.evidence for t in add.tests} == {"coverage"}
    assert "coverage of calc recorded at" in add.notes[0]
    # the static graph alone reaches the same tests, explained by paths
    assert {t.evidence for t in static.tests} <= {"static", "rule"}
    assert not any("coverage" in n for n in static.notes)


def test_uncovered_function_falls_back_to_the_static_graph(recorded: Recorded) -> None:
    """``unused`` ran in no test (its test is skipped, so the recording has no run of it):
    the static graph selects that test. ``clamp`` ran in no test either, but the one test
    calling it ran (and did not reach it): by default it is not selected."""
    with Store.open(recorded.db, read_only=True) as store:
        r = impact(store, ["calc/core.py#unused"], depth=5)
        clamp = impact(store, ["calc/core.py#clamp"], depth=5)
        clamp_static = impact(store, ["calc/core.py#clamp"], depth=5, never_executed="static")
        with pytest.raises(QueryError, match="never_executed must be one of"):
            impact(store, ["calc/core.py#clamp"], never_executed="maybe")
    assert [(t.node_id, t.evidence, t.reason) for t in r.tests] == [
        ("tests/test_unused.py::test_unused", "static", "reached")]
    assert r.tests[0].why == "static path from calc/core.py#unused (1 edges); the recording " \
                             "holds no run of this test"
    assert "0 of 1 changed definitions" in r.notes[0]
    assert clamp.tests == ()
    assert "1 changed definition(s) ran in no test when coverage was recorded: 1 test(s) the " \
           "static graph reaches from them ran without reaching them and are not selected" \
           in clamp.notes
    assert [(t.node_id, t.evidence) for t in clamp_static.tests] == [
        ("tests/test_add.py::test_add_positive", "static")]
    with Store.open(recorded.db, read_only=True) as store:  # trusting coverage instead
        skip = impact(store, ["calc/core.py#unused"], depth=5, never_executed="skip")
    assert skip.tests == ()
    assert "1 changed definition(s) ran in no test when coverage was recorded and select " \
           "none: sym:calc/calc/core.py#unused" in skip.notes


def test_function_run_at_test_module_import_uses_coverage_and_static(
        recorded: Recorded) -> None:
    """``dec`` runs while test_mul.py is imported: that module (whole) by coverage, plus
    whatever the static graph reaches."""
    with Store.open(recorded.db, read_only=True) as store:
        r = impact(store, ["calc/core.py#dec"], depth=5)
    assert (r.tests[0].node_id, r.tests[0].evidence) == ("tests/test_mul.py", "coverage")
    assert "while the test module was imported" in r.tests[0].why
    assert r.test_ids() == ("tests/test_mul.py",)


def test_function_run_while_a_helper_module_was_imported_selects_its_importers(
        recorded: Recorded) -> None:
    """``square`` runs while tests/helpers.py is imported (whichever test module imports it
    first): every test file importing the helper runs, by the import rule."""
    with Store.open(recorded.db, read_only=True) as store:
        r = impact(store, ["calc/core.py#square"], depth=5)
    assert [(t.node_id, t.evidence, t.reason) for t in r.tests] == [
        ("tests/helpers.py", "rule", "module"), ("tests/test_square.py", "rule", "module")]


def test_recording_without_the_plugin_keeps_what_ran_outside_the_tests(
        recorded: Recorded, tmp_path: Path) -> None:
    """Without the plugin's labels (``-p no:vgdb``) the import of tests/helpers.py, and the
    call of ``square`` it makes, run under no context: ``square`` is kept as ran outside the
    tests, so it is no never-executed code, and the static graph selects for it."""
    data = tmp_path / "plain.data"
    run = record(recorded.repo.root, data, "--cov-context=test", "-p", "no:vgdb")
    assert run.returncode == 0, run.stdout + run.stderr
    with Store.open(tmp_path / "db") as store:
        ingest_repository(store, recorded.repo.root, options=IngestOptions(name="calc"))
        s = ingest_coverage(store, data, repo="calc")
        outside = ran_outside_tests(store, "calc")
        r = impact(store, ["calc/core.py#square"], depth=5)
        state = coverage_state(store, "calc")
    assert outside == {"sym:calc/calc/__init__.py#__getattr__", "sym:calc/calc/core.py#SCALE",
                       "sym:calc/calc/core.py#dec", "sym:calc/calc/core.py#square"}
    assert s.outside_tests_lines > 0 and (state or {})["import_contexts"] == 0
    assert r.test_ids() == ("tests/helpers.py", "tests/test_square.py")
    assert {t.evidence for t in r.tests} == {"rule"}


def test_diff_rules_for_module_level_config_and_data(recorded: Recorded) -> None:
    """Working-tree changes of a covered body, module-level code, a data file and the
    configuration: coverage, the import rule, the nearest test directory, every test. (The
    graph keeps the committed spans: these edits keep every line where it was.)"""
    repo = recorded.repo

    def affected() -> list[tuple[str, str, str]]:
        with Store.open(recorded.db, read_only=True) as store:
            r = impact(store, diff_changes(repo.root, base="HEAD"), depth=5)
        affected.notes = r.notes  # type: ignore[attr-defined]
        return [(t.node_id, t.evidence, t.reason) for t in r.tests]

    core = str(FILES["calc/core.py"])
    try:
        repo.write({"calc/core.py": core.replace("a * b", "b * a")})
        assert affected() == [("tests/test_mul.py::test_mul", "coverage", "executed"),
                              ("tests/test_square.py::test_scale[2]", "coverage", "executed")]
        repo.write({"calc/core.py": core.replace("SCALE = 1", "SCALE = 2")})
        # module-level code: every test file importing the module (here the conftest.py
        # does, so its whole directory)
        assert affected() == [("tests/", "rule", "module")]
        repo.write({"tests/data/table.json": '{"rows": [1]}\n'})
        # the data rule's directory covers the module rule's files
        assert affected() == [("tests/", "rule", "data")]
        assert "tests/data/table.json is a data file: the tests under tests/ are selected" in \
            affected.notes  # type: ignore[attr-defined]
        repo.write({"pyproject.toml": str(FILES["pyproject.toml"]) + "addopts = '-ra'\n"})
        assert affected() == [("./", "rule", "config")]
    finally:
        repo.write({k: FILES[k] for k in ("calc/core.py", "tests/data/table.json",
                                          "pyproject.toml")})
    assert repo.git("status", "--porcelain") == ""


def test_newer_recording_ends_the_old_edges(tmp_path: Path) -> None:
    """Bi-temporal: coverage recorded at a newer commit (test_mul deselected) ends every
    current edge at that commit's time and adds the new ones; as_of reads the old ones."""
    repo = GitRepo(tmp_path / "calc")
    repo.commit("init", FILES)
    db, old, new = tmp_path / "db", tmp_path / "old.data", tmp_path / "new.data"
    assert record(repo.root, old, "--cov-context=test").returncode == 0
    with Store.open(db) as store:
        ingest_repository(store, repo.root, options=IngestOptions(name="calc"))
        first = ingest_coverage(store, old, repo="calc", now=datetime(2026, 11, 21, 12))
        # the same recording again (a rerun after a kill): nothing ended, nothing added
        again = ingest_coverage(store, old, repo="calc", now=datetime(2026, 11, 21, 12, 30))
        assert (again.ended, again.edges, len(_edges(store)),
                len(_edges(store, current=False))) == (0, 0, 12, 0)
        repo.commit("docs", {"README.md": "calc\n"})
        run = record(repo.root, new, "--cov-context=test", "-k",
                     "not test_mul and not test_scale")
        assert run.returncode == 0, run.stdout
        ingest_repository(store, repo.root, options=IngestOptions(name="calc"))
        second = ingest_coverage(store, new, repo="calc", now=datetime(2026, 11, 21, 13))
        current = _edges(store)
        ended = store.cypher(f"MATCH ()-[e:{EXECUTES.name}]->() WHERE e.valid_to IS NOT NULL "
                             "RETURN DISTINCT e.valid_to, e.expired_at").rows()
        now_mul = impact(store, ["calc/core.py#mul"], depth=5)
        then = impact(store, ["calc/core.py#mul"], depth=5, as_of=datetime(2023, 11, 14, 23, 30))
    assert (first.edges, second.ended, second.edges, len(current)) == (12, 12, 8, 8)
    assert ended == [(datetime(2023, 11, 15, 0, 13, 20), datetime(2026, 11, 21, 13))]
    assert not any("#test_mul" in e[0] or "#test_scale" in e[0] for e in current)
    # mul has no coverage now: the static graph selects its tests (the new recording holds no
    # run of them); as of the first recording: coverage
    assert [(t.node_id, t.evidence) for t in now_mul.tests] == [
        ("tests/test_mul.py::test_mul", "static"), ("tests/test_square.py::test_scale", "static")]
    assert [(t.node_id, t.evidence) for t in then.tests] == [
        ("tests/test_mul.py::test_mul", "coverage"),
        ("tests/test_square.py::test_scale[2]", "coverage")]


# -------------------------------------------------------------------------------- bad input
def _data(path: Path, lines: dict[str, list[int]], context: str | None = None) -> Path:
    data = CoverageData(basename=str(path))
    if context is not None:
        data.set_context(context)
    data.add_lines(lines)
    data.write()
    return path


def test_coverage_without_contexts_says_how_to_record(recorded: Recorded,
                                                      tmp_path: Path) -> None:
    # what `pytest --cov=calc` without --cov-context writes: lines under the empty context
    plain = _data(tmp_path / "plain.data", {str(recorded.repo.root / "calc/core.py"): [5]})
    with Store.open(recorded.db) as store, pytest.raises(CoverageDataError) as exc:
        ingest_coverage(store, plain, repo="calc")
    assert exc.value.reason == "no-contexts"
    assert "pytest --cov=PKG --cov-context=test" in exc.value.suggestion
    static = _data(tmp_path / "static.data", {str(recorded.repo.root / "calc/core.py"): [5]},
                   context="nightly")
    with Store.open(recorded.db) as store, pytest.raises(CoverageDataError) as exc:
        ingest_coverage(store, static, repo="calc")
    assert exc.value.reason == "no-test-contexts" and "nightly" in exc.value.message


def test_corrupt_and_missing_files_are_clear_errors(recorded: Recorded, tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.data"
    garbage.write_bytes(os.urandom(512))
    other_sqlite = tmp_path / "other.sqlite"
    with sqlite3.connect(other_sqlite) as conn:
        conn.execute("CREATE TABLE t (x)")
    truncated = tmp_path / "truncated.data"
    truncated.write_bytes(recorded.data.read_bytes()[:300])
    with Store.open(recorded.db) as store:
        for path, reason in ((garbage, "corrupt"), (other_sqlite, "corrupt"),
                             (truncated, "corrupt"), (tmp_path / "none.data", "missing")):
            with pytest.raises(CoverageDataError) as exc:
                ingest_coverage(store, path, repo="calc")
            assert exc.value.reason == reason, (path, exc.value.message)
        assert len(_edges(store)) == 12  # nothing was ended


def test_other_repository_and_other_commit_are_refused(recorded: Recorded,
                                                       tmp_path: Path) -> None:
    foreign = _data(tmp_path / "foreign.data", {"/elsewhere/proj/mod.py": [1, 2]},
                    context="tests/test_x.py::test_y|run")
    with Store.open(recorded.db) as store:
        with pytest.raises(CoverageDataError) as exc:
            ingest_coverage(store, foreign, repo="calc")
        assert exc.value.reason == "other-repository"
        assert "none of the 1 measured files is a file of repository calc" in exc.value.message
        with pytest.raises(CoverageDataError) as exc:
            ingest_coverage(store, recorded.data, repo="calc", commit=recorded.first)
        assert exc.value.reason == "other-commit"
        assert f"recorded at {recorded.first[:12]}" in exc.value.message
        assert len(_edges(store)) == 12


def test_unmapped_paths_are_reported_and_the_rest_stored(recorded: Recorded,
                                                         tmp_path: Path) -> None:
    """Measured in another checkout (a CI runner's path): mapped by the path's end; a file
    of no repository is reported."""
    mixed = _data(tmp_path / "mixed.data", {"/ci/runner/work/calc/calc/core.py": [9],
                                            "/usr/lib/python3/json/decoder.py": [1]},
                  context="tests/test_mul.py::test_mul|run")
    with Store.open(tmp_path / "db") as store:
        ingest_repository(store, recorded.repo.root, options=IngestOptions(name="calc"))
        s = ingest_coverage(store, mixed, repo="calc")
        edges = _edges(store)
    assert s.unmapped_files == ("/usr/lib/python3/json/decoder.py",)
    assert s.notes == ("1 measured file(s) are not files of calc and were skipped: "
                       "/usr/lib/python3/json/decoder.py",)
    assert [e[:3] for e in edges] == [("sym:calc/tests/test_mul.py#test_mul",
                                       "sym:calc/calc/core.py#mul", "9")]


# ------------------------------------------------------------------------------ CLI, plugin


def test_cli_ingest_coverage_and_affected_tests_json(
        recorded: Recorded, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "db")
    code, _, err = _vgdb(capsys, "ingest", str(recorded.repo.root), "--db", db, "--name",
                         "calc", "--no-communities")
    assert code == 0, err
    code, out, err = _vgdb(capsys, "ingest-coverage", str(recorded.data), "--db", db,
                           "--repo", "calc", "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert (summary["tests"], summary["edges"], summary["commit"]) == (6, 12, recorded.head)
    code, out, _ = _vgdb(capsys, "affected-tests", "calc/core.py#mul", "--db", db, "--format",
                         "json")
    assert [(t["node_id"], t["evidence"], t["reason"]) for t in json.loads(out)["tests"]] == [
        ("tests/test_mul.py::test_mul", "coverage", "executed"),
        ("tests/test_square.py::test_scale[2]", "coverage", "executed")]
    code, out, _ = _vgdb(capsys, "impact", "calc/core.py#mul", "--db", db, "--wide")
    assert "  tests/test_mul.py::test_mul  (executed, 1.000)  [coverage] executed " \
           "calc/core.py#mul (lines 9)" in out
    code, out, _ = _vgdb(capsys, "pytest-plugin")
    assert code == 0 and Path(out.strip()).name == "pytest_vgdb.py"
    bad = tmp_path / "bad.data"
    bad.write_bytes(b"not a database at all")
    code, _, err = _vgdb(capsys, "ingest-coverage", str(bad), "--db", db, "--repo", "calc")
    assert code == 2 and "not a coverage.py data file" in err and "--cov-context=test" in err


def test_pytest_plugin_runs_only_the_affected_tests(recorded: Recorded) -> None:
    """``pytest --vgdb-select`` in the project: the commit adding ``unused`` and its test
    (no coverage: the static graph selects), then without the option and with a bad ref."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    select = ["--vgdb-db", str(recorded.db), "--vgdb-bin", VGDB_BIN, "-W", "error"]
    run = subprocess.run([*PYTEST, "--vgdb-select", recorded.first, "--vgdb-head", "HEAD",
                          *select], cwd=recorded.repo.root, env=env, capture_output=True,
                         text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"vgdb: kept 1 of 9 tests for the changes since {recorded.first} (1 by rule)" \
        in run.stdout
    assert "1 skipped, 8 deselected" in run.stdout
    # nothing changed: everything deselected, pytest's exit code 5 (docs/ci.md relies on it)
    none = subprocess.run([*PYTEST, "--vgdb-select", "HEAD", *select], cwd=recorded.repo.root,
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    assert none.returncode == 5, none.stdout + none.stderr
    assert "vgdb: kept 0 of 9 tests for the changes since HEAD (none affected)" in none.stdout
    # a change in mul's body: the test and the one parametrized case that executed it
    core = str(FILES["calc/core.py"])
    try:
        recorded.repo.write({"calc/core.py": core.replace("a * b", "b * a")})
        mul = subprocess.run([*PYTEST, "-rA", "--vgdb-select", "HEAD", *select],
                             cwd=recorded.repo.root, env=env, capture_output=True, text=True,
                             timeout=300, check=False)
    finally:
        recorded.repo.write({"calc/core.py": core})
    assert mul.returncode == 0, mul.stdout + mul.stderr
    assert "vgdb: kept 2 of 9 tests for the changes since HEAD (2 by coverage)" in mul.stdout
    assert "tests/test_square.py::test_scale[2]" in mul.stdout
    assert "test_scale[0]" not in mul.stdout
    assert "2 passed, 7 deselected" in mul.stdout
    plain = subprocess.run([*PYTEST, "-W", "error"], cwd=recorded.repo.root, env=env,
                           capture_output=True, text=True, timeout=300, check=False)
    assert "vgdb" not in plain.stdout and "8 passed, 1 skipped" in plain.stdout
    broken = subprocess.run([*PYTEST, "--vgdb-select", "no-such-ref", *select],
                            cwd=recorded.repo.root, env=env, capture_output=True, text=True,
                            timeout=300, check=False)
    assert broken.returncode == 4 and "vgdb affected-tests" in broken.stderr
