"""Tests selected by recorded coverage and by conservative rules, beside the static graph.

``queries.impact`` combines three kinds of evidence for the tests to run:

- **coverage**: a changed function or method that tests executed when coverage was recorded
  (``EXECUTES`` edges, ``vgdb ingest-coverage``) selects exactly those tests, down to the
  parametrized cases that executed it; one a test module ran while it was imported selects
  that module;
- **static**: a changed symbol without coverage selects the tests the static graph reaches
  from it (``queries.impact``): all of them for code added since the recording; for code
  the recording held but no test executed, only the tests the recording does not know (a
  recorded test that did not run it cannot reach it unless code it ran changed, which
  selects it anyway: the premise of coverage-based selection);
- **rule**: changes whose effect neither can see are handled conservatively: module-level
  code and class bodies (they run at import: the test files importing the module, through
  the static import rule), a function run while another module was imported (the tests
  importing that module, by the same rule), a conftest.py hook or autouse fixture (its
  directory), configuration files (every test) and data files (the tests of the nearest
  directory holding tests). Documentation changes select nothing.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from graphdb import Store
from graphdb.coverage import coverage_state, ran_outside_tests
from queries.batch import by_ids, lookup_template
from schema import CALLS, EXECUTES, EXTERNAL, FILE, MODULE_QUALNAME, SYMBOL

__all__ = ["CONFIG_NAMES", "PROPERTY_BASED", "CoverageEvidence", "Execution", "classify_file",
           "executed_by", "file_users", "nearest_test_dir", "recorded_tests", "sampled_tests",
           "tests_under"]

#: Files whose change may alter how any test runs: every test is selected.
CONFIG_NAMES = frozenset({
    "pyproject.toml", "setup.cfg", "setup.py", "tox.ini", "pytest.ini", ".coveragerc",
    "noxfile.py", "Pipfile", "Pipfile.lock", "poetry.lock", "uv.lock", "pdm.lock",
    "conftest.ini", "MANIFEST.in",
})
_DOC_SUFFIXES = (".md", ".rst", ".adoc", ".txt")
_DOC_PREFIXES = ("LICENSE", "LICENCE", "COPYING", "CHANGES", "CHANGELOG", "AUTHORS", "NOTICE",
                 "HISTORY", "CONTRIBUTING", "README")
_DOC_DIRS = ("docs/", "doc/", ".github/")
_DOC_NAMES = frozenset({".gitignore", ".gitattributes", ".pre-commit-config.yaml",
                        ".mailmap", ".editorconfig", ".readthedocs.yaml"})
#: decorators of property-based tests (External ids), whose examples vary between runs
PROPERTY_BASED = ("ext:python:hypothesis.given",)
#: symbol kinds whose recorded coverage says which tests run them (a class body or a
#: module's top level runs once, at import, whichever test imports it first)
_COVERED_KINDS = frozenset({"function", "method"})


def classify_file(path: str) -> str:
    """``config`` (every test), ``docs`` (no test) or ``data`` (nearest tests) for a changed
    file that is not code in the graph. A file at the top of the tree that is no
    configuration (a logo, CI settings) counts as ``docs``: test data lives in a directory."""
    name = path.rpartition("/")[2]
    if name in CONFIG_NAMES or (name.startswith(("requirements", "constraints"))
                                and name.endswith((".txt", ".in"))):
        return "config"
    if name in _DOC_NAMES or path.startswith(_DOC_DIRS) or name.endswith(_DOC_SUFFIXES) or \
            name.upper().startswith(_DOC_PREFIXES) or "/" not in path:
        return "docs"
    return "data"


@dataclass(frozen=True, slots=True)
class Execution:
    """One EXECUTES edge into a changed symbol: the test and what it ran."""

    seed: str
    test: str  # test symbol id
    qualname: str
    path: str
    repo: str
    language: str
    lines: str
    phases: str
    commit: str
    cases: tuple[str, ...] = ()  # the cases or sub-test ids that ran it (empty: every one)

    @property
    def at_import(self) -> bool:
        """Ran while a module other than a test module was imported (``test`` is that
        module's symbol)."""
        return "import" in self.phases.split(",")


@dataclass(frozen=True)
class CoverageEvidence:
    """What recorded coverage says about a set of seeds. ``covered``: seeds whose tests come
    from coverage; ``also_static``: covered seeds that a test module ran while it was
    imported, in a recording without import labels (whichever test module imported a helper
    first ran its import-time code: the static graph is consulted too); ``states``: repo ->
    recording summary."""

    executions: tuple[Execution, ...]
    covered: frozenset[str]
    also_static: frozenset[str]
    states: Mapping[str, dict[str, Any]]
    #: functions and methods without coverage that the graph held when coverage was stored
    #: and that did not run outside the tests either: nothing executed them then (as opposed
    #: to code added since)
    never: frozenset[str] = frozenset()


def executed_by(store: Store, seeds: Iterable[str], nodes: Mapping[str, Any], *,
                valid: str, params: dict[str, Any]) -> CoverageEvidence:
    """The tests that executed each seed (functions and methods with coverage).

    ``nodes`` describes the seeds (``table``, ``kind``, ``is_test``, ``repo``, ``name``);
    ``valid`` is the Cypher validity condition of edge ``e`` (current, or ``as_of``)."""
    repos = sorted({nodes[s].repo for s in seeds if s in nodes})
    states = {r: s for r in repos if (s := coverage_state(store, r)) is not None}
    wanted = [s for s in seeds if s in nodes and nodes[s].repo in states
              and nodes[s].table == SYMBOL.name and not nodes[s].is_test
              and nodes[s].kind in _COVERED_KINDS and nodes[s].name != MODULE_QUALNAME]
    if not wanted:
        return CoverageEvidence((), frozenset(), frozenset(), states)
    known = by_ids(store, sorted(wanted), lookup_template(
        f"MATCH (n:{SYMBOL.name}{{B}}) WHERE {{IN}} RETURN n.id AS id, n.repo AS repo, "
        "n.recorded_at AS at", "n"))
    text = (f"MATCH (t:{SYMBOL.name})-[e:{EXECUTES.name}]->(n:{SYMBOL.name}{{B}}) WHERE {{IN}} "
            f"AND {valid} RETURN n.id AS seed, t.id AS test, t.qualname AS qualname, "
            "t.file AS file, t.repo AS repo, t.language AS language, e.lines AS lines, "
            "e.phases AS phases, e.commit AS commit, e.cases AS cases")
    rows = by_ids(store, sorted(wanted), lookup_template(text, "n"), params)
    out: list[Execution] = []
    phases: dict[str, set[str]] = defaultdict(set)
    for r in rows.iter_rows(named=True):
        repo = r["repo"] or ""
        out.append(Execution(r["seed"], r["test"], r["qualname"] or "",
                             (r["file"] or "")[len(f"file:{repo}/"):], repo,
                             r["language"] or "", r["lines"] or "", r["phases"] or "",
                             r["commit"] or "", tuple(json.loads(r["cases"] or "[]"))))
        phases[r["seed"]].update((r["phases"] or "").split(","))
    out.sort(key=lambda e: (e.seed, e.test))
    covered = frozenset(phases)
    candidates = [(sid, repo) for sid, repo, at in known.iter_rows()
                  if sid not in covered and at is not None
                  and at.isoformat() <= str(states[repo].get("recorded_at", ""))]
    outside = {repo: ran_outside_tests(store, repo) for repo in {r for _, r in candidates}}
    never = frozenset(sid for sid, repo in candidates if sid not in outside[repo])
    unlabelled = {r for r, s in states.items() if not s.get("import_contexts")}
    also = frozenset(s for s, p in phases.items() if "collect" in p and nodes[s].repo in unlabelled)
    return CoverageEvidence(tuple(out), covered, also, states, never)


def file_users(store: Store, files: Iterable[str], *, valid: str, params: dict[str, Any],
               tests: Iterable[str] | None = None) -> list[Execution]:
    """Every recorded execution of code in ``files`` (File ids) by a test or a test module's
    import (not by another module's import): the tests that use those modules, however
    they imported them (a lazy ``importlib`` import included, which the static graph cannot
    see). ``seed`` is the file id of each. ``tests``: only these test symbols."""
    wanted = sorted(set(files))
    if not wanted:
        return []
    # ``n.file IN $files`` scans the symbols, not their ids: left as a list (probing each test
    # by primary key made the planner scan once per test: benchmarks/RESULTS.md, "Id lookups
    # in review, evidence and static selection")
    only = "" if tests is None else "AND t.id IN $tests "
    extra = {} if tests is None else {"tests": sorted(set(tests))}
    rows = store.cypher(
        f"MATCH (t:{SYMBOL.name})-[e:{EXECUTES.name}]->(n:{SYMBOL.name}) WHERE n.file IN $files "
        f"{only}AND {valid} AND e.phases <> 'import' RETURN DISTINCT n.file AS seed, "
        "t.id AS test, t.qualname AS qualname, t.file AS file, t.repo AS repo, "
        "t.language AS language, e.phases AS phases, e.commit AS commit, e.cases AS cases",
        {**params, **extra, "files": wanted})
    out = [Execution(r["seed"], r["test"], r["qualname"] or "",
                     (r["file"] or "")[len(f"file:{r['repo']}/"):], r["repo"] or "",
                     r["language"] or "", "", r["phases"] or "", r["commit"] or "",
                     tuple(json.loads(r["cases"] or "[]"))) for r in rows.iter_rows(named=True)]
    return sorted(out, key=lambda e: (e.seed, e.test, e.cases))


def sampled_tests(store: Store, repos: Iterable[str]) -> frozenset[str]:
    """Property-based tests of ``repos`` (their ``@given`` decorator calls
    ``hypothesis.given``): each run draws other examples, so one recording of them is a
    sample of the code they can run."""
    # by primary key (queries/batch.py), the callers filtered here: any condition on them
    # made the planner scan the symbols (benchmarks/RESULTS.md, "Id lookups in review,
    # evidence and static selection")
    rows = by_ids(store, PROPERTY_BASED, lookup_template(
        f"MATCH (t:{SYMBOL.name})-[:{CALLS.name}]->(x:{EXTERNAL.name}{{B}}) WHERE {{IN}} "
        "RETURN t.id AS id, t.repo AS repo, t.is_test AS is_test", "x"))
    wanted = set(repos)
    return frozenset(i for i, repo, is_test in rows.rows() if is_test and repo in wanted)


def recorded_tests(store: Store, repo: str, *, valid: str, params: dict[str, Any]
                   ) -> frozenset[str]:
    """The test symbols of ``repo``'s recording (those that executed any measured code);
    ``valid`` is the validity condition of edge ``e``."""
    rows = store.cypher(f"MATCH (t:{SYMBOL.name})-[e:{EXECUTES.name}]->() WHERE e.repo = $r "
                        f"AND {valid} RETURN DISTINCT t.id AS id", {**params, "r": repo})
    return frozenset(rows["id"].to_list())


def tests_under(store: Store, repo: str) -> list[str]:
    """Paths of the current test files of ``repo`` (for the data-file rule)."""
    rows = store.cypher(f"MATCH (f:{FILE.name}) WHERE f.repo = $r AND f.valid_to IS NULL AND "
                        "f.is_test RETURN f.path AS path ORDER BY path", {"r": repo})
    return rows["path"].to_list()


def nearest_test_dir(path: str, test_files: list[str]) -> str:
    """The nearest directory above ``path`` holding test files, as ``dir/`` (``./``: the
    whole tree)."""
    parts = path.split("/")[:-1]
    while parts:
        prefix = "/".join(parts) + "/"
        if any(t.startswith(prefix) for t in test_files):
            return prefix
        parts.pop()
    return "./"
