"""A seeded run of the schema-driven GraphQL fuzzer (tests/api/graphql_fuzz.py) against a real
``vgdb serve`` process over a real graph: counts by outcome, internal errors, worst overrun
of the deadline, largest answer.

    .venv/bin/vgdb ingest . --db /tmp/fuzz-db --name vectorgraphdb
    .venv/bin/python -m benchmarks.graphql_fuzz --db /tmp/fuzz-db --count 10000 --seed 23
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import httpx
from hypothesis import HealthCheck, Phase, given, seed, settings

from graphdb.tokens import TokenStore
from tests.api.graphql_fuzz import (
    Tally,
    any_operation,
    send,
    server_times,
    summary,
    vgdb_serve,
)
from tests.helpers import VGDB


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=23)
    parser.add_argument("--timeout", type=float, default=2.0)
    parser.add_argument("--log", type=Path, default=None,
                        help="Keep the server's log here (default: a temporary file).")
    args = parser.parse_args()
    tally = Tally(timeout=args.timeout)
    sent = 0
    # a write token on every other operation: mutations reach their resolvers (admin
    # mutations stay refused by scope: a fuzzer must not write backups to random paths)
    _, token = TokenStore(args.db).create(f"fuzz-{os.getpid()}", scope="write")
    print(f"load average before: {os.getloadavg()}")
    started = time.monotonic()
    log = args.log or Path(tempfile.mkdtemp(prefix="graphql-fuzz-")) / "server.log"
    with vgdb_serve(args.db, timeout=args.timeout, vgdb=VGDB, extra=("--anonymous", "--writable"),
                    log_path=log) as url, httpx.Client(timeout=30) as client:

        @seed(args.seed)
        @settings(max_examples=args.count, deadline=None, database=None,
                  phases=[Phase.generate], suppress_health_check=list(HealthCheck))
        @given(operation=any_operation())
        def run(operation: str) -> None:
            nonlocal sent
            sent += 1
            send(client, url, operation, tally, token=token if sent % 2 else None)
            if sent % 1000 == 0:
                print(f"{sent} sent, {time.monotonic() - started:.0f} s, "
                      f"{len(tally.violations)} violations", flush=True)

        run()
    report = summary(tally, sent, time.monotonic() - started)
    report["server"] = server_times(log, args.timeout)  # the server's own times
    print(json.dumps(report, indent=2))
    print(f"load average after: {os.getloadavg()}")
    for violation in tally.violations[:20]:
        print("VIOLATION", violation[:500])


if __name__ == "__main__":
    main()
