"""Batch ingest benchmark: 20 real repositories into one graph, against ingesting them one by
one, and how the graph grows with the corpus.

Corpus: 18 installed packages' source trees (copied out of ``site-packages`` into a temporary
directory, so they are plain trees without history) and 2 real git repositories with their
histories (click from the local mirror ``/work/.mirror/pallets+click/repo`` and attrs from
``/tmp/vgdb_mut_cache/attrs/checkout``, each bounded to its newest 300 commits), cloned by the
batch itself. Some depend on others (jinja2 -> markupsafe, markdown_it -> mdurl, httpx ->
httpcore, h11, idna, anyio), so cross-repository edges are part of the load.

One run measures, each a real ``vgdb`` subprocess with the process tree's RSS polled:

1. the baseline: ``vgdb ingest`` of each repository in turn into one database (sequential,
   one process per repository, the same options);
2. ``vgdb ingest-batch`` of all 20 (local executor): repositories/min, files/s, peak RSS,
   and the ratio to the baseline;
3. growth: fresh batches of the first 1, 5, 10 and 20 repositories: wall time, nodes, edges,
   cross-repository edges, database size, peak RSS, and query times (best of 5) for an impact
   query and two search-free Cypher queries.

    .venv/bin/python benchmarks/batch.py [--out results.json] [--workers 2] [--sizes 1,5,10,20]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import statistics
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("bench_ingest", HERE / "ingest.py")
assert _spec is not None and _spec.loader is not None
bench = importlib.util.module_from_spec(_spec)
sys.modules["bench_ingest"] = bench  # dataclasses look their module up there
_spec.loader.exec_module(bench)

SITE = Path(sysconfig.get_paths()["purelib"])
#: the growth order: the first 1, 5, 10, 20 are the corpus sizes measured
SITE_PACKAGES = ["idna", "h11", "httpx", "httpcore", "anyio", "pathspec", "iniconfig",
                 "pluggy", "packaging", "dateutil", "markdown_it", "mdurl", "pyparsing",
                 "fastjsonschema", "bibtexparser", "tqdm", "jinja2", "markupsafe"]
GIT = {"click": "/work/.mirror/pallets+click/repo",
       "attrs": "/tmp/vgdb_mut_cache/attrs/checkout"}
ORDER = ["click", *SITE_PACKAGES[:9], *SITE_PACKAGES[9:], "attrs"]
MAX_COMMITS = 300

QUERIES = {
    "callers_2_hops": "MATCH (a:Symbol)-[:CALLS*1..2]->(b:Symbol) WHERE b.id = $id "
                      "RETURN count(DISTINCT a) AS n",
    "cross_repo_calls": "MATCH (a:Symbol)-[e:CALLS]->(b:Symbol) WHERE a.repo <> b.repo "
                        "RETURN count(*) AS n",
}
TARGET = "sym:click/src/click/core.py#Command"


def _corpus(work: Path) -> dict[str, dict[str, Any]]:
    """name -> manifest entry; site-packages trees copied into ``work`` (once)."""
    entries: dict[str, dict[str, Any]] = {}
    for name in ORDER:
        if name in GIT:
            if not Path(GIT[name]).exists():
                raise SystemExit(f"missing git source {GIT[name]} (see the module docstring)")
            entries[name] = {"name": name, "git": GIT[name],
                             "history": {"max_commits": MAX_COMMITS}}
        else:
            if not (work / "trees" / name).exists():
                shutil.copytree(SITE / name, work / "trees" / name,
                                ignore=shutil.ignore_patterns("__pycache__"))
            entries[name] = {"name": name, "path": str(work / "trees" / name),
                             "history": False}
    return entries


def _manifest(path: Path, entries: list[dict[str, Any]]) -> Path:
    lines = ["[defaults]", "papers = false"]
    for e in entries:
        lines.append("[[repositories]]")
        for k, v in e.items():
            if isinstance(v, dict):
                v = "{ " + ", ".join(f"{a} = {json.dumps(b)}" for a, b in v.items()) + " }"
                lines.append(f"{k} = {v}")
            elif isinstance(v, bool):
                lines.append(f"{k} = {str(v).lower()}")
            else:
                lines.append(f"{k} = {json.dumps(v)}")
    path.write_text("\n".join(lines) + "\n")
    return path


def _db_bytes(db: Path) -> int:
    return sum(p.stat().st_size for p in db.glob("graph.lbug*"))


def _graph_figures(db: Path) -> dict[str, Any]:
    from graphdb import Store
    from queries.impact import impact

    out: dict[str, Any] = {"db_bytes": _db_bytes(db)}
    with Store.open(db, read_only=True) as store:
        out["nodes"] = int(store.cypher("MATCH (n) RETURN count(*)").item())
        out["edges"] = int(store.cypher("MATCH ()-[e]->() RETURN count(*)").item())
        out["symbols"] = int(store.cypher("MATCH (s:Symbol) RETURN count(*)").item())
        out["files"] = int(store.cypher("MATCH (f:File) WHERE f.source <> 'git' "
                                        "RETURN count(*)").item())
        times: dict[str, list[float]] = {}
        for _ in range(5):
            t = time.perf_counter()
            result = impact(store, [TARGET], depth=3)
            times.setdefault("impact_depth3", []).append(time.perf_counter() - t)
            for label, query in QUERIES.items():
                t = time.perf_counter()
                value = store.cypher(query, {"id": TARGET} if "$id" in query else {}).item()
                times.setdefault(label, []).append(time.perf_counter() - t)
                out[f"{label}_value"] = int(value)
        out["impact_rows"] = len(result.to_polars())
        out["query_ms"] = {k: {"best": round(min(v) * 1000, 2),
                               "median": round(statistics.median(v) * 1000, 2)}
                           for k, v in times.items()}
    return out


def _batch(label: str, manifest: Path, db: Path, workers: int,
           env: dict[str, str]) -> dict[str, Any]:
    run = bench.run_vgdb(label, ["ingest-batch", str(manifest), "--db", str(db),
                                 "--workers", str(workers), "--no-communities", "--json"],
                         env=env)
    data = run.summary
    repos = data["repositories"]
    files = sum(r["files"] for r in repos)
    failed = [r for r in repos if r["status"] != "done"]
    if failed:
        raise SystemExit(f"{label}: not done: {failed}")
    return {"wall_s": round(run.wall, 2), "repositories": len(repos), "files": files,
            "repos_per_min": round(len(repos) / run.wall * 60, 2),
            "files_per_s": round(files / run.wall, 1),
            "peak_rss_bytes": run.peak_rss, "peak_processes": run.peak_procs,
            "extract_s": round(sum(r["extract_seconds"] for r in repos), 2),
            "load_s": round(sum(r["seconds"] for r in repos), 2),
            "per_repo": [{k: r[k] for k in ("name", "files", "seconds", "extract_seconds")}
                         for r in repos]}


def _sequential(entries: list[dict[str, Any]], clones: Path, db: Path, workers: int,
                env: dict[str, str]) -> dict[str, Any]:
    wall = 0.0
    peak = 0
    files = 0
    for e in entries:
        root = e["path"] if "path" in e else str(clones / e["name"])
        args = ["ingest", root, "--name", e["name"], "--db", str(db), "--workers",
                str(workers), "--no-communities", "--no-papers", "--json"]
        args += ["--max-commits", str(MAX_COMMITS)] if "git" in e else ["--no-history"]
        run = bench.run_vgdb(f"ingest {e['name']}", args, env=env)
        wall += run.wall
        peak = max(peak, run.peak_rss)
        files += run.summary["files"]["seen"]
    return {"wall_s": round(wall, 2), "repositories": len(entries), "files": files,
            "repos_per_min": round(len(entries) / wall * 60, 2),
            "files_per_s": round(files / wall, 1), "peak_rss_bytes": peak}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--sizes", default="1,5,10,20")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--work", type=Path, default=None,
                        help="work directory to (re)use; with --growth-only, the batch and "
                             "sequential figures are read from WORK/compare.json")
    parser.add_argument("--growth-only", action="store_true")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("VGDB_FAILPOINT", None)
    work = args.work or Path(tempfile.mkdtemp(prefix="vgdb-batch-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {"machine": bench.machine(), "workers": args.workers}
    try:
        entries = _corpus(work)
        everything = [entries[n] for n in ORDER]
        full_manifest = _manifest(work / "all.toml", everything)
        print(f"corpus: {len(everything)} repositories in {work}", flush=True)
        if args.growth_only:
            result.update(json.loads((work / "compare.json").read_text()))
        else:
            result["batch"] = _batch("batch 20", full_manifest, work / "db-batch",
                                     args.workers, env)
            print("batch:", json.dumps({k: v for k, v in result["batch"].items()
                                        if k != "per_repo"}), flush=True)
            result["sequential"] = _sequential(
                everything, work / "db-batch" / "batch" / "clones", work / "db-seq",
                args.workers, env)
            print("sequential:", json.dumps(result["sequential"]), flush=True)
            (work / "compare.json").write_text(json.dumps(
                {k: result[k] for k in ("batch", "sequential")}))
        result["ratio_batch_over_sequential_wall"] = round(
            result["batch"]["wall_s"] / result["sequential"]["wall_s"], 3)
        growth = []
        for n in sizes:
            if n == len(everything):
                run, db = result["batch"], work / "db-batch"
            else:
                manifest = _manifest(work / f"m{n}.toml", everything[:n])
                db = work / f"db-{n}"
                shutil.rmtree(db, ignore_errors=True)
                run = _batch(f"batch {n}", manifest, db, args.workers, env)
            point = {"repositories": n, "wall_s": run["wall_s"], "files": run["files"],
                     "peak_rss_bytes": run["peak_rss_bytes"], **_graph_figures(db)}
            growth.append(point)
            print("growth:", json.dumps(point), flush=True)
        result["growth"] = growth
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    text = json.dumps(result, indent=2)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
