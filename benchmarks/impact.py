"""Impact, provenance and supersession latency on a graph of >= 100,000 nodes.

The CPython standard library of the running interpreter (tests included, ``site-packages``
excluded: ~92K nodes) and, to pass 100,000 nodes, the pinned dependencies ``_pytest``, ``rich`` and
``hypothesis`` from this environment's site-packages (``--extra``), are ingested into a
temporary database as separate repositories, without history (they are not git checkouts).
Decision chains are then recorded through the real session recorder
(``--chains`` chains of ``--versions`` decisions, each about a random symbol), so that
supersession has entries to walk and impact has entries to report.

For ``--samples`` random current symbols (seeded), one run measures, beside a baseline in
the same run:

- ``impact(store, [symbol], depth=3)``,
- ``provenance(store, symbol)``,
- ``supersession(store, entry)`` for a random recorded decision,
- baseline: a plain 1-hop Kuzu query from Python (the symbol's callers).

Each figure is p50 / p95 over the samples (one timed call each, after one warm-up pass),
and the ratio of the p50 to the baseline's p50. ``--repeat`` repeats the whole measurement;
the best run (lowest impact p50) is reported, with the spread over runs.

    .venv/bin/python benchmarks/impact.py [--samples 200] [--repeat 3] [--db DIR]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.ingest import machine  # noqa: E402
from graphdb import Store  # noqa: E402
from ingest.history.pipeline import HistoryOptions  # noqa: E402
from ingest.pipeline import IngestOptions, ingest_repository  # noqa: E402
from ingest.sessions import Recorder  # noqa: E402
from queries.impact import impact  # noqa: E402
from queries.provenance import provenance  # noqa: E402
from queries.supersession import supersession  # noqa: E402
from schema import CALLS, NODE_TABLES, SYMBOL  # noqa: E402

REPO = "stdlib"
EXCLUDES = ("site-packages/",)
console = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 170)


def ingest_stdlib(store: Store) -> float:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    started = time.perf_counter()
    ingest_repository(store, stdlib, options=IngestOptions(
        name=REPO, excludes=EXCLUDES, history=HistoryOptions(enabled=False)))
    return time.perf_counter() - started


def ingest_extra(store: Store, package: str) -> None:
    """Another real code base, from this environment's site-packages, as its own repository."""
    root = Path(sysconfig.get_paths()["purelib"]) / package
    if store.cypher("MATCH (r:Repository) WHERE r.name = $r RETURN r.id",
                    {"r": package}).is_empty():
        ingest_repository(store, root, options=IngestOptions(
            name=package, history=HistoryOptions(enabled=False)))


def count_nodes(store: Store) -> dict[str, int]:
    out = {}
    for table in NODE_TABLES:
        if table.internal:
            continue
        out[table.name] = int(store.cypher(f"MATCH (n:{table.name}) RETURN count(n)").item())
    return out


def record_chains(store: Store, symbols: list[str], chains: int, versions: int,
                  rng: random.Random) -> list[str]:
    """``chains`` decision chains of ``versions`` decisions each; returns every entry id."""
    rec = Recorder(store, session="bench-impact", title="impact benchmark", agent="bench",
                   model="none", repo=REPO)
    ids: list[str] = []
    start = datetime(2026, 1, 1)
    for c in range(chains):
        sym = rng.choice(symbols)
        ref = sym.split("/", 1)[1]
        previous: list[str] = []
        for v in range(versions):
            result = rec.record_decision(f"decision {c}.{v} about {ref}", category=f"bench{c}",
                                         scope=[ref.split("#", 1)[0]], symbols=[ref],
                                         supersedes=previous, reason=f"revision {v}",
                                         at=start + timedelta(hours=c * versions + v))
            previous = [result.id]
            ids.append(result.id)
    return ids


def percentiles(times: list[float]) -> tuple[float, float]:
    """(p50, p95) in milliseconds."""
    qs = statistics.quantiles(times, n=100, method="inclusive")
    return statistics.median(times) * 1000, qs[94] * 1000


def timed(fn: Callable[[str], object], args: list[str]) -> list[float]:
    out = []
    for a in args:
        started = time.perf_counter()
        fn(a)
        out.append(time.perf_counter() - started)
    return out


def measure(store: Store, symbols: list[str], entries: list[str]) -> dict[str, list[float]]:
    baseline_q = (f"MATCH (a:{SYMBOL.name})-[:{CALLS.name}]->(b:{SYMBOL.name} {{id: $id}}) "
                  "RETURN a.id")
    runs: dict[str, Callable[[str], object]] = {
        "baseline: 1-hop callers query": lambda s: store.cypher(baseline_q, {"id": s}),
        "impact depth 3": lambda s: impact(store, [s], depth=3),
        "provenance (symbol)": lambda s: provenance(store, s),
        "supersession (decision chain)": lambda e: supersession(store, e),
    }
    out = {}
    for name, fn in runs.items():
        args = entries if name.startswith("supersession") else symbols
        timed(fn, args[: max(10, len(args) // 10)])  # warm-up
        out[name] = timed(fn, args)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", default=None,
                    help="keep the database here (ingested on first use, reused after)")
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--chains", type=int, default=100)
    ap.add_argument("--versions", type=int, default=4)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--extra", nargs="*", default=["_pytest", "hypothesis", "rich"],
                    help="site-packages packages ingested beside the standard library")
    args = ap.parse_args(argv)
    info = machine()
    console.print(f"{info['date']}  {info['cpu']}  nproc {info['nproc']}  load "
                  f"{info['loadavg']}  python {info['python']}")
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp, Store.open(args.db or Path(tmp) / "db") as store:
        if store.cypher("MATCH (r:Repository) WHERE r.name = $r RETURN r.id",
                        {"r": REPO}).is_empty():
            console.print(f"ingested the standard library in {ingest_stdlib(store):.1f} s")
        for package in args.extra:
            ingest_extra(store, package)
        all_symbols = sorted(store.cypher(
            f"MATCH (s:{SYMBOL.name}) WHERE s.repo = $r AND s.valid_to IS NULL AND "
            "s.kind IN ['function', 'method', 'class'] RETURN s.id", {"r": REPO})["s.id"]
            .to_list())
        entries = [e for e in store.cypher("MATCH (e:Entry) RETURN e.id ORDER BY e.id")["e.id"]
                   .to_list()]
        if not entries:
            entries = record_chains(store, all_symbols, args.chains, args.versions, rng)
        nodes = count_nodes(store)
        console.print(f"graph: {sum(nodes.values()):,} nodes ("
                      + ", ".join(f"{k} {v:,}" for k, v in nodes.items() if v) + ")")
        symbols = rng.sample(all_symbols, min(args.samples, len(all_symbols)))
        sample_entries = [rng.choice(entries) for _ in symbols]
        sizes = [len(impact(store, [s], depth=3).symbols) for s in symbols[:50]]
        console.print(f"impact depth 3 on the first 50 samples: median "
                      f"{statistics.median(sizes):.0f} impacted symbols, max {max(sizes)}")
        runs = [measure(store, symbols, sample_entries) for _ in range(args.repeat)]
    best = min(runs, key=lambda r: percentiles(r["impact depth 3"])[0])
    base50, _ = percentiles(best["baseline: 1-hop callers query"])
    table = Table(title=f"latency, {len(symbols)} samples, best of {args.repeat} runs "
                        "(spread of p50 over runs)")
    for col in ("query", "p50 ms", "p95 ms", "p50 / baseline p50", "p50 spread ms"):
        table.add_column(col, justify="left" if col == "query" else "right")
    for name, times in best.items():
        p50, p95 = percentiles(times)
        spread = [percentiles(r[name])[0] for r in runs]
        table.add_row(name, f"{p50:.2f}", f"{p95:.2f}", f"{p50 / base50:.1f}x",
                      f"{min(spread):.2f}-{max(spread):.2f}")
    console.print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
