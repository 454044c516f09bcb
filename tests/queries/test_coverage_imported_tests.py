"""Recorded coverage of tests that pytest collects again in another module: a test class
imported there, and a subclass inheriting its tests (the shape of itsdangerous's suite). The
recording has no definition to map those runs to, so it names the whole module or subclass;
the selection narrows an imported class's runs to the tests that ran the change where the
class is defined, and keeps a subclass whole (its fixtures may make them run other code)."""

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


        class TestTimedSigner(TestSigner):
            def test_key(self):
                assert self.make().key == "k"
        """,
}


def test_tests_collected_again_are_narrowed_to_those_that_ran_the_change(
        tmp_path: Path) -> None:
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
        found = affected_tests(store, ["tok/signer.py#Signer.verify"])
    assert sorted((t.node_id, t.evidence) for t in found.tests) == [
        ("tests/test_signer.py::TestSigner::test_verify", "coverage"),
        ("tests/test_timed.py::TestSigner::test_verify", "coverage"),
        # the subclass's inherited runs stay whole: it may change what they run
        ("tests/test_timed.py::TestTimedSigner", "coverage"),
    ]
