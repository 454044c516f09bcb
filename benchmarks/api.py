"""GraphQL load test: `vgdb serve` on loopback under concurrent requests, against the Python API.

One run:

1. builds (or reuses, ``--db``) a graph of >= 100,000 nodes — the same as benchmarks/impact.py:
   the standard library with its tests plus ``_pytest``, ``hypothesis`` and ``rich`` from this
   environment, and recorded decision chains;
2. samples functions and methods (seeded) and builds a query mix: impact at depth 3, a node
   lookup with its callers and callees (nested connections), and provenance;
3. starts ``vgdb serve --anonymous`` as its own process; one question at a time, each target
   through the Python API in this process (the baseline) and over HTTP in turn (the overhead
   ratio at p50, target < 2x; interleaved, so the load of other jobs hits both alike);
4. then the mix from ``--concurrency`` clients at once for ``--seconds`` (throughput,
   p50/p95/p99, errors; target: zero errors);
5. with ``--during-ingest``: restarts the server ``--writable`` with an admin token, starts an
   ingest through the ``ingest`` mutation and runs the concurrent load while it writes;
6. with ``--compare DIR``: also serves the graph from the source tree DIR (e.g. the code
   before a change) and sends the one-at-a-time requests to both servers in turn, so that
   before and after are measured in the same run, under the same load.

    .venv/bin/python benchmarks/api.py [--db DIR] [--seconds 20] [--concurrency 16]
                                       [--during-ingest] [--compare SRC]

httpx's async client drives the load (no locust/wrk: neither is needed to measure this, and
both would be one more install).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.impact import (  # noqa: E402
    count_nodes,
    ingest_extra,
    ingest_stdlib,
    record_chains,
)
from benchmarks.ingest import machine  # noqa: E402
from graphdb import Store  # noqa: E402
from graphdb.tokens import TokenStore  # noqa: E402
from queries.impact import impact  # noqa: E402
from queries.provenance import provenance  # noqa: E402

console = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 170)
VGDB = str(ROOT / ".venv" / "bin" / "vgdb")

IMPACT = ("query($t: String!) { impact(targets: [$t], depth: 3, limit: 20) "
          "{ symbols { id score } tests { nodeId } } }")
NODE = ("query($t: String!) { symbol(ref: $t) { key qualname "
        "calledBy(first: 10) { totalCount edges { node { ... on Symbol { key } } } } "
        "calls(first: 10) { totalCount edges { node { id } } } } }")
PROVENANCE = "query($t: String!) { provenance(node: $t) { id current commits { sha } } }"


def build(db: Path) -> None:
    with Store.open(db) as store:
        console.print(f"ingesting the standard library: {ingest_stdlib(store):.1f} s")
        for package in ("_pytest", "hypothesis", "rich"):
            ingest_extra(store, package)
        symbols = store.cypher("MATCH (s:Symbol) WHERE s.repo = 'stdlib' AND s.kind IN "
                               "['function', 'method'] RETURN s.id ORDER BY s.id")["s.id"]
        record_chains(store, symbols.to_list(), 100, 4, random.Random(7))


def sample(db: Path, n: int, seed: int) -> list[str]:
    with Store.open(db, read_only=True) as store:
        nodes = sum(count_nodes(store).values())
        console.print(f"graph: {nodes:,} nodes")
        ids = store.cypher("MATCH (s:Symbol) WHERE s.repo = 'stdlib' AND s.valid_to IS NULL "
                           "AND s.kind IN ['function', 'method'] RETURN s.id ORDER BY s.id"
                           )["s.id"].to_list()
    return random.Random(seed).sample(ids, n)


def python_runs() -> dict[str, Callable[[Store, str], Any]]:
    """The same questions through the Python API (the baseline)."""
    def node(store: Store, t: str) -> Any:
        store.cypher("MATCH (a:Symbol)-[:CALLS]->(b:Symbol {id: $t}) RETURN a.id "
                     "ORDER BY a.id LIMIT 10", {"t": t})
        store.cypher("MATCH (a:Symbol {id: $t})-[:CALLS]->(b) RETURN b.id "
                     "ORDER BY b.id LIMIT 10", {"t": t})
        return store.cypher("MATCH (s:Symbol {id: $t}) RETURN s.*", {"t": t})

    return {
        "impact": lambda s, t: impact(s, [t], depth=3, limit=20),
        "node": node,
        "provenance": lambda s, t: provenance(s, t),
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(db: Path, *, writable: bool = False,
                 source: Path | None = None) -> tuple[subprocess.Popen, str]:
    """``vgdb serve`` in its own process; from the source tree ``source`` if given."""
    port = free_port()
    args = [VGDB, "serve", "--db", str(db), "--port", str(port), "--anonymous",
            "--timeout", "30"]
    if writable:
        args.append("--writable")
    env = None
    if source is not None:
        args[0:1] = [sys.executable, "-c", "import sys; from api.cli import run; "
                     "sys.argv[0] = 'vgdb'; sys.exit(run())"]
        env = {**os.environ, "PYTHONPATH": str(source.resolve())}
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180  # minutes on a busy machine
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("vgdb serve did not start")


QUERIES = {"impact": IMPACT, "node": NODE, "provenance": PROVENANCE}


async def one(client: httpx.AsyncClient, url: str, kind: str, target: str,
              headers: dict[str, str]) -> tuple[float, bool]:
    started = time.perf_counter()
    try:
        r = await client.post(f"{url}/graphql", json={"query": QUERIES[kind],
                                                      "variables": {"t": target}},
                              headers=headers)
        body = r.json()
        ok = r.status_code == 200 and not body.get("errors")
    except (httpx.HTTPError, ValueError):
        ok = False
    return time.perf_counter() - started, ok


async def sequential(db: Path, urls: dict[str, str],
                     targets: list[str]) -> dict[str, dict[str, list[float]]]:
    """One question at a time, each target through the Python API (``"python"``, the
    baseline) and each server in turn, who goes first rotating: the other jobs on the
    machine slow all of them alike, and the ratios hold."""
    runs = python_runs()
    out: dict[str, dict[str, list[float]]] = {name: {} for name in ("python", *urls)}
    with Store.open(db, read_only=True) as store:
        async def ask(who: str, kind: str, t: str) -> tuple[float, bool]:
            if who == "python":
                started = time.perf_counter()
                runs[kind](store, t)
                return time.perf_counter() - started, True
            return await one(client, urls[who], kind, t, {})

        async with httpx.AsyncClient(timeout=60) as client:
            for kind in QUERIES:
                for who in out:
                    for t in targets[:10]:  # warm-up
                        await ask(who, kind, t)
                    out[who][kind] = []
                for n, t in enumerate(targets):
                    order = list(out)
                    for who in order[n % len(order):] + order[:n % len(order)]:
                        took, ok = await ask(who, kind, t)
                        if not ok:
                            raise RuntimeError(f"{who} failed {kind} for {t}")
                        out[who][kind].append(took)
    return out


async def load(url: str, targets: list[str], *, seconds: float, concurrency: int,
               headers: dict[str, str] | None = None) -> dict[str, Any]:
    """``concurrency`` clients, each sending the mix (impact, node, provenance in turn over
    the targets) until ``seconds`` pass."""
    times: dict[str, list[float]] = {k: [] for k in QUERIES}
    errors = 0
    stop = time.perf_counter() + seconds
    limits = httpx.Limits(max_connections=concurrency)

    async def client_loop(n: int, client: httpx.AsyncClient) -> None:
        nonlocal errors
        rng = random.Random(n)
        while time.perf_counter() < stop:
            kind = rng.choice(list(QUERIES))
            took, ok = await one(client, url, kind, rng.choice(targets), headers or {})
            times[kind].append(took)
            errors += not ok

    started = time.perf_counter()
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:
        await asyncio.gather(*(client_loop(n, client) for n in range(concurrency)))
    wall = time.perf_counter() - started
    every = [t for ts in times.values() for t in ts]
    return {"requests": len(every), "errors": errors, "wall": wall,
            "throughput": len(every) / wall, "all": every, **times}


def ms(times: list[float], q: float) -> float:
    if not times:
        return float("nan")
    if q == 50:
        return statistics.median(times) * 1000
    return statistics.quantiles(times, n=100, method="inclusive")[int(q) - 1] * 1000


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", default=None, help="reuse (or build) the graph here")
    ap.add_argument("--samples", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--during-ingest", action="store_true")
    ap.add_argument("--compare", type=Path, default=None, metavar="SRC",
                    help="also serve from this source tree and compare, one at a time")
    args = ap.parse_args(argv)
    info = machine()
    console.print(f"{info['date']}  {info['cpu']}  nproc {info['nproc']}  load "
                  f"{info['loadavg']}  python {info['python']}")
    db = Path(args.db or Path(tempfile.gettempdir()) / "vgdb_api_bench_db")
    if not (db / "graph.kz").exists():
        build(db)
    targets = sample(db, args.samples, args.seed)
    proc, url = start_server(db)
    other = start_server(db, source=args.compare) if args.compare else None
    try:
        urls = {"this": url, **({"compared": other[1]} if other else {})}
        both = asyncio.run(sequential(db, urls, targets))
        seq, base = both["this"], both["python"]
        if other:
            other[0].terminate()
            other[0].wait(10)
            other = None
        conc = asyncio.run(load(url, targets, seconds=args.seconds,
                                concurrency=args.concurrency))
    finally:
        for p in (proc, other[0] if other else None):
            if p is not None:
                p.terminate()
                p.wait(10)
    table = Table(title=f"GraphQL over HTTP vs the Python API ({len(targets)} sampled symbols)")
    for col in ("query", "Python API p50", "p95", "HTTP, one at a time p50", "p95",
                "ratio p50", f"HTTP x{args.concurrency} p50", "p95", "p99", "requests"):
        table.add_column(col, justify="left" if col == "query" else "right")
    for kind in QUERIES:
        table.add_row(kind, f"{ms(base[kind], 50):.1f}", f"{ms(base[kind], 95):.1f}",
                      f"{ms(seq[kind], 50):.1f}", f"{ms(seq[kind], 95):.1f}",
                      f"{ms(seq[kind], 50) / ms(base[kind], 50):.2f}x",
                      f"{ms(conc[kind], 50):.1f}", f"{ms(conc[kind], 95):.1f}",
                      f"{ms(conc[kind], 99):.1f}", f"{len(conc[kind]):,}")
    console.print(table)
    if "compared" in both:
        console.print(f"one at a time, p50 (p95) ms, {args.compare} vs this tree, requests "
                      "alternating between the two servers:")
        for kind in QUERIES:
            old, new = both["compared"][kind], seq[kind]
            console.print(f"  {kind:10s} compared {ms(old, 50):6.1f} ({ms(old, 95):6.1f}) "
                          f"ratio {ms(old, 50) / ms(base[kind], 50):.2f}x   this "
                          f"{ms(new, 50):6.1f} ({ms(new, 95):6.1f}) ratio "
                          f"{ms(new, 50) / ms(base[kind], 50):.2f}x   this/compared "
                          f"{ms(new, 50) / ms(old, 50):.2f}")
    console.print(f"concurrency {args.concurrency} for {conc['wall']:.1f} s: "
                  f"{conc['requests']:,} requests, {conc['throughput']:.1f} requests/s, "
                  f"{conc['errors']} errors; all: p50 {ms(conc['all'], 50):.1f} ms, p95 "
                  f"{ms(conc['all'], 95):.1f} ms, p99 {ms(conc['all'], 99):.1f} ms")
    if args.during_ingest:
        during(db, targets, args)
    return 0 if conc["errors"] == 0 else 1


def during(db: Path, targets: list[str], args: argparse.Namespace) -> None:
    """The same load while the server ingests this repository through the mutation."""
    token = TokenStore(db).create("api-benchmark", scope="admin")[1]
    headers = {"Authorization": f"Bearer {token}"}
    proc, url = start_server(db, writable=True)
    try:
        started = httpx.post(f"{url}/graphql", headers=headers, timeout=30, json={
            "query": "mutation($p: String!) { ingest(path: $p, name: $n, history: true) "
                     "{ id } }".replace("$n", json.dumps(f"vgdb-{os.getpid()}")),
            "variables": {"p": str(ROOT)}}).json()
        job = started["data"]["ingest"]["id"]
        conc = asyncio.run(load(url, targets, seconds=args.seconds,
                                concurrency=args.concurrency, headers=headers))
        deadline = time.monotonic() + 300
        while True:  # let the ingest finish (and say how it ended)
            state = httpx.post(f"{url}/graphql", headers=headers, timeout=30, json={
                "query": "query($id: String!) { ingestJob(id: $id) { status phase error "
                         "startedAt finishedAt } }",
                "variables": {"id": job}}).json()["data"]["ingestJob"]
            if state["status"] in ("done", "failed") or time.monotonic() > deadline:
                break
            time.sleep(1)
    finally:
        proc.terminate()
        proc.wait(10)
    console.print(f"while ingesting this repository (job {state}): {conc['requests']:,} "
                  f"requests, {conc['throughput']:.1f}/s, {conc['errors']} errors; p50 "
                  f"{ms(conc['all'], 50):.1f} ms, p95 {ms(conc['all'], 95):.1f} ms, p99 "
                  f"{ms(conc['all'], 99):.1f} ms")


if __name__ == "__main__":
    raise SystemExit(main())
