"""Which tests to run for the impacted code: recorded coverage, the static paths, and the
conservative rules (module-level code, conftest hooks, data and configuration files)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace

from graphdb import Store
from queries.batch import by_ids, lookup_template
from queries.evidence import (
    CoverageEvidence,
    Execution,
    classify_file,
    file_users,
    nearest_test_dir,
    recorded_tests,
    sampled_tests,
    tests_under,
)
from queries.impact.model import (
    ChangeSetLike,
    ImpactEdge,
    ImpactedNode,
    ImpactOptions,
    TestToRun,
    rank_nodes,
)
from queries.impact.traverse import BestPath, Reached, describe_nodes, impacted_nodes, traverse
from queries.impact_context import (
    TimeFilter,
)
from schema import (
    CALLS,
    EXECUTES,
    FILE,
    MODULE_QUALNAME,
    SYMBOL,
    Source,
)

__all__ = [
    "coverage_tests", "import_time_files", "importers_of", "module_users", "rule_tests",
    "sampled_users", "static_tests", "unrecorded_tests",
]


def coverage_tests(found: CoverageEvidence, seeds: dict[str, str],
                    notes: list[str]) -> list[TestToRun]:
    """The tests (or the parametrized cases of them) that executed a covered seed, a test
    module itself when it ran the seed while it was imported, each with the EXECUTES edge
    that says so. What other modules' imports ran is left to :func:`importers_of`."""
    out: dict[str, TestToRun] = {}
    for ex in found.executions:
        if ex.at_import:
            continue
        how = "while the test module was imported" if ex.phases == "collect" else \
            f"lines {ex.lines}"
        for test in _executed(ex, seeds[ex.seed], f"executed {_short_id(ex.seed)} ({how})"):
            out.setdefault(test.node_id, test)
    for repo, state in sorted(found.states.items()):
        mine = [s for s in seeds if s.startswith((f"sym:{repo}/", f"file:{repo}/"))]
        covered = [s for s in mine if s in found.covered]
        commit = str(state.get("commit") or "")[:12] or "an unknown commit"
        notes.append(f"coverage of {repo} recorded at {commit}: "
                     f"{len(covered)} of {len(mine)} changed definitions select the tests that "
                     "executed them; the others (new, never executed, module-level code, "
                     "class bodies) use the static graph")
    return list(out.values())


def _executed(ex: Execution, target: str, what: str) -> list[TestToRun]:
    """The runner ids an execution selects (the test, its parametrized cases, or a test
    module run whole), each with the EXECUTES edge that says so."""
    if ex.qualname == MODULE_QUALNAME or ex.language != "python":
        keys = [ex.path]
    else:
        key = _pytest_id(ex.path, ex.qualname)
        keys = [f"{key}[{c}]" for c in ex.cases] if ex.cases else [key]
    edge = ImpactEdge(ex.test, ex.seed, EXECUTES.name, "coverage", Source.COVERAGE.value, 1.0)
    why = f"{what} when coverage was recorded at {ex.commit[:12] or 'an unknown commit'}"
    return [TestToRun(k, ex.test, ex.repo, ex.path, ex.language, 1.0, "executed", (edge,),
                      target, "coverage", why) for k in keys]


def import_time_files(found: CoverageEvidence, seeds: dict[str, str],
                       nodes: dict[str, Reached]) -> dict[str, tuple[str, str]]:
    """Files whose import-time state a seed changes (file id -> (the seed, how)): the module
    whose import ran a covered seed, and the file of a changed module level or class body
    (in a repository with a recording)."""
    out: dict[str, tuple[str, str]] = {}
    for ex in found.executions:
        if ex.at_import:
            out.setdefault("file:" + ex.test.removeprefix("sym:").split("#", 1)[0],
                           (ex.seed, f"whose import ran {_short_id(ex.seed)}"))
    for s in sorted(seeds):
        n = nodes.get(s)
        if n is not None and n.table == SYMBOL.name and n.repo in found.states and (
                n.name == MODULE_QUALNAME or n.kind == "class"):
            out.setdefault(n.file, (s, f"whose import-time state changed ({_short_id(s)})"))
    return out


def module_users(store: Store, files: dict[str, tuple[str, str]], seeds: dict[str, str],
                  flt: TimeFilter) -> list[TestToRun]:
    """The tests that executed code of modules whose import-time state changed, by coverage:
    they need that state, however they imported the module (``importlib`` at run time has
    no import edge). The static import rule adds the modules importing it
    (:func:`importers_of`, and the module seeds of the traversal)."""
    out: list[TestToRun] = []
    for ex in file_users(store, files, valid=flt.valid("e"), params=flt.params()):
        seed, how = files[ex.seed]  # ex.seed: the module's file, whose code the test ran
        out += _executed(ex, seeds[seed], f"ran code of {_short_id(ex.seed)}, {how},")
    return out


def sampled_users(store: Store, changed: frozenset[str], seeds: dict[str, str],
                   nodes: dict[str, Reached], flt: TimeFilter) -> list[TestToRun]:
    """For changed functions the recording knows (covered, or held but never executed): the
    property-based tests (hypothesis) that ran any code of their file. Their recorded
    coverage is one sample of their examples; the next run draws others, which may reach the
    function: a file is the grain their coverage can vouch for."""
    by_file: dict[str, str] = {}
    for s in sorted(changed):
        by_file.setdefault(nodes[s].file, s)
    sampled = sampled_tests(store, {nodes[s].repo for s in changed}) if by_file else ()
    if not sampled:
        return []
    out: list[TestToRun] = []
    for ex in file_users(store, by_file, valid=flt.valid("e"), params=flt.params(),
                         tests=sampled):
        seed = by_file[ex.seed]
        out += _executed(ex, seeds[seed], f"a property-based test (hypothesis: its examples "
                                          f"vary between runs) ran code of {_short_id(ex.seed)}")
    return out


def importers_of(store: Store, found: CoverageEvidence, seeds: dict[str, str],
               nodes: dict[str, Reached]) -> dict[str, str]:
    """Module symbols whose import ran a covered seed, as static seeds (module symbol ->
    the seed's target): the import rule selects the test files importing them."""
    modules = {ex.test: seeds[ex.seed] for ex in found.executions if ex.at_import}
    nodes.update(describe_nodes(store, [m for m in modules if m not in nodes]))
    return {m: t for m, t in modules.items() if m in nodes and m not in seeds}


def unrecorded_tests(store: Store, never: dict[str, str], nodes: dict[str, Reached], *,
                      depth: int, options: ImpactOptions, flt: TimeFilter,
                      notes: list[str]) -> list[TestToRun]:
    """For code the recording held but nothing executed: the tests the static graph
    reaches from it that the recording does not hold. A test file or class reached whole is
    narrowed to its tests outside the recording; a directory (a conftest.py's) and files of
    other languages stay whole."""
    best, spreading = traverse(store, never, nodes, depth=depth, options=options, flt=flt,
                                notes=[])
    reached = static_tests(store, [impacted_nodes(nid, nodes[nid], b) for nid, b in best.items()],
                     nodes, spreading)
    recorded: dict[str, frozenset[str]] = {
        r: recorded_tests(store, r, valid=flt.valid("e"), params=flt.params())
        for r in sorted({t.repo for t in reached})}
    members = _test_functions(store, sorted({nodes[t.id].file for t in reached
                                             if t.id in nodes}))
    out: list[TestToRun] = []
    dropped = 0
    for t in reached:
        node = nodes.get(t.id)
        if t.node_id.endswith("/") or t.language != "python" or node is None:
            out.append(t)
            continue
        if node.table == FILE.name:
            inside = members.get(t.id, [])
        elif node.kind == "class":
            inside = [(sid, qn) for sid, qn in members.get(node.file, [])
                      if qn.startswith(node.name + ".")]
        else:
            inside = [(t.id, node.name)]
        kept = [(sid, qn) for sid, qn in inside if sid not in recorded[t.repo]]
        dropped += len(inside) - len(kept)
        out += [replace(t, node_id=_pytest_id(t.path, qn), id=sid,
                        why=f"{t.why}; the recording holds no run of this test")
                for sid, qn in kept]
    if dropped:
        notes.append(f"{len(never)} changed definition(s) ran in no test when coverage was "
                     f"recorded: {dropped} test(s) the static graph reaches from them ran "
                     "without reaching them and are not selected")
    return out


def _test_functions(store: Store, files: list[str]) -> dict[str, list[tuple[str, str]]]:
    """Test file id -> its test functions and methods (id, qualname)."""
    rows = store.cypher(
        f"MATCH (t:{SYMBOL.name}) WHERE t.file IN $files AND t.is_test AND t.valid_to IS NULL "
        "AND t.kind IN ['function', 'method'] RETURN t.file AS file, t.id AS id, "
        "t.qualname AS qualname ORDER BY id", {"files": files}) if files else None
    out: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for file, sid, qualname in (rows.iter_rows() if rows is not None else ()):
        out[file].append((sid, qualname))
    return out


def rule_tests(store: Store, changes: ChangeSetLike, repo: str,
                notes: list[str]) -> list[TestToRun]:
    """Conservative selections for changed files the graph cannot follow: configuration
    (every test) and data files (the tests of the nearest directory holding tests)."""
    out: list[TestToRun] = []
    test_files: list[str] | None = None
    for f in changes.files:
        path = f.path
        kind = classify_file(path)
        if kind == "docs":
            continue
        fid = f"file:{repo}/{path}"
        if kind == "config":
            out.append(TestToRun("./", fid, repo, path, "", 1.0, "config", (), fid,
                                 "rule", f"configuration file {path} changed: every test runs"))
            notes.append(f"{path} is configuration: every test is selected")
            continue
        if not (f.binary or f.language is None):
            continue  # code: the graph follows it
        if test_files is None:
            test_files = tests_under(store, repo)
        where = nearest_test_dir(path, test_files)
        out.append(TestToRun(where, fid, repo, path, "", 1.0, "data", (), fid, "rule",
                             f"data file {path} changed: the tests under {where} run"))
        notes.append(f"{path} is a data file: the tests under {where} are selected")
    return out


def _short_id(node_id: str) -> str:
    """``sym:repo/pkg/mod.py#f`` -> ``pkg/mod.py#f`` (for one-line explanations)."""
    for prefix in ("sym:", "file:"):
        if node_id.startswith(prefix):
            rest = node_id[len(prefix):]
            return rest.split("/", 1)[1] if "/" in rest else rest
    return node_id


def _pytest_id(path: str, qualname: str) -> str:
    return "::".join([path, *qualname.split(".")])


def static_tests(store: Store, impacted: list[ImpactedNode], nodes: dict[str, Reached],
           spreading: dict[str, BestPath], extra: Sequence[TestToRun] = ()
           ) -> tuple[TestToRun, ...]:
    """Reached test symbols as runner ids (a reached test class covers its methods; other
    languages run by file). A test file is run whole (reason ``module``) when it imports a
    module whose import-time state changed, and (reason ``file``) when it was reached
    through an import or a helper/fixture in it but none of its tests were."""
    reached_files: dict[str, ImpactedNode] = {}
    tests: dict[str, TestToRun] = {}
    in_conftest: list[ImpactedNode] = []
    for n in sorted(impacted, key=rank_nodes):
        node = nodes[n.id]
        if n.table == FILE.name:
            # a conftest.py merely importing what changed: its fixtures' calls say more
            if node.is_test and not (_is_conftest(n) and n.id not in spreading):
                reached_files.setdefault(n.id, n)
            continue
        if not node.is_test and _is_conftest(n):
            in_conftest.append(n)
            continue
        file_node = nodes.get(node.file)
        if not (node.is_test or (file_node is not None and file_node.is_test)):
            continue
        if not node.is_test:  # a helper or fixture of a test file
            reached_files.setdefault(node.file, n)
            continue
        key = _pytest_id(node.path, node.name) if node.language == "python" else node.path
        if key not in tests:
            tests[key] = TestToRun(key, n.id, n.repo, node.path, node.language, n.score,
                                   "reached", n.via, n.target, "static",
                                   f"static path from {_short_id(n.target)} "
                                   f"({len(n.via)} edges)")
    # a conftest.py helper or fixture with callers passes the impact on to them (tests request
    # fixtures by name: CALLS of resolution ``fixture``); one without (an autouse fixture, a
    # hook, the module's own code) may serve any test of its directory
    called = _called(store, [n.id for n in in_conftest])
    for n in in_conftest:
        if n.id not in called:
            reached_files.setdefault(nodes[n.id].file, n)
    nodes.update(describe_nodes(store, [f for f in reached_files if f not in nodes]))
    covered = {t.path for t in tests.values()}
    for fid, n in reached_files.items():
        f = nodes[fid]
        why = spreading.get(fid)
        if why is not None:  # explained by the path that changed its import-time state
            # a conftest.py importing it serves (and is collected with) its directory
            run = _conftest_dir(f.path) if f.language == "python" else f.path
            tests[run] = TestToRun(run, fid, f.repo, f.path, f.language,
                                      round(why.score, 6), "module", why.via, why.target,
                                      "rule", "imports a module whose import-time state "
                                      f"changed ({_short_id(why.target)})")
        elif f.path not in covered:
            # pytest collects no test from a conftest.py named alone: its fixtures serve the
            # tests of its directory, so that directory is what runs
            run = _conftest_dir(f.path) if f.language == "python" else f.path
            tests[run] = TestToRun(run, fid, f.repo, f.path, f.language, n.score,
                                   "file", n.via, n.target, "rule",
                                   "a helper, fixture or import of this file is impacted "
                                   f"({_short_id(n.target)}): the whole "
                                   f"{'directory' if run.endswith('/') else 'file'} runs")
    # coverage and rules first: a test both select keeps its first evidence
    merged = {t.node_id: t for t in reversed(extra)}
    for key, test in tests.items():
        merged.setdefault(key, test)
    tests = merged
    # a directory, file, class or test selected whole covers the ids (and cases) under it
    keys = set(tests)
    dirs = [o for o in keys if o.endswith("/")]
    kept = [t for k, t in tests.items() if not _covered_by(k, keys, dirs)]
    return tuple(sorted(kept, key=lambda t: (-t.score, t.node_id)))


def _is_conftest(node: ImpactedNode) -> bool:
    return node.language == "python" and node.path.rpartition("/")[2] == "conftest.py"


def _called(store: Store, ids: list[str]) -> set[str]:
    """The symbols among ``ids`` that some symbol calls."""
    if not ids:
        return set()
    text = (f"MATCH (a:{SYMBOL.name})-[:{CALLS.name}]->(b:{SYMBOL.name}{{B}}) WHERE {{IN}} "
            "RETURN DISTINCT b.id AS id")
    return set(by_ids(store, ids, lookup_template(text, "b"))["id"].to_list())


def _covered_by(key: str, keys: set[str], dirs: list[str]) -> bool:
    """Another selected id runs ``key``: its test without the case, an enclosing class or
    file, or a directory above it."""
    base = key.split("[", 1)[0]
    if base != key and base in keys:
        return True
    parts = base.split("::")
    if any("::".join(parts[:k]) in keys for k in range(1, len(parts))):
        return True
    return any(key != d and _under(key, d) for d in dirs)


def _under(key: str, directory: str) -> bool:
    """``key`` is a test inside ``directory`` (a key ending in ``/``) that runs whole."""
    return directory.endswith("/") and (directory == "./" or key.startswith(directory))


def _conftest_dir(path: str) -> str:
    """``tests/conftest.py`` -> ``tests/`` (``./`` at the root); other paths unchanged."""
    directory, _, name = path.rpartition("/")
    if name != "conftest.py":
        return path
    return f"{directory}/" if directory else "./"
