"""Recorded coverage where one recording is not the whole truth, on a real git repository whose
real pytest suite runs under pytest-cov with the plugin's import labels: a module imported
lazily (``importlib`` at run time: no import edge in the static graph) whose import runs a
changed function, and a property-based test (hypothesis) whose recorded examples did not
reach the changed function."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphdb import Store
from ingest.coverage import ingest_coverage
from ingest.pipeline import IngestOptions, ingest_repository
from queries.evidence import sampled_tests
from queries.impact import impact
from tests.gitrepo import GitRepo
from tests.queries.test_coverage_impact import record

FILES: dict[str, str | bytes] = {
    "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    "shapes/__init__.py": "",
    "shapes/core.py": """
        def build():
            return {"unit": 1}


        def area(w, h):
            return w * h


        def huge(n):
            return n * 10**12
        """,
    "shapes/table.py": """
        from shapes.core import build

        TABLE = build()


        def lookup(key):
            return TABLE[key]
        """,
    "tests/test_lazy.py": """
        import importlib


        def test_lookup():
            table = importlib.import_module("shapes.table")
            assert table.lookup("unit") == 1
        """,
    "tests/test_prop.py": """
        from hypothesis import given, settings, strategies as st

        from shapes.core import area, huge


        @settings(max_examples=20, database=None, derandomize=True)
        @given(st.integers(min_value=0, max_value=100))
        def test_area(n):
            assert (huge(n) if n == 1234 else area(n, 1)) >= 0


        def test_area_once():
            assert area(2, 3) == 6
        """,
}


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("evidence")
    repo = GitRepo(base / "shapes")
    repo.commit("init", FILES)
    data = base / "cov.data"
    run = record(repo.root, data, "--cov-context=test", "--cov=shapes")
    assert run.returncode == 0, run.stdout + run.stderr
    with Store.open(base / "db") as store:
        ingest_repository(store, repo.root, options=IngestOptions(name="shapes"))
        ingest_coverage(store, data, repo="shapes")
    return base / "db"


def test_lazily_imported_module_selects_the_tests_that_ran_its_code(db: Path) -> None:
    """``build`` runs while shapes/table.py is imported, which only importlib does (inside
    test_lookup): no static importer, but coverage says test_lookup ran table.py's code.
    (The property-based test_area ran code of core.py: it is selected too.)"""
    with Store.open(db, read_only=True) as store:
        r = impact(store, ["shapes/core.py#build"], depth=5)
    assert [(t.node_id, t.evidence, t.reason) for t in r.tests] == [
        ("tests/test_lazy.py::test_lookup", "coverage", "executed"),
        ("tests/test_prop.py::test_area", "coverage", "executed")]
    assert r.tests[0].why.startswith("ran code of shapes/table.py, whose import ran "
                                     "shapes/core.py#build,")


def test_module_level_change_of_a_lazily_imported_module_selects_its_users(db: Path) -> None:
    """A change of TABLE (shapes/table.py's module level): no test file imports the module,
    so the static import rule selects nothing; coverage says test_lookup ran its code."""
    with Store.open(db, read_only=True) as store:
        static = impact(store, ["shapes/table.py#TABLE"], depth=5, coverage=False)
        r = impact(store, ["shapes/table.py#TABLE"], depth=5)
    assert static.tests == ()
    assert [(t.node_id, t.evidence) for t in r.tests] == [
        ("tests/test_lazy.py::test_lookup", "coverage")]
    assert r.tests[0].why.startswith("ran code of shapes/table.py, whose import-time state "
                                     "changed (shapes/table.py#<module>),")


def test_property_based_test_is_selected_by_the_file_it_ran(db: Path) -> None:
    """``huge`` never ran (its example never came up), so nothing covers it and the static
    graph finds the test; ``area`` ran in both tests. A change to ``huge`` selects the
    property-based test although the recording holds no run of ``huge`` by it."""
    with Store.open(db, read_only=True) as store:
        sampled = sampled_tests(store, ["shapes"])
        area = impact(store, ["shapes/core.py#area"], depth=5)
        huge = impact(store, ["shapes/core.py#huge"], depth=5)
    assert sampled == {"sym:shapes/tests/test_prop.py#test_area"}
    assert [(t.node_id, t.evidence) for t in area.tests] == [
        ("tests/test_prop.py::test_area", "coverage"),
        ("tests/test_prop.py::test_area_once", "coverage")]
    # huge: ran by no test; test_area is the one the static graph reaches, and the
    # recording holds a run of it that did not reach huge: only its being property-based
    # keeps it
    assert [(t.node_id, t.evidence) for t in huge.tests] == [
        ("tests/test_prop.py::test_area", "coverage")]
    assert "property-based test" in huge.tests[0].why
