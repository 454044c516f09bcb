"""The node lookup of benchmarks/api.py executed in-process (``schema.execute``, no HTTP):
database round trips per request and p50 against the Python API, interleaved request by
request. Run it from two source trees (``PYTHONPATH=SRC``) to compare code versions:

    .venv/bin/python benchmarks/api_inprocess.py DB LABEL [--samples 100] [--seed 7]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time

del sys.path[0]  # benchmarks/, whose api.py would hide the api package

from api.graphql import Context, Settings, build_schema  # noqa: E402
from graphdb import Store  # noqa: E402

NODE = ("query($t: String!) { symbol(ref: $t) { key qualname "
        "calledBy(first: 10) { totalCount edges { node { ... on Symbol { key } } } } "
        "calls(first: 10) { totalCount edges { node { id } } } } }")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("db")
    ap.add_argument("label")
    ap.add_argument("--samples", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    schema = build_schema()
    with Store.open(args.db, read_only=True, serving=True) as store:
        ids = store.cypher("MATCH (s:Symbol) WHERE s.repo = 'stdlib' AND s.valid_to IS NULL "
                           "AND s.kind IN ['function', 'method'] RETURN s.id ORDER BY s.id"
                           )["s.id"].to_list()
        targets = random.Random(args.seed).sample(ids, args.samples)  # as benchmarks/api.py

        def python(t: str) -> None:  # the baseline of benchmarks/api.py
            store.cypher("MATCH (a:Symbol)-[:CALLS]->(b:Symbol {id: $t}) RETURN a.id "
                         "ORDER BY a.id LIMIT 10", {"t": t})
            store.cypher("MATCH (a:Symbol {id: $t})-[:CALLS]->(b) RETURN b.id "
                         "ORDER BY b.id LIMIT 10", {"t": t})
            store.cypher("MATCH (s:Symbol {id: $t}) RETURN s.*", {"t": t})

        def graphql(t: str) -> int:
            context = Context(store, Settings(allow_anonymous=True))
            result = asyncio.run(schema.execute(NODE, variable_values={"t": t},
                                                context_value=context))
            if result.errors:
                raise RuntimeError(result.errors)
            return context.queries

        for t in targets[:10]:  # warm-up
            graphql(t)
            python(t)
        g, p, queries = [], [], []
        for t in targets:
            started = time.perf_counter()
            queries.append(graphql(t))
            g.append(time.perf_counter() - started)
            started = time.perf_counter()
            python(t)
            p.append(time.perf_counter() - started)
    print(f"{args.label}: {statistics.mean(queries):.2f} queries a request, GraphQL p50 "
          f"{statistics.median(g) * 1000:.1f} ms, Python API p50 "
          f"{statistics.median(p) * 1000:.1f} ms, ratio "
          f"{statistics.median(g) / statistics.median(p):.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
