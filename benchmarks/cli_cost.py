"""What a small ``vgdb ingest`` update costs from a shell, and where it goes (issue 26).

Two installs side by side in the same run (``--main``: main's ``vgdb``; this checkout's by
default), each on its own copy of the tree and of its database, the same change applied to
both and the two commands timed alternately first, as whole processes (wall, and the
child's CPU seconds, which swing less with the machine's load):

- ``vgdb --version``;
- edit one function body (``--rel``), then ``vgdb ingest``;
- add a file binding ``json`` and ``run`` (common names);
- no change.

Then a breakdown of one edit for each install, in fresh processes:

- ``interpreter``: ``python -c pass``;
- ``imports``: the sum of ``python -X importtime``'s self times over the modules the update
  loads (and how many);
- ``open``: ``Store.open`` of the database read-write, as the update opens it (modules
  imported first), and its first query; the process then ends as the command does
  (``os._exit``, no close: a close checkpoints, which would make the next update compact);
- ``work``: the phases the ingest's ``--json`` reports, and its communities step;
- ``to output`` / ``exit``: spawn to the last byte of output, and from there to the exit.

    .venv/bin/python benchmarks/cli_cost.py TREE DB --name click --rel src/click/termui.py \\
        --main /work/main/.venv/bin/vgdb --reps 5 [--ingest-args "--exclude test/"]

``--base-source DIR`` adds a side running another checkout's code (``git worktree add DIR
BASE``) with this install's interpreter and libraries: the branch against its own base, when
main moves during the run.

TREE is a git repository and DB a database of it built with the same arguments (both are
copied, never changed).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from update import add_common, edit_function

VGDB = str(Path(sys.executable).with_name("vgdb"))


class Side:
    """One install on its own copy of the tree and the database."""

    def __init__(self, label: str, vgdb: str, tree: Path, db: Path, work: Path,
                 name: str, extra: list[str], source: Path | None = None) -> None:
        self.label, self.vgdb, self.name, self.extra = label, vgdb, name, extra
        self.source = source  # another checkout's code, run by this install's interpreter
        self.python = str(Path(vgdb).with_name("python"))
        self.tree = work / f"{label}-tree"
        self.db = work / f"{label}-db"
        shutil.copytree(tree, self.tree, symlinks=True)
        shutil.copytree(db, self.db)
        # the database records its tree's absolute path: one warm-up update on the copy
        self.ingest()

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        if self.source is not None:  # found on sys.path before the editable install's finder
            env["PYTHONPATH"] = str(self.source)
        return env

    def timed(self, argv: list[str]) -> tuple[float, float, float, str]:
        """Wall seconds to exit, CPU seconds, wall seconds to the end of output, stdout."""
        before = _children_cpu()
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=self.env())
        out, err = proc.communicate()
        output_end = time.perf_counter() - start  # the pipe closed: output is complete
        proc.wait()
        took = time.perf_counter() - start
        if proc.returncode != 0:
            raise RuntimeError(f"{argv} failed ({proc.returncode}): {err.decode()[-2000:]}")
        return took, _children_cpu() - before, output_end, out.decode()

    def ingest_argv(self) -> list[str]:
        return [self.vgdb, "ingest", str(self.tree), "--db", str(self.db), "--name",
                self.name, *self.extra, "--json"]

    def ingest(self) -> tuple[float, float, float, dict]:
        took, cpu, output_end, out = self.timed(self.ingest_argv())
        return took, cpu, output_end, json.loads(out)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def rows(sides: list[Side], rel: str, reps: int) -> None:
    changes = {
        "vgdb --version": None,
        "edit one function body": lambda tree, n: edit_function(tree, rel, n),
        "add a file binding json and run": add_common,
        "no change": lambda tree, n: None,
    }
    for label, change in changes.items():
        wall: dict[str, list[float]] = {s.label: [] for s in sides}
        cpu: dict[str, list[float]] = {s.label: [] for s in sides}
        for rep in range(reps):
            order = sides if rep % 2 == 0 else sides[::-1]
            for side in order:
                if change is None:
                    took, used, _, _ = side.timed([side.vgdb, "--version"])
                else:
                    change(side.tree, 1000 + rep)
                    took, used, _, _ = side.ingest()
                wall[side.label].append(took)
                cpu[side.label].append(used)
        shown = "  ".join(f"{s.label} {statistics.median(wall[s.label]):.3f} s "
                          f"(cpu {statistics.median(cpu[s.label]):.3f})" for s in sides)
        print(f"{label:34} {shown}   load {os.getloadavg()[0]:.1f}", flush=True)


# read-write, as `vgdb ingest` opens it, and left as the command leaves it (`os._exit`, no
# close): a close would checkpoint the WAL, and the grown file would make the next update
# compact
_OPEN = r"""
import os, sys, time
import polars, pyarrow, ladybug
from graphdb import Store
t = time.perf_counter(); store = Store.open(sys.argv[1]); opened = time.perf_counter() - t
t = time.perf_counter(); store.graph_version(); first = time.perf_counter() - t
print(opened, first, flush=True)
os._exit(0)
"""


def _imports(side: Side) -> tuple[float, int]:
    """Seconds of import (self times summed) and modules an edit loads."""
    edit_function(side.tree, REL[0], 2000)
    env = side.env()
    env["PYTHONPROFILEIMPORTTIME"] = "1"
    argv = [side.python, "-c", "import sys; from api.cli import run; sys.argv[0] = 'vgdb'; run()",
            *side.ingest_argv()[1:]]
    out = subprocess.run(argv, capture_output=True, text=True, env=env, check=True,
                         cwd=side.tree.parent)  # not this checkout: `-c` puts the cwd first
    selfs = [int(line.split("|")[0].split(":")[1]) for line in out.stderr.splitlines()
             if line.startswith("import time:") and "self [us]" not in line]
    return sum(selfs) / 1e6, len(selfs)


REL: list[str] = []


def breakdown(sides: list[Side], reps: int) -> None:
    parts: dict[str, dict[str, list[float]]] = {s.label: {} for s in sides}
    for rep in range(reps):
        for side in (sides if rep % 2 == 0 else sides[::-1]):
            got = parts[side.label]
            t = time.perf_counter()
            subprocess.run([side.python, "-c", "pass"], check=True, env=side.env(),
                           cwd=side.tree.parent)
            got.setdefault("interpreter", []).append(time.perf_counter() - t)
            seconds, count = _imports(side)
            got.setdefault("imports", []).append(seconds)
            got.setdefault("modules", []).append(count)
            out = subprocess.run([side.python, "-c", _OPEN, str(side.db)], capture_output=True,
                                 text=True, env=side.env(), check=True, cwd=side.tree.parent)
            opened, first = map(float, out.stdout.split())
            got.setdefault("open (read-write)", []).append(opened)
            got.setdefault("first query", []).append(first)
            edit_function(side.tree, REL[0], 3000 + rep)
            took, cpu, output_end, detail = side.ingest()
            seconds = dict(detail.get("seconds", {}))
            compacted = seconds.pop("compact", 0.0)
            phases = sum(seconds.values()) + (detail.get("communities") or {}).get("seconds", 0.0)
            got.setdefault("work (phases + communities)", []).append(phases)
            got.setdefault("compaction (0 unless due)", []).append(compacted)
            got.setdefault("to output", []).append(output_end)
            got.setdefault("exit (after output)", []).append(took - output_end)
            got.setdefault("whole edit", []).append(took)
            got.setdefault("whole edit, CPU", []).append(cpu)
    for key in parts[sides[0].label]:
        shown = "  ".join(f"{s.label} {statistics.median(parts[s.label][key]):8.3f}"
                          for s in sides)
        print(f"  {key:30} {shown}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tree", type=Path)
    ap.add_argument("db", type=Path)
    ap.add_argument("--name", required=True)
    ap.add_argument("--rel", required=True, help="the file whose first function is edited")
    ap.add_argument("--main", help="main's vgdb executable, timed alongside")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--ingest-args", default="", help="more `vgdb ingest` arguments")
    ap.add_argument("--base-source", type=Path,
                    help="a checkout (e.g. a worktree at this branch's base commit) run by this "
                         "install's interpreter and libraries, timed alongside as `base`")
    ap.add_argument("--breakdown-only", action="store_true", help="skip the timed rows")
    ap.add_argument("--work", type=Path, help="working directory (default: a new temporary one)")
    args = ap.parse_args()
    REL.append(args.rel)
    work = args.work or Path(tempfile.mkdtemp(prefix="cli-cost-"))
    work.mkdir(parents=True, exist_ok=True)
    extra = shlex.split(args.ingest_args)
    print(f"{args.name}: work dir {work}; load {os.getloadavg()}", flush=True)
    sides = [Side("branch", VGDB, args.tree, args.db, work, args.name, extra)]
    if args.main:
        sides.insert(0, Side("main", args.main, args.tree, args.db, work, args.name, extra))
    if args.base_source:
        sides.insert(0, Side("base", VGDB, args.tree, args.db, work, args.name, extra,
                             source=args.base_source.resolve()))
    if not args.breakdown_only:
        rows(sides, args.rel, args.reps)
    print("breakdown of one edit (median seconds; modules: a count):")
    breakdown(sides, max(3, args.reps // 2))
    print(f"load {os.getloadavg()}")


if __name__ == "__main__":
    main()
