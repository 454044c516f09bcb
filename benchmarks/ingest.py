"""Ingest benchmark: the CPython standard library of the running interpreter, end to end.

One run measures, on the same files (those ``vgdb ingest`` would pick, listed with
``ingest.walk.walk`` and the CLI's options):

1. raw single-thread tree-sitter parse throughput (``parser.parse`` only, files in memory),
   the baseline;
2. a full ``vgdb ingest --json`` into a fresh database, as a subprocess (wall time includes
   process start), with peak RSS summed over the process and all its descendants (the parse
   workers), polled from /proc every 50 ms;
3. a no-change re-ingest;
4. a one-file update of the file with the most importers (File -> File IMPORTS), and of a
   leaf file for comparison, each followed by a revert.

The standard library is copied once into a temporary directory (without ``site-packages`` and
``__pycache__``) and everything runs on the copy: the real standard library is never written.

    .venv/bin/python benchmarks/ingest.py [--no-tests] [--out results.json] [--keep]

See benchmarks/README.md for what each figure means.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ingest import IngestOptions
from ingest.walk import walk

console = Console(highlight=False, soft_wrap=True,
                  width=None if sys.stdout.isatty() else 132)

REPO = "stdlib"
TEST_EXCLUDES = ("test/", "tests/", "idle_test/")
PROBE = "\n\ndef _vgdb_bench_probe():\n    return 1\n"
POLL_SECONDS = 0.05

# Targets (issue 2, Performance) and baselines (DESIGN.md §4, measured on these machines).
TARGET_RATIO = 0.5
#: issue 24: the code phases of a cold ingest within 2x of a 1-thread raw parse of the same
#: files, the whole command (communities, papers, search indexes) within 4x
CODE_PHASES = ("walk", "parse", "resolve", "load")
TARGET_CODE_PHASES = 2.0
TARGET_WHOLE = 4.0
TARGET_RSS_BYTES = 2 * 1024**3
TARGET_UPDATE_S = 1.0
BASELINE_RAW_MBPS = "~10-12 MB/s (DESIGN §4)"
BASELINE_PEER = "peers ~2-5 files/s, ~0.09 MB/s (GitNexus, DESIGN §4)"


# ------------------------------------------------------------------------------ machine
def machine() -> dict[str, Any]:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_total = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_total = int(line.split()[1]) * 1024
                break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count() or 1

    def version(dist: str) -> str:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return "?"

    try:
        load = [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]
    except (OSError, ValueError):
        load = []
    return {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "loadavg": load,
        "nproc": usable, "cpu_count": os.cpu_count(), "ram_bytes": mem_total, "cpu": cpu,
        "python": platform.python_version(), "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "versions": {d: version(d) for d in ("vectorgraphdb", "ladybug", "tree-sitter",
                                             "tree-sitter-python", "polars")},
    }


# ------------------------------------------------------------------------------ /proc RSS
def _children(pid: int) -> list[int]:
    """Direct children of ``pid`` (via /proc/<pid>/task/*/children, else a /proc scan)."""
    kids: list[int] = []
    task_dir = Path(f"/proc/{pid}/task")
    try:
        tasks = list(task_dir.iterdir())
    except OSError:
        return kids
    found_file = False
    for task in tasks:
        try:
            text = (task / "children").read_text()
        except OSError:
            continue
        found_file = True
        kids.extend(int(x) for x in text.split())
    if found_file:
        return kids
    for entry in Path("/proc").iterdir():  # kernels without CONFIG_PROC_CHILDREN
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid:
            kids.append(int(entry.name))
    return kids


def _status_kb(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of ``pid`` in kB; (0, 0) when it is gone."""
    rss = hwm = 0
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
    except (OSError, ValueError):
        pass
    return rss, hwm


class TreeRss:
    """Polls the summed VmRSS of a process and all its descendants every 50 ms."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak_sum = 0  # bytes: max over samples of the sum over the tree
        self.peak_single = 0  # bytes: max VmRSS of any one process seen
        self.peak_procs = 0  # most processes alive in one sample
        self.hwm: dict[int, int] = {}  # pid -> last VmHWM seen (bytes)
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> TreeRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def sample(self) -> None:
        pids, stack, seen = [], [self.pid], set()
        while stack:
            pid = stack.pop()
            if pid in seen:
                continue
            seen.add(pid)
            pids.append(pid)
            stack.extend(_children(pid))
        total = alive = 0
        for pid in pids:
            rss, hwm = _status_kb(pid)
            if rss or hwm:
                alive += 1
            total += rss * 1024
            self.peak_single = max(self.peak_single, rss * 1024)
            if hwm:
                self.hwm[pid] = max(self.hwm.get(pid, 0), hwm * 1024)
        self.peak_sum = max(self.peak_sum, total)
        self.peak_procs = max(self.peak_procs, alive)
        self.samples += 1

    def _run(self) -> None:
        while True:
            self.sample()
            if self._stop.wait(POLL_SECONDS):
                return

    @property
    def hwm_sum(self) -> int:
        """Sum of every process's high-water mark: an upper bound (peaks may not overlap)."""
        return sum(self.hwm.values())


# ------------------------------------------------------------------------------ subprocesses
def vgdb_command() -> list[str]:
    script = Path(sys.executable).parent / "vgdb"
    if script.exists():
        return [str(script)]
    found = shutil.which("vgdb")
    if found:
        return [found]
    return [sys.executable, "-m", "api.cli"]


@dataclass
class Run:
    label: str
    wall: float
    rc: int
    summary: dict[str, Any] = field(default_factory=dict)
    stderr: str = ""
    peak_rss: int = 0
    peak_single: int = 0
    peak_procs: int = 0
    hwm_sum: int = 0
    samples: int = 0
    error: str = ""
    delta: dict[str, int] = field(default_factory=dict)

    def brief(self) -> dict[str, Any]:
        s = self.summary
        return {
            "label": self.label, "wall_s": round(self.wall, 3), "rc": self.rc,
            "error": self.error,
            "peak_rss_bytes": self.peak_rss, "peak_single_process_rss_bytes": self.peak_single,
            "sum_of_process_hwm_bytes": self.hwm_sum, "max_processes": self.peak_procs,
            "rss_samples": self.samples,
            "files": s.get("files", {}), "nodes": s.get("nodes", {}), "edges": s.get("edges", {}),
            "seconds": s.get("seconds", {}), "after": _after_steps(s),
        }


def _after_steps(summary: dict[str, Any]) -> dict[str, float]:
    """The steps after the code phases that report their time: communities (the whole step,
    igraph's import included, where the ingest reports it; else its scopes' sum) and papers."""
    out = {}
    communities = summary.get("communities") or {}
    if "seconds" in communities:
        out["communities"] = communities["seconds"]
    elif communities:
        out["communities"] = sum((communities.get(s) or {}).get("seconds", 0.0)
                                 for s in ("file", "symbol"))
    papers = summary.get("papers") or {}
    if "seconds" in papers:
        out["papers"] = papers["seconds"]
    return out


def run_vgdb(label: str, args: list[str], *, env: dict[str, str]) -> Run:
    """Run ``vgdb ARGS`` (expects --json); wall time from spawn to exit, tree RSS polled."""
    cmd = [*vgdb_command(), *args]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            stdin=subprocess.DEVNULL)
    with TreeRss(proc.pid) as rss:
        out, err = proc.communicate()
        wall = time.perf_counter() - start
    run = Run(label, wall, proc.returncode, stderr=err.decode("utf-8", "replace"),
              peak_rss=rss.peak_sum, peak_single=rss.peak_single, peak_procs=rss.peak_procs,
              hwm_sum=rss.hwm_sum, samples=rss.samples)
    if proc.returncode != 0:
        run.error = run.stderr.strip()[-4000:]
        raise BenchError(f"{label}: `{' '.join(cmd)}` exited {proc.returncode}\n"
                         f"stderr:\n{run.stderr[-4000:]}\nstdout:\n"
                         f"{out.decode('utf-8', 'replace')[-2000:]}", run)
    try:
        run.summary = json.loads(out)
    except ValueError as exc:
        run.error = f"output is not JSON: {exc}"
        raise BenchError(f"{label}: output is not JSON ({exc}): {out[:500]!r}", run) from exc
    return run


def cypher(db: Path, query: str, *, env: dict[str, str]) -> list[dict[str, Any]]:
    cmd = [*vgdb_command(), "cypher", "--db", str(db), "--json", query]
    proc = subprocess.run(cmd, capture_output=True, env=env, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise BenchError(f"cypher failed ({proc.returncode}): {query}\n"
                         f"{proc.stderr.decode('utf-8', 'replace')[-2000:]}")
    return json.loads(proc.stdout)


class BenchError(RuntimeError):
    def __init__(self, message: str, run: Run | None = None) -> None:
        super().__init__(message)
        self.run = run


# ------------------------------------------------------------------------------ raw parse
def count_lines(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def raw_parse(blobs: list[bytes], repeats: int = 2) -> dict[str, Any]:
    """Single-thread ``parser.parse`` over in-memory files; the best of ``repeats`` runs."""
    import tree_sitter as ts
    import tree_sitter_python as tsp

    parser = ts.Parser(ts.Language(tsp.language()))
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for data in blobs:
            parser.parse(data)
        times.append(time.perf_counter() - start)
    return {"best_s": min(times), "runs_s": times}


# ------------------------------------------------------------------------------ helpers
def mb(n: float) -> float:
    return n / 1e6


def fmt_bytes(n: float) -> str:
    return f"{n / 1024**2:,.0f} MiB" if n < 1024**3 else f"{n / 1024**3:.2f} GiB"


def verdict(ok: bool) -> str:
    return "[green]ok[/green]" if ok else "[bold red]MISS[/bold red]"


def ignore_copy(directory: str, names: list[str]) -> set[str]:
    return {n for n in names if n in ("site-packages", "__pycache__")}


def rank_files(db: Path, env: dict[str, str]) -> tuple[list[dict], dict[str, int], dict[str, int]]:
    """Current Python files, File->File importers per file, and importers of any kind
    (a file, or one of its symbols) per file."""
    files = cypher(db, f"MATCH (f:File) WHERE f.repo = '{REPO}' AND f.valid_to IS NULL "
                       "RETURN f.id AS id, f.path AS path, f.size AS size, "
                       "f.language AS language, f.parse_status AS status", env=env)
    direct = cypher(db, "MATCH (a:File)-[e:IMPORTS]->(b:File) "
                        f"WHERE b.repo = '{REPO}' AND b.valid_to IS NULL AND e.valid_to IS NULL "
                        "AND a.id <> b.id "
                        "RETURN b.path AS path, count(DISTINCT a.id) AS importers", env=env)
    via_symbols = cypher(db, "MATCH (a:File)-[e:IMPORTS]->(s:Symbol) "
                             f"WHERE s.repo = '{REPO}' AND s.valid_to IS NULL "
                             "AND e.valid_to IS NULL AND a.id <> s.file "
                             "RETURN DISTINCT a.id AS importer, s.file AS file", env=env)
    by_id = {f["id"]: f["path"] for f in files}
    importers = {r["path"]: int(r["importers"]) for r in direct}
    any_kind: dict[str, set[str]] = {}
    direct_pairs = cypher(db, "MATCH (a:File)-[e:IMPORTS]->(b:File) "
                              f"WHERE b.repo = '{REPO}' AND e.valid_to IS NULL "
                              "AND a.id <> b.id RETURN DISTINCT a.id AS importer, "
                              "b.id AS file", env=env)
    for r in [*direct_pairs, *via_symbols]:
        path = by_id.get(r["file"])
        if path is not None:
            any_kind.setdefault(path, set()).add(r["importer"])
    return files, importers, {p: len(s) for p, s in any_kind.items()}


def pick_leaf(files: list[dict], any_importers: dict[str, int],
              excluded: tuple[str, ...]) -> dict:
    """A typical leaf: a parsed, non-test Python module nothing imports (neither the file nor
    its symbols), not a package ``__init__``/``__main__``; the one of median size."""
    def is_test(path: str) -> bool:
        parts = path.split("/")
        return any(p.rstrip("/") in parts[:-1] for p in (*TEST_EXCLUDES, *excluded)) or \
            parts[-1].startswith("test_")

    leaves = sorted(
        (f for f in files
         if f["language"] == "python" and f["status"] == "ok"
         and any_importers.get(f["path"], 0) == 0 and not is_test(f["path"])
         and Path(f["path"]).name not in ("__init__.py", "__main__.py")),
        key=lambda f: (f["size"], f["path"]))
    if not leaves:
        raise BenchError("no leaf file found")
    return leaves[len(leaves) // 2]


# ------------------------------------------------------------------------------ main
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=Path,
                    default=Path(sysconfig.get_paths()["stdlib"]),
                    help="tree to benchmark (default: this interpreter's standard library)")
    ap.add_argument("--no-tests", action="store_true",
                    help="exclude test/, tests/ and idle_test/ (as `make demo` does)")
    ap.add_argument("--workers", type=int, default=None,
                    help="passed to `vgdb ingest --workers` (default: its own default, cores)")
    ap.add_argument("--out", type=Path, help="write the results as JSON to this file")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = ap.parse_args(argv)

    info = machine()
    console.print(f"[bold]VectorGraphDB ingest benchmark[/bold]  {info['date']}")
    console.print(f"machine: {info['nproc']} cores usable ({info['cpu_count']} online), "
                  f"{fmt_bytes(info['ram_bytes'])} RAM, {info['cpu']}")
    if info["loadavg"]:
        busy = info["loadavg"][0] > 0.5 * info["nproc"]
        console.print(f"load average {' '.join(map(str, info['loadavg']))}" + (
            "  [bold yellow]warning: the machine is busy; figures will be low[/bold yellow]"
            if busy else ""))
    console.print(f"python {info['python']} ({info['platform']}); " + ", ".join(
        f"{k} {v}" for k, v in info["versions"].items()))

    excludes = TEST_EXCLUDES if args.no_tests else ()
    tmp = Path(tempfile.mkdtemp(prefix="vgdb-bench-"))
    env = {**os.environ, "VGDB_DB": str(tmp / "db"), "NO_COLOR": "1"}
    env.pop("VGDB_DEBUG", None)
    result: dict[str, Any] = {"machine": info, "source": str(args.source),
                              "no_tests": args.no_tests, "excludes": list(excludes)}
    try:
        t0 = time.perf_counter()
        root = tmp / args.source.name
        shutil.copytree(args.source, root, symlinks=True, ignore=ignore_copy)
        copy_s = time.perf_counter() - t0
        db = tmp / "db"
        console.print(f"source: {args.source} -> copy {root} ({copy_s:.1f} s)"
                      + ("; excluding " + ", ".join(excludes) if excludes else ""))

        # 1. the files `vgdb ingest` picks (same options as the CLI)
        defaults = IngestOptions()
        candidates, skipped = walk(root, excludes=excludes, default_excludes=True,
                                   gitignore=True, max_file_size=defaults.max_file_size)
        languages: dict[str, int] = {}
        for c in candidates:
            languages[c.language] = languages.get(c.language, 0) + 1
        py = [c for c in candidates if c.language == "python"]
        blobs = [(root / c.path).read_bytes() for c in py]
        all_bytes = sum(c.size for c in candidates)
        py_bytes = sum(len(b) for b in blobs)
        lines = sum(count_lines(b) for b in blobs)
        corpus = {"files": len(candidates), "python_files": len(py), "languages": languages,
                  "bytes": all_bytes, "python_bytes": py_bytes, "python_lines": lines,
                  "walk_skipped": len(skipped)}
        result["corpus"] = corpus
        per_language = ", ".join(f"{k} {v}" for k, v in languages.items())
        console.print(f"corpus: {len(candidates):,} files ({per_language}), "
                      f"{mb(all_bytes):.1f} MB, {lines:,} lines; walk skipped {len(skipped)}")
        if len(py) != len(candidates):
            console.print(f"[yellow]note:[/yellow] {len(candidates) - len(py)} non-Python "
                          "files are ingested but not in the raw-parse baseline")

        # 2. raw single-thread parse
        raw = raw_parse(blobs)
        raw_s = raw["best_s"]
        raw_fig = {"seconds": raw_s, "runs_s": raw["runs_s"], "mb_per_s": mb(py_bytes) / raw_s,
                   "files_per_s": len(py) / raw_s, "lines_per_s": lines / raw_s}
        result["raw_parse"] = raw_fig
        del blobs

        # 3. CLI start floor, full ingest, no-change re-ingest
        start = time.perf_counter()
        subprocess.run([*vgdb_command(), "--version"], capture_output=True, env=env, check=True)
        floor_s = time.perf_counter() - start
        ingest_args = ["ingest", str(root), "--db", str(db), "--name", REPO, "--json"]
        for pattern in excludes:
            ingest_args += ["--exclude", pattern]
        if args.workers is not None:
            ingest_args += ["--workers", str(args.workers)]
        console.print("running: vgdb " + " ".join(ingest_args))
        full = run_vgdb("full ingest", ingest_args, env=env)
        again = run_vgdb("no-change re-ingest", ingest_args, env=env)

        # 4. one-file updates: the most-imported file, and a leaf
        files, importers, any_importers = rank_files(db, env)
        hub_path, hub_n = max(importers.items(), key=lambda kv: (kv[1], kv[0]))
        ties = sorted(p for p, n in importers.items() if n == hub_n)
        hub_path = ties[0]
        leaf = pick_leaf(files, any_importers, excludes)
        updates: dict[str, Any] = {
            kind: {"path": path, "file_importers": importers.get(path, 0),
                   "importers_any_kind": any_importers.get(path, 0),
                   "size_bytes": (root / path).stat().st_size}
            for kind, path in (("hub", hub_path), ("leaf", leaf["path"]))}
        # Edits first, then reverts (in reverse order), each its own `vgdb ingest`: every
        # timed run sees exactly one changed file, and a failing revert cannot spoil the
        # other file's edit. The files are restored on disk whatever happens.
        originals = {kind: (root / u["path"]).read_bytes() for kind, u in updates.items()}
        update_runs: list[Run] = []
        previous = full.summary
        try:
            for step, kind in (("edit", "hub"), ("edit", "leaf"),
                               ("revert", "leaf"), ("revert", "hub")):
                target, original = root / updates[kind]["path"], originals[kind]
                if step == "edit":
                    target.write_bytes(original + (b"" if original.endswith(b"\n") else b"\n")
                                       + PROBE.encode())
                else:
                    target.write_bytes(original)
                label = f"one-file {step} ({kind})"
                try:
                    run = run_vgdb(label, ingest_args, env=env)
                except BenchError as exc:
                    console.print(f"[bold red]{label} failed[/bold red]")
                    console.print(str(exc), markup=False)
                    run = exc.run
                run.delta = (diff({**previous["nodes"], **previous["edges"]},
                                  {**run.summary["nodes"], **run.summary["edges"]})
                             if run.summary else {})
                if run.summary:
                    previous = run.summary
                update_runs.append(run)
                updates[kind][step] = {**run.brief(), "node_delta": run.delta}
        finally:
            for kind, u in updates.items():
                (root / u["path"]).write_bytes(originals[kind])
        probe = cypher(db, "MATCH (s:Symbol) WHERE s.repo = 'stdlib' AND s.valid_to IS NULL "
                           "AND s.name = '_vgdb_bench_probe' RETURN s.file AS file", env=env)
        try:
            final = run_vgdb("final re-ingest", ingest_args, env=env)
        except BenchError as exc:
            final = exc.run or Run("final re-ingest", 0.0, -1, error=str(exc))
        result["cli_start_floor_s"] = floor_s
        result["runs"] = {r.label: r.brief() for r in (full, again, *update_runs, final)}
        result["probe_symbols_left"] = len(probe)
        result["updates"] = updates

        # ---------------------------------------------------------------------- checks
        checks: list[tuple[str, bool, str]] = []
        fs = full.summary["files"]
        checks.append(("ingest saw the files walk() lists",
                       fs["seen"] == len(candidates) + len(skipped),
                       f"seen {fs['seen']} vs walk {len(candidates)} + {len(skipped)} skipped"))
        checks.append(("full ingest parsed every file",
                       fs["parsed"] + fs["skipped"] - len(skipped) == len(candidates),
                       f"parsed {fs['parsed']}, skipped {fs['skipped']}, partial {fs['partial']}"))
        checks.append(("File nodes == files", full.summary["nodes"].get("File") ==
                       len(candidates) + sum(1 for s in skipped if s.language),
                       f"File {full.summary['nodes'].get('File')}"))
        ag = again.summary
        checks.append(("no-change re-ingest parses nothing",
                       ag["files"]["parsed"] == 0 and ag["nodes"] == full.summary["nodes"]
                       and ag["edges"] == full.summary["edges"],
                       f"parsed {ag['files']['parsed']}, unchanged {ag['files']['unchanged']}"))
        for run in update_runs:
            if run.error:
                checks.append((f"{run.label} succeeded", False,
                               run.error.splitlines()[-1] if run.error else ""))
                continue
            f = run.summary["files"]
            want = 1 if "edit" in run.label else -1
            # a function `return 1` adds one Symbol and one CONTAINS edge, and nothing else
            checks.append((f"{run.label}: 1 file parsed, only Symbol and CONTAINS {want:+d}",
                           f["parsed"] == 1 and f["modified"] == 1
                           and run.delta == {"CONTAINS": want, "Symbol": want},
                           f"parsed {f['parsed']}, re-resolved {f['re_resolved']}, "
                           f"delta {run.delta}"))
        end = final.summary or {}
        same = end.get("nodes") == full.summary["nodes"] and \
            end.get("edges") == full.summary["edges"]
        detail = f"probe symbols left {len(probe)}"
        if end and not same:
            end_delta = diff({**full.summary["nodes"], **full.summary["edges"]},
                             {**end["nodes"], **end["edges"]})
            detail += f"; delta {end_delta}"
        if final.error:
            detail += f"; final re-ingest failed: {final.error.splitlines()[-1]}"
        checks.append(("after both reverts the graph counts equal the full ingest's",
                       same and not probe, detail))
        result["checks"] = [{"check": c, "ok": ok, "detail": d} for c, ok, d in checks]

        try:
            result["loadavg_end"] = [float(x) for x in
                                     Path("/proc/loadavg").read_text().split()[:3]]
            console.print(f"load average at the end: {' '.join(map(str, result['loadavg_end']))}")
        except (OSError, ValueError):
            pass
        report(result, corpus, raw_fig, full, again, updates, floor_s, checks)
        if args.out:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps(result, indent=2, default=str) + "\n")
            console.print(f"results written to {args.out}")
        return 0 if all(ok for _, ok, _ in checks) else 1
    except BenchError as exc:
        console.print("[bold red]benchmark failed:[/bold red]")
        console.print(str(exc), markup=False)
        if args.out:
            result["error"] = str(exc)
            args.out.write_text(json.dumps(result, indent=2, default=str) + "\n")
        return 2
    finally:
        if args.keep:
            console.print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def diff(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    return {k: b.get(k, 0) - a.get(k, 0) for k in sorted(a.keys() | b.keys())
            if b.get(k, 0) != a.get(k, 0)}


def report(result: dict, corpus: dict, raw: dict, full: Run, again: Run, updates: dict,
           floor_s: float, checks: list) -> None:
    wall = full.wall
    e2e_mbps = mb(corpus["bytes"]) / wall
    ratio = e2e_mbps / raw["mb_per_s"]
    result["end_to_end"] = {
        "wall_s": wall, "files_per_s": corpus["files"] / wall, "mb_per_s": e2e_mbps,
        "lines_per_s": corpus["python_lines"] / wall, "ratio_to_raw_parse": ratio,
        "peak_rss_bytes": full.peak_rss,
    }
    t = Table(title="ingest benchmark", show_lines=False)
    for col, just in (("figure", "left"), ("value", "right"), ("baseline / target", "left"),
                      ("", "left")):
        t.add_column(col, justify=just)
    t.add_row("raw parse, 1 thread (best of 2)", f"{raw['seconds']:.2f} s", "", "")
    t.add_row("  MB/s", f"{raw['mb_per_s']:.1f}", BASELINE_RAW_MBPS, "")
    t.add_row("  files/s", f"{raw['files_per_s']:,.0f}", "~600 files/s (issue 2)", "")
    t.add_row("  lines/s", f"{raw['lines_per_s']:,.0f}", "", "")
    t.add_section()
    t.add_row("full ingest, CLI wall", f"{wall:.2f} s", "", "")
    t.add_row("  files/s", f"{corpus['files'] / wall:,.0f}", BASELINE_PEER, "")
    t.add_row("  MB/s", f"{e2e_mbps:.2f}", "~5 MB/s (0.5x raw)", "")
    t.add_row("  lines/s", f"{corpus['python_lines'] / wall:,.0f}", "", "")
    t.add_row("  end-to-end MB/s ÷ raw parse MB/s", f"{ratio:.2f}",
              f">= {TARGET_RATIO}", verdict(ratio >= TARGET_RATIO))
    t.add_row("  peak RSS, process + workers (Σ VmRSS)", fmt_bytes(full.peak_rss),
              f"< {fmt_bytes(TARGET_RSS_BYTES)}", verdict(full.peak_rss < TARGET_RSS_BYTES))
    t.add_row("    largest single process", fmt_bytes(full.peak_single), "", "")
    t.add_row("    Σ per-process VmHWM (upper bound)", fmt_bytes(full.hwm_sum), "",
              f"{full.peak_procs} processes")
    sec = full.summary.get("seconds", {})
    steps = _after_steps(full.summary)
    t.add_row("  phases (s)", " ".join(f"{k} {v:.2f}" for k, v in {**sec, **steps}.items()),
              f"+ start/exit {wall - sum(sec.values()) - sum(steps.values()):.2f}", "")
    code_s = sum(sec.get(k, 0.0) for k in CODE_PHASES)
    result["end_to_end"]["code_phases_s"] = code_s
    result["end_to_end"]["code_phases_to_raw_parse"] = code_s / raw["seconds"]
    t.add_row("  code phases (walk, parse, resolve, load)", f"{code_s:.2f} s", "", "")
    t.add_row("  code phases ÷ raw 1-thread parse", f"{code_s / raw['seconds']:.2f}x",
              f"<= {TARGET_CODE_PHASES}x (issue 24)",
              verdict(code_s / raw["seconds"] <= TARGET_CODE_PHASES))
    t.add_row("  whole command ÷ raw 1-thread parse", f"{wall / raw['seconds']:.2f}x",
              f"<= {TARGET_WHOLE}x (issue 24)", verdict(wall / raw["seconds"] <= TARGET_WHOLE))
    t.add_row("  CLI start floor (vgdb --version)", f"{floor_s:.2f} s", "", "")
    nodes, edges = full.summary["nodes"], full.summary["edges"]
    t.add_row("  nodes", f"{sum(nodes.values()):,}",
              ", ".join(f"{k} {v:,}" for k, v in nodes.items()), "")
    t.add_row("  edges", f"{sum(edges.values()):,}",
              ", ".join(f"{k} {v:,}" for k, v in edges.items()), "")
    fs = full.summary["files"]
    t.add_row("  files parsed / partial / skipped",
              f"{fs['parsed']} / {fs['partial']} / {fs['skipped']}", "", "")
    t.add_section()
    t.add_row("no-change re-ingest, CLI wall", f"{again.wall:.2f} s", "",
              f"peak RSS {fmt_bytes(again.peak_rss)}")
    t.add_section()
    for kind, u in updates.items():
        label = "most-imported file" if kind == "hub" else "leaf file"
        t.add_row(f"{label}: {u['path']}", f"{u['file_importers']} importers",
                  f"{u['importers_any_kind']} incl. symbol imports; "
                  f"{u['size_bytes'] / 1e3:.1f} kB", "")
    for kind, step in (("hub", "edit"), ("leaf", "edit"), ("leaf", "revert"),
                       ("hub", "revert")):
        run = updates[kind].get(step)
        if run is None:
            continue
        what = {"edit": "add a function", "revert": "remove it again"}[step]
        target = (f"< {TARGET_UPDATE_S:.0f} s" if kind == "hub" and step == "edit"
                  else "(comparison)")
        if run["error"]:
            t.add_row(f"one-file update, {kind}: {what}", f"{run['wall_s']:.2f} s", target,
                      "[bold red]FAILED[/bold red] " + escape(run["error"].splitlines()[-1]))
            continue
        ok = verdict(run["wall_s"] < TARGET_UPDATE_S) if target.startswith("<") else ""
        t.add_row(f"one-file update, {kind}: {what}", f"{run['wall_s']:.2f} s", target, ok)
        t.add_row("  re-resolved files / phases (s)", str(run["files"].get("re_resolved")),
                  " ".join(f"{k} {v:.2f}" for k, v in run["seconds"].items()), "")
    console.print(t)
    for name, ok, detail in checks:
        console.print(f"  check: {name}: {verdict(ok)}"
                      + (f"  ({escape(str(detail))})" if detail else ""))


if __name__ == "__main__":
    sys.exit(main())
