"""Recorded coverage of tests that pytest collects again in another module: a test class
imported there, and a subclass inheriting its tests (the shape of itsdangerous's suite). The
graph has no definition of those tests where they run, so their edges start at the module or
the subclass, and keep the rest of each test's id: the selection names exactly the tests whose
own run executed the change (a subclass's fixture may make an inherited test run other code:
its own record says what it ran)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from graphdb import Store
from ingest.coverage import ingest_coverage
from ingest.pipeline import IngestOptions, ingest_repository
from queries.impact import affected_tests
from tests.gitrepo import GitRepo

FILES: dict[str, str | bytes] = {
    "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    "tok/__init__.py": "",
    "tok/signer.py": """
        class Signer:
            def __init__(self, key):
                self.key = key

            def sign(self, value):
                return f"{value}.{self.key}"

            def verify(self, signed):
                value, _, key = signed.rpartition(".")
                return key == self.key


        class TimedSigner(Signer):
            def sign(self, value):
                return super().sign(value)
        """,
    "tests/__init__.py": "",
    "tests/test_signer.py": """
        from tok.signer import Signer


        class TestSigner:
            def make(self):
                return Signer("k")

            def test_sign(self):
                assert self.make().sign("a") == "a.k"

            def test_verify(self):
                assert self.make().verify("a.k")
        """,
    "tests/test_timed.py": """
        from tests.test_signer import TestSigner
        from tok.signer import TimedSigner


        class TestTimedSigner(TestSigner):
            def make(self):
                return TimedSigner("k")

            def test_key(self):
                assert self.make().key == "k"
        """,
}


def test_tests_collected_again_are_selected_by_their_own_runs(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "tok")
    repo.commit("init", FILES)
    data = tmp_path / "cov.data"
    env = {**os.environ, "COVERAGE_FILE": str(data)}
    env.pop("PYTHONPATH", None)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-p", "no:randomly", "--cov=tok", "--cov-context=test"],
                         cwd=repo.root, env=env, capture_output=True, text=True, timeout=300,
                         check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "7 passed" in run.stdout  # 2 + 2 imported again + 3 in the subclass
    with Store.open(tmp_path / "db") as store:
        ingest_repository(store, repo.root, options=IngestOptions(name="tok"))
        ingest_coverage(store, data, repo="tok")
        verify = affected_tests(store, ["tok/signer.py#Signer.verify"])
        timed = affected_tests(store, ["tok/signer.py#TimedSigner.sign"])
    assert sorted((t.node_id, t.evidence) for t in verify.tests) == [
        ("tests/test_signer.py::TestSigner::test_verify", "coverage"),
        ("tests/test_timed.py::TestSigner::test_verify", "coverage"),
        ("tests/test_timed.py::TestTimedSigner::test_verify", "coverage"),
    ]
    # only the subclass's own run of the inherited test reached the override
    assert [(t.node_id, t.evidence) for t in timed.tests] == [
        ("tests/test_timed.py::TestTimedSigner::test_sign", "coverage")]
    for found in (verify, timed):  # pytest collects every id printed
        ids = [t.node_id for t in found.tests]
        listed = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                                 "-p", "no:cacheprovider", *ids], cwd=repo.root, env=env,
                                capture_output=True, text=True, timeout=300, check=False)
        assert listed.returncode == 0, listed.stdout + listed.stderr
        assert f"{len(ids)} test" in listed.stdout
