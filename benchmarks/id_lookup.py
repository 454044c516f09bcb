"""Looking nodes up by id on LadybugDB 0.22: ``IN $ids`` against the primary-key index.

Part 1, statement forms, interleaved per list size on the same ids (seeded sample of current
functions): the scan ``MATCH (n:Symbol) WHERE n.id IN $ids`` (the raw baseline),
``UNWIND $ids AS i MATCH (n:Symbol {id: i})``, and chunks of ``UNION ALL`` probes, each
alone and followed by one relationship (``-[:CALLS]->``); ``queries.batch.by_ids`` picks
UNWIND for node-only lookups and the probes through relationships.

Part 3, our statements (``--statements``): each statement of queries/review.py,
queries/evidence.py and queries/impact/selection_static.py that looked nodes up with
``WHERE x.id IN $ids``, as it was (the baseline) and as it is now (``by_ids``: UNWIND or
UNION ALL probes), interleaved per list size on the same ids, with both forms' row counts
and whether their rows are equal.

Part 2, what the user sees (``--public``): ``bm25`` of a word with the currency check,
``search`` (code), ``briefing`` of a symbol, p50/p95 over ``--samples`` queries. Run it
once with this checkout and once with an older one on the same database (``--public``
prints the git revision) to compare.

    VGDB_BUFFER_POOL_MB=4096 .venv/bin/python benchmarks/id_lookup.py --db DB \
        [--public | --statements]
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
from queries.batch import by_ids, lookup_template  # noqa: E402

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


_DEP = "CALLS|IMPORTS|INHERITS"
_VALID = "e.valid_to IS NULL"
#: name -> (ids it looks up, statement before (``IN $ids``), template now, its alias, params)
_STATEMENTS: dict[str, tuple[str, str, str, str, dict[str, object]]] = {
    "review.fan_in": (
        "symbols",
        f"MATCH (x)-[r:{_DEP}]->(s:Symbol) WHERE s.id IN $ids AND r.valid_to IS NULL "
        "AND x.id <> s.id RETURN s.id, count(DISTINCT x.id)",
        f"MATCH (x)-[r:{_DEP}]->(s:Symbol{{B}}) WHERE {{IN}} AND r.valid_to IS NULL "
        "AND x.id <> s.id RETURN s.id, count(DISTINCT x.id)", "s", {}),
    "review.test_files": (
        "files", "MATCH (f:File) WHERE f.id IN $ids AND f.is_test RETURN f.id",
        "MATCH (f:File{B}) WHERE {IN} AND f.is_test RETURN f.id", "f", {}),
    "review.test_code": (
        "symbols", "MATCH (s:Symbol) WHERE s.id IN $ids AND s.is_test RETURN s.id",
        "MATCH (s:Symbol{B}) WHERE {IN} AND s.is_test RETURN s.id", "s", {}),
    "review.dependents": (  # now one template per table of the target (sym: / file: ids)
        "mixed",
        f"MATCH (x)-[r:{_DEP}]->(y) WHERE y.id IN $ids AND r.valid_to IS NULL "
        "AND x.valid_to IS NULL RETURN y.id, x.id, x.is_test",
        f"MATCH (x)-[r:{_DEP}]->(y:TABLE{{B}}) WHERE {{IN}} AND r.valid_to IS NULL "
        "AND x.valid_to IS NULL RETURN y.id, x.id, x.is_test", "y", {}),
    "review.briefed_files": (
        "files", "MATCH (f:File) WHERE f.id IN $ids AND f.valid_to IS NULL RETURN f.id AS id",
        "MATCH (f:File{B}) WHERE {IN} AND f.valid_to IS NULL RETURN f.id AS id", "f", {}),
    "review.at_odds": (
        "symbols",
        "MATCH (x:Entry)-[:ABOUT]->(s:Symbol) WHERE s.id IN $ids AND x.valid_to IS NULL "
        "RETURN x.id, s.id",
        "MATCH (x:Entry)-[:ABOUT]->(s:Symbol{B}) WHERE {IN} AND x.valid_to IS NULL "
        "RETURN x.id, s.id", "s", {}),
    # tried first: the probe with the callers' conditions in the statement
    "evidence.sampled_tests(conditions in the statement)": (
        "externals",
        "MATCH (t:Symbol)-[:CALLS]->(x:External) WHERE t.is_test AND t.repo IN $repos "
        "AND x.id IN $ids RETURN DISTINCT t.id AS id",
        "MATCH (t:Symbol)-[:CALLS]->(x:External{B}) WHERE {IN} AND t.is_test "
        "AND t.repo IN $repos RETURN DISTINCT t.id AS id", "x", {"repos": "REPOS"}),
    # what evidence.sampled_tests does now: no condition on the callers (filtered after,
    # by :data:`_AFTER`)
    "evidence.sampled_tests": (
        "externals",
        "MATCH (t:Symbol)-[:CALLS]->(x:External) WHERE t.is_test AND t.repo IN $repos "
        "AND x.id IN $ids RETURN DISTINCT t.id AS id",
        "MATCH (t:Symbol)-[:CALLS]->(x:External{B}) WHERE {IN} "
        "RETURN t.id AS id, t.repo AS repo, t.is_test AS is_test", "x", {"repos": "REPOS"}),
    # tried and left as it was: each test probed by primary key (its statement still
    # filters ``n.file IN $files``)
    "evidence.file_users(tests)": (
        "symbols",
        "MATCH (t:Symbol)-[e:EXECUTES]->(n:Symbol) WHERE n.file IN $files AND t.id IN $ids "
        f"AND {_VALID} RETURN DISTINCT n.file AS seed, t.id AS test",
        "MATCH (t:Symbol{B})-[e:EXECUTES]->(n:Symbol) WHERE {IN} AND n.file IN $files "
        f"AND {_VALID} RETURN DISTINCT n.file AS seed, t.id AS test", "t", {"files": "FILES"}),
    "selection_static.subclasses": (
        "bases",
        "MATCH (s:Symbol)-[:INHERITS*1..4]->(b:Symbol) WHERE b.id IN $ids AND s.valid_to IS "
        "NULL RETURN DISTINCT b.id AS base, s.id AS sub",
        "MATCH (s:Symbol)-[:INHERITS*1..4]->(b:Symbol{B}) WHERE {IN} AND s.valid_to IS NULL "
        "RETURN DISTINCT b.id AS base, s.id AS sub", "b", {}),
    "selection_static.importers": (
        "symbols",
        "MATCH (f:File)-[e:IMPORTS]->(c:Symbol) WHERE c.id IN $ids AND e.valid_to IS NULL "
        "RETURN DISTINCT c.id AS cls, f.path AS path",
        "MATCH (f:File)-[e:IMPORTS]->(c:Symbol{B}) WHERE {IN} AND e.valid_to IS NULL "
        "RETURN DISTINCT c.id AS cls, f.path AS path", "c", {}),
}
#: rows of the new form filtered as the module filters them, by statement name
_AFTER: dict[str, Callable[[list[tuple[object, ...]], dict[str, object]],
                           list[tuple[object, ...]]]] = {
    "evidence.sampled_tests": lambda rows, params: sorted(
        {(i,) for i, repo, is_test in rows if is_test and repo in params["repos"]})}


def _now(store: Store, name: str, template: str, alias: str, ids: list[str],
         params: dict[str, object]) -> list[tuple[object, ...]]:
    if name in _AFTER:
        rows = by_ids(store, ids, lookup_template(template, alias)).rows()
        return _AFTER[name](rows, params)
    if "TABLE" not in template:
        return by_ids(store, ids, lookup_template(template, alias), params).rows()
    rows: list[tuple[object, ...]] = []
    for table, prefix in (("Symbol", "sym:"), ("File", "file:")):
        some = [i for i in ids if i.startswith(prefix)]
        if some:
            rows += by_ids(store, some, lookup_template(template.replace("TABLE", table),
                                                        alias), params).rows()
    return rows


def statements(store: Store, pools: dict[str, list[str]], sizes: list[int], reps: int,
               only: str | None) -> dict[str, object]:
    """Each statement of :data:`_STATEMENTS` before and after, interleaved, per list size.
    Test (is_test) properties are read as they are: a graph without tests returns no rows
    for the statements that ask for them, but the engine does the same lookups."""
    out: dict[str, object] = {}
    repos = sorted({i.split(":", 1)[1].split("/", 1)[0] for i in pools["symbols"][:50]})
    files = pools["files"][:10]
    for name, (pool, before, now, alias, params) in _STATEMENTS.items():
        if only and not any(part in name for part in only.split(",")):
            continue
        bound = {k: {"REPOS": repos, "FILES": files}[v] if isinstance(v, str) else v
                 for k, v in params.items()}
        for size in sorted({min(size, len(pools[pool])) for size in sizes}):
            some = pools[pool][:size]
            forms: dict[str, Callable[[], list[tuple[object, ...]]]] = {
                "before_in": lambda s=some, b=bound, q=before: store.cypher(
                    q, {**b, "ids": s}, timeout=120).rows(),
                "now_by_ids": lambda s=some, b=bound, q=now, a=alias, n=name: _now(
                    store, n, q, a, s, b)}
            took: dict[str, list[float]] = {k: [] for k in forms}
            rows: dict[str, object] = {}
            for _ in range(reps):  # interleaved: both forms see the same load
                for form, fn in forms.items():
                    try:
                        ms, rows[form] = _ms(fn)
                    except Exception as exc:  # the scan may pass its timeout at scale
                        ms, rows[form] = float("nan"), type(exc).__name__
                    took[form].append(ms)
            same = sorted(map(str, rows["before_in"])) == sorted(map(str, rows["now_by_ids"])) \
                if all(isinstance(r, list) for r in rows.values()) else None
            key = f"{name} {len(some)}_ids"
            out[key] = {**{f: {"median_ms": round(sorted(v)[len(v) // 2], 1),
                               "rows": len(rows[f]) if isinstance(rows[f], list) else rows[f]}
                           for f, v in took.items()}, "same_rows": same,
                        "load_avg": [round(x, 2) for x in os.getloadavg()]}
            print(key, json.dumps(out[key]), flush=True)
    return out


def _pools(store: Store, ids: list[str], seed: int) -> dict[str, list[str]]:
    """Ids each statement looks up: current functions (shuffled), files, classes, External
    nodes (the property-based decorator among them), and a mix of
    functions and files."""
    rng = random.Random(seed)

    def shuffled(frame_ids: list[str]) -> list[str]:
        rng.shuffle(frame_ids)
        return frame_ids

    files = shuffled(store.cypher("MATCH (f:File) WHERE f.valid_to IS NULL RETURN f.id AS id "
                                  "ORDER BY id LIMIT 200000")["id"].to_list())
    bases = shuffled(store.cypher("MATCH (b:Symbol) WHERE b.kind = 'class' AND b.valid_to IS "
                                  "NULL RETURN b.id AS id ORDER BY id LIMIT 200000"
                                  )["id"].to_list())
    externals = store.cypher("MATCH (x:External) RETURN x.id AS id ORDER BY id LIMIT 1000"
                             )["id"].to_list()
    externals = [*dict.fromkeys(["ext:python:hypothesis.given", *externals])]
    mixed = [i for pair in zip(ids, files, strict=False) for i in pair]
    return {"symbols": ids, "files": files, "bases": bases, "externals": externals,
            "mixed": mixed}


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
    parser.add_argument("--statements", action="store_true", help="only part 3")
    parser.add_argument("--only", help="part 3: only the statements whose name has one of "
                        "these (comma-separated)")
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
        sizes = [int(s) for s in args.sizes.split(",")]
        if args.statements:
            statements(store, _pools(store, ids, args.seed), sizes, args.reps, args.only)
        elif not args.public:
            forms(store, ids, sizes, args.reps)
        else:
            public(store, ids, args.samples, args.seed)
    print(json.dumps({"load_avg": [round(x, 2) for x in os.getloadavg()]}))


if __name__ == "__main__":
    main()
