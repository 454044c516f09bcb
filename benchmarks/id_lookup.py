"""Looking nodes up by id on LadybugDB 0.22: ``IN $ids`` against the primary-key index.

Part 1, statement forms, interleaved per list size on the same ids (seeded sample of current
functions): the scan ``MATCH (n:Symbol) WHERE n.id IN $ids`` (the raw baseline),
``UNWIND $ids AS i MATCH (n:Symbol {id: i})``, and chunks of ``UNION ALL`` probes, each
alone and followed by one relationship (``-[:CALLS]->``); ``queries.batch.by_ids`` picks
UNWIND for node-only lookups and the probes through relationships.

Part 2, what the user sees (``--public``): ``bm25`` of a word with the currency check,
``search`` (code), ``briefing`` of a symbol, p50/p95 over ``--samples`` queries. Run it
once with this checkout and once with an older one on the same database (``--public``
prints the git revision) to compare.

    VGDB_BUFFER_POOL_MB=4096 .venv/bin/python benchmarks/id_lookup.py --db DB [--public]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from graphdb import Store  # noqa: E402

#: (node alone, through one relationship) per statement form
_FORMS = {
    "in_scan": ("MATCH (n:Symbol) WHERE n.id IN $ids RETURN n.id AS id",
                "MATCH (n:Symbol)-[:CALLS]->(m:Symbol) WHERE n.id IN $ids RETURN n.id AS id"),
    "unwind": ("UNWIND $ids AS i MATCH (n:Symbol {id: i}) RETURN n.id AS id",
               "UNWIND $ids AS i MATCH (n:Symbol {id: i})-[:CALLS]->(m:Symbol) "
               "RETURN n.id AS id"),
}


def _probes(store: Store, ids: list[str], rel: bool, chunk: int = 24) -> int:
    rows = 0
    for start in range(0, len(ids), chunk):
        part = ids[start:start + chunk]
        text = " UNION ALL ".join(
            f"MATCH (n:Symbol {{id: $i{k}}}){'-[:CALLS]->(m:Symbol)' if rel else ''} "
            "RETURN n.id AS id" for k in range(len(part)))
        rows += store.cypher(text, {f"i{k}": v for k, v in enumerate(part)}).height
    return rows


def _ms(fn: Callable[[], object]) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = fn()
    return (time.perf_counter() - t0) * 1000, out


def forms(store: Store, ids: list[str], sizes: list[int], reps: int) -> dict[str, object]:
    out: dict[str, object] = {}
    for size in sizes:
        some = ids[:size]
        for rel in (False, True):
            named: dict[str, Callable[[list[str]], int]] = {
                name: lambda x, q=pair[rel]: store.cypher(q, {"ids": x}, timeout=60).height
                for name, pair in _FORMS.items()}
            named["probes"] = lambda x, r=rel: _probes(store, x, r)
            took: dict[str, list[float]] = {k: [] for k in named}
            rows: dict[str, object] = {}
            for _ in range(reps):  # interleaved: every form sees the same load
                for name, fn in named.items():
                    try:
                        ms, rows[name] = _ms(lambda f=fn, x=some: f(x))
                    except Exception as exc:  # the scan may pass its timeout at scale
                        ms, rows[name] = float("nan"), type(exc).__name__
                    took[name].append(ms)
            key = f"{size}_ids{'_calls' if rel else ''}"
            out[key] = {name: {"median_ms": round(sorted(v)[len(v) // 2], 1),
                               "rows": rows[name]} for name, v in took.items()}
            print(key, json.dumps(out[key]), flush=True)
    return out


def public(store: Store, ids: list[str], samples: int, seed: int) -> dict[str, object]:
    from graphdb.keyword import bm25
    from queries.briefing import briefing
    from queries.search import search

    rng = random.Random(seed)
    words = [w for w in store.cypher(
        "MATCH (s:Symbol) WHERE s.valid_to IS NULL RETURN s.name AS n LIMIT 5000")["n"]
        .drop_nulls().unique().sort().to_list() if len(w) > 3]
    picked_words = rng.sample(words, min(samples, len(words)))
    picked = rng.sample(ids, min(samples, len(ids)))
    calls = {"bm25_current": lambda i: bm25(store, picked_words[i], table="Symbol", k=10),
             "search_code": lambda i: search(store, picked_words[i], k=10, domains=["code"]),
             "briefing": lambda i: briefing(store, symbols=[picked[i]])}
    out: dict[str, object] = {}
    for name, fn in calls.items():
        fn(0)  # warm-up: catalogs, index readers
        took = sorted(_ms(lambda f=fn, k=k: f(k))[0] for k in range(min(len(picked),
                                                                          len(picked_words))))
        out[name] = {"p50_ms": round(took[len(took) // 2], 1),
                     "p95_ms": round(took[min(len(took) - 1, int(len(took) * 0.95))], 1),
                     "n": len(took)}
        print(name, json.dumps(out[name]), flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--sizes", default="10,100,1000")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--public", action="store_true", help="only part 2")
    args = parser.parse_args()
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                         capture_output=True, text=True).stdout.strip()
    with Store.open(args.db, read_only=True) as store:
        ids = store.cypher("MATCH (s:Symbol) WHERE s.valid_to IS NULL AND s.kind = 'function' "
                           "RETURN s.id AS id ORDER BY id")["id"].to_list()
        random.Random(args.seed).shuffle(ids)
        symbols = int(store.cypher("MATCH (s:Symbol) RETURN count(*)").item())
        print(json.dumps({"db": str(args.db), "symbols": symbols, "revision": rev,
                          "load_avg": [round(x, 2) for x in os.getloadavg()]}), flush=True)
        if not args.public:
            forms(store, ids, [int(s) for s in args.sizes.split(",")], args.reps)
        else:
            public(store, ids, args.samples, args.seed)
    print(json.dumps({"load_avg": [round(x, 2) for x in os.getloadavg()]}))


if __name__ == "__main__":
    main()
