"""What crash safety costs: ingest and one-file update, this tree against an earlier release.

Runs the same commands with two installations, interleaved round by round (these 2-core
machines are noisy): a fresh ``vgdb ingest --no-embed`` of a tree, then a one-file update (the
file with the most importers gets a new function), then the update undone. The baseline is an
earlier checkout with its own virtual environment (vgdb 0.1 on Kuzu 0.11.3); this tree runs
on LadybugDB with the graph checksum. Prints each figure with the ratio to the baseline.

    python benchmarks/durability_cost.py --baseline /path/to/old/checkout --rounds 5 \\
        [TREE]    # default: the standard library without test directories
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXCLUDES = ("--exclude", "test/", "--exclude", "tests/", "--exclude", "idle_test/")


def _vgdb(checkout: Path) -> list[str]:
    python = checkout / ".venv" / "bin" / "python"
    return [str(python), "-m", "api.cli"]


def _timed(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """Wall time, and the part of it spent on the keyword index (a step the baseline lacks:
    it built Kuzu's FTS index at the first search instead)."""
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    start = time.perf_counter()
    done = subprocess.run([*cmd, "--json"], cwd=cwd, env=env, capture_output=True, text=True,
                          check=False)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {done.stderr[-1500:]}")
    return took, json.loads(done.stdout).get("seconds", {}).get("keyword", 0.0)


def _most_imported(tree: Path) -> Path:
    """The module whose name appears in most import lines (a cheap stand-in for importers)."""
    counts: dict[str, int] = {}
    for path in tree.rglob("*.py"):
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for line in text.splitlines():
            if line.startswith(("import ", "from ")):
                name = line.split()[1].split(".")[0]
                counts[name] = counts.get(name, 0) + 1
    for name, _ in sorted(counts.items(), key=lambda kv: -kv[1]):
        if (tree / f"{name}.py").exists():
            return tree / f"{name}.py"
    raise RuntimeError("no module found")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", nargs="?", default=sysconfig.get_paths()["stdlib"])
    parser.add_argument("--baseline", type=Path, required=True,
                        help="an earlier checkout with its own .venv")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="vgdb-durability-"))
    tree = work / "tree"
    shutil.copytree(args.tree, tree, ignore=shutil.ignore_patterns(
        "test", "tests", "idle_test", "site-packages", "__pycache__"), symlinks=True)
    target = _most_imported(tree)
    original = target.read_text(encoding="utf-8")
    sides = {"baseline": args.baseline.resolve(), "this tree": ROOT}
    times: dict[str, dict[str, list[float]]] = {
        s: {"ingest": [], "update": [], "ingest keyword": [], "update keyword": []}
        for s in sides}
    for r in range(args.rounds):
        for side, checkout in (sides.items() if r % 2 == 0 else reversed(sides.items())):
            db = work / f"db-{side.replace(' ', '-')}"
            shutil.rmtree(db, ignore_errors=True)
            base = [*_vgdb(checkout), "ingest", str(tree), "--db", str(db), "--name", "t",
                    "--no-history", *EXCLUDES]
            extra = ["--no-embed"] if side == "this tree" else []
            took, keyword = _timed([*base, *extra], checkout)
            times[side]["ingest"].append(took)
            times[side]["ingest keyword"].append(keyword)
            target.write_text(original + "\n\ndef _durability_probe():\n    return 1\n",
                              encoding="utf-8")
            took, keyword = _timed([*base, *extra], checkout)
            times[side]["update"].append(took)
            times[side]["update keyword"].append(keyword)
            target.write_text(original, encoding="utf-8")
            _timed([*base, *extra], checkout)
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    print(f"tree: {args.tree} ({sum(1 for _ in tree.rglob('*.py'))} .py files); "
          f"updated file: {target.relative_to(tree)}; {args.rounds} rounds, interleaved")
    print("| | baseline median (s) | this tree median (s) | ratio | this tree without the "
          "keyword step (s) | ratio |")
    print("|---|---:|---:|---:|---:|---:|")
    for what in ("ingest", "update"):
        b = statistics.median(times["baseline"][what])
        t = statistics.median(times["this tree"][what])
        bare = statistics.median([a - k for a, k in zip(times["this tree"][what],
                                                        times["this tree"][f"{what} keyword"],
                                                        strict=True)])
        print(f"| {what} | {b:.2f} | {t:.2f} | {t / b:.2f}x | {bare:.2f} | {bare / b:.2f}x |")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
