"""``affected-tests`` prints only ids pytest collects: proven by pytest's own collection of the
printed ids on a real repository (a nested test, a repeated name, a class pytest skips)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from graphdb import Store
from ingest.pipeline import IngestOptions, ingest_repository
from queries.impact import impact
from tests.gitrepo import GitRepo
from tests.helpers import run_vgdb

FILES: dict[str, str | bytes] = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def make():\n    return 1\n",
    "tests/test_nested.py": """
        from pkg.core import make


        def test_outer():
            def test_inner():
                return make()

            class TestLocal:
                def test_m(self):
                    return make()

            assert test_inner() == 1 and TestLocal().test_m() == 1


        def test_dup():
            assert make() == 1


        def test_dup():  # noqa: F811 - pytest collects this one
            assert make() + 1 == 2


        class TestGroup:
            class TestNested:
                def test_deep(self):
                    assert make() == 1
        """,
    "tests/test_helper_class.py": """
        from pkg.core import make


        class Helper:
            def test_like(self):
                return make()


        def test_uses_helper():
            assert Helper().test_like() == 1


        def test_unrelated():
            assert True
        """,
}


def test_printed_ids_are_exactly_what_pytest_collects(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "lib")
    repo.commit("init", FILES)
    db = tmp_path / "db"
    with Store.open(db) as store:
        ingest_repository(store, repo.root, options=IngestOptions(name="lib", workers=1))
        direct = [t.node_id for t in impact(store, ["pkg/core.py#make"], depth=5).tests]
    out = run_vgdb("affected-tests", "pkg/core.py#make", "--db", str(db), "--depth", "5")
    assert out.returncode == 0, out.stderr
    ids = out.stdout.splitlines()
    assert sorted(ids) == sorted(direct) == [
        # Helper is no Test* class: pytest collects nothing in it, its file runs
        "tests/test_helper_class.py",
        "tests/test_nested.py::TestGroup::TestNested::test_deep",
        "tests/test_nested.py::test_dup",
        "tests/test_nested.py::test_outer",
    ]
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         *ids], cwd=repo.root, capture_output=True, text=True, timeout=120, check=False)
    assert collected.returncode == 0, collected.stdout + collected.stderr
    items = [line for line in collected.stdout.splitlines() if "::" in line]
    assert items == [
        "tests/test_helper_class.py::test_uses_helper",
        "tests/test_helper_class.py::test_unrelated",
        "tests/test_nested.py::TestGroup::TestNested::test_deep",
        "tests/test_nested.py::test_dup",
        "tests/test_nested.py::test_outer",
    ]
