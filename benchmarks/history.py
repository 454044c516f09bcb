"""History benchmark: a real public git history, with symbol attribution, against git itself.

One run measures, on the newest ``--commits`` commits of a checkout:

1. the baseline: ``git log --numstat -M -n N`` over the same range (git's own diff of every
   commit, to /dev/null), best of 2;
2. ``vgdb ingest --max-commits N`` into a fresh database as a subprocess, after a code-only
   ingest of the same tree (``--no-history``, not timed): the history phases as reported in
   ``--json`` (git read, attribution, load) and the CLI wall time of the whole command;
3. an incremental re-ingest with no new commits (history must say "up to date").

The default repository is pytest (pytest-dev/pytest); get a checkout with the workplace's
``fetch`` tool (``fetch github:pytest-dev/pytest``) and ``git clone <mirror> /tmp/pytest``.

    .venv/bin/python benchmarks/history.py --repo /tmp/pytest [--commits 10000]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
VGDB = [sys.executable, "-m", "api.cli"]
TARGET_SECONDS = 60.0  # issue 3: 10,000 commits with symbol attribution
console = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 132)


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True,
                          check=True).stdout.strip()


def _timed(cmd: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stderr}")
    return elapsed, proc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, default=Path("/tmp/pytest"))
    parser.add_argument("--commits", type=int, default=10_000)
    args = parser.parse_args()
    repo = args.repo.resolve()
    head = _git(repo, "rev-parse", "HEAD")
    total = int(_git(repo, "rev-list", "--count", "HEAD"))
    n = min(args.commits, total)
    console.print(f"repository {repo} at {head} ({total} commits); range: newest {n}")
    console.print(f"machine: {platform.machine()}, {os.cpu_count()} cores, "
                  f"Python {platform.python_version()}, load {os.getloadavg()[0]:.2f}")

    baseline = min(_timed(["git", "log", "--numstat", "-M", "-n", str(n), "--format=%H"],
                          repo)[0] for _ in range(2))
    with tempfile.TemporaryDirectory(prefix="vgdb-history-") as tmp:
        db = str(Path(tmp) / "db")
        _timed([*VGDB, "ingest", str(repo), "--db", db, "--no-history", "--json"], ROOT)
        wall, proc = _timed([*VGDB, "ingest", str(repo), "--db", db, "--json",
                             "--max-commits", str(n)], ROOT)
        history = json.loads(proc.stdout)["history"]
        again_wall, again = _timed([*VGDB, "ingest", str(repo), "--db", db, "--json"], ROOT)
        again_history = json.loads(again.stdout)["history"]
    seconds = history["seconds"]
    attributed = sum(seconds.values())
    table = Table("figure", "measured", "baseline / target")
    table.add_row("git log --numstat -M (best of 2)", f"{baseline:.2f} s "
                  f"({n / baseline:,.0f} commits/s)", "baseline")
    table.add_row("history ingest (git read + attribution + load)",
                  f"{attributed:.2f} s ({n / attributed:,.0f} commits/s)",
                  f"< {TARGET_SECONDS:.0f} s for 10,000")
    table.add_row("  phases", ", ".join(f"{k} {v}" for k, v in seconds.items()), "")
    table.add_row("  ratio to git log --numstat", f"{attributed / baseline:.1f}x", "")
    table.add_row("whole `vgdb ingest` CLI wall (code unchanged)", f"{wall:.2f} s", "")
    table.add_row("facts", f"{history['commits']} commits, {history['changes']} file changes, "
                  f"{history['touched']} TOUCHED, {history['lineage']} SUPERSEDES, "
                  f"{history['people']} people, {history['unattributed_changes']} "
                  "unattributed changes", "")
    table.add_row("re-ingest, no new commits (CLI wall)",
                  f"{again_wall:.2f} s ({again_history['status']})", "")
    console.print(table)
    met = attributed < TARGET_SECONDS * n / 10_000
    console.print(f"target (10,000 commits < {TARGET_SECONDS:.0f} s, scaled to {n}): "
                  f"{'met' if met else 'MISSED'}")


if __name__ == "__main__":
    main()
