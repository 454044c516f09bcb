"""Which tests recorded coverage selects: the tests that executed a changed definition, the
users of a module whose import-time state changed, property-based tests by file, and, for
code the recording holds but nothing executed, the static reach narrowed to unrecorded
tests."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from graphdb import Store
from queries.evidence import (
    CoverageEvidence,
    Execution,
    file_users,
    recorded_tests,
    sampled_tests,
)
from queries.impact.model import (
    ImpactEdge,
    ImpactOptions,
    TestToRun,
)
from queries.impact.selection_static import (
    pytest_id,
    short_id,
    static_tests,
)
from queries.impact.traverse import (
    Budget,
    Reached,
    describe_nodes,
    impacted_nodes,
    traverse,
)
from queries.impact_context import (
    TimeFilter,
)
from schema import (
    EXECUTES,
    FILE,
    MODULE_QUALNAME,
    SYMBOL,
    Source,
)

__all__ = [
    "coverage_tests", "import_time_files", "importers_of", "module_users", "sampled_users",
    "unrecorded_tests",
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
        for test in _executed(ex, seeds[ex.seed], f"executed {short_id(ex.seed)} ({how})"):
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
    """The runner ids an execution selects (the test, its parametrized cases, the tests
    under a class or module the graph holds for them, or a test module run whole), each
    with the EXECUTES edge that says so."""
    whole = ex.qualname == MODULE_QUALNAME or ex.language != "python"
    key = ex.path if whole else pytest_id(ex.path, ex.qualname)
    # a case is a parametrized id ('x-1') or the rest of a test's id ('::test_b[x-1]')
    keys = [key + (c if c.startswith("::") else f"[{c}]") for c in ex.cases] or [key]
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
                           (ex.seed, f"whose import ran {short_id(ex.seed)}"))
    for s in sorted(seeds):
        n = nodes.get(s)
        if n is not None and n.table == SYMBOL.name and n.repo in found.states and (
                n.name == MODULE_QUALNAME or n.kind == "class"):
            out.setdefault(n.file, (s, f"whose import-time state changed ({short_id(s)})"))
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
        out += _executed(ex, seeds[seed], f"ran code of {short_id(ex.seed)}, {how},")
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
                                          f"vary between runs) ran code of {short_id(ex.seed)}")
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
                      notes: list[str], budget: Budget | None = None) -> list[TestToRun]:
    """For code the recording held but nothing executed: the tests the static graph
    reaches from it that the recording does not hold. A test file or class reached whole is
    narrowed to its tests outside the recording; a directory (a conftest.py's) and files of
    other languages stay whole."""
    best, spreading = traverse(store, never, nodes, depth=depth, options=options, flt=flt,
                                notes=[], budget=budget)
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
        out += [replace(t, node_id=pytest_id(t.path, qn), id=sid,
                        why=f"{t.why}; the recording holds no run of this test")
                for sid, qn in kept]
    if dropped:
        notes.append(f"{len(never)} changed definition(s) ran in no test when coverage was "
                     f"recorded: {dropped} test(s) the static graph reaches from them ran "
                     "without reaching them and are not selected")
    return out


def _test_functions(store: Store, files: list[str]) -> dict[str, list[tuple[str, str]]]:
    """Test file id -> the test functions and methods pytest collects (id, qualname): at
    module level or in ``Test*`` classes, not nested in a function."""
    rows = store.cypher(
        f"MATCH (t:{SYMBOL.name}) WHERE t.file IN $files AND t.is_test AND t.valid_to IS NULL "
        "AND t.kind IN ['function', 'method', 'class'] RETURN t.file AS file, t.id AS id, "
        "t.qualname AS qualname, t.kind AS kind ORDER BY id", {"files": files}) if files else None
    found = list(rows.iter_rows()) if rows is not None else []
    classes = {(file, qn) for file, _, qn, kind in found if kind == "class"}
    out: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for file, sid, qualname, kind in found:
        parts = qualname.split(".")
        if kind != "class" and all((file, ".".join(parts[:k])) in classes
                                   for k in range(1, len(parts))):
            out[file].append((sid, qualname))
    return out
