"""Executors benchmark: extract Parquet shards for a batch of real repositories with a plain
sequential loop (the baseline), the local process pool, a Dask LocalCluster and a local Ray,
in the same run, each in a fresh subprocess.

The repositories are the source trees of packages installed in this virtual environment
(click, attrs, rich, pygments, strawberry, polars' Python part, ...). Each
mode runs ``ingest.shards.extract_shards`` once per repository, largest first, with 2 workers;
figures per mode: wall time including engine start, engine start alone, files/s, and peak
RSS summed over the process tree (the driver, and every worker, nanny, raylet, GCS... it
starts), polled from /proc every 50 ms, and CPU seconds of the whole process tree
(``getrusage(RUSAGE_CHILDREN)``, less sensitive than wall time to other load). Every mode
must produce the same row counts.
Installed size of each engine (its dependency closure, from the installed files' RECORD) is
reported too; ``--install-times`` also times ``pip install --no-cache-dir`` of each engine into
a fresh virtual environment (needs the package index).

    .venv/bin/python benchmarks/executors.py [--repeat 1] [--workers 2] [--out r.json]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from importlib import metadata
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

SITE = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" \
    / "site-packages"
REPOS = ("click", "attrs", "rich", "pygments", "strawberry", "starlette", "httpx",
         "hypothesis", "jinja2", "tornado", "polars")
MODES = ("sequential", "local", "dask://local", "ray://local")
ENGINES = {"dask": ("dask", "distributed"), "ray": ("ray",)}
POLL_SECONDS = 0.05


# ------------------------------------------------------------------------------ one mode
def _tree_rss(pid: int) -> int:
    """RSS in bytes of ``pid`` and all its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
        rss[int(entry)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
    total, stack = 0, [pid]
    while stack:
        p = stack.pop()
        total += rss.get(p, 0)
        stack.extend(children.get(p, ()))
    return total


def run_mode(mode: str, workers: int, out: Path) -> dict[str, Any]:
    """Extract every repository's shard with ``mode``; called in a fresh subprocess."""
    from ingest.executors import get_executor
    from ingest.shards import ExtractRequest, extract_shards

    peak = [0]
    stop = threading.Event()

    def poll() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], _tree_rss(os.getpid()))
            stop.wait(POLL_SECONDS)

    sampler = threading.Thread(target=poll, daemon=True)
    sampler.start()
    requests = sorted((ExtractRequest(str(SITE / name), str(out / name), repo=name)
                       for name in REPOS), key=lambda r: -_size(Path(r.root)))
    start = time.perf_counter()
    infos, failures, start_seconds = [], [], 0.0
    if mode == "sequential":
        infos = [extract_shards(r) for r in requests]
    else:
        with get_executor(mode, workers=workers) as executor:
            start_seconds = executor.start_seconds
            for request, result in executor.map_unordered(extract_shards, requests):
                if isinstance(result, BaseException):
                    failures.append(f"{request.repo}: {result!r}")
                else:
                    infos.append(result)
    wall = time.perf_counter() - start
    stop.set()
    sampler.join()
    counts: dict[str, int] = {}
    for info in infos:
        for table, n in info.counts.items():
            counts[table] = counts.get(table, 0) + n
    return {"mode": mode, "wall": wall, "start": start_seconds, "repos": len(infos),
            "failures": failures, "counts": counts, "peak_rss": peak[0],
            "files_per_s": counts.get("files", 0) / wall}


def _children_cpu() -> float:
    """User + system CPU seconds of every finished (waited-for) descendant process."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _size(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*.py"))


# ------------------------------------------------------------------------------ sizes
def _closure(names: tuple[str, ...]) -> set[str]:
    """Installed distributions ``names`` need (without extras), by their metadata."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = re.split(r"[\s;<>=!~\[(]", todo.pop(), maxsplit=1)[0].lower().replace("_", "-")
        if name in seen:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        seen.add(name)
        todo.extend(r for r in (dist.requires or []) if "extra ==" not in r)
    return seen


def installed_mb(names: tuple[str, ...]) -> float:
    total = 0
    for name in _closure(names):
        for f in metadata.distribution(name).files or ():
            path = Path(f.locate())
            if path.is_file():
                total += path.stat().st_size
    return total / 1e6


def install_seconds(spec: list[str]) -> float:
    """``pip install --no-cache-dir`` of ``spec`` into a fresh virtual environment."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "venv", tmp], check=True)
        python = str(Path(tmp) / "bin" / "python")
        start = time.perf_counter()
        subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-cache-dir", *spec],
                       check=True, capture_output=True)
        return time.perf_counter() - start


# ------------------------------------------------------------------------------ driver
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--install-times", action="store_true")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--run-mode", help=argparse.SUPPRESS)  # internal: one mode, JSON out
    parser.add_argument("--shards", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run_mode:
        print(json.dumps(run_mode(args.run_mode, args.workers, args.shards)))
        return

    modes = args.modes.split(",")
    runs: dict[str, list[dict[str, Any]]] = {m: [] for m in modes}
    files = sum(1 for name in REPOS for _ in (SITE / name).rglob("*.py"))
    print(f"{len(REPOS)} repositories ({files} .py files) from {SITE}; "
          f"{args.workers} workers; {os.cpu_count()} cores")
    for rep in range(args.repeat):
        for mode in modes:  # interleaved, so load from other processes hits every mode
            with tempfile.TemporaryDirectory() as tmp:
                cpu = _children_cpu()
                done = subprocess.run(
                    [sys.executable, __file__, "--run-mode", mode, "--workers",
                     str(args.workers), "--shards", tmp],
                    capture_output=True, text=True, check=False)
                if done.returncode:  # e.g. Ray timing out at start on a loaded machine
                    print(f"  run {rep + 1} {mode:13} failed: {done.stderr.strip()[-300:]}")
                    continue
                result = json.loads(done.stdout.strip().splitlines()[-1])
                result["cpu"] = _children_cpu() - cpu
            runs[mode].append(result)
            print(f"  run {rep + 1} {mode:13} wall {result['wall']:6.2f} s  start "
                  f"{result['start']:5.2f} s  cpu {result['cpu']:6.1f} s  "
                  f"{result['files_per_s']:6.1f} files/s  peak "
                  f"{result['peak_rss'] / 2**20:7.0f} MiB  failures {len(result['failures'])}")
    runs = {m: rs for m, rs in runs.items() if rs}
    modes = [m for m in modes if m in runs]
    counts = {m: rs[0]["counts"] for m, rs in runs.items()}
    same = all(c == next(iter(counts.values())) for c in counts.values())
    base = min(r["wall"] for r in runs[modes[0]])
    summary = []
    for mode, rs in runs.items():
        walls = [r["wall"] for r in rs]
        summary.append({
            "mode": mode, "best_wall": min(walls), "median_wall": statistics.median(walls),
            "spread": max(walls) - min(walls),
            "speedup_vs_sequential": base / min(walls),
            "best_files_per_s": max(r["files_per_s"] for r in rs),
            "start_best": min(r["start"] for r in rs), "start_max": max(r["start"] for r in rs),
            "peak_rss_mib": max(r["peak_rss"] for r in rs) / 2**20,
            "cpu_best": min(r["cpu"] for r in rs),
        })
    sizes = {engine: installed_mb(names) for engine, names in ENGINES.items()}
    installs = {}
    if args.install_times:
        installs = {"dask": install_seconds(["dask==2026.8.0", "distributed==2026.8.0"]),
                    "ray": install_seconds(["ray==2.60.0"])}
    print(f"\nsame rows in every mode: {same} {counts[modes[0]]}")
    print(f"{'mode':13} {'best s':>7} {'median':>7} {'spread':>7} {'x seq':>6} {'files/s':>8} "
          f"{'start s':>11} {'peak MiB':>9} {'cpu s':>7}")
    for s in summary:
        print(f"{s['mode']:13} {s['best_wall']:7.2f} {s['median_wall']:7.2f} "
              f"{s['spread']:7.2f} {s['speedup_vs_sequential']:6.2f} "
              f"{s['best_files_per_s']:8.1f} {s['start_best']:5.2f}-{s['start_max']:<5.2f} "
              f"{s['peak_rss_mib']:9.0f} {s['cpu_best']:7.1f}")
    for engine, mb in sizes.items():
        extra = f", pip install {installs[engine]:.1f} s" if engine in installs else ""
        print(f"installed size of {engine} with its dependencies: {mb:.0f} MB{extra}")
    if args.out:
        args.out.write_text(json.dumps({
            "date": dt.date.today().isoformat(), "machine": platform.processor() or
            platform.machine(), "cores": os.cpu_count(), "workers": args.workers,
            "repos": list(REPOS), "files": files, "runs": runs, "summary": summary,
            "same_rows": same, "installed_mb": sizes, "install_seconds": installs},
            indent=1))


if __name__ == "__main__":
    main()
