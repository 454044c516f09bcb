"""The resolve phase alone, this checkout against another (main), interleaved, on the same
stored extracts: wall and CPU seconds of ``ingest.resolve.resolve`` in a fresh process (as
a cold ``vgdb ingest`` runs it: collector off, stubs read from their on-disk cache), in one
process (``--workers 1``) and split over forked children (``--workers 2``, the default of a
2-core machine), and a digest of the whole result (every edge in order, every External,
every unresolved site) that must be the same for both.

    .venv/bin/python benchmarks/resolve_speed.py --against /work/main --rounds 3
    .venv/bin/python benchmarks/resolve_speed.py --against BASE --tree /tmp/incr-click --repo click

The extracts are parsed once by this checkout (``--work`` keeps them between runs) and read
by both sides, so only the resolution differs. A side is run as ``python -P`` with its
checkout first on ``PYTHONPATH``. Exits 1 when a digest differs (and writes both results
to ``--work`` for a diff).
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import pickle
import statistics
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXCLUDES = ("test/", "tests/", "idle_test/")


def prepare(tree: Path, out: Path, excludes: tuple[str, ...]) -> None:
    """Parse ``tree`` as a cold ingest does and pickle {path: FileExtract} to ``out``."""
    sys.path.insert(0, str(ROOT))
    from ingest import IngestOptions
    from ingest.parsing import parse_tasks
    from ingest.walk import walk
    from ingest.worker import ParseTask

    candidates, _ = walk(tree, excludes=excludes, default_excludes=True, gitignore=True,
                         max_file_size=IngestOptions().max_file_size)
    tasks = [ParseTask(str(tree / c.path), c.path, c.language) for c in candidates]
    results = parse_tasks(tasks, workers=2, progress=None)
    extracts = {r.path: r.extract for r in results if r.extract is not None}
    out.write_bytes(pickle.dumps(extracts, protocol=pickle.HIGHEST_PROTOCOL))


def child(extracts: Path, repo: str, workers: int, dump: Path | None) -> None:
    """One timed resolution (run by each side's interpreter, its checkout on the path)."""
    files = pickle.loads(extracts.read_bytes())
    gc.disable()  # as ``ingest.pipeline.without_cyclic_gc`` runs an ingest
    from ingest.resolve import resolve

    t0, c0 = time.perf_counter(), os.times()
    result = resolve(repo, files, workers=workers)
    wall, c1 = time.perf_counter() - t0, os.times()
    cpu = (c1.user - c0.user) + (c1.system - c0.system)
    children = (c1.children_user - c0.children_user) + (c1.children_system - c0.children_system)
    canon = ([tuple(e) if isinstance(e, tuple) else (e.rel, e.src, e.src_table, e.dst,
                                                     e.dst_table, e.line, e.resolution,
                                                     e.confidence, e.name)
              for e in result.edges],
             sorted((x.id, x.name, x.language, x.package, x.kind)
                    for x in result.externals.values()),
             [tuple(u) for u in result.unresolved])
    data = pickle.dumps(canon, protocol=4)
    if dump is not None:
        dump.write_bytes(data)
    print(json.dumps({"wall": wall, "cpu": cpu, "children_cpu": children,
                      "edges": len(canon[0]), "externals": len(canon[1]),
                      "unresolved": len(canon[2]),
                      # repr, not the pickle: pickle's bytes depend on which strings are shared
                      "digest": hashlib.sha256(repr(canon).encode()).hexdigest()[:16]}))


def run_side(checkout: Path, extracts: Path, repo: str, workers: int,
             dump: Path | None) -> dict:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    cmd = [sys.executable, "-P", str(Path(__file__).resolve()), "--child", str(extracts),
           "--repo", repo, "--workers", str(workers)]
    if dump is not None:
        cmd += ["--dump", str(dump)]
    out = subprocess.run(cmd, env=env, cwd=checkout, capture_output=True, text=True,
                         check=False)
    if out.returncode != 0:
        raise SystemExit(f"{checkout}: {out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", type=Path, help="the other checkout (main)")
    ap.add_argument("--tree", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    ap.add_argument("--repo", default="stdlib")
    ap.add_argument("--all-files", action="store_true",
                    help="keep test/, tests/, idle_test/ (excluded by default)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workers", type=int, action="append",
                    help="resolve with this many processes (default: 1 and 2)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/resolve-speed-work"))
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--dump", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        child(args.child, args.repo, (args.workers or [1])[0], args.dump)
        return
    args.work.mkdir(parents=True, exist_ok=True)
    extracts = args.work / f"{args.repo}.extracts.pickle"
    if not extracts.exists():
        prepare(args.tree, extracts, () if args.all_files else EXCLUDES)
    sides = {"this": ROOT}
    if args.against is not None:
        sides = {"base": args.against.resolve(), **sides}
    digests: dict[tuple[int, str], str] = {}
    figures: dict[tuple[int, str], list[dict]] = {}
    failed = False
    for round_ in range(args.rounds):
        for workers in args.workers or [1, 2]:
            for name, checkout in sides.items():
                dump = args.work / f"{args.repo}.{name}.w{workers}.result" if round_ == 0 \
                    else None
                got = run_side(checkout, extracts, args.repo, workers, dump)
                got["load"] = round(os.getloadavg()[0], 2)
                figures.setdefault((workers, name), []).append(got)
                print(json.dumps({"round": round_, "workers": workers, "side": name,
                                  **{k: round(v, 3) if isinstance(v, float) else v
                                     for k, v in got.items()}}), flush=True)
                digests.setdefault((workers, "any"), got["digest"])
                if got["digest"] != digests[(workers, "any")]:
                    failed = True
                    print(f"DIFFERENT RESULT: {name} workers={workers}", flush=True)
    for (workers, name), runs in figures.items():
        print(json.dumps({"summary": name, "workers": workers,
                          "median_wall": round(statistics.median(r["wall"] for r in runs), 3),
                          "median_cpu": round(statistics.median(r["cpu"] + r["children_cpu"]
                                                                for r in runs), 3),
                          "min_cpu": round(min(r["cpu"] + r["children_cpu"] for r in runs), 3),
                          "loads": [r["load"] for r in runs]}))
    print("identical results" if not failed else "RESULTS DIFFER", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
