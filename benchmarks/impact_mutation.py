"""Impact quality by mutation testing on real repositories with their real pytest suites.

For each repository (pinned commit, cloned from the git mirror the ``fetch`` tool made under
``/work/.mirror``), the script:

1. clones the commit into ``--cache`` and creates a separate virtual environment there
   (``python3 -m venv``; the project installed editable, pytest 9.2.0, pytest-testmon 2.2.0 and
   the project's test dependencies from the registry); never the project's own ``.venv``;
2. ingests the checkout with this project's ``vgdb ingest --no-history`` into a fresh database;
3. runs the unmutated suite once (its failing tests are subtracted from every mutant: a test
   that already fails is not evidence) and records pytest-testmon's coverage once;
4. samples ``--mutants`` functions and methods of the source package (not tests), seeded,
   among the graph's symbols, and for each one injects ``raise RuntimeError("vgdb-mutant")``
   as the first statement of its body (after the docstring), runs the whole suite (no ``-x``),
   takes the failing tests as ground truth, restores the file, and compares with:

   - **vgdb**: ``queries.impact.impact(store, [symbol], **SPREAD).test_ids()`` (depth 10,
     test budget 25% of the suite, score floor 0.05), exactly what ``vgdb affected-tests
     SYMBOL`` prints (checked against the CLI on the first mutants); **vgdb depth 5**, the
     fixed depth used before, beside it;
   - **naive package baseline**: every test module that imports the mutated file's top-level
     package (``import click``, ``from click.x import y``, ...), found with ``ast``;
   - **name grep baseline**: every test module whose text holds the function's name as a word;
   - **pytest-testmon 2.2.0**: ``--testmon-nocollect --testmon-forceselect --collect-only``
     on the mutated tree, against the coverage recorded on the unmutated one;
   - **vgdb, conftest.py read as its directory**: vgdb's list with each ``dir/conftest.py``
     (a reached fixture; as a pytest argument it runs no test) read as every test under
     ``dir/``;
   - **vgdb coverage + static** (issue 11): coverage recorded once on the unmutated tree
     (``pytest --cov=PKG --cov-context=test`` with the ``pytest_vgdb`` plugin, which labels
     what test-module and other module imports ran), stored with ``vgdb ingest-coverage``
     into a copy of the database; ``impact(store, [symbol], depth=5)`` then selects from
     coverage where the function has it (per parametrized case) and from the static graph
     where it does not (for code nothing executed: only tests the recording does not hold;
     ``never_executed="static"`` and ``"skip"`` are scored beside it). The static-only
     selection (``vgdb``) is recomputed in the same run on the same database with
     ``coverage=False``.

   Each mutant (a) misses is explained: budget stop or not, whether the missed items lie on
   paths of at most 10 hops without the budget rules (then the budget, the score floor or
   the rule that a method called by name is not reached through its class's constructors
   cut them) or on no path the graph has, and the function's traits (dunder, property,
   generator).

   Definitions in ``.pyi`` stubs, ``@overload`` stubs and one-line bodies are skipped and
   counted. A mutant that makes every test fail (the package or a conftest no longer
   imports) is found by any non-empty selection, and by testmon (its collection fails too).

Matching: pytest node ids relative to the checkout (``tests/test_x.py::TestC::test_m[1]``),
per collected item: a failing ``test_m[1]`` is found when ``test_m[1]``, ``test_m``, its
class or its file is selected, not when only ``test_m[2]`` is. (Rows cached before failing
items were kept match per test, ``[...]`` dropped on both sides; ``--refresh-items`` re-runs
them.) The suite is the collected items of the unmutated tree (with the project's own
``addopts``); the fraction selected counts collected items (parametrized cases count one
each), as a runner would run them.

Recall: a killed mutant (>= 1 test fails) is *found* when all of its failing items are
selected; test recall is the share of (mutant, failing item) pairs selected. Mutants
no test kills are counted apart and left out of recall. Per-mutant results are cached in
``--cache`` (``<repo>/mutants.jsonl``, keyed by commit and symbol): a run resumes where it
stopped, and a run whose mutants are all cached only rebuilds the tables (after collecting
and running the unmutated suite once). ``--recompute-vgdb`` recomputes vgdb's selections of
cached mutants with the current code and database (delete ``<repo>/vgdb-*.db`` to re-ingest);
the suite runs and the other selections stay cached. Two repositories can run as two
processes at once (``--repos click`` and ``--repos attrs``), then once more with both to print
one table.

    .venv/bin/python benchmarks/impact_mutation.py [--repos click attrs] [--mutants 100]
        [--seed 11] [--cache /tmp/vgdb_mut_cache] [--csv benchmarks/data/impact_mutation]
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.ingest import machine  # noqa: E402
from graphdb import Store  # noqa: E402
from queries.impact import (  # noqa: E402
    DEFAULT_MIN_SCORE,
    DEFAULT_TEST_BUDGET,
    MAX_DEPTH,
    impact,
)

VGDB = ROOT / ".venv" / "bin" / "vgdb"
MUTANT_LINE = 'raise RuntimeError("vgdb-mutant")'
TIMEOUT = 300
console = Console(highlight=False, markup=False, soft_wrap=True,
                  width=None if sys.stdout.isatty() else 170)


@dataclass(frozen=True)
class Project:
    """A real repository with its suite: where its source package lives, what its tests need."""

    name: str
    mirror: str            # owner+name under /work/.mirror
    commit: str
    source: tuple[str, ...]  # source package directories, relative to the checkout
    deps: tuple[str, ...]    # test dependencies beside pytest / testmon (pinned)
    cov: tuple[str, ...] = ()  # packages to measure (pytest --cov=...)


PROJECTS = {
    "click": Project("click", "pallets+click", "2c8cd3ac958a7eb316d67f2d316c27086c4c0369",
                     ("src/click",), (), ("click",)),
    "attrs": Project("attrs", "python-attrs+attrs", "c1dc5dcba16ed827aa6dcad896b41a3afedb4e32",
                     ("src/attr", "src/attrs"),
                     ("hypothesis==6.170.15", "pympler==1.1", "cloudpickle==3.1.2"),
                     ("attr", "attrs")),
    "itsdangerous": Project("itsdangerous", "pallets+itsdangerous",
                            "672971d66a2ef9f85151e53283113f33d642dabd", ("src/itsdangerous",),
                            ("freezegun==1.5.5",), ("itsdangerous",)),
}
#: how ``vgdb affected-tests`` spreads by default (a test budget and a score floor)
SPREAD = {"depth": MAX_DEPTH, "budget": DEFAULT_TEST_BUDGET, "min_score": DEFAULT_MIN_SCORE}
TOOLS = ("pytest==9.2.0", "pytest-testmon==2.2.0", "pytest-cov==7.1.0")


# ------------------------------------------------------------------------------------- setup
def run(cmd: list[str], cwd: Path | None = None, timeout: float = TIMEOUT,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env,
                          check=False)


def setup(project: Project, cache: Path) -> tuple[Path, Path]:
    """(checkout, venv python), made once and reused."""
    base = cache / project.name
    checkout, venv = base / "checkout", base / "venv"
    mirror = Path("/work/.mirror") / project.mirror / "repo"
    if not (checkout / ".git").exists():
        if not mirror.exists():
            raise SystemExit(f"{mirror} is missing: bring it with the fetch tool "
                             f"(github:{project.mirror.replace('+', '/')})")
        base.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "-q", str(mirror), str(checkout)], check=True)
        subprocess.run(["git", "-C", str(checkout), "-c", "advice.detachedHead=false",
                        "checkout", "-q", project.commit], check=True)
    head = run(["git", "-C", str(checkout), "rev-parse", "HEAD"]).stdout.strip()
    if head != project.commit:
        raise SystemExit(f"{checkout} is at {head}, expected {project.commit}")
    if run(["git", "-C", str(checkout), "status", "--porcelain", "--untracked-files=no"]).stdout:
        raise SystemExit(f"{checkout} has modified files (an interrupted mutant?): "
                         f"git -C {checkout} checkout -- .")
    python = venv / "bin" / "python"
    if not (venv / ".ready").exists():
        console.print(f"[{project.name}] creating {venv}")
        subprocess.run(["python3", "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *TOOLS, *project.deps,
                        "-e", str(checkout)], check=True)
        (venv / ".ready").write_text("ok\n")
    return checkout, python


def record_coverage(project: Project, checkout: Path, python: Path, cache: Path) -> Path:
    """Coverage with per-test contexts of one run of the unmutated suite (made once). The
    plugin module is copied alone onto PYTHONPATH: the project's environment must not see
    our top-level packages."""
    data = cache / project.name / f"coverage-{project.commit[:12]}.data"
    if data.exists():
        return data
    if run([str(python), "-c", "import pytest_cov"]).returncode != 0:
        subprocess.run([str(python), "-m", "pip", "install", "-q", "pytest-cov==7.1.0"],
                       check=True)
    plugin = cache / "plugin"
    plugin.mkdir(parents=True, exist_ok=True)
    (plugin / "pytest_vgdb.py").write_text((ROOT / "pytest_vgdb.py").read_text())
    started = time.perf_counter()
    out = run([str(python), *PYTEST, "-q", "-p", "pytest_vgdb", "--cov-report=",
               "--cov-context=test", *(f"--cov={p}" for p in project.cov),
               "-W", "ignore::pytest.PytestUnraisableExceptionWarning"], cwd=checkout,
              timeout=3 * TIMEOUT, env={**os.environ, "PYTHONPATH": str(plugin),
                                        "COVERAGE_FILE": str(data)})
    if not data.exists():
        raise SystemExit(f"coverage was not recorded: {out.stdout[-2000:]}{out.stderr[-2000:]}")
    console.print(f"[{project.name}] coverage recorded in {time.perf_counter() - started:.1f} s "
                  f"({data.stat().st_size >> 10} KiB)")
    return data


def coverage_db(project: Project, db: Path, data: Path, checkout: Path, cache: Path) -> Path:
    """A copy of the ingested database with the recorded coverage stored in it."""
    target = cache / project.name / f"vgdb-cov-{project.commit[:12]}.db"
    if not target.exists():
        shutil.copytree(db, target)
        out = run([str(VGDB), "ingest-coverage", str(data), "--db", str(target), "--repo",
                   project.name, "--root", str(checkout), "--commit", project.commit,
                   "--json"], timeout=4 * TIMEOUT)
        if out.returncode != 0:
            shutil.rmtree(target)
            raise SystemExit(f"ingest-coverage failed: {out.stderr[-2000:]}")
        s = json.loads(out.stdout)
        console.print(f"[{project.name}] ingest-coverage: {s['contexts']} contexts, "
                      f"{s['tests']} tests, {s['files']} files, {s['edges']} EXECUTES edges "
                      f"in {s['seconds']:.1f} s; notes: {s['notes']}")
    return target


def ingest(project: Project, checkout: Path, cache: Path) -> Path:
    db = cache / project.name / f"vgdb-{project.commit[:12]}.db"
    if not db.exists():
        started = time.perf_counter()
        subprocess.run([str(VGDB), "ingest", str(checkout), "--db", str(db), "--name",
                        project.name, "--no-history", "--no-communities", "--no-papers"],
                       check=True, capture_output=True)
        console.print(f"[{project.name}] ingested in {time.perf_counter() - started:.1f} s")
    return db


# ------------------------------------------------------------------------------------ pytest
PYTEST = ["-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly"]
SUMMARY = re.compile(r"^(FAILED|ERROR) (.+)$")


def base_id(node_id: str) -> str:
    """A node id without its parametrization: ``t.py::test_m[1]`` -> ``t.py::test_m``."""
    return node_id.split("[", 1)[0]


def collect(python: Path, checkout: Path, extra: tuple[str, ...] = ()) -> list[str]:
    out = run([str(python), *PYTEST, "-q", "--collect-only", *extra], cwd=checkout)
    return [line.strip() for line in out.stdout.splitlines() if "::" in line and
            not line.startswith(("ERROR", "FAILED", "="))]


@dataclass(frozen=True)
class SuiteRun:
    failing: frozenset[str]  # base ids
    status: str              # ok | all (the suite could not start) | timeout
    seconds: float
    items: frozenset[str] = frozenset()  # failing collected items (parametrized cases)


def summary_id(rest: str, known: set[str]) -> str:
    """The node id at the start of a short-summary line's ``rest`` (``id - message``): the
    longest known item before a `` - `` (parameters may hold `` - `` themselves)."""
    parts = rest.split(" - ")
    for k in range(len(parts), 0, -1):
        if (candidate := " - ".join(parts[:k])) in known:
            return candidate
    return parts[0]


def mutant_run(file: Path, target: Target, python: Path, checkout: Path,
               suite_files: dict[str, set[str]]) -> SuiteRun:
    """The suite with ``target`` mutated (the file restored after)."""
    original = file.read_text(encoding="utf-8")
    mutated, _, _ = mutate(original, target)
    if mutated is None:
        raise SystemExit(f"{target.qualname} can no longer be mutated")
    try:
        file.write_text(mutated, encoding="utf-8")
        return run_suite(python, checkout, suite_files)
    finally:
        file.write_text(original, encoding="utf-8")


def run_suite(python: Path, checkout: Path, suite_files: dict[str, set[str]]) -> SuiteRun:
    """The whole suite; failing items and tests (base ids) read from pytest's short summary
    (``-rfE``).

    A module that fails to import (``ERROR tests/test_x.py``) counts all its tests as failing;
    a suite that cannot start at all (conftest or the package itself fails to import, exit
    code 2-4 with no test run) counts every test.
    """
    started = time.perf_counter()
    try:
        out = run([str(python), *PYTEST, "-q", "-rfE", "--tb=no",
                   "--continue-on-collection-errors",
                   "-W", "ignore::pytest.PytestUnraisableExceptionWarning"], cwd=checkout)
    except subprocess.TimeoutExpired:
        return SuiteRun(frozenset(), "timeout", time.perf_counter() - started)
    seconds = time.perf_counter() - started
    failing: set[str] = set()
    known = {i for ids in suite_files.values() for i in ids}
    for line in out.stdout.splitlines():
        m = SUMMARY.match(line)
        if not m:
            continue
        node = summary_id(m.group(2), known)
        if "::" in node:
            failing.add(node)
            continue
        # a module or a conftest.py that failed to import: every test under it
        scope = node.rsplit("/", 1)[0] + "/" if node.endswith("conftest.py") else node
        for path, ids in suite_files.items():
            if path == scope or (scope.endswith("/") and path.startswith(scope)) or \
                    scope == "conftest.py/":
                failing |= ids
    if out.returncode in (2, 3, 4) and not re.search(r"\d+ (passed|failed)", out.stdout):
        every = frozenset(i for ids in suite_files.values() for i in ids)
        return SuiteRun(frozenset(map(base_id, every)), "all", seconds, every)
    return SuiteRun(frozenset(map(base_id, failing)), "ok", seconds, frozenset(failing))


def testmon_select(python: Path, checkout: Path) -> list[str]:
    """Items pytest-testmon selects for the working tree, against the recorded coverage."""
    return collect(python, checkout, ("--testmon-nocollect", "--testmon-forceselect"))


# ---------------------------------------------------------------------------------- mutation
@dataclass(frozen=True)
class Target:
    sym: str      # graph id
    path: str     # relative to the checkout
    qualname: str
    name: str
    line: int     # the def line in the graph


def find_def(tree: ast.Module, target: Target) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                node.name == target.name and target.line in (
                    node.lineno, *(d.lineno for d in node.decorator_list)):
            return node
    return None


def traits(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """What makes a mutant special: it raises later than the call, or never runs."""
    out = []
    if isinstance(node, ast.AsyncFunctionDef):
        out.append("async")
    decorators = {ast.unparse(d).rsplit(".", 1)[-1].split("(")[0] for d in node.decorator_list}
    if decorators & {"property", "setter", "getter", "deleter", "cached_property"}:
        out.append("property")
    if decorators & {"overload"}:
        out.append("overload")
    stack: list[ast.AST] = list(node.body)
    while stack:  # a yield in the function's own body, not in a nested def or lambda
        n = stack.pop()
        if isinstance(n, (ast.Yield, ast.YieldFrom)):
            out.append("generator")
            break
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(n))
    if node.name.startswith("__") and node.name.endswith("__"):
        out.append("dunder")
    return out


def mutate(source: str, target: Target) -> tuple[str | None, str, list[str]]:
    """(mutated source or None, why not, traits): the raise inserted as the body's first
    statement, after the docstring, with the body's indentation."""
    tree = ast.parse(source)
    node = find_def(tree, target)
    if node is None:
        return None, "def not found", []
    kinds = traits(node)
    if "overload" in kinds:
        return None, "overload (never runs)", kinds
    body = node.body
    first = body[0]
    if first.lineno == node.lineno or (len(body) > 1 and body[1].lineno == first.end_lineno):
        return None, "body on the def line", kinds
    has_doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and \
        isinstance(first.value.value, str)
    lines = source.splitlines(keepends=True)
    indent = " " * first.col_offset
    if has_doc:
        at = first.end_lineno or first.lineno  # insert after the docstring's last line
    else:
        decorated = getattr(first, "decorator_list", None) or []
        at = min([first.lineno, *(d.lineno for d in decorated)]) - 1
    lines.insert(at, f"{indent}{MUTANT_LINE}\n")
    mutated = "".join(lines)
    try:
        compile(mutated, target.path, "exec")
    except SyntaxError as exc:
        return None, f"does not compile: {exc.msg}", kinds
    return mutated, "", kinds


# ------------------------------------------------------------------------------- selections
def expand(selected: list[str], items: list[str]) -> set[str]:
    """The collected items a selection of node ids (tests, cases, classes, files, and
    directories ending in ``/``; ``./`` is the whole suite) runs."""
    chosen = set(selected)
    dirs = tuple(c for c in chosen if c.endswith("/"))
    if "./" in dirs:
        return set(items)
    out = set()
    for item in items:
        parts = base_id(item).split("::")
        if item in chosen or any("::".join(parts[:k]) in chosen
                                 for k in range(1, len(parts) + 1)) or \
                (dirs and item.startswith(dirs)):
            out.add(item)
    return out


def ran_items(method: str, row: dict[str, object], items: list[str]) -> set[str]:
    """The items a method's selection for ``row`` runs. testmon names the items it keeps;
    the others name tests, classes or files. ``vgdb+conftest`` is vgdb's list with each
    ``dir/conftest.py`` it prints (a fixture there was reached; ``pytest dir/conftest.py``
    runs nothing) read as every test under ``dir/``: what a fix would select."""
    chosen = list(row["vgdb" if method == "vgdb+conftest" else method])  # type: ignore[call-overload]
    if method == "testmon":
        return set(chosen) & set(items)
    out = expand(chosen, items)
    if method == "vgdb+conftest":
        dirs = tuple(c[: -len("conftest.py")] for c in chosen
                     if c == "conftest.py" or c.endswith("/conftest.py"))
        out |= {i for i in items if i.startswith(dirs)} if dirs else set()
    return out


def imported_packages(path: Path) -> set[str]:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError):
        return set()
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module.split(".")[0])
    return out


def sample_targets(store: Store, project: Project, rng: random.Random, n: int) -> list[Target]:
    rows = store.cypher(
        "MATCH (s:Symbol) WHERE s.repo = $r AND s.kind IN ['function', 'method'] AND "
        "s.valid_to IS NULL AND NOT s.is_test RETURN s.id, s.file, s.qualname, s.name, "
        "s.start_line ORDER BY s.id", {"r": project.name}).rows()
    prefix = f"file:{project.name}/"
    pool = []
    for sym, file, qualname, name, line in rows:
        path = file[len(prefix):]
        if any(path.startswith(src + "/") for src in project.source):
            pool.append(Target(sym, path, qualname, name, int(line)))
    console.print(f"[{project.name}] {len(pool)} functions and methods in "
                  f"{', '.join(project.source)}; sampling {min(n, len(pool))} (and spares)")
    return rng.sample(pool, len(pool))  # a seeded order; the first n that mutate are used


# -------------------------------------------------------------------------------------- main
def bench_repo(project: Project, args: argparse.Namespace
               ) -> tuple[list[dict[str, object]], list[str], int]:
    """(mutant rows, skipped ones included; the suite's collected items; how many tests
    fail on the unmutated tree)."""
    cache = Path(args.cache)
    checkout, python = setup(project, cache)
    console.print(f"[{project.name}] commit {project.commit}  checkout {checkout}")
    db = coverage_db(project, ingest(project, checkout, cache),
                     record_coverage(project, checkout, python, cache), checkout, cache)
    results_path = cache / project.name / "mutants.jsonl"
    done: dict[str, dict[str, object]] = {}
    if results_path.exists():
        for line in results_path.read_text().splitlines():
            row = json.loads(line)
            if row["commit"] == project.commit and row["seed"] == args.seed:
                done[str(row["sym"])] = row
    items = collect(python, checkout)
    suite_files: dict[str, set[str]] = {}
    for item in items:
        suite_files.setdefault(item.split("::", 1)[0], set()).add(item)
    console.print(f"[{project.name}] suite: {len(items)} items, "
                  f"{len(set(map(base_id, items)))} tests, {len(suite_files)} files")
    clean = run_suite(python, checkout, suite_files)
    console.print(f"[{project.name}] unmutated run: {len(clean.failing)} failing "
                  f"({', '.join(sorted(clean.failing)) or '-'}), {clean.seconds:.1f} s")
    testmon_data = checkout / ".testmondata"
    if not testmon_data.exists():
        started = time.perf_counter()
        run([str(python), *PYTEST, "-q", "--testmon", "--testmon-forceselect"], cwd=checkout)
        console.print(f"[{project.name}] testmon recorded in "
                      f"{time.perf_counter() - started:.1f} s")
    pristine = testmon_data.read_bytes()
    test_texts = {f: (checkout / f).read_text(encoding="utf-8") for f in suite_files}
    test_imports = {f: imported_packages(checkout / f) for f in suite_files}
    rows: list[dict[str, object]] = []  # mutants run
    skipped: list[dict[str, object]] = []  # functions that could not be mutated
    with Store.open(db, read_only=True) as store:  # the CLI opens it too
        targets = sample_targets(store, project, random.Random(args.seed), args.mutants)
        checked_cli = 0
        recomputed = changed = 0
        for target in targets:
            if len(rows) >= args.mutants:
                break
            if target.path.endswith(".pyi"):  # a type stub: its code never runs
                skipped.append({"sym": target.sym, "qualname": target.qualname,
                                "skipped": "stub (.pyi)"})
                continue
            if target.sym in done:
                cached = done[target.sym]
                if args.refresh_items and not cached["skipped"] and \
                        "failing_items" not in cached:
                    truth = mutant_run(checkout / target.path, target, python, checkout,
                                       suite_files)
                    before = set(cached["failing"])  # type: ignore[call-overload]
                    cached["failing"] = sorted(truth.failing - clean.failing)
                    cached["failing_items"] = sorted(truth.items - clean.items)
                    cached["status"] = truth.status
                    changed += before != set(cached["failing"])
                    recomputed += 1
                    console.print(f"[{project.name}] re-ran {target.qualname}: "
                                  f"{len(cached['failing_items'])} failing items")
                if args.recompute_vgdb and not cached["skipped"]:
                    started = time.perf_counter()
                    static = impact(store, [target.sym], **SPREAD, coverage=False)
                    cached["vgdb"] = list(static.test_ids())
                    cached["vgdb_stopped"] = _stopped(static.notes)
                    cached["vgdb_seconds"] = round(time.perf_counter() - started, 3)
                    recomputed += 1
                (skipped if cached["skipped"] else rows).append(cached)
                continue
            file = checkout / target.path
            original = file.read_text(encoding="utf-8")
            mutated, why, kinds = mutate(original, target)
            row: dict[str, object] = {
                "repo": project.name, "commit": project.commit, "seed": args.seed,
                "sym": target.sym, "path": target.path, "qualname": target.qualname,
                "traits": kinds, "skipped": why}
            if mutated is None:
                console.print(f"[{project.name}] skip {target.qualname}: {why}")
                done[target.sym] = row
                _append(results_path, row)
                skipped.append(row)
                continue
            started = time.perf_counter()
            static = impact(store, [target.sym], coverage=False, **SPREAD)
            selected_vgdb = list(static.test_ids())
            vgdb_seconds = time.perf_counter() - started
            if checked_cli < 3:  # the CLI prints the same list
                cli = run([str(VGDB), "affected-tests", target.sym, "--db", str(db),
                           "--no-coverage"])
                if cli.stdout.split() != selected_vgdb:
                    raise SystemExit(f"vgdb affected-tests differs from the API for "
                                     f"{target.sym}: {cli.stdout.split()[:5]} ... "
                                     f"{cli.stderr[-500:]}")
                checked_cli += 1
            try:
                file.write_text(mutated, encoding="utf-8")
                truth = run_suite(python, checkout, suite_files)
                testmon_data.write_bytes(pristine)
                selected_testmon = testmon_select(python, checkout)
            finally:
                file.write_text(original, encoding="utf-8")
                testmon_data.write_bytes(pristine)
            failing = sorted(truth.failing - clean.failing)
            row["failing_items"] = sorted(truth.items - clean.items)
            pkg = target.path.split("/")[1] if target.path.startswith("src/") else \
                target.path.split("/")[0]
            selected_naive = sorted(f for f, imps in test_imports.items() if pkg in imps)
            word = re.compile(rf"\b{re.escape(target.name)}\b")
            selected_grep = sorted(f for f, text in test_texts.items() if word.search(text))
            row.update({
                "status": truth.status, "suite_seconds": round(truth.seconds, 2),
                "vgdb_seconds": round(vgdb_seconds, 3), "failing": failing,
                "vgdb": selected_vgdb, "vgdb_stopped": _stopped(static.notes),
                "testmon": sorted(selected_testmon),
                "naive": selected_naive, "grep": selected_grep})
            done[target.sym] = row
            _append(results_path, row)
            rows.append(row)
            console.print(f"[{project.name}] {len(rows):3d}/{args.mutants} {target.qualname} "
                          f"({target.path}): {len(failing)} failing, vgdb "
                          f"{len(selected_vgdb)} ids, testmon {len(selected_testmon)} items, "
                          f"suite {truth.seconds:.1f} s")
    if recomputed:  # the suite runs stay cached; the selections are those of this code
        others = [line for line in results_path.read_text().splitlines()
                  if (row := json.loads(line))["commit"] != project.commit
                  or row["seed"] != args.seed]
        results_path.write_text("".join(f"{line}\n" for line in others)
                                + "".join(json.dumps(r) + "\n" for r in done.values()))
        console.print(f"[{project.name}] {recomputed} cached mutants recomputed; the "
                      f"failing tests of {changed} differ from the cached run (flaky)")
    # (a) static only and (b) coverage + static, both with this code on the same database
    static_s: list[float] = []
    cov_s: list[float] = []
    with Store.open(db, read_only=True) as store:
        for r in rows:
            started = time.perf_counter()
            r["vgdb"] = list(impact(store, [str(r["sym"])], coverage=False,
                                    **SPREAD).test_ids())
            static_s.append(time.perf_counter() - started)
            r["vgdb_depth5"] = list(impact(store, [str(r["sym"])], depth=5,
                                           coverage=False).test_ids())
            # to explain (a)'s misses: every path of at most 10 hops, no budget rules
            r["vgdb_depth10"] = list(impact(store, [str(r["sym"])], depth=MAX_DEPTH,
                                            coverage=False).test_ids())
            started = time.perf_counter()
            r["vgdb_cov"] = list(impact(store, [str(r["sym"])], **SPREAD).test_ids())
            cov_s.append(time.perf_counter() - started)
            for mode in ("static", "skip"):
                r[f"vgdb_cov_{mode}"] = list(impact(store, [str(r["sym"])], **SPREAD,
                                                    never_executed=mode).test_ids())
    if rows:
        console.print(f"[{project.name}] selection latency per mutant: static p50 "
                      f"{statistics.median(static_s) * 1000:.1f} ms, coverage + static p50 "
                      f"{statistics.median(cov_s) * 1000:.1f} ms (max {max(cov_s) * 1000:.0f})")
    return rows + skipped, items, len(clean.failing)


def _append(path: Path, row: dict[str, object]) -> None:
    with path.open("a") as f:
        f.write(json.dumps(row) + "\n")


def found_by(method: str, row: dict[str, object], ran: set[str]) -> bool:
    """All failing tests selected. When the mutant breaks every test (importing the package or
    a conftest.py raises), running any test shows it: a non-empty selection finds it, and
    testmon is counted as finding it (its own collection fails on the import error, so it
    cannot list a selection, and its run would fail)."""
    if row["breaks_all"]:
        return method == "testmon" or bool(ran)
    return all(hits(row, ran))


def hits(row: dict[str, object], ran: set[str]) -> list[bool]:
    """For each failing item of ``row`` (each failing test, for rows cached before items
    were kept), whether ``ran`` runs it."""
    if "failing_items" in row:
        return [t in ran for t in row["failing_items"]]  # type: ignore[union-attr]
    base = {base_id(i) for i in ran}
    return [t in base for t in row["failing"]]  # type: ignore[union-attr]


def score(rows: list[dict[str, object]], items: list[str], method: str) -> dict[str, float]:
    """Mutant recall over killed mutants; test recall over (mutant, failing test) pairs and
    mean fraction selected over all mutants, both without the mutants that break every test
    (for them the whole suite fails, and the fraction testmon would select is unknown)."""
    killed = [r for r in rows if r["failing"]]
    found = pairs = hit = 0
    fractions = []
    for r in rows:
        ran = ran_items(method, r, items)
        found += bool(r["failing"]) and found_by(method, r, ran)
        if r["breaks_all"]:
            continue
        fractions.append(len(ran) / len(items))
        ok = hits(r, ran)
        pairs += len(ok)
        hit += sum(ok)
    return {"recall": found / len(killed) if killed else float("nan"),
            "test_recall": hit / pairs if pairs else float("nan"),
            "selected": statistics.mean(fractions) if fractions else float("nan")}


def _missed(r: dict[str, object], items: list[str], method: str) -> int:
    """How many of a mutant's failing items ``method`` did not select."""
    return hits(r, ran_items(method, r, items)).count(False)


def _stopped(notes: tuple[str, ...] | list[str]) -> bool:
    """Spreading stopped at the test budget (a hub: more tests reached than the budget)."""
    return any("(the test budget)" in n for n in notes)


def _beyond(r: dict[str, object], items: list[str]) -> str:
    """Where (a)'s missed items are: on paths of at most 10 hops without the budget rules
    (the test budget, the score floor, a method reached only through its class's
    constructors: a receiver the resolver could not type, or a test reaching the class),
    or on no path of the graph (a call it does not see: an attribute read, a callback, a
    value it cannot follow)."""
    if "vgdb_depth10" not in r:
        return "depth 10 not computed"
    selected = hits(r, expand(list(r["vgdb"]), items))  # type: ignore[call-overload]
    wide = hits(r, expand(list(r["vgdb_depth10"]), items))  # type: ignore[call-overload]
    found = [w for ok, w in zip(selected, wide, strict=True) if not ok]
    if found and all(found):
        return "within 10 hops without the budget rules (cut by budget, floor or class rule)"
    if any(found):
        return "partly within 10 hops without the budget rules, partly on no path"
    return "on no path of 10 hops (a call the graph lacks)"


def miss_kinds(rows: list[dict[str, object]], items: list[str],
               method: str = "vgdb") -> dict[str, int]:
    """Why vgdb missed: nothing selected; a conftest.py fixture reached (its id selects no
    test); some failing tests selected, others not; spreading stopped by the test budget (a
    hub whose tests outnumber the budget) or not (a path the graph lacks); by the traits of
    the function."""
    out: dict[str, int] = {}
    for r in rows:
        if not r["failing"]:
            continue
        chosen = list(r[method])  # type: ignore[literal-required]
        ran = expand(chosen, items)
        if found_by(method, r, ran):
            continue
        kinds = ["nothing selected" if not ran else "partial"]
        if any(c.endswith("conftest.py") for c in chosen):
            kinds.append("conftest fixture reached")
        if method == "vgdb":
            kinds.append("budget stop (hub)" if r.get("vgdb_stopped") else
                         "no budget stop (a path the graph lacks)")
            kinds.append(_beyond(r, items))
        kinds += [f"trait {t}" for t in r["traits"]]  # type: ignore[union-attr]
        for k in kinds:
            out[k] = out.get(k, 0) + 1
    return out


METHODS = (("vgdb", "(a) vgdb static graph only (affected-tests: test budget 25%)"),
           ("vgdb_depth5", "(a') as (a), fixed depth 5 (the former default)"),
           ("vgdb_cov", "(b) vgdb coverage + static (test budget 25%)"),
           ("vgdb_cov_static", "(b') as (b), never-executed code: every static test"),
           ("vgdb_cov_skip", "(b'') as (b), never-executed code selects nothing"),
           ("testmon", "pytest-testmon 2.2.0 (recorded coverage)"),
           ("naive", "naive: test modules importing the package"),
           ("grep", "name grep: test modules naming the function"),
           ("vgdb+conftest", "vgdb, conftest.py ids read as their directory"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repos", nargs="+", default=list(PROJECTS), choices=list(PROJECTS))
    ap.add_argument("--mutants", type=int, default=100)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--cache", default="/tmp/vgdb_mut_cache",
                    help="checkouts, virtual environments, databases and cached results")
    ap.add_argument("--csv", default=str(ROOT / "benchmarks" / "data" / "impact_mutation"),
                    help="directory for the per-mutant CSV files")
    ap.add_argument("--refresh-items", action="store_true",
                    help="re-run the suite of cached mutants recorded before failing items "
                         "(parametrized cases) were kept, to score per item")
    ap.add_argument("--recompute-vgdb", action="store_true",
                    help="recompute vgdb's selection for cached mutants with the current code "
                         "and database (delete the cached database to re-ingest); the suite "
                         "runs, testmon's and the baselines' selections stay cached")
    args = ap.parse_args(argv)
    info = machine()
    console.print(f"{info['date']}  {info['cpu']}  nproc {info['nproc']}  load "
                  f"{info['loadavg']}  python {info['python']}  seed {args.seed}")
    table = Table(title=f"mutation testing: {args.mutants} mutants per repository, seed "
                        f"{args.seed}")
    for col in ("repo", "selection", "mutants recall", "test recall", "mean selected",
                "selected / testmon"):
        table.add_column(col, justify="left" if col in ("repo", "selection") else "right")
    for name in args.repos:
        project = PROJECTS[name]
        rows, items, clean_failing = bench_repo(project, args)
        n_tests = len({base_id(i) for i in items})
        for r in rows:  # every test that can fail fails: the package or conftest cannot import
            r["breaks_all"] = not r["skipped"] and len(r["failing"]) >= n_tests - clean_failing  # type: ignore[arg-type]
        mutants = [r for r in rows if not r["skipped"]]
        skipped = [r for r in rows if r["skipped"]]
        killed = [r for r in mutants if r["failing"]]
        why_skipped: dict[str, int] = {}
        for r in skipped:
            why_skipped[str(r["skipped"])] = why_skipped.get(str(r["skipped"]), 0) + 1
        timeouts = sum(r["status"] == "timeout" for r in mutants)
        console.print(f"[{name}] {len(mutants)} mutants: {len(killed)} killed, "
                      f"{len(mutants) - len(killed)} not killed by any test, {timeouts} timed out, "
                      f"{sum(bool(r['breaks_all']) for r in mutants)} break every test; "
                      f"{len(skipped)} skipped: {why_skipped}")
        trait_counts: dict[str, int] = {}
        for r in mutants:
            for t in r["traits"]:  # type: ignore[union-attr]
                trait_counts[t] = trait_counts.get(t, 0) + 1
        console.print(f"[{name}] traits of the mutants: {trait_counts}")
        console.print(f"[{name}] (a) static misses (killed mutants whose failing tests are "
                      f"not all selected): {miss_kinds(mutants, items)}")
        for r in mutants:
            if r["failing"] and not found_by("vgdb", r, ran_items("vgdb", r, items)):
                why = miss_kinds([r], items)
                console.print(f"[{name}]   (a) missed {r['qualname']} ({r['path']}): "
                              f"{', '.join(why)}; {_missed(r, items, 'vgdb')} of "
                              f"{len(r.get('failing_items', r['failing']))} failing items")  # type: ignore[arg-type]
        console.print(f"[{name}] (b) coverage + static misses: "
                      f"{miss_kinds(mutants, items, 'vgdb_cov')}")
        for r in mutants:
            if r["failing"] and not found_by("vgdb_cov", r, ran_items("vgdb_cov", r, items)):
                ran = ran_items("vgdb_cov", r, items)
                failing = list(r.get("failing_items", r["failing"]))  # type: ignore[call-overload]
                missed = [t for t, ok in zip(failing, hits(r, ran), strict=True) if not ok]
                console.print(f"[{name}]   (b) missed {r['qualname']} ({r['path']}): "
                              f"{missed[:4]}")
        scores = {m: score(mutants, items, m) for m, _ in METHODS}
        b, tm = scores["vgdb_cov"], scores["testmon"]
        console.print(f"[{name}] targets for (b): recall {b['recall']:.3f} >= testmon "
                      f"{tm['recall']:.3f}: {b['recall'] >= tm['recall']}; selected "
                      f"{b['selected']:.3f} <= 1.1 x {tm['selected']:.3f}: "
                      f"{b['selected'] <= 1.1 * tm['selected']}")
        for m, label in METHODS:
            s = scores[m]
            table.add_row(f"{name} @ {project.commit[:10]}", label, f"{s['recall']:.3f}",
                          f"{s['test_recall']:.3f}", f"{s['selected']:.3f}",
                          f"{s['selected'] / scores['testmon']['selected']:.2f}x")
        out_dir = Path(args.csv)
        out_dir.mkdir(parents=True, exist_ok=True)
        with (out_dir / f"{name}.csv").open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["symbol", "path", "traits", "status", "breaks_all", "failing",
                        "failing_tests",
                        *(f"{m}_selected_items" for m, _ in METHODS),
                        *(f"{m}_found" for m, _ in METHODS), "vgdb_missed"])
            for r in mutants:
                sel = {}
                found = {}
                for m, _ in METHODS:
                    ran = ran_items(m, r, items)
                    sel[m] = len(ran)
                    found[m] = int(found_by(m, r, ran)) if r["failing"] else ""
                vgdb_ran = expand(list(r["vgdb"]), items)  # type: ignore[call-overload]
                failing = list(r.get("failing_items", r["failing"]))  # type: ignore[call-overload]
                missed = [t for t, ok in zip(failing, hits(r, vgdb_ran), strict=True) if not ok]
                w.writerow([r["sym"], r["path"], "|".join(r["traits"]),  # type: ignore[arg-type]
                            r["status"], int(bool(r["breaks_all"])),
                            len(r["failing"]),  # type: ignore[arg-type]
                            " ".join(r["failing"][:20]),  # type: ignore[index]
                            *(sel[m] for m, _ in METHODS), *(found[m] for m, _ in METHODS),
                            " ".join(missed[:20])])
        console.print(f"[{name}] per-mutant CSV: {out_dir / (name + '.csv')}")
    console.print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
