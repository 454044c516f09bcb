"""Reads while a real ``vgdb serve`` takes agent-memory writes (issue 23: one fuzzed request
waited 4.15 s against a 2 s deadline while the server's own time never passed 1.6 s).

Each round: a write token records a note (``recordNote``, agent memory only), then one impact
query (the first after a write is what starts an adjacency rebuild when the server thinks its
adjacency stale), then a cheap read (``/healthz``) is sent back to back for ``--window``
seconds and its latencies kept. The baseline in the same run is the same read loop without
the write, after ``--settle`` seconds of quiet. ``--baseline-vgdb`` runs the same rounds
against another build of vgdb first (e.g. a checkout of main before the fix), so before and
after come from one run:

    .venv/bin/python -m benchmarks.serve_writes --db /tmp/serve-writes-db \\
        --baseline-vgdb /work/main/.venv/bin/vgdb --rounds 4
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import httpx

from graphdb.tokens import TokenStore
from tests.api.graphql_fuzz import vgdb_serve

NOTE = """mutation($s: String!, $t: String!) {
  recordNote(session: $s, title: $t, content: "serve_writes benchmark") { __typename } }"""
START = 'mutation($s: String!) { startSession(session: $s, title: "bench") { session } }'
#: its answer does not matter (on a loaded machine it may pass the deadline): it only makes
#: the server look at its adjacency
IMPACT = '{ impact(targets: ["%s"], depth: 1) { depth } }'


def post(client: httpx.Client, url: str, query: str, variables: dict | None = None,
         token: str | None = None, *, strict: bool = True) -> dict:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    answer = client.post(f"{url}/graphql", json={"query": query, "variables": variables or {}},
                         headers=headers)
    body = answer.json()
    if body.get("errors") and strict:
        raise SystemExit(f"the benchmark's own request failed: {body['errors']}")
    return body.get("data") or {}


def read_loop(client: httpx.Client, url: str, window: float) -> list[float]:
    """Latencies (ms) of back-to-back /healthz reads for ``window`` seconds."""
    out: list[float] = []
    end = time.monotonic() + window
    while time.monotonic() < end:
        started = time.perf_counter()
        client.get(f"{url}/healthz").raise_for_status()
        out.append((time.perf_counter() - started) * 1000)
    return out


def rounds(vgdb: list[str], db: Path, token: str, target: str, *, count: int,
           window: float, settle: float) -> dict[str, list[float]]:
    """Read latencies after a write, and without one, interleaved round by round."""
    got: dict[str, list[float]] = {"quiet": [], "after write": []}
    with vgdb_serve(db, timeout=2, vgdb=vgdb, extra=("--anonymous", "--writable")) as url, \
            httpx.Client(timeout=60) as client:
        session = f"bench-{os.getpid()}-{time.monotonic_ns()}"
        post(client, url, START, {"s": session}, token)
        post(client, url, IMPACT % target, strict=False)
        time.sleep(window * 2)  # the first build (at start, and after startSession) ends
        post(client, url, IMPACT % target, strict=False)
        time.sleep(window * 2)
        for i in range(count):
            time.sleep(settle)  # a rebuild the last write started ends first
            got["quiet"] += read_loop(client, url, window)
            post(client, url, NOTE, {"s": session, "t": f"note {i}"}, token)
            post(client, url, IMPACT % target, strict=False)
            got["after write"] += read_loop(client, url, window)
        health = client.get(f"{url}/healthz").json()
    print(f"  /healthz at the end: {health.get('impact_adjacency', '(no adjacency status)')}")
    return got


def describe(label: str, latencies: list[float], seconds: float) -> str:
    cut = statistics.quantiles(latencies, n=20)[-1]
    return (f"{label:>12}: {len(latencies) / seconds:6.0f} reads/s, "
            f"p50 {statistics.median(latencies):7.1f} ms, p95 {cut:7.1f} ms, "
            f"max {max(latencies):7.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--window", type=float, default=1.5,
                        help="Seconds of reads after each write (and in each quiet round).")
    parser.add_argument("--settle", type=float, default=4.0,
                        help="Seconds of quiet before each quiet round.")
    parser.add_argument("--target", default="sym:vectorgraphdb/graphdb/store.py#Store.cypher")
    parser.add_argument("--baseline-vgdb", type=Path, default=None,
                        help="Another vgdb executable (before the fix), run first.")
    args = parser.parse_args()
    _, token = TokenStore(args.db).create(f"serve-writes-{os.getpid()}", scope="write")
    builds = [("this checkout", [sys.executable, "-m", "api.cli"])]
    if args.baseline_vgdb:
        builds.insert(0, (f"baseline {args.baseline_vgdb}", [str(args.baseline_vgdb)]))
    print(f"load average before: {os.getloadavg()}")
    for name, vgdb in builds:
        print(f"{name}:")
        got = rounds(vgdb, args.db, token, args.target, count=args.rounds, window=args.window,
                     settle=args.settle)
        for label, latencies in got.items():
            print(describe(label, latencies, args.rounds * args.window))
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
