"""pytest plugin of VectorGraphDB: run only the tests a change affects, and label test-module
imports in recorded coverage.

    pytest --vgdb-select origin/main [--vgdb-db .vgdb] [--vgdb-head REF]

asks ``vgdb affected-tests --base BASE --format json`` which tests the changes since BASE
affect (recorded coverage where the changed code has it, the static graph where it does not,
conservative rules for module-level code, conftest, data and configuration files), deselects
the others and prints how many it kept and why. Without ``--vgdb-select`` it selects nothing.

While coverage is recorded with per-test contexts (``pytest --cov=PKG --cov-context=test``),
it also labels the code a test module runs while it is imported (module-level decorators and
class builders) with the context ``<test file>|collect``; pytest-cov leaves that code
unlabelled, so no test would own it.

This module is one file that imports nothing of VectorGraphDB: it runs inside the analysed
project's environment and talks to the ``vgdb`` command (``--vgdb-bin``, env ``VGDB_BIN``),
which lives in its own environment (docs/ci.md).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from collections import Counter
from collections.abc import Generator
from typing import Any

import pytest

__all__ = ["pytest_addoption", "pytest_collection_modifyitems", "pytest_make_collect_report"]


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
    try:
        from coverage import Coverage
    except ImportError:
        return None
    cov = Coverage.current()
    return cov if cov is not None and getattr(cov, "_started", False) else None


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, Any]:
    """Import a test module under the context ``<nodeid>|collect`` while recording."""
    cov = _recording(collector.config) if isinstance(collector, pytest.Module) else None
    if cov is None:
        return (yield)
    cov.switch_context(f"{collector.nodeid}|collect")
    try:
        return (yield)
    finally:
        cov.switch_context("")


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
    """The chosen id that covers ``nodeid`` (itself without parameters, an enclosing class
    or file, or a directory), or None."""
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
