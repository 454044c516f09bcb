"""Everyday updates through the CLI, side by side with code-review-graph in the same run,
and the database size after many random updates against a fresh build (issue 26).

Latency rows (``--rows``): on a copy of the standard library (as ``make demo`` ingests it:
``--exclude test/ --exclude tests/ --exclude idle_test/``) and on pallets/click, each tool on
its own copy of the tree, the same change applied to both, then ``vgdb ingest`` and
``code-review-graph update`` timed as whole processes, alternately first:

- edit one function body; add a file that binds ``json`` and ``run`` (common names); add a
  file with unique names; no change.

New files are staged in git (``git add``) in both trees: code-review-graph finds changes by
``git diff`` against its last build and does not see untracked files (vgdb does).

Through a resident server (``--serve``, with ``--rows``): after the CLI rows, ``vgdb serve
--writable`` is started on the same database and the edit and no-change rows are timed
again: ``vgdb ingest`` from a shell then goes to that server (``api.resident``), which
applies the update in its warm process; code-review-graph has no server, so its column is
its ``update`` measured in the same run again.

Size (``--size-steps N``): N random steps (edit a function body, add a file, remove a file)
on a vgdb copy, each an ``vgdb ingest``; then a fresh ingest of the final tree into a new
database; the graph file and the whole directory are compared.

    .venv/bin/python benchmarks/update.py --rows --serve --reps 3 --click /tmp/incr-click \
        --crg /work/peers/crg-venv-incr/bin/code-review-graph
    .venv/bin/python benchmarks/update.py --size-steps 100

``--main /work/main/.venv/bin/vgdb`` adds a column: that install on its own copy of the
tree and database, changed and timed in the same run (before the pair, so all three see
the same load). On the standard library a fifth row adds a function to ``os.py``, the
module with the most importers.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

VGDB = str(Path(sys.executable).with_name("vgdb"))
EXCLUDES = ["--exclude", "test/", "--exclude", "tests/", "--exclude", "idle_test/"]
STDLIB_TESTS = ("test", "tests", "idle_test")


# ------------------------------------------------------------------------------ trees
def _git(tree: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@invalid", *args],
                   cwd=tree, check=True, capture_output=True)


def copy_tree(src: Path, dst: Path, *, drop: tuple[str, ...] = ()) -> Path:
    """A git repository holding ``src`` without caches, site-packages and the directories
    named in ``drop`` (the standard library's test suites, which ``make demo`` excludes:
    code-review-graph has no such option, so neither tool sees them)."""
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(
        "__pycache__", "site-packages", "*.pyc", ".git", *drop), symlinks=True)
    _git(dst, "init", "-q")
    _git(dst, "add", "-A")
    _git(dst, "commit", "-qm", "base")
    return dst


def _du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _graph_bytes(db: Path) -> int:
    """The graph file and its write-ahead log (what the next checkpoint folds in)."""
    return sum(p.stat().st_size for p in (db / "graph.lbug", db / "graph.lbug.wal")
               if p.exists())


# ------------------------------------------------------------------------------ changes
def edit_function(tree: Path, rel: str, n: int) -> None:
    """Change the body of the first function of ``rel`` (one statement added to it)."""
    path = tree / rel
    lines = path.read_text().splitlines(keepends=True)
    for i, line in enumerate(lines):
        m = re.match(r"( *)def \w+\(.*\).*:\s*$", line)
        if m:
            body = i + 1
            while body < len(lines) and not lines[body].strip():
                body += 1
            indent = re.match(r"( *)", lines[body]).group(1) or m.group(1) + "    "
            if lines[body].lstrip().startswith(('"""', "'''")):
                # keep the docstring first: the statement goes after its end
                quote = lines[body].lstrip()[:3]
                end = body if lines[body].count(quote) >= 2 else body + 1
                while quote not in lines[end] and end < len(lines) - 1:
                    end += 1
                body = end + 1
            lines.insert(body, f"{indent}_bench_{n} = {n}\n")
            path.write_text("".join(lines))
            return
    raise ValueError(f"no function in {rel}")


def add_common(tree: Path, n: int) -> str:
    rel = f"bench_common_{n}.py"
    (tree / rel).write_text("import json\n\n\ndef run(x):\n    return json.dumps(x)\n")
    _git(tree, "add", rel)
    return rel


def add_unique(tree: Path, n: int) -> str:
    rel = f"bench_unique_{n}.py"
    (tree / rel).write_text(f"def zq_unique_{n}(x):\n    return zq_helper_{n}(x)\n\n\n"
                            f"def zq_helper_{n}(x):\n    return x\n")
    _git(tree, "add", rel)
    return rel


# ------------------------------------------------------------------------------ tools
def add_to_hub(tree: Path, n: int) -> None:
    """A new function at the end of the standard library's ``os.py`` (189 importers)."""
    path = tree / "os.py"
    path.write_text(path.read_text() + f"\n\ndef _bench_hub_{n}(x):\n    return fspath(x)\n")


def _env(vgdb: str) -> dict[str, str]:
    """The environment for ``vgdb``: another install (``--main``) without this process's
    PYTHONPATH, which would make it run this checkout's code."""
    if vgdb == VGDB:
        return dict(os.environ)
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def _children_cpu() -> float:
    """CPU seconds (user + system) of this process's finished children: a command's CPU
    time swings far less with the machine's load than its wall time (served rows excepted:
    their work runs in the server)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


#: CPU seconds of the last code-review-graph update (``crg_update`` returns its wall time)
LAST_CPU = {"crg": 0.0}


def vgdb_ingest(tree: Path, db: Path, name: str, *extra: str,
                vgdb: str = VGDB) -> tuple[float, dict]:
    """Wall seconds of one ``vgdb ingest``, and its JSON with ``cpu_seconds`` added."""
    t, cpu = time.perf_counter(), _children_cpu()
    out = subprocess.run([vgdb, "ingest", str(tree), "--db", str(db), "--name", name,
                          *extra, "--json"], capture_output=True, text=True, env=_env(vgdb))
    took = time.perf_counter() - t
    if out.returncode != 0:
        raise RuntimeError(f"vgdb ingest failed ({out.returncode}): {out.stderr[-2000:]}")
    detail = json.loads(out.stdout)
    detail["cpu_seconds"] = _children_cpu() - cpu
    return took, detail


def _phases(detail: dict) -> float:
    """Seconds the ingest itself reports (its phases, history, papers, communities): the
    process's wall time minus these is the CLI's start, the open and the close."""
    total = sum(detail.get("seconds", {}).values())
    total += sum((detail.get("history") or {}).get("seconds", {}).values())
    total += (detail.get("papers") or {}).get("seconds", 0.0)
    communities = detail.get("communities") or {}
    total += sum((communities.get(s) or {}).get("seconds", 0.0) for s in ("file", "symbol"))
    return total


def _communities_seconds(detail: dict) -> float:
    """The communities step of an ingest: its own figure (imports included) where the
    ingest reports one, else the sum of its scopes' (older versions: Leiden and the write,
    without igraph's import)."""
    communities = detail.get("communities") or {}
    if "seconds" in communities:
        return communities["seconds"]
    return sum((communities.get(s) or {}).get("seconds", 0.0) for s in ("file", "symbol"))


class Server:
    """``vgdb serve --writable`` on ``db`` until :meth:`stop` (SIGINT, as Ctrl-C)."""

    def __init__(self, db: Path, vgdb: str = VGDB) -> None:
        import signal

        self._signal = signal.SIGINT
        self.proc = subprocess.Popen([vgdb, "serve", "--db", str(db), "--writable", "--port",
                                      "0", "--json"], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, env=_env(vgdb))
        self.url = json.loads(self.proc.stdout.readline())["url"]
        time.sleep(1.0)  # the impact adjacency warms in the background: let it settle

    def stop(self) -> None:
        self.proc.send_signal(self._signal)
        self.proc.wait(timeout=60)


def crg_update(crg: str, tree: Path) -> float:
    t, cpu = time.perf_counter(), _children_cpu()
    out = subprocess.run([crg, "update", "--repo", str(tree), "-q"], capture_output=True,
                         text=True)
    took = time.perf_counter() - t
    LAST_CPU["crg"] = _children_cpu() - cpu
    if out.returncode != 0:
        raise RuntimeError(f"code-review-graph update failed: {out.stderr[-2000:]}")
    return took


# ------------------------------------------------------------------------------ rows
def rows(name: str, src: Path, edit_rel: str, extra: list[str], crg: str, reps: int,
         work: Path, drop: tuple[str, ...] = (), serve: bool = False,
         main: str | None = None) -> list[dict]:
    ours = copy_tree(src, work / f"{name}-vgdb", drop=drop)
    theirs = copy_tree(src, work / f"{name}-crg", drop=drop)
    db = work / f"{name}-db"
    base = Baseline(main, copy_tree(src, work / f"{name}-main", drop=drop),
                    work / f"{name}-main-db", name, extra) if main else None
    t, _ = vgdb_ingest(ours, db, name, *extra)
    if base:
        base.ingest()
    t0 = time.perf_counter()
    subprocess.run([crg, "build", "--repo", str(theirs), "-q"], check=True,
                   capture_output=True)
    print(f"{name}: built (vgdb {t:.1f} s, code-review-graph "
          f"{time.perf_counter() - t0:.1f} s)", flush=True)
    # one warm-up update each (file caches, first-update work)
    vgdb_ingest(ours, db, name, *extra)
    crg_update(crg, theirs)
    if base:
        base.ingest()
    changes = {
        "edit one function body": lambda tree, n: edit_function(tree, edit_rel, n),
        "add a file binding json and run": add_common,
        "add a file with unique names": add_unique,
        "no change": lambda tree, n: None,
    }
    if name == "stdlib":
        changes["add a function to os.py (hub)"] = add_to_hub
    out = _rows(name, ours, theirs, db, changes, extra, crg, reps, base)
    if serve:
        server = Server(db)
        main_server = Server(base.db, base.vgdb) if base else None
        try:
            vgdb_ingest(ours, db, name, *extra)  # the server's first update: warm-up
            if base:
                base.ingest()
            served = {f"{label} (through vgdb serve)": change for label, change in changes.items()
                      if label in ("edit one function body", "no change")}
            out += _rows(name, ours, theirs, db, served, extra, crg, reps, base)
        finally:
            server.stop()
            if main_server:
                main_server.stop()
    return out


class Baseline:
    """Another vgdb install (``--main``: the main branch's) on its own copy of the tree and
    its own database, changed and timed alongside in the same run."""

    def __init__(self, vgdb: str, tree: Path, db: Path, name: str, extra: list[str]) -> None:
        self.vgdb, self.tree, self.db, self.name, self.extra = vgdb, tree, db, name, extra

    def ingest(self) -> tuple[float, dict]:
        return vgdb_ingest(self.tree, self.db, self.name, *self.extra, vgdb=self.vgdb)


def _rows(name: str, ours: Path, theirs: Path, db: Path, changes: dict, extra: list[str],
          crg: str, reps: int, base: Baseline | None = None) -> list[dict]:
    out = []
    for label, change in changes.items():
        mine: list[float] = []
        peer: list[float] = []
        main: list[float] = []
        inside: list[float] = []  # the ingest's own phases (not the CLI start, open, close)
        step: list[float] = []  # of which the communities step
        main_step: list[float] = []
        compacted = 0  # reps whose update compacted the graph file (graphdb.compact)
        cpu: dict[str, list[float]] = {"vgdb": [], "main": [], "crg": []}
        detail: dict = {}
        for rep in range(reps):
            n = hash((label, rep)) % 10**6
            change(ours, n)
            change(theirs, n)
            if base:
                change(base.tree, n)
                took, based = base.ingest()
                main.append(took)
                main_step.append(_communities_seconds(based))
                cpu["main"].append(based["cpu_seconds"])
            if rep % 2 == 0:
                took, detail = vgdb_ingest(ours, db, name, *extra)
                mine.append(took)
                peer.append(crg_update(crg, theirs))
            else:
                peer.append(crg_update(crg, theirs))
                took, detail = vgdb_ingest(ours, db, name, *extra)
                mine.append(took)
            cpu["vgdb"].append(detail["cpu_seconds"])
            cpu["crg"].append(LAST_CPU["crg"])
            inside.append(_phases(detail))
            step.append(_communities_seconds(detail))
            compacted += bool(detail.get("compacted"))
        row = {"tree": name, "change": label, "vgdb": statistics.median(mine),
               "crg": statistics.median(peer), "vgdb_all": mine, "crg_all": peer,
               "phases": statistics.median(inside),
               "re_resolved": detail["files"]["re_resolved"],
               "communities": (detail.get("communities") or {}).get("status"),
               "communities_s": statistics.median(step),
               "compacted": compacted,
               "cpu": {k: statistics.median(v) for k, v in cpu.items() if v},
               "load": os.getloadavg()}
        if base:
            row["main"] = statistics.median(main)
            row["main_communities_s"] = statistics.median(main_step)
        out.append(row)
        shown = f"main {row['main']:.2f} s  " if base else ""
        shown_step = (f"{row['communities_s']:.2f} s, main "
                      f"{row['main_communities_s']:.2f} s" if base else
                      f"{row['communities_s']:.2f} s")
        print(f"{name:7} {label:50} vgdb {row['vgdb']:.2f} s  {shown}code-review-graph "
              f"{row['crg']:.2f} s  (ingest phases {row['phases']:.2f} s, "
              f"re-resolved {row['re_resolved']}, communities "
              f"{row['communities']} {shown_step}, compacted in {compacted} of {reps}; "
              f"CPU {' / '.join(f'{k} {v:.2f}' for k, v in row['cpu'].items())} s; "
              f"all vgdb {[round(x, 2) for x in mine]} crg "
              f"{[round(x, 2) for x in peer]}; load {os.getloadavg()[0]:.2f})", flush=True)
    return out


# ------------------------------------------------------------------------------ size
def size_run(src: Path, steps: int, seed: int, work: Path) -> dict:
    rng = random.Random(seed)
    tree = copy_tree(src, work / "size-tree", drop=STDLIB_TESTS)
    db = work / "size-db"
    vgdb_ingest(tree, db, "stdlib", *EXCLUDES)
    start = {"graph": _graph_bytes(db), "dir": _du(db)}
    candidates = sorted(str(p.relative_to(tree)) for p in tree.rglob("*.py")
                        if re.search(r"^ *def \w+\(.*\).*:\s*$", p.read_text(errors="replace"),
                                      re.M))
    added: list[str] = []
    kinds = {"edit": 0, "add": 0, "remove": 0}
    took: list[float] = []
    compactions: list[tuple[int, dict]] = []
    for n in range(steps):
        kind = rng.choices(["edit", "add", "remove"], weights=[6, 2, 2])[0]
        if kind == "edit":
            rel = rng.choice(candidates)
            try:
                edit_function(tree, rel, n)
            except (ValueError, IndexError):
                continue
        elif kind == "add":
            added.append(add_common(tree, n) if rng.random() < 0.5 else add_unique(tree, n))
        else:
            pool = added or candidates
            rel = pool.pop(rng.randrange(len(pool)))
            (tree / rel).unlink()
            if rel in candidates:
                candidates.remove(rel)
        kinds[kind] += 1
        t, detail = vgdb_ingest(tree, db, "stdlib", *EXCLUDES)
        took.append(t)
        if detail.get("compacted"):
            compactions.append((n + 1, detail["compacted"]))
        if (n + 1) % 10 == 0:
            print(f"  step {n + 1}: graph {(db / 'graph.lbug').stat().st_size / 1e6:.1f} MB, "
                  f"dir {_du(db) / 1e6:.1f} MB, last {t:.2f} s", flush=True)
    end = {"graph": _graph_bytes(db), "dir": _du(db)}
    fresh_db = work / "size-fresh"
    vgdb_ingest(tree, fresh_db, "stdlib", *EXCLUDES)
    fresh = {"graph": _graph_bytes(fresh_db), "dir": _du(fresh_db)}
    result = {"steps": kinds, "start": start, "end": end, "fresh": fresh,
              "graph_ratio": end["graph"] / fresh["graph"], "dir_ratio": end["dir"] / fresh["dir"],
              "step_seconds_median": statistics.median(took), "step_seconds_max": max(took),
              "compactions": compactions,
              "load": os.getloadavg()}
    print(json.dumps(result, indent=1))
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stdlib", default=sysconfig.get_paths()["stdlib"])
    ap.add_argument("--click", help="a clone of pallets/click (rows on it too)")
    ap.add_argument("--crg", default="/work/peers/crg-venv-incr/bin/code-review-graph")
    ap.add_argument("--rows", action="store_true", help="the latency rows")
    ap.add_argument("--serve", action="store_true",
                    help="with --rows: the edit and no-change rows through vgdb serve too")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--size-steps", type=int, default=0)
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument("--work", help="working directory (default: a new /tmp/incr-bench-*)")
    ap.add_argument("--main", help="another vgdb executable (the main branch's) timed "
                                   "alongside on its own copy, as a baseline column")
    args = ap.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="incr-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"work dir {work}; load {os.getloadavg()}", flush=True)
    if args.rows:
        rows("stdlib", Path(args.stdlib), "json/encoder.py", EXCLUDES, args.crg, args.reps,
             work, STDLIB_TESTS, serve=args.serve, main=args.main)
        if args.click:
            rows("click", Path(args.click), "src/click/termui.py", [], args.crg, args.reps,
                 work, serve=args.serve, main=args.main)
    if args.size_steps:
        size_run(Path(args.stdlib), args.size_steps, args.seed, work)
    print(f"load {os.getloadavg()}")


if __name__ == "__main__":
    main()
