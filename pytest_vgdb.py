"""pytest plugin of VectorGraphDB: run only the tests a change affects, and label test-module
imports in recorded coverage.

    pytest --vgdb-select origin/main [--vgdb-db .vgdb] [--vgdb-head REF]

asks ``vgdb affected-tests --base BASE --format json`` which tests the changes since BASE
affect (recorded coverage where the changed code has it, the static graph where it does not,
conservative rules for module-level code, conftest, data and configuration files), deselects
the others and prints how many it kept and why. Without ``--vgdb-select`` it selects nothing.

While coverage is recorded with per-test contexts (``pytest --cov=PKG --cov-context=test``),
it also labels the code that runs while a module is imported, which pytest-cov leaves
unlabelled (no test would own it): ``<test file>|collect`` for a test module (module-level
decorators, class builders, parametrize lists) and ``<file>|import`` for any other module of
the project below the rootdir (the package's own import-time code, test helpers such as
``tests/strategies.py``), outside virtual environments.

This module is one file that imports nothing of VectorGraphDB: it runs inside the analysed
project's environment and talks to the ``vgdb`` command (``--vgdb-bin``, env ``VGDB_BIN``),
which lives in its own environment (docs/ci.md).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import json
import os
import shlex
import subprocess
import sys
from collections import Counter
from collections.abc import Generator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

__all__ = ["pytest_addoption", "pytest_collection_modifyitems",
           "pytest_load_initial_conftests", "pytest_make_collect_report", "pytest_unconfigure"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("vgdb", "test selection by VectorGraphDB")
    group.addoption("--vgdb-select", metavar="BASE", default=None,
                    help="run only the tests affected by the changes since BASE (a git "
                         "revision; the merge base with the working tree or --vgdb-head)")
    group.addoption("--vgdb-head", metavar="REF", default=None,
                    help="diff to this revision instead of the working tree")
    group.addoption("--vgdb-db", metavar="PATH", default=None,
                    help="VectorGraphDB database directory (default: env VGDB_DB, else .vgdb)")
    group.addoption("--vgdb-repo", metavar="NAME", default=None,
                    help="repository name in the database, when it holds several")
    group.addoption("--vgdb-bin", metavar="CMD", default=None,
                    help="the vgdb command (default: env VGDB_BIN, else vgdb)")


def _recording(config: pytest.Config) -> Any:
    """The running coverage.py instance when pytest-cov records per-test contexts."""
    if getattr(config.option, "cov_context", None) != "test":
        return None
    return _coverage()


def _restores_context() -> bool:
    """coverage 7.16+ returns the context ``switch_context`` replaces. Before, an import
    inside a test could not hand the test its context back: imports stay unlabelled."""
    import coverage

    return coverage.version_info >= (7, 16)


def _coverage() -> Any:
    """The started coverage.py instance, if any (coverage 7.16+: ``switch_context`` returns
    the context it replaces, which the labels restore)."""
    try:
        from coverage import Coverage
    except ImportError:
        return None
    cov = Coverage.current()
    return cov if cov is not None and getattr(cov, "_started", False) else None


class _ImportLabels(importlib.abc.MetaPathFinder):
    """Runs each project module's import under the context ``<relative path>|import``.

    First on ``sys.meta_path``, it asks the finders after it for the spec and, for a plain
    source module of the project, wraps that module's own loader's ``exec_module`` (the
    loader is one object per module; modules pytest rewrites, such as test modules and
    conftest.py files, keep their loader untouched). The context in force before (a test's
    ``|run``, another import) is restored after: ``switch_context`` returns it."""

    def __init__(self, cov: Any, root: Path) -> None:
        self.cov = cov
        self.root = str(root.resolve()) + os.sep
        envs = {sys.prefix, sys.exec_prefix, sys.base_prefix, os.environ.get("VIRTUAL_ENV")}
        self.skip = tuple(str(Path(p).resolve()) + os.sep for p in envs if p)
        self.collecting: str | None = None  # the test module being collected

    def find_spec(self, name: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(name, path, target)
            if spec is not None:
                self._label(spec)
                return spec
        return None

    def _label(self, spec: importlib.machinery.ModuleSpec) -> None:
        loader, origin = spec.loader, spec.origin
        if type(loader) is not importlib.machinery.SourceFileLoader or not origin:
            return
        origin = os.path.realpath(origin)
        if not origin.startswith(self.root) or origin.startswith(self.skip) or \
                origin == self.collecting:
            return
        context = origin[len(self.root):].replace(os.sep, "/") + "|import"
        run, cov = loader.exec_module, self.cov

        def exec_module(module: ModuleType) -> None:
            if not getattr(cov, "_started", False):  # an import after coverage stopped
                return run(module)
            previous = cov.switch_context(context)
            try:
                run(module)
            finally:
                if getattr(cov, "_started", False):
                    cov.switch_context(previous or "")

        loader.exec_module = exec_module  # type: ignore[method-assign]


_labels: _ImportLabels | None = None


def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """Start labelling imports once pytest-cov (its own hook runs first) has started
    coverage, before the conftest.py files import the project."""
    global _labels
    if getattr(early_config.known_args_namespace, "cov_context", None) != "test":
        return
    cov = _coverage()
    if cov is None or _labels is not None or not _restores_context():
        return
    _labels = _ImportLabels(cov, early_config.rootpath)
    sys.meta_path.insert(0, _labels)


def pytest_unconfigure(config: pytest.Config) -> None:
    global _labels
    if _labels is not None:
        if _labels in sys.meta_path:
            sys.meta_path.remove(_labels)
        _labels = None


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, Any]:
    """Import a test module under the context ``<nodeid>|collect`` while recording.

    Only the import: what pytest then runs to collect the module's tests (its ``__test__``
    and fixture lookups on every name, which call a module ``__getattr__`` for instance) is
    pytest's own walk, left unlabelled. A module that fails to import is imported again by
    pytest's collection, which reports the error as usual."""
    cov = _recording(collector.config) if isinstance(collector, pytest.Module) else None
    if cov is None:
        return (yield)
    previous = cov.switch_context(f"{collector.nodeid}|collect")
    if _labels is not None:
        _labels.collecting = os.path.realpath(collector.path)
    try:
        collector.obj  # noqa: B018 - the import, cached by pytest for its collection
    except (Exception, pytest.skip.Exception, pytest.fail.Exception):  # pytest reports it
        pass
    finally:
        if _labels is not None:
            _labels.collecting = None
        cov.switch_context(previous or "")
    return (yield)


def _selection(config: pytest.Config, base: str) -> dict[str, Any]:
    command = shlex.split(config.getoption("vgdb_bin") or os.environ.get("VGDB_BIN", "vgdb"))
    db = config.getoption("vgdb_db") or os.environ.get("VGDB_DB", ".vgdb")
    args = [*command, "affected-tests", "--db", db, "--base", base, "--format", "json"]
    for option, flag in (("vgdb_head", "--head"), ("vgdb_repo", "--repo")):
        if config.getoption(option):
            args += [flag, config.getoption(option)]
    try:
        done = subprocess.run(args, capture_output=True, text=True, check=False,
                              cwd=str(config.rootpath))
    except OSError as exc:
        raise pytest.UsageError(f"--vgdb-select: cannot run {command[0]!r}: {exc}; install "
                                "vgdb or pass --vgdb-bin / VGDB_BIN") from exc
    if done.returncode != 0:
        raise pytest.UsageError(f"--vgdb-select: {' '.join(args)} failed (exit "
                                f"{done.returncode}): {done.stderr.strip()[-2000:]}")
    try:
        return json.loads(done.stdout)
    except ValueError as exc:
        raise pytest.UsageError(f"--vgdb-select: vgdb printed no JSON: {done.stdout[:200]!r}"
                                ) from exc


def _selected(nodeid: str, chosen: set[str], dirs: tuple[str, ...]) -> str | None:
    """The chosen id that covers ``nodeid`` (itself, with or without its parametrized case,
    an enclosing class or file, or a directory), or None."""
    if nodeid in chosen:
        return nodeid
    base = nodeid.split("[", 1)[0]
    parts = base.split("::")
    for k in range(len(parts), 0, -1):
        key = "::".join(parts[:k])
        if key in chosen:
            return key
    for d in dirs:
        if d == "./" or base.startswith(d):
            return d
    return None


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    """Keep the affected tests; report how many and why."""
    base = config.getoption("vgdb_select")
    if not base:
        return
    data = _selection(config, base)
    tests = data.get("tests", [])
    evidence = {t["node_id"]: t.get("evidence", "static") for t in tests}
    chosen = set(evidence)
    dirs = tuple(sorted(c for c in chosen if c.endswith("/")))
    kept, dropped = [], []
    why: Counter[str] = Counter()
    for item in items:
        key = _selected(item.nodeid, chosen, dirs)
        if key is None:
            dropped.append(item)
        else:
            kept.append(item)
            why[evidence[key]] += 1
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    reasons = ", ".join(f"{n} by {e}" for e, n in sorted(why.items())) or "none affected"
    reporter.write_line(f"vgdb: kept {len(kept)} of {len(kept) + len(dropped)} tests for the "
                        f"changes since {base} ({reasons})")
    for note in data.get("notes", []):
        reporter.write_line(f"vgdb note: {note}")
