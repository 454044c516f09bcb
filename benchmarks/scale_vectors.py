"""Vector search at scale (issue 28, item 3: "search (keyword and vector) ... at 1M / 10M
edges"): embed the Symbols of a grown synthetic graph with the shipped static model, build
its HNSW index, and time vector-only, keyword-only and hybrid search and the briefing.

Run it on a COPY of a database ``benchmarks/scale.py`` left (it writes the vectors into it):

    cp -a /tmp/scale-10m/db /tmp/scale-vec/db
    .venv/bin/python benchmarks/scale_vectors.py --db /tmp/scale-vec/db --max-rss-mib 12000

Every current Symbol is embedded and indexed by :func:`graphdb.vectors.embed_graph`
(``tables=["Symbol"]``, what ``vgdb embed`` runs). Printed: each phase as it starts with
the RSS then, and the seconds reading and hashing the nodes, embedding the texts, building
the HNSW index, saving; the RSS (now, peak); the vectors' size on disk. Then, in a fresh
read-only open (as a server), the first query's seconds (it loads the index) and, over
``--samples`` distinct queries (seeded, 3 warm-up calls), p50 / p95 of

- vector only: ``nearest(store, text, k=10, tables=["Symbol"])``,
- keyword only: ``bm25(store, text, table="Symbol", k=10)``, and ``search()`` with the
  vector signal switched off (``SearchWeights(vector=0)``),
- hybrid: ``search(store, text, k=10, domains=["code"])`` (BM25 and vectors fused),
- ``briefing(store, symbols=[id])`` over a quarter of the samples,

next to a baseline in the same run: a Cypher count of one symbol's callers. A watchdog
thread ends the process (exit 3, its reason printed) when RSS passes ``--max-rss-mib``.
(``embed_graph(ids=...)`` was tried first, to embed in steps: its ``n.id IN $ids`` costs
the table's size times the ids, 45 s for 16K ids against 289K Symbols, so it is not used.)
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, replace
from pathlib import Path

import hnswlib
import numpy as np
import polars as pl

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.scale import disk_mb, rss_mib, timed  # noqa: E402
from graphdb import Store  # noqa: E402
from graphdb.embed import default_embedder, symbol_text  # noqa: E402
from graphdb.keyword import bm25  # noqa: E402
from graphdb.vector_files import (  # noqa: E402
    FORMAT,
    HNSW,
    VectorTable,
    vector_dir,
)
from graphdb.vectors import embed_graph, nearest  # noqa: E402
from queries.briefing import briefing  # noqa: E402
from queries.search import DEFAULT_WEIGHTS, search  # noqa: E402

KEYWORD_ONLY = replace(DEFAULT_WEIGHTS, vector=0.0)


def watchdog(limit_mib: float, log: Path | None) -> None:
    """End the process when its RSS passes ``limit_mib`` (checked every 0.5 s)."""
    def watch() -> None:
        while True:
            now = rss_mib()[0]
            if now > limit_mib:
                line = json.dumps({"stopped": f"RSS {now:.0f} MiB above {limit_mib:.0f} MiB",
                                   "time": time.strftime("%H:%M:%S")})
                print(line, flush=True)
                if log:
                    with log.open("a") as f:
                        f.write(line + "\n")
                os._exit(3)
            time.sleep(0.5)
    threading.Thread(target=watch, daemon=True).start()


def queries(store: Store, ids: list[str], repos: int, samples: int,
            seed: int) -> dict[str, object]:
    """Distinct query texts (no answer can come from a repeated query) over the synthetic
    vocabulary: a function name, a step word and a repository name."""
    rng = random.Random(seed)
    texts = [f"f{rng.randrange(60)} step {rng.randrange(40)} of syn{rng.randrange(repos):05d}"
             for _ in range(samples)]
    picked = rng.sample(ids, min(samples, len(ids)))
    callers = "MATCH (c:Symbol)-[:CALLS]->(s:Symbol) WHERE s.id = $id RETURN count(*)"
    return {
        "baseline_callers_count": timed(lambda s: store.cypher(callers, {"id": s}), picked),
        "vector_only": timed(lambda w: nearest(store, w, k=10, tables=["Symbol"]), texts),
        # the same without its check in the graph that each hit is current (every hit taken
        # as current): the query's embedding and the HNSW search alone
        "vector_only_unchecked": timed(lambda w: nearest(
            store, w, k=10, tables=["Symbol"], current=lambda _t, ids: set(ids)), texts),
        "currency_check_in_list": timed(lambda s: store.cypher(
            "MATCH (n:Symbol) WHERE n.id IN $ids AND n.valid_to IS NULL AND n.expired_at IS "
            "NULL RETURN n.id", {"ids": [s] * 10}), picked),
        "currency_check_by_key": timed(lambda s: store.cypher(
            "UNWIND $ids AS i MATCH (n:Symbol {id: i}) WHERE n.valid_to IS NULL AND "
            "n.expired_at IS NULL RETURN n.id", {"ids": [s] * 10}), picked),
        "bm25_only": timed(lambda w: bm25(store, w, table="Symbol", k=10), texts),
        "search_keyword_only": timed(
            lambda w: search(store, w, k=10, domains=["code"], weights=KEYWORD_ONLY), texts),
        "search_hybrid": timed(lambda w: search(store, w, k=10, domains=["code"]), texts),
        "briefing": timed(lambda s: briefing(store, symbols=[s]),
                          picked[: max(5, samples // 4)]),
    }


def embed_all(store: Store, emit: Callable[[dict[str, object]], None]) -> dict[str, object]:
    """Embed every current Symbol and build its index (``embed_graph``, as ``vgdb embed``
    does on a database without vectors); seconds per phase from its progress calls (first
    ``embedding``: nodes read and hashed, texts composed; last ``embedding``: texts
    embedded; ``saving``: index built), each phase change printed with the RSS then."""
    marks: dict[str, float] = {}

    def progress(phase: str, done: int, total: int) -> None:
        now = time.perf_counter()
        kind = phase.split()[0]
        if kind not in marks:
            emit({"phase": phase, "at_s": round(now - t0, 1), "done": done, "total": total,
                  "rss_mib": [round(x) for x in rss_mib()]})
        if kind == "embedding":
            marks.setdefault("embedding", now)
            marks["last_embedding"] = now
        else:
            marks.setdefault(kind, now)

    t0 = time.perf_counter()
    summary = embed_graph(store, tables=["Symbol"], progress=progress)
    end = time.perf_counter()
    first = marks.get("embedding", t0)
    last = marks.get("last_embedding", first)
    saving = marks.get("saving", end)
    table = summary.tables[0]
    return {"embedded": table.embedded, "index": table.index,
            "read_hash_s": round(first - t0, 2), "embed_s": round(last - first, 2),
            "hnsw_s": round(saving - last, 2), "save_s": round(end - saving, 2),
            "total_s": round(end - t0, 2), "texts_per_s": summary.texts_per_second}


def embed_lean(store: Store, emit: Callable[[dict[str, object]], None], *,
               threads: int, chunk: int = 100_000,
               milestones: frozenset[int] = frozenset({300_000, 1_000_000, 2_000_000}),
               cache: Path | None = None, limit: int | None = None) -> dict[str, object]:
    """The same vectors and index as :func:`embed_all`, in less memory: texts embedded in
    batches straight into one preallocated array, the index built by adding that array in
    chunks (one thread gives the index ``embed_graph`` builds: hnswlib inserts in order) with
    the shipped settings, progress printed per chunk; saved through the vector directory's
    own commit. Measures what ``embed_graph`` cannot within the memory budget at 10M edges
    (it holds the vectors three to four times: RESULTS.md). The rows' content hashes are
    left empty (computing them is private to graphdb.vectors): a later ``vgdb embed`` on
    this copy would embed everything again; searching does not read them."""
    t0 = time.perf_counter()
    frame = store.cypher("MATCH (n:Symbol) WHERE n.valid_to IS NULL AND n.expired_at IS NULL "
                         "RETURN n.id AS id, n.kind AS kind, n.qualname AS qualname, "
                         "n.signature AS signature, n.docstring AS docstring, n.file AS file, "
                         "n.repo AS repo ORDER BY id")
    read_s = time.perf_counter() - t0
    embedder = default_embedder()
    t1 = time.perf_counter()
    if cache is not None and cache.exists():  # a rerun: the texts' vectors as embedded before
        vectors = np.load(cache)
        assert vectors.shape[0] == frame.height, "the cache is of another graph"
        frame = frame.select("id")
    vectors = vectors if frame.width == 1 else \
        np.empty((frame.height, embedder.dim), dtype=np.float32)
    cols = [] if frame.width == 1 else [frame[c].fill_null("").to_list() for c in
                                        ("kind", "qualname", "signature", "docstring",
                                         "file", "repo")]
    for start in range(0, frame.height if cols else 0, 8192):
        texts = []
        for i in range(start, min(start + 8192, frame.height)):
            kind, qualname, signature, doc, file, repo = (c[i] for c in cols)
            prefix = f"file:{repo}/"
            path = file[len(prefix):] if file.startswith(prefix) else file
            texts.append(symbol_text(kind=kind, qualname=qualname, signature=signature,
                                     docstring=doc, path=path))
        vectors[start:start + len(texts)] = embedder.embed(texts)
    embed_s = time.perf_counter() - t1
    if cache is not None and cols:
        np.save(cache, vectors)
    ids = frame["id"]
    if limit is not None:  # index only the first ``limit`` Symbols (by id)
        vectors, ids = vectors[:limit], ids[:limit]
    del cols, frame
    gc.collect()
    emit({"phase": "embedded", "vectors": int(vectors.shape[0]), "read_s": round(read_s, 1),
          "embed_s": round(embed_s, 1), "rss_mib": [round(x) for x in rss_mib()]})
    n = vectors.shape[0]
    index = hnswlib.Index(space="cosine", dim=vectors.shape[1])
    index.init_index(max_elements=n, M=HNSW.m, ef_construction=HNSW.ef_construction,
                     random_seed=HNSW.seed, allow_replace_deleted=False)
    t2 = time.perf_counter()
    probes = embedder.embed([f"f{i % 60} step {i % 40} of syn{i:05d}" for i in range(30)])
    for start in range(0, n, chunk):
        stop = min(start + chunk, n)
        t, cpu = time.perf_counter(), time.process_time()
        index.add_items(vectors[start:stop], np.arange(start, stop), num_threads=threads)
        record = {"phase": "hnsw", "inserted": stop,
                  "chunk_per_s": round((stop - start) / (time.perf_counter() - t)),
                  "chunk_cpu_s": round(time.process_time() - cpu, 1),
                  "at_s": round(time.perf_counter() - t2, 1),
                  "rss_mib": [round(x) for x in rss_mib()],
                  "load_avg": round(os.getloadavg()[0], 2)}
        if stop in milestones or stop == n:  # the raw index's search at this size
            index.set_ef(HNSW.ef_search)
            record["knn_query"] = timed(lambda v: index.knn_query(v, k=10), list(probes))
        emit(record)
    index.set_ef(HNSW.ef_search)
    hnsw_s = time.perf_counter() - t2
    t3 = time.perf_counter()
    vdir = vector_dir(store)
    vdir.manifest = {"format": FORMAT, "model_id": embedder.model_id, "dim": embedder.dim,
                     "hnsw": asdict(HNSW), "tables": {}}
    rows = pl.DataFrame({"id": ids, "hash": [""] * n, "live": [True] * n},
                        schema={"id": pl.Utf8, "hash": pl.Utf8, "live": pl.Boolean})
    vdir.commit(VectorTable("Symbol", 1, rows, vectors, index), 0)
    return {"embedded": n, "index": f"built (lean, {threads} thread(s))",
            "read_hash_s": round(read_s, 2), "embed_s": round(embed_s, 2),
            "hnsw_s": round(hnsw_s, 2), "save_s": round(time.perf_counter() - t3, 2),
            "total_s": round(time.perf_counter() - t0, 2),
            "texts_per_s": round(n / embed_s, 1) if embed_s else 0.0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True,
                        help="a COPY of a grown database (the vectors are written into it)")
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-rss-mib", type=float, default=12000)
    parser.add_argument("--queries-only", action="store_true",
                        help="time the queries only (the vectors are there already)")
    parser.add_argument("--lean", action="store_true",
                        help="embed into one array and build the index in chunks (what "
                             "embed_graph does, in less memory; see embed_lean)")
    parser.add_argument("--limit", type=int,
                        help="with --lean: index only the first N Symbols (by id), when the "
                             "whole index cannot be built in the time")
    parser.add_argument("--threads", type=int, default=1,
                        help="with --lean: HNSW build threads (1: the shipped setting)")
    parser.add_argument("--log", type=Path, help="also append every line to this file")
    args = parser.parse_args()
    watchdog(args.max_rss_mib, args.log)

    def emit(record: dict[str, object]) -> None:
        line = json.dumps(record)
        print(line, flush=True)
        if args.log:
            with args.log.open("a") as f:
                f.write(line + "\n")

    with Store.open(args.db, read_only=args.queries_only) as store:
        edges = int(store.cypher("MATCH ()-[e]->() RETURN count(*)").item())
        ids = store.cypher("MATCH (s:Symbol) WHERE s.valid_to IS NULL RETURN s.id AS id "
                           "ORDER BY id")["id"].to_list()
        repos = int(store.cypher("MATCH (f:File) RETURN count(DISTINCT f.repo)").item())
        emit({"db": str(args.db), "edges": edges, "symbols": len(ids), "repos": repos,
              "disk_mb": round(disk_mb(args.db), 1), "rss_mib": [round(x) for x in rss_mib()],
              "load_avg": [round(x, 2) for x in os.getloadavg()]})
        load_before = os.getloadavg()[0]
        if args.queries_only:
            ids = ids if not args.limit else ids[:args.limit]
        record = {} if args.queries_only else embed_lean(store, emit, threads=args.threads,
                            cache=args.db.parent / "vectors-cache.npy",
                            limit=args.limit) if args.lean \
            else embed_all(store, emit)
        record.update({"rss_after_embed_mib": [round(x) for x in rss_mib()],
                       "vectors_disk_mb": round(disk_mb(args.db / "vectors"), 1),
                       "load_avg_embed": round(load_before, 2)})
        if not args.queries_only:
            emit({"embedded": record})
    # the queries in a fresh open, as a server would answer them
    with Store.open(args.db, read_only=True) as store:
        t0 = time.perf_counter()
        nearest(store, "warm up", k=10, tables=["Symbol"])
        record = {"first_query_s": round(time.perf_counter() - t0, 2),
                  "rss_after_load_mib": [round(x) for x in rss_mib()]}
        record["queries"] = queries(store, ids, repos, args.samples, args.seed)
        record["rss_mib"] = [round(x) for x in rss_mib()]
        record["load_avg"] = [round(x, 2) for x in os.getloadavg()]
        emit({"queried": record})


if __name__ == "__main__":
    main()
