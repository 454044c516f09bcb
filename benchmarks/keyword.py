"""Keyword search on tantivy: quality against the Kuzu FTS baseline, write latency, ingest cost.

Each figure is printed next to its baseline, measured in the same run:

- ``quality --baseline-rev REV``: ``benchmarks/search.py --hybrid`` of the tree at ``REV``
  (Kuzu FTS; exported with ``git archive`` to a temporary directory) and of this tree
  (tantivy), one after the other; MRR@10 / recall@10 of BM25 alone, vector alone and hybrid
  (``DEFAULT_WEIGHTS``) on both benchmarks and splits;
- ``write --db DB``: p50/p95 of recording one decision (``Recorder.record_decision``, what the
  GraphQL ``recordDecision`` calls) with keyword + vector indexing, interleaved with the same
  write with the indexing step switched off (the graph write alone: the baseline);
- ``ingest PATH --db DB``: ``vgdb ingest`` of PATH into a fresh DB, then again with nothing
  changed; the keyword and embedding steps' seconds as a ratio to the rest of the wall time.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _hybrid(tree: Path, out: Path) -> dict:
    subprocess.run([sys.executable, str(tree / "benchmarks" / "search.py"), "--hybrid",
                    "--verify", "0", "--json", str(out)], cwd=tree, check=True,
                   stdout=subprocess.DEVNULL)
    return json.loads(out.read_text(encoding="utf-8"))


def quality(rev: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="vgdb-kw-base-") as tmp:
        base = Path(tmp) / "tree"
        base.mkdir()
        archive = subprocess.run(["git", "archive", rev], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
        t0 = time.perf_counter()
        before = _hybrid(base, Path(tmp) / "before.json")
        t1 = time.perf_counter()
        after = _hybrid(ROOT, Path(tmp) / "after.json")
        t2 = time.perf_counter()
    print(f"quality: baseline {rev} (Kuzu FTS) {t1 - t0:.0f} s, this tree (tantivy) "
          f"{t2 - t1:.0f} s; MRR@10 / recall@10, baseline -> now")
    rows = {}
    for ranker in ("BM25 alone", "vector alone", "hybrid, DEFAULT_WEIGHTS (zscore, BM25 0.33)"):
        b, a = before["mrr_recall"][ranker], after["mrr_recall"][ranker]
        for part in b:
            x, y = b[part], a[part]
            rows[f"{ranker} | {part}"] = {"before": x, "after": y}
            print(f"  {ranker:<44} {part:<20} {x['mrr@10']:.4f}/{x['recall@10']:.3f} -> "
                  f"{y['mrr@10']:.4f}/{y['recall@10']:.3f}  ({y['mrr@10'] - x['mrr@10']:+.4f})")
    print(f"  chosen on DEV: baseline {before['chosen']}, now {after['chosen']}")
    return {"baseline_rev": rev, "rows": rows, "chosen": [before["chosen"], after["chosen"]]}


@contextlib.contextmanager
def _graph_only(store: object, tables: object = (), **_: object) -> Iterator[object]:
    """The write path's findable() with the indexing step off: the baseline."""
    from graphdb.findable import Findable

    yield Findable()


def write_latency(db: Path, n: int, seed: int) -> dict:
    import ingest.sessions.load as load
    from graphdb import Store
    from ingest.sessions import Recorder

    indexed = load.findable
    rng = random.Random(seed)
    words = ("cache", "retry", "budget", "parser", "lock", "index", "shard", "merge", "token",
             "quota", "socket", "schema", "window", "buffer", "replay", "ledger")
    times: dict[str, list[float]] = {"graph write + keyword + vector": [],
                                     "graph write alone (baseline)": []}
    with Store.open(db) as store:
        nodes = int(store.cypher("MATCH (n) RETURN count(*) AS n")["n"].item())
        rec = Recorder(store, session="bench-write", title="latency", agent="bench", model="m")
        for i in range(2 * n + 6):
            mode = list(times)[i % 2]
            load.findable = indexed if i % 2 == 0 else _graph_only
            title = " ".join(rng.sample(words, 5)) + f" {i}"
            t0 = time.perf_counter()
            rec.record_decision(title, "Measured by benchmarks/keyword.py.", category=f"b{i}")
            took = time.perf_counter() - t0
            if i >= 6:  # warm-up: the embedder and the indexes load once per process
                times[mode].append(took * 1000)
        load.findable = indexed
        entries = int(store.cypher("MATCH (e:Entry) RETURN count(*) AS n")["n"].item())
    out = {"nodes": nodes, "entries_after": entries, "writes_each": n}
    print(f"write latency: {nodes} nodes in {db}, {n} decisions each, interleaved (ms)")
    for mode, xs in times.items():
        xs.sort()
        p50, p95 = statistics.median(xs), xs[int(0.95 * (len(xs) - 1))]
        out[mode] = {"p50_ms": round(p50, 1), "p95_ms": round(p95, 1)}
        print(f"  {mode:<34} p50 {p50:7.1f}  p95 {p95:7.1f}")
    return out


def ingest_cost(path: Path, db: Path, name: str, excludes: list[str]) -> dict:
    shutil.rmtree(db, ignore_errors=True)
    args = [sys.executable, "-m", "api.cli", "ingest", str(path), "--db", str(db), "--name",
            name, "--json", *[x for e in excludes for x in ("--exclude", e)]]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = {}
    print(f"ingest cost: {path} -> {db}")
    for run in ("fresh", "again, nothing changed"):
        t0 = time.perf_counter()
        proc = subprocess.run(args, cwd=ROOT, env=env, check=True, capture_output=True,
                              text=True)
        wall = time.perf_counter() - t0
        data = json.loads(proc.stdout)
        sec = data["seconds"]
        steps = sec.get("keyword", 0.0) + sec.get("embed", 0.0)
        rest = wall - steps
        out[run] = {"wall_s": round(wall, 2), "keyword_s": sec.get("keyword"),
                    "embed_s": sec.get("embed"), "rest_s": round(rest, 2),
                    "ratio": round(steps / rest, 3), "nodes": data["nodes"]}
        print(f"  {run:<24} wall {wall:6.2f} s; keyword {sec.get('keyword', 0):.2f} s + embed "
              f"{sec.get('embed', 0):.2f} s vs the rest {rest:.2f} s: ratio {steps / rest:.3f}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    q = sub.add_parser("quality")
    q.add_argument("--baseline-rev", required=True)
    w = sub.add_parser("write")
    w.add_argument("--db", type=Path, required=True)
    w.add_argument("-n", type=int, default=60)
    w.add_argument("--seed", type=int, default=0)
    i = sub.add_parser("ingest")
    i.add_argument("path", type=Path)
    i.add_argument("--db", type=Path, required=True)
    i.add_argument("--name", default="stdlib")
    i.add_argument("--exclude", action="append", default=[])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.cmd == "quality":
        result = quality(args.baseline_rev)
    elif args.cmd == "write":
        result = write_latency(args.db, args.n, args.seed)
    else:
        result = ingest_cost(args.path, args.db, args.name, args.exclude)
    result["machine"] = {"nproc": os.cpu_count(), "load": os.getloadavg()}
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
