"""Ingest benchmark: a tree end to end, against a raw parse and the peers, in one run.

The tree is the CPython standard library of the running interpreter (default), or a
multi-language repository fetched at a pinned commit (``--corpus``, ``benchmarks/corpora.py``).
One run measures, on the same files (those ``vgdb ingest`` would pick, listed with
``ingest.walk.walk`` and the CLI's options):

1. raw single-thread tree-sitter parse of every file vgdb parses, each with the grammar vgdb
   uses for its language (``benchmarks/ingest_raw.py``), per language and in total: the
   baseline;
2. a full ``vgdb ingest --json`` into a fresh database, as a subprocess (wall time includes
   process start), with peak RSS summed over the process and all its descendants (the parse
   workers), polled from /proc every 50 ms; its phases, and both ratios to the raw parse;
3. with ``--peers``, code-review-graph ``build`` and GitNexus ``analyze`` of the same tree,
   right after (``benchmarks/ingest_peers.py``; installed by ``benchmarks/peers.py``);
4. per language: files, symbols, CALLS and IMPORTS resolved (``benchmarks/ingest_langs.py``);
5. a no-change re-ingest;
6. (standard library only) a one-file update of the file with the most importers (File -> File
   IMPORTS), and of a leaf file for comparison, each followed by a revert.

The tree is copied into a temporary directory (without ``site-packages`` and ``__pycache__``)
and everything runs on copies: the source is never written.

    .venv/bin/python benchmarks/ingest.py [--no-tests] [--peers] [--out results.json] [--keep]
    .venv/bin/python benchmarks/ingest.py --corpus thrift [--mirror GIT_DIR] [--peers]

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
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from rich.console import Console

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import corpora, ingest_langs, ingest_peers
from benchmarks.ingest_raw import load_inputs, raw_parse, raw_parse_inputs
from benchmarks.ingest_report import after_steps, fmt_bytes, mb, report
from benchmarks.peers import PEERS
from benchmarks.tree_rss import TreeRss
from ingest import IngestOptions
from ingest.walk import walk

__all__ = ["ignore_copy", "machine", "raw_parse", "vgdb_command"]  # used by other benchmarks

console = Console(highlight=False, soft_wrap=True,
                  width=None if sys.stdout.isatty() else 132)

STDLIB = "stdlib"
TEST_EXCLUDES = ("test/", "tests/", "idle_test/")
PROBE = "\n\ndef _vgdb_bench_probe():\n    return 1\n"



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
    cpu: float = 0.0  # CPU seconds of the process and its workers (sampled from /proc)

    def brief(self) -> dict[str, Any]:
        s = self.summary
        return {
            "label": self.label, "wall_s": round(self.wall, 3), "rc": self.rc,
            "cpu_s": round(self.cpu, 3),
            "error": self.error,
            "peak_rss_bytes": self.peak_rss, "peak_single_process_rss_bytes": self.peak_single,
            "sum_of_process_hwm_bytes": self.hwm_sum, "max_processes": self.peak_procs,
            "rss_samples": self.samples,
            "files": s.get("files", {}), "nodes": s.get("nodes", {}), "edges": s.get("edges", {}),
            "seconds": s.get("seconds", {}), "after": after_steps(s),
        }




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
              hwm_sum=rss.hwm_sum, samples=rss.samples, cpu=rss.cpu_seconds)
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


# ------------------------------------------------------------------------------ helpers






def ignore_copy(directory: str, names: list[str]) -> set[str]:
    return {n for n in names if n in ("site-packages", "__pycache__")}


def rank_files(db: Path, env: dict[str, str]) -> tuple[list[dict], dict[str, int], dict[str, int]]:
    """Current Python files, File->File importers per file, and importers of any kind
    (a file, or one of its symbols) per file."""
    files = cypher(db, f"MATCH (f:File) WHERE f.repo = '{STDLIB}' AND f.valid_to IS NULL "
                       "RETURN f.id AS id, f.path AS path, f.size AS size, "
                       "f.language AS language, f.parse_status AS status", env=env)
    direct = cypher(db, "MATCH (a:File)-[e:IMPORTS]->(b:File) "
                        f"WHERE b.repo = '{STDLIB}' AND b.valid_to IS NULL AND e.valid_to IS NULL "
                        "AND a.id <> b.id "
                        "RETURN b.path AS path, count(DISTINCT a.id) AS importers", env=env)
    via_symbols = cypher(db, "MATCH (a:File)-[e:IMPORTS]->(s:Symbol) "
                             f"WHERE s.repo = '{STDLIB}' AND s.valid_to IS NULL "
                             "AND e.valid_to IS NULL AND a.id <> s.file "
                             "RETURN DISTINCT a.id AS importer, s.file AS file", env=env)
    by_id = {f["id"]: f["path"] for f in files}
    importers = {r["path"]: int(r["importers"]) for r in direct}
    any_kind: dict[str, set[str]] = {}
    direct_pairs = cypher(db, "MATCH (a:File)-[e:IMPORTS]->(b:File) "
                              f"WHERE b.repo = '{STDLIB}' AND e.valid_to IS NULL "
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


def diff(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    return {k: b.get(k, 0) - a.get(k, 0) for k in sorted(a.keys() | b.keys())
            if b.get(k, 0) != a.get(k, 0)}


def dropped_dirs(excludes: tuple[str, ...]) -> list[str]:
    """Directory names vgdb skips (its default excludes and ``excludes``) that a peer's copy
    of the tree leaves out, so that a peer reads the tree vgdb reads."""
    from ingest.walk import DEFAULT_EXCLUDES

    return [p for p in (*DEFAULT_EXCLUDES, *excludes) if p.endswith("/") and "*" not in p]


# ------------------------------------------------------------------------------ one-file updates
def one_file_updates(root: Path, db: Path, env: dict[str, str], ingest_args: list[str],
                     full: Run, excludes: tuple[str, ...]) -> dict[str, Any]:
    """Edit the most-imported file and a leaf (add a function), then revert both, each its
    own ``vgdb ingest``; then a final re-ingest. The files are restored whatever happens."""
    files, importers, any_importers = rank_files(db, env)
    hub_n = max(importers.values())
    hub_path = sorted(p for p, n in importers.items() if n == hub_n)[0]
    leaf = pick_leaf(files, any_importers, excludes)
    updates: dict[str, Any] = {
        kind: {"path": path, "file_importers": importers.get(path, 0),
               "importers_any_kind": any_importers.get(path, 0),
               "size_bytes": (root / path).stat().st_size}
        for kind, path in (("hub", hub_path), ("leaf", leaf["path"]))}
    # Edits first, then reverts (in reverse order): every timed run sees exactly one changed
    # file, and a failing revert cannot spoil the other file's edit.
    originals = {kind: (root / u["path"]).read_bytes() for kind, u in updates.items()}
    runs: list[Run] = []
    previous = full.summary
    try:
        for step, kind in (("edit", "hub"), ("edit", "leaf"), ("revert", "leaf"),
                           ("revert", "hub")):
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
                run = exc.run or Run(label, 0.0, -1, error=str(exc))
            run.delta = (diff({**previous["nodes"], **previous["edges"]},
                              {**run.summary["nodes"], **run.summary["edges"]})
                         if run.summary else {})
            if run.summary:
                previous = run.summary
            runs.append(run)
            updates[kind][step] = {**run.brief(), "node_delta": run.delta}
    finally:
        for kind, u in updates.items():
            (root / u["path"]).write_bytes(originals[kind])
    probe = cypher(db, f"MATCH (s:Symbol) WHERE s.repo = '{STDLIB}' AND s.valid_to IS NULL "
                       "AND s.name = '_vgdb_bench_probe' RETURN s.file AS file", env=env)
    try:
        final = run_vgdb("final re-ingest", ingest_args, env=env)
    except BenchError as exc:
        final = exc.run or Run("final re-ingest", 0.0, -1, error=str(exc))
    return {"updates": updates, "runs": runs, "final": final, "probe": probe}


def update_checks(full: Run, u: dict[str, Any]) -> list[tuple[str, bool, str]]:
    checks = []
    for run in u["runs"]:
        if run.error:
            checks.append((f"{run.label} succeeded", False, run.error.splitlines()[-1]))
            continue
        f = run.summary["files"]
        want = 1 if "edit" in run.label else -1
        # a function `return 1` adds one Symbol and one CONTAINS edge, and nothing else
        checks.append((f"{run.label}: 1 file parsed, only Symbol and CONTAINS {want:+d}",
                       f["parsed"] == 1 and f["modified"] == 1
                       and run.delta == {"CONTAINS": want, "Symbol": want},
                       f"parsed {f['parsed']}, re-resolved {f['re_resolved']}, "
                       f"delta {run.delta}"))
    final, probe = u["final"], u["probe"]
    end = final.summary or {}
    same = end.get("nodes") == full.summary["nodes"] and end.get("edges") == full.summary["edges"]
    detail = f"probe symbols left {len(probe)}"
    if end and not same:
        detail += "; delta " + str(diff({**full.summary["nodes"], **full.summary["edges"]},
                                        {**end["nodes"], **end["edges"]}))
    if final.error:
        detail += f"; final re-ingest failed: {final.error.splitlines()[-1]}"
    checks.append(("after both reverts the graph counts equal the full ingest's",
                   same and not probe, detail))
    return checks


def ingest_checks(full: Run, again: Run, n_candidates: int,
                  skipped: list) -> list[tuple[str, bool, str]]:
    fs, ag = full.summary["files"], again.summary
    return [
        ("ingest saw the files walk() lists", fs["seen"] == n_candidates + len(skipped),
         f"seen {fs['seen']} vs walk {n_candidates} + {len(skipped)} skipped"),
        ("full ingest parsed every file",
         fs["parsed"] + fs["skipped"] - len(skipped) == n_candidates,
         f"parsed {fs['parsed']}, skipped {fs['skipped']}, partial {fs['partial']}"),
        ("File nodes == files", full.summary["nodes"].get("File") ==
         n_candidates + sum(1 for s in skipped if s.language),
         f"File {full.summary['nodes'].get('File')}"),
        ("no-change re-ingest parses nothing",
         ag["files"]["parsed"] == 0 and ag["nodes"] == full.summary["nodes"]
         and ag["edges"] == full.summary["edges"],
         f"parsed {ag['files']['parsed']}, unchanged {ag['files']['unchanged']}"),
    ]


# ------------------------------------------------------------------------------ main
def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=Path,
                    default=Path(sysconfig.get_paths()["stdlib"]),
                    help="tree to benchmark (default: this interpreter's standard library)")
    ap.add_argument("--corpus", choices=list(corpora.CORPORA),
                    help="a repository fetched at a pinned commit (benchmarks/corpora.py)")
    ap.add_argument("--mirror", type=Path,
                    help="with --corpus: a local git repository holding its commit")
    ap.add_argument("--no-tests", action="store_true",
                    help="exclude test/, tests/ and idle_test/ (as `make demo` does)")
    ap.add_argument("--exclude", action="append", default=[], metavar="PATTERN",
                    help="also passed to `vgdb ingest --exclude` (repeatable); a peer's copy "
                         "leaves out a directory pattern (`docs/`, `contrib/zeromq/`)")
    ap.add_argument("--peers", nargs="?", const=",".join(PEERS), default="",
                    help="also time the peers installed by benchmarks/peers.py "
                         f"(default all: {','.join(PEERS)})")
    ap.add_argument("--no-updates", action="store_true",
                    help="skip the one-file updates (standard library only anyway)")
    ap.add_argument("--workers", type=int, default=None,
                    help="passed to `vgdb ingest --workers` (default: its own default, cores)")
    ap.add_argument("--out", type=Path, help="write the results as JSON to this file")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = ap.parse_args(argv)
    args.peers = [p.strip() for p in args.peers.split(",") if p.strip()]
    unknown = [p for p in args.peers if p not in PEERS]
    if unknown:
        ap.error(f"unknown peer(s) {', '.join(unknown)}; known: {', '.join(PEERS)}")
    return args


def banner(info: dict[str, Any]) -> None:
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


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    info = machine()
    banner(info)
    repo, source = STDLIB, args.source
    if args.corpus:
        corpus_def = corpora.CORPORA[args.corpus]
        repo = corpus_def.name
        source = corpora.fetch(corpus_def, args.mirror)
        console.print(f"corpus {repo}: {corpus_def.repository} @ {corpus_def.commit}")
    excludes = (*(TEST_EXCLUDES if args.no_tests else ()), *args.exclude)
    peers, missing = ingest_peers.select(args.peers)
    for line in missing:
        console.print(f"[bold yellow]peer missing:[/bold yellow] {line}")
    if not args.peers:
        console.print("peers: not run (--peers times code-review-graph and GitNexus; "
                      "`benchmarks/peers.py status` says which are installed)")
    tmp = Path(tempfile.mkdtemp(prefix="vgdb-bench-"))
    env = {**os.environ, "VGDB_DB": str(tmp / "db"), "NO_COLOR": "1"}
    env.pop("VGDB_DEBUG", None)
    result: dict[str, Any] = {"machine": info, "source": str(source), "repo": repo,
                              "no_tests": args.no_tests, "excludes": list(excludes),
                              "peers_missing": missing}
    if args.corpus:
        result["corpus_commit"] = corpora.CORPORA[args.corpus].commit
    try:
        return measure(args, result, source, repo, excludes, peers, tmp, env)
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


def measure(args: argparse.Namespace, result: dict[str, Any], source: Path, repo: str,
            excludes: tuple[str, ...], peers: list, tmp: Path, env: dict[str, str]) -> int:
    t0 = time.perf_counter()
    root = tmp / source.name
    shutil.copytree(source, root, symlinks=True, ignore=ignore_copy)
    peer_trees = {p.key: ingest_peers.copy_for_peer(source, tmp / f"peer-{p.key}" / source.name,
                                                    dropped_dirs(excludes)) for p in peers}
    db = tmp / "db"
    console.print(f"source: {source} -> copy {root} ({time.perf_counter() - t0:.1f} s"
                  + (", and one per peer" if peers else "") + ")"
                  + ("; excluding " + ", ".join(excludes) if excludes else ""))

    # 1. the files `vgdb ingest` picks (same options as the CLI), and their raw parse
    candidates, skipped = walk(root, excludes=excludes, default_excludes=True, gitignore=True,
                               max_file_size=IngestOptions().max_file_size)
    inputs = load_inputs(root, candidates)
    raw = raw_parse_inputs(inputs)
    corpus = {"files": len(candidates), "walk_skipped": len(skipped),
              "bytes": sum(i.bytes for i in inputs.values()),
              "parsed_files": sum(i.files for i in inputs.values() if i.parsed),
              "parsed_bytes": sum(i.bytes for i in inputs.values() if i.parsed),
              "lines": sum(i.lines for i in inputs.values() if i.parsed),
              "languages": {k: i.files for k, i in inputs.items()}}
    del inputs
    result["corpus"], result["raw_parse"] = corpus, raw
    console.print(f"corpus: {len(candidates):,} files ("
                  + ", ".join(f"{k} {v}" for k, v in corpus["languages"].items())
                  + f"), {mb(corpus['bytes']):.1f} MB, {corpus['lines']:,} lines of code; "
                  f"walk skipped {len(skipped)}")

    # 2. CLI start floor, full ingest, the peers right after it, a no-change re-ingest
    start = time.perf_counter()
    subprocess.run([*vgdb_command(), "--version"], capture_output=True, env=env, check=True)
    floor_s = time.perf_counter() - start
    ingest_args = ["ingest", str(root), "--db", str(db), "--name", repo, "--json"]
    for pattern in excludes:
        ingest_args += ["--exclude", pattern]
    if args.workers is not None:
        ingest_args += ["--workers", str(args.workers)]
    console.print("running: vgdb " + " ".join(ingest_args))
    full = run_vgdb("full ingest", ingest_args, env=env)
    peer_runs = []
    for peer in peers:
        console.print(f"running: {peer.title} {peer.version} on {peer_trees[peer.key]}")
        peer_runs.append(ingest_peers.run_peer(peer, peer_trees[peer.key],
                                               tmp / f"peer-{peer.key}-home"))
    again = run_vgdb("no-change re-ingest", ingest_args, env=env)
    langs = ingest_langs.language_stats(lambda q: cypher(db, q, env=env), repo)
    result["cli_start_floor_s"] = floor_s
    result["peers"] = [r.brief() for r in peer_runs]
    result["languages"] = langs

    # 3. one-file updates (the standard library: a Python function is added and removed)
    checks = ingest_checks(full, again, len(candidates), skipped)
    runs = [full, again]
    updates: dict[str, Any] = {}
    if repo == STDLIB and not args.no_updates:
        u = one_file_updates(root, db, env, ingest_args, full, excludes)
        updates = u["updates"]
        runs += [*u["runs"], u["final"]]
        result["probe_symbols_left"] = len(u["probe"])
        checks += update_checks(full, u)
    result["runs"] = {r.label: r.brief() for r in runs}
    result["updates"] = updates
    checks += ingest_langs.checks(langs)
    checks += [(f"{r.title} indexed the tree", r.ok,
                (", ".join(f"{k} {v:,}" for k, v in r.counts.items()) or r.error[-300:]))
               for r in peer_runs]
    result["checks"] = [{"check": c, "ok": ok, "detail": d} for c, ok, d in checks]

    result["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    console.print(f"load average at the end: {' '.join(map(str, result['loadavg_end']))}")
    report(console, result, full, again, updates, floor_s, peer_runs, checks)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2, default=str) + "\n")
        console.print(f"results written to {args.out}")
    return 0 if all(ok for _, ok, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
