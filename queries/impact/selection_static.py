"""Which tests the static graph selects for the impacted code: the reached test symbols as
collectable pytest ids, whole files and directories by the conservative rules (module-level
code, conftest hooks and fixtures, data and configuration files), and test classes collected
again through subclasses and imports."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace

from graphdb import Store
from queries.batch import by_ids, lookup_template
from queries.evidence import (
    classify_file,
    nearest_test_dir,
    tests_under,
)
from queries.impact.model import (
    ChangeSetLike,
    ImpactedNode,
    TestToRun,
    rank_nodes,
)
from queries.impact.traverse import (
    BestPath,
    Reached,
    describe_nodes,
)
from schema import (
    CALLS,
    FILE,
    IMPORTS,
    INHERITS,
    SYMBOL,
)

__all__ = ["collected_again", "pytest_id", "rule_tests", "short_id", "static_tests"]


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


def short_id(node_id: str) -> str:
    """``sym:repo/pkg/mod.py#f`` -> ``pkg/mod.py#f`` (for one-line explanations)."""
    for prefix in ("sym:", "file:"):
        if node_id.startswith(prefix):
            rest = node_id[len(prefix):]
            return rest.split("/", 1)[1] if "/" in rest else rest
    return node_id


def pytest_id(path: str, qualname: str) -> str:
    """``a/t.py`` + ``TestC.test_m~2`` -> ``a/t.py::TestC::test_m`` (the ordinal suffix of a
    repeated name is the graph's: pytest collects the last definition under the plain name)."""
    return "::".join([path, *(p.split("~", 1)[0] for p in qualname.split("."))])


def _collectable_id(store: Store, node: Reached, nodes: dict[str, Reached]) -> str:
    """The id pytest collects for a test symbol: a test nested in a function is run by the
    enclosing function (pytest collects nothing inside one), and one inside a class pytest does
    not collect (not ``Test*``) by its file."""
    parts = node.name.split(".")
    prefixes = [".".join(parts[:k]) for k in range(1, len(parts))]
    ids = {q: f"sym:{node.repo}/{node.path}#{q}" for q in prefixes}
    nodes.update(describe_nodes(store, [i for i in ids.values() if i not in nodes]))
    kept: list[str] = []
    for q, part in zip(prefixes, parts, strict=False):
        kept.append(part)
        outer = nodes.get(ids[q])
        if outer is None or outer.kind != "class":
            return pytest_id(node.path, ".".join(kept))
        if not part.split("~", 1)[0].startswith("Test"):
            return node.path
    return pytest_id(node.path, node.name)


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
        key = _collectable_id(store, node, nodes) if node.language == "python" else node.path
        if key not in tests:
            tests[key] = TestToRun(key, n.id, n.repo, node.path, node.language, n.score,
                                   "reached", n.via, n.target, "static",
                                   f"static path from {short_id(n.target)} "
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
                                      f"changed ({short_id(why.target)})")
        elif f.path not in covered:
            # pytest collects no test from a conftest.py named alone: its fixtures serve the
            # tests of its directory, so that directory is what runs
            run = _conftest_dir(f.path) if f.language == "python" else f.path
            tests[run] = TestToRun(run, fid, f.repo, f.path, f.language, n.score,
                                   "file", n.via, n.target, "rule",
                                   "a helper, fixture or import of this file is impacted "
                                   f"({short_id(n.target)}): the whole "
                                   f"{'directory' if run.endswith('/') else 'file'} runs")
    tests.update(collected_again(store, tests, nodes))
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


def collected_again(store: Store, tests: dict[str, TestToRun],
                     nodes: dict[str, Reached]) -> dict[str, TestToRun]:
    """A reached test class, or test method of one, runs too wherever pytest collects the
    class again: in every test subclass that does not override the method
    (``class TestTimestampSigner(TestSigner)`` in another file), and in every test module
    importing the class (``from .test_signer import TestSigner`` collects it there)."""
    found: dict[str, list[tuple[TestToRun, str]]] = defaultdict(list)  # class id -> (t, m)
    for t in tests.values():
        node = nodes.get(t.id)
        if node is None or node.language != "python" or node.table != SYMBOL.name:
            continue
        if node.kind == "class" and node.is_test:
            found[t.id].append((t, ""))
        elif node.kind == "method" and "." in node.name:
            found[t.id.rpartition(".")[0]].append((t, t.id.rpartition(".")[2]))
    if not found:
        return {}
    subs = by_ids(store, sorted(found), lookup_template(  # by primary key (queries/batch.py)
        f"MATCH (s:{SYMBOL.name})-[:{INHERITS.name}*1..4]->(b:{SYMBOL.name}{{B}}) "
        "WHERE {IN} AND s.is_test AND s.valid_to IS NULL "
        "RETURN DISTINCT b.id AS base, s.id AS sub", "b"))
    pairs = sorted(subs.iter_rows())
    classes = sorted({*found, *(sub for _, sub in pairs)})
    imports = by_ids(store, classes, lookup_template(
        f"MATCH (f:{FILE.name})-[e:{IMPORTS.name}]->(c:{SYMBOL.name}{{B}}) WHERE {{IN}} "
        "AND f.is_test AND e.valid_to IS NULL RETURN DISTINCT c.id AS cls, f.path AS path",
        "c")).sort("cls", "path")
    importers: dict[str, list[str]] = defaultdict(list)
    for row in imports.iter_rows(named=True):
        importers[row["cls"]].append(row["path"])
    wanted = [f"{sub}.{m}" for base, sub in pairs for _, m in found[base] if m]
    nodes.update(describe_nodes(store, [c for c in classes if c not in nodes] + wanted))
    out: dict[str, TestToRun] = {}

    def add(t: TestToRun, path: str, cls: str, method: str, how: str) -> None:
        run = pytest_id(path, f"{cls}.{method}" if method else cls)
        out.setdefault(run, replace(t, node_id=run, path=path, why=f"{t.why}; {how}"))

    for base, items in found.items():
        holders = [base, *(sub for b, sub in pairs if b == base)]
        for cid in holders:
            cls = nodes.get(cid)
            if cls is None or _collectable_id(store, cls, nodes) != pytest_id(cls.path,
                                                                                cls.name):
                continue
            for t, m in items:
                if cid != base and m and f"{cid}.{m}" in nodes:
                    continue  # overridden: the subclass's own test
                if cid != base:
                    add(t, cls.path, cls.name, m, f"inherited by {cls.name} ({cls.path})")
                for path in importers.get(cid, []):
                    if path != cls.path:
                        add(t, path, cls.name, m, f"{cls.name} is imported by {path}")
    return out


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
