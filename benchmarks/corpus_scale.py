"""Real large corpora, and the road past one machine (issue 28, items 2 and 4).

Three parts, each a real ``vgdb`` subprocess (process-tree RSS polled) or real databases:

``large``  one very large repository with its history: SQLAlchemy (18K commits, ~930 files),
           cloned from a snapshot fetched once for the benchmark (``--mirror``; never at run
           time). The clone is put back ``--steps x --step`` first-parent commits, ingested
           with the ``--step`` newest commits of history there, then moved forward ``--step``
           first-parent commits at a time and ingested again (code incrementally, the new
           commits of history): the growth curve per step of commits. The bound (how many
           commits of the 18K) is printed; nothing is extrapolated.
``many``   a many-repository corpus: every top-level package source tree of this
           environment's site-packages (~170 trees, ~7,600 Python files), used in place, in
           one ``vgdb ingest-batch`` (shards kept for ``past``). Growth per repository.
``past``   (needs ``many``) "which repositories call warnings.warn": Dask over the kept
           shards (``ingest.shard_scan``) against the one graph's Cypher answer (same
           answer asserted); then the router (``queries.router``) over K = 1, 2, 4, 8
           partition databases built from the same shards: single-partition (a node with its
           neighbours) and cross-partition (who calls) query cost, p50/p95, interleaved.

    .venv/bin/python benchmarks/corpus_scale.py --parts large,many,past \
        --work /tmp/scale-corpus-bench --out /tmp/scale-corpus-bench/result.json
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import sysconfig
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
_spec = importlib.util.spec_from_file_location("bench_ingest", HERE / "ingest.py")
assert _spec is not None and _spec.loader is not None
bench = importlib.util.module_from_spec(_spec)
sys.modules["bench_ingest"] = bench
_spec.loader.exec_module(bench)

SITE = Path(sysconfig.get_paths()["purelib"])
MIRROR = "/work/.mirror/sqlalchemy+sqlalchemy/repo"
TARGET = "ext:python:warnings.warn"
MiB = 1024 * 1024


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def graph_counts(db: Path) -> dict[str, int]:
    from graphdb import Store

    with Store.open(db, read_only=True) as store:
        return {"nodes": int(store.cypher("MATCH (n) RETURN count(*)").item()),
                "edges": int(store.cypher("MATCH ()-[e]->() RETURN count(*)").item()),
                "files": int(store.cypher("MATCH (f:File) WHERE f.source <> 'git' "
                                          "RETURN count(*)").item())}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout


# ------------------------------------------------------------------------------ large
def large(work: Path, mirror: str, steps: int, step: int, env: dict[str, str]) -> dict:
    clone, db = work / "sqlalchemy", work / "large-db"
    if not clone.exists():
        subprocess.run(["git", "clone", "-q", mirror, str(clone)], check=True)
    git(clone, "checkout", "-q", "--detach", "origin/HEAD")
    total = int(git(clone, "rev-list", "--count", "HEAD"))
    first_parent = git(clone, "rev-list", "--first-parent", "HEAD").split()
    rows = []
    for i in range(steps):
        at = first_parent[(steps - 1 - i) * step]
        git(clone, "checkout", "-q", "--detach", at)
        args = ["ingest", str(clone), "--name", "sqlalchemy", "--db", str(db), "--json",
                "--no-communities"]
        if i == 0:
            args += ["--max-commits", str(step)]
        run = bench.run_vgdb(f"ingest step {i + 1}", args, env=env)
        s = run.summary
        row = {"step": i + 1, "head": at[:12], "wall_s": round(run.wall, 1),
               "commits_read": s["history"]["commits"], "files_seen": s["files"]["seen"],
               "files_changed": s["files"]["added"] + s["files"]["modified"]
               + s["files"]["removed"],
               "phases_s": {**s["seconds"], **{f"history_{k}": v for k, v in
                                               s["history"]["seconds"].items()}},
               "peak_rss_mib": round(run.peak_rss / MiB), "db_mib": round(dir_bytes(db) / MiB, 1),
               **graph_counts(db)}
        rows.append(row)
        print(json.dumps(row), flush=True)
    return {"repository": "sqlalchemy/sqlalchemy", "commits_in_repository": total,
            "commits_ingested": sum(r["commits_read"] for r in rows), "steps": rows}


# ------------------------------------------------------------------------------ many
def site_trees() -> list[str]:
    names = []
    for p in sorted(SITE.iterdir()):
        if p.is_dir() and p.name.isidentifier() and not p.name.startswith("__") \
                and any(p.rglob("*.py")):
            names.append(p.name)
    return names


def manifest(path: Path, names: list[str]) -> Path:
    lines = ["[defaults]", "papers = false", "history = false"]
    for name in names:
        lines += ["[[repositories]]", f"name = {json.dumps(name)}",
                  f"path = {json.dumps(str(SITE / name))}"]
    path.write_text("\n".join(lines) + "\n")
    return path


def many(work: Path, workers: int, every: int, env: dict[str, str]) -> dict:
    db = work / "many-db"
    names = site_trees()[::every]
    samples: list[tuple[float, int]] = []
    stop = threading.Event()

    def sample() -> None:  # the database's size as the batch goes
        start = time.perf_counter()
        while not stop.wait(5):
            if db.exists():
                samples.append((round(time.perf_counter() - start, 1),
                                (db / "graph.lbug").stat().st_size if (db / "graph.lbug").exists()
                                else 0))

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    cmd = [*bench.vgdb_command(), "ingest-batch", str(manifest(work / "many.toml", names)),
           "--db", str(db), "--workers", str(workers), "--no-communities", "--keep-shards",
           "--json"]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            stdin=subprocess.DEVNULL)
    with bench.TreeRss(proc.pid) as rss:
        out, err = proc.communicate()
        wall = time.perf_counter() - start
    stop.set()
    if proc.returncode not in (0, 1):  # 1: some repository failed (reported below)
        raise SystemExit(f"ingest-batch exited {proc.returncode}: {err.decode()[-3000:]}")
    repos = json.loads(out)["repositories"]
    done = [r for r in repos if r["status"] == "done"]
    curve, files, nodes, edges, load = [], 0, 0, 0, 0.0
    marks = {1, 10, 25, 50, 100, len(done)}
    window: list[dict] = []
    for i, r in enumerate(done, 1):
        files, nodes, edges, load = files + r["files"], nodes + r["nodes"], \
            edges + r["edges"], load + r["seconds"]
        window.append(r)
        if i in marks:
            w_edges = sum(x["edges"] for x in window) or 1
            curve.append({"repositories": i, "files": files, "nodes": nodes, "edges": edges,
                          "load_s": round(load, 1),
                          "load_ms_per_1k_edges_in_window":
                              round(sum(x["seconds"] for x in window) / w_edges * 1e6, 1)})
            window = []
    return {"trees_in_site_packages": len(site_trees()), "every": every,
            "repositories": len(repos), "done": len(done),
            "failed": [(r["name"], r["reason"]) for r in repos if r["status"] != "done"],
            "wall_s": round(wall, 1), "peak_rss_mib": round(rss.peak_sum / MiB),
            "extract_s": round(sum(r["extract_seconds"] for r in repos), 1),
            "load_s": round(sum(r["seconds"] for r in repos), 1),
            "db_mib": round(dir_bytes(db) / MiB, 1), **graph_counts(db),
            "growth": curve, "graph_file_mib_over_time":
                [(t, round(b / MiB, 1)) for t, b in samples[:: max(1, len(samples) // 12)]]}


# ------------------------------------------------------------------------------ past
def pcts(times: list[float]) -> dict[str, float]:
    q = statistics.quantiles(times, n=20)
    return {"p50_ms": round(statistics.median(times) * 1000, 2), "p95_ms": round(q[18] * 1000, 2)}


def past(work: Path, partitions_of: list[int], repos_routed: int, reps: int) -> dict:
    from graphdb import Store
    from ingest import IngestOptions, ingest_repository
    from ingest.history.pipeline import HistoryOptions
    from ingest.shard_scan import who_calls
    from queries.router import Router, neighbours
    from queries.router import who_calls as routed

    db, shard_root = work / "many-db", work / "many-db" / "batch" / "shards"
    shards = sorted(p for p in shard_root.iterdir() if (p / "shard.json").exists())
    out: dict[str, Any] = {"shards": len(shards)}
    # Dask over every shard vs the one graph's answer
    scan = who_calls(shards, TARGET, scheduler="processes", workers=2)
    with Store.open(db, read_only=True) as store:
        t = time.perf_counter()
        rows = store.cypher("MATCH (c:Symbol)-[e:CALLS]->(t:External {id: $id}) RETURN "
                            "c.repo AS repo, c.id AS caller ORDER BY repo, caller",
                            {"id": TARGET})
        graph_s = time.perf_counter() - t
        loaded = set(store.cypher("MATCH (r:Repository) RETURN r.name AS n")["n"].to_list())
    # the same answer over the repositories the graph holds (a repository whose load failed
    # is answered from its shard only)
    same = [(s.repo, s.caller) for s in scan.sites if s.repo in loaded] == \
        [tuple(r) for r in rows.iter_rows()]
    out["dask_scan"] = {**scan.to_dict(), "callers": len(scan.sites),
                        "repositories_n": len(scan.repositories), "graph_cypher_s":
                        round(graph_s, 3), "graph_callers": rows.height,
                        "same_as_graph_on_its_repositories": same,
                        "callers_in_repositories_not_in_graph":
                            sum(s.repo not in loaded for s in scan.sites)}
    del out["dask_scan"]["repositories"]
    out["dask_scan"]["callers"] = len(scan.sites)
    # partitions of `repos_routed` mid-sized repositories (the shards ranked by size, those
    # just above the median): loading the largest K times over would not fit a session
    by_size = sorted(shards, key=dir_bytes)
    middle = len(by_size) // 2
    chosen = by_size[middle:middle + repos_routed][::-1]
    options = IngestOptions(history=HistoryOptions(enabled=False), papers=False, embed=False)
    built: dict[int, dict[str, Path]] = {}
    for k in partitions_of:
        parts: dict[str, Path] = {}
        t = time.perf_counter()
        for j in range(k):
            path = work / f"router-k{k}" / f"p{j}"
            parts[f"p{j}"] = path
            if not path.exists():
                with Store.open(path) as store:
                    for shard in chosen[j::k]:
                        ingest_repository(store, SITE / shard.name, shards=shard,
                                          options=options)
        built[k] = parts
        print(f"built K={k} in {time.perf_counter() - t:.1f}s", flush=True)
    probe = chosen[0].name
    with Store.open(built[partitions_of[0]]["p0"], read_only=True) as store:
        node = store.cypher("MATCH (s:Symbol)-[e]-() WHERE s.repo = $r RETURN s.id AS id, "
                            "count(e) AS n ORDER BY n DESC LIMIT 1", {"r": probe})["id"][0]
    # one router open at a time: each engine database reserves 8 TiB of address space, so
    # one process cannot hold the 15 databases of K = 1+2+4+8 at once (measured: mmap fails)
    times: dict[int, dict[str, list[float]]] = {}
    answers: dict[int, int] = {}
    for k, parts in built.items():
        times[k] = {"one": [], "all": []}
        t = time.perf_counter()
        with Router.open(parts) as router:
            times[k]["open_s"] = [time.perf_counter() - t]
            for _ in range(reps):  # single and cross interleaved, same router
                t = time.perf_counter()
                neighbours(router, probe, node)
                times[k]["one"].append(time.perf_counter() - t)
                t = time.perf_counter()
                answers[k] = routed(router, TARGET).height
                times[k]["all"].append(time.perf_counter() - t)
    out["router"] = {"repositories": len(chosen), "probe": node, "rows": answers,
                     "by_k": {k: {"open_s": round(v["open_s"][0], 2),
                                  "single_partition": pcts(v["one"]),
                                  "cross_partition": pcts(v["all"])}
                              for k, v in times.items()}}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--parts", default="large,many,past")
    ap.add_argument("--work", type=Path, default=Path("/tmp/scale-corpus-bench"))
    ap.add_argument("--mirror", default=MIRROR)
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--step", type=int, default=1000, help="commits per step")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--every", type=int, default=1,
                    help="take every Nth tree of site-packages (sorted by name)")
    ap.add_argument("--ks", default="1,2,4,8", help="partition counts for the router")
    ap.add_argument("--routed", type=int, default=24, help="repositories in the partitions")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "VGDB_BUFFER_POOL_MB": os.environ.get("VGDB_BUFFER_POOL_MB", "1024")}
    result: dict[str, Any] = {"machine": "2 cores, 24 GiB", "date": time.strftime(
        "%Y-%m-%d %H:%M UTC", time.gmtime()), "load_before": os.getloadavg()}
    parts = args.parts.split(",")
    if "large" in parts:
        result["large"] = large(args.work, args.mirror, args.steps, args.step, env)
    if "many" in parts:
        result["many"] = many(args.work, args.workers, args.every, env)
    if "past" in parts:
        result["past"] = past(args.work, [int(k) for k in args.ks.split(",")], args.routed,
                              args.reps)
    result["load_after"] = os.getloadavg()
    text = json.dumps(result, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
