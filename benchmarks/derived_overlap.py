"""The derived steps of a cold ingest (keyword index, embeddings, communities, papers), this
checkout against another's ``vgdb``, interleaved in the same run.

Each round runs ``vgdb ingest SRC --db NEW --json --no-history`` with both checkouts (the
order alternating), and prints the wall time start to exit, the CPU seconds of the command
and its children, the code phases, and the derived steps: ``keyword`` and ``embed`` (the
seconds the ingest process spent on each: with forked children, reading, waiting and
writing), ``communities`` and ``papers``, ``derived`` = the four together, and
``forked`` = what each forked child computed meanwhile (this checkout only).

    .venv/bin/python benchmarks/derived_overlap.py SRC [--exclude test/ ...] [--rounds 3]
        [--against /work/main/.venv/bin/vgdb] [--block]

``--block`` measures the derived steps alone, in this process: SRC's code is staged once
(``--no-history``), then each round copies that database and runs the keyword and vector
steps with the communities step alongside (``graphdb.findable.make_searchable``), forked
and not (``VGDB_NO_FORK=1``, the steps one after another), in alternating order; wall time
and CPU seconds of this process and of its children, from a parse-free start.

The source is copied to a temporary directory (never modified); compiled modules of each
checkout go to a cache written by a first, untimed run of each (as an installed package).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# the repository first, and not this directory: its api.py would hide the namespace
# package api/ (a module wins over a namespace package wherever it is on the path)
_HERE = Path(__file__).resolve().parent
sys.path[:] = [str(_HERE.parent), *(p for p in sys.path if Path(p or ".").resolve() != _HERE)]

DERIVED = ("keyword", "embed", "communities", "papers")


def _ignore(directory: str, names: list[str]) -> set[str]:
    return {n for n in names if n in ("site-packages", "__pycache__")}


def _env(cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def run_once(vgdb: list[str], src: Path, db: Path, env: dict[str, str],
             excludes: tuple[str, ...]) -> dict[str, Any]:
    shutil.rmtree(db, ignore_errors=True)
    flags = [f for pattern in excludes for f in ("--exclude", pattern)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([*vgdb, "ingest", str(src), "--db", str(db), "--json",
                           "--no-history", *flags], capture_output=True, env=env,
                          stdin=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{vgdb} exited {done.returncode}: {done.stderr.decode()[-2000:]}")
    data = json.loads(done.stdout)
    sec = dict(data["seconds"])
    steps = {"keyword": sec.pop("keyword", 0.0), "embed": sec.pop("embed", 0.0),
             "communities": (data.get("communities") or {}).get("seconds", 0.0),
             "papers": (data.get("papers") or {}).get("seconds", 0.0)}
    steps["derived"] = sum(steps.values())
    return {"wall": wall, "cpu": (after.ru_utime - before.ru_utime)
            + (after.ru_stime - before.ru_stime), "phases": sec, "steps": steps,
            "forked": (data.get("search") or {}).get("forked", {})}


def block(src: Path, excludes: tuple[str, ...], rounds: int, tmp: Path) -> None:
    """The derived steps alone, forked and not, on copies of one staged database."""
    from api.steps import communities_after_ingest
    from graphdb import Store
    from graphdb.embed import default_embedder
    from graphdb.findable import make_searchable
    from ingest.history.pipeline import HistoryOptions
    from ingest.pipeline import IngestOptions, ingest_staged, without_cyclic_gc

    base = tmp / "staged"
    options = IngestOptions(excludes=excludes, history=HistoryOptions(enabled=False))
    with Store.open(base) as store:
        staged = ingest_staged(store, src, options=options, defer=True)
        # the papers step runs before the derived ones, as in an ingest
        from ingest.pipeline import finish_derived
        finish_derived(store, staged, options=options, searchable=False)
        data = staged.summary.to_dict()
    default_embedder()
    import queries.communities  # noqa: F401  (imported by both paths alike, before timing)

    def used() -> tuple[float, float]:
        me, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF,
                                                     resource.RUSAGE_CHILDREN))
        return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime

    got: dict[str, list[tuple[float, float, float]]] = {"sequential": [], "forked": []}
    for r in range(rounds):
        for mode in (list(got) if r % 2 == 0 else list(reversed(got))):
            os.environ["VGDB_NO_FORK"] = "1" if mode == "sequential" else "0"
            db = tmp / "block"
            shutil.rmtree(db, ignore_errors=True)
            shutil.copytree(base, db)
            with Store.open(db) as store, without_cyclic_gc():
                took: dict[str, float] = {}

                def alongside(store: Store = store, took: dict[str, float] = took) -> None:
                    t0 = time.perf_counter()
                    communities_after_ingest(store, data)
                    took["communities"] = time.perf_counter() - t0

                (me0, kids0), start = used(), time.perf_counter()
                out = make_searchable(store, alongside=alongside)
                wall = time.perf_counter() - start
                me1, kids1 = used()
            got[mode].append((wall, me1 - me0, kids1 - kids0))
            print(f"round {r} {mode:10}: wall {wall:.2f} s, cpu here {me1 - me0:.2f} s + "
                  f"children {kids1 - kids0:.2f} s; this process: keyword "
                  f"{out['seconds']['keyword']:.2f} embed {out['seconds']['embed']:.2f} "
                  f"communities {took['communities']:.2f}; forked {out.get('forked', {})}; "
                  f"load {os.getloadavg()[0]:.2f}")
    for mode, runs in got.items():
        print(f"{mode}: median wall {statistics.median(w for w, _, _ in runs):.2f} s, cpu here "
              f"{statistics.median(m for _, m, _ in runs):.2f} s + children "
              f"{statistics.median(k for _, _, k in runs):.2f} s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source", type=Path)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--against", type=Path, help="another checkout's vgdb, run interleaved")
    ap.add_argument("--exclude", action="append", default=[], metavar="GLOB")
    ap.add_argument("--block", action="store_true",
                    help="the derived steps alone, in process, forked and not")
    args = ap.parse_args(argv)
    excludes = tuple(args.exclude)
    if args.block:
        print(f"load average at start: {os.getloadavg()}")
        with tempfile.TemporaryDirectory(prefix="vgdb-derived-") as tmp:
            src = Path(tmp) / args.source.name
            shutil.copytree(args.source, src, symlinks=True, ignore=_ignore)
            block(src, excludes, args.rounds, Path(tmp))
        print(f"load average at end: {os.getloadavg()}")
        return 0
    this = [str(Path(sys.executable).parent / "vgdb")]
    commands = {"this": this, **({"other": [str(args.against)]} if args.against else {})}
    print(f"load average at start: {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="vgdb-derived-") as tmp:
        src = Path(tmp) / args.source.name
        shutil.copytree(args.source, src, symlinks=True, ignore=_ignore)
        env = _env(Path(tmp) / "pycache")
        for label, command in commands.items():  # untimed: writes the compiled modules
            run_once(command, src, Path(tmp) / f"db-{label}", env, excludes)
        runs: dict[str, list[dict[str, Any]]] = {label: [] for label in commands}
        for r in range(args.rounds):
            order = list(commands) if r % 2 == 0 else list(reversed(commands))
            for label in order:
                got = run_once(commands[label], src, Path(tmp) / f"db-{label}", env, excludes)
                runs[label].append(got)
                steps = " ".join(f"{k} {v:.2f}" for k, v in got["steps"].items())
                phases = " ".join(f"{k} {v:.2f}" for k, v in got["phases"].items())
                print(f"round {r} {label:5}: wall {got['wall']:.2f} s, cpu {got['cpu']:.2f} s; "
                      f"steps {steps}; forked {got['forked']}; phases {phases}; "
                      f"load {os.getloadavg()[0]:.2f}")
        print(f"load average at end: {os.getloadavg()}")
        for label, got in runs.items():
            med = {k: statistics.median(g["steps"][k] for g in got)
                   for k in (*DERIVED, "derived")}
            print(f"{label}: median wall {statistics.median(g['wall'] for g in got):.2f} s, "
                  f"cpu {statistics.median(g['cpu'] for g in got):.2f} s; median steps "
                  + " ".join(f"{k} {v:.2f}" for k, v in med.items())
                  + f" ({' '.join(commands[label])})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
