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


CHAIN = "\n\n".join(["def a0():\n    return 0"] + [
    f"def a{i}():\n    return a{i - 1}()" for i in range(1, 9)]) + "\n"
HUB = "def h():\n    return 1\n\n\n" + "\n\n".join(
    f"def f{i}():\n    return h()" for i in range(24)) + "\n\n\ndef wrapper():\n    return f0()\n"


def test_a_budget_follows_a_long_chain_and_stops_at_a_hub(tmp_path: Path) -> None:
    """A chain of eight certain helpers is longer than any fixed depth worth using, and a hub
    reaches many tests in two hops: the test budget (25% of 27 tests, at least 20) and the
    score floor decide where spreading stops."""
    repo = GitRepo(tmp_path / "lib")
    repo.commit("init", {
        "pkg/__init__.py": "",
        "pkg/chain.py": CHAIN,
        "pkg/hub.py": HUB,
        "tests/test_chain.py": "from pkg.chain import a8\n\n\ndef test_end():\n"
                               "    assert a8() == 0\n",
        "tests/test_hub.py": "from pkg import hub\n\n\n" + "\n\n".join(
            f"def test_f{i}():\n    assert hub.f{i}() == 1" for i in range(24))
        + "\n\n\ndef test_wrapper():\n    assert hub.wrapper() == 1\n",
        "tests/test_other.py": "def test_nothing():\n    assert True\n",
    })
    db = tmp_path / "db"
    with Store.open(db) as store:
        ingest_repository(store, repo.root, options=IngestOptions(name="lib", workers=1))
        fixed = impact(store, ["pkg/chain.py#a0"], depth=5)
        assert fixed.tests == ()
        budgeted = impact(store, ["pkg/chain.py#a0"], depth=10, budget=0.25, min_score=0.05)
        assert [t.node_id for t in budgeted.tests] == ["tests/test_chain.py::test_end"]
        assert len(budgeted.tests[0].via) == 9
        assert budgeted.tests[0].score == 0.084591  # 9 hops of 0.8 x confidence 0.95
        # below the score floor the chain is not followed
        assert impact(store, ["pkg/chain.py#a0"], depth=10, budget=0.25,
                      min_score=0.1).tests == ()
        hub = impact(store, ["pkg/hub.py#h"], depth=10, budget=0.25, min_score=0.05)
        assert sorted(t.node_id for t in hub.tests) == sorted(
            f"tests/test_hub.py::test_f{i}" for i in range(24))
        assert "stopped after 2 hops: more than 20 tests reached (the test budget)" in hub.notes
        deep = impact(store, ["pkg/hub.py#h"], depth=5)
        assert "tests/test_hub.py::test_wrapper" in {t.node_id for t in deep.tests}
    out = run_vgdb("affected-tests", "pkg/chain.py#a0", "--db", str(db))
    assert (out.returncode, out.stdout) == (0, "tests/test_chain.py::test_end\n"), out.stderr
    assert run_vgdb("affected-tests", "pkg/chain.py#a0", "--db", str(db), "--depth", "5"
                    ).stdout == ""


def test_a_test_method_runs_in_every_test_subclass_too(tmp_path: Path) -> None:
    """itsdangerous' shape: ``TestTimestampSigner(TestSigner)`` in another file runs the
    inherited tests under its own ids; an overriding subclass runs its own."""
    repo = GitRepo(tmp_path / "lib")
    repo.commit("init", {
        "pkg/__init__.py": "",
        "pkg/core.py": "def sign(x):\n    return x\n",
        "tests/test_signer.py": """
            from pkg.core import sign


            class TestSigner:
                def test_sign(self):
                    assert sign(1) == 1

                def test_other(self):
                    assert True
            """,
        "tests/test_timed.py": """
            from test_signer import TestSigner


            class TestTimed(TestSigner):
                pass


            class TestOverride(TestSigner):
                def test_sign(self):
                    assert True
            """,
    })
    db = tmp_path / "db"
    with Store.open(db) as store:
        ingest_repository(store, repo.root, options=IngestOptions(name="lib", workers=1))
        ids = [t.node_id for t in impact(store, ["pkg/core.py#sign"], depth=5).tests]
    assert sorted(ids) == ["tests/test_signer.py::TestSigner::test_sign",
                           # the import makes pytest collect TestSigner here too
                           "tests/test_timed.py::TestSigner::test_sign",
                           "tests/test_timed.py::TestTimed::test_sign"]
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         *ids], cwd=repo.root, capture_output=True, text=True, timeout=120, check=False)
    assert collected.returncode == 0, collected.stdout + collected.stderr
