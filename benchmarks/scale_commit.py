"""Commit cost per row of one group at a large graph against the same group at ~100K edges,
interleaved in one run (issue 28: "commit cost per row at 10M edges within 2x of its cost
at 100K"), so both see the same machine load. ``--rounds 0`` builds the small template
only (kept in ``--work`` for the next run).

A small database of ``--small-edges`` code-shaped edges is built once (``benchmarks/
synthetic_graph.py``, the batch's grouped writer) and kept as a template. Then for each of
``--rounds`` rounds, a fresh group of ``--group-repos`` synthetic repositories is generated
and committed with :func:`graphdb.load_code_group` (the transaction ``vgdb ingest-batch``
commits per group) into a fresh copy of the small database, and then into ``--big`` (the
database ``benchmarks/scale.py`` left; it grows by the probes). Printed per probe: the edges
in the graph before it, its rows, seconds and µs per row, the load average.

    VGDB_BUFFER_POOL_MB=4096 .venv/bin/python benchmarks/scale_commit.py \\
        --big /tmp/scale-10m/db --work /tmp/scale-commit --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.scale import OPTIONS  # noqa: E402
from benchmarks.synthetic_graph import generate_repo, measure  # noqa: E402
from graphdb import Store, load_code_group, load_rows  # noqa: E402
from ingest.pipeline import finish_repository, stage_repository  # noqa: E402

_OPTIONS = replace(OPTIONS, embed=False)


def edges_in(store: Store) -> int:
    return int(store.cypher("MATCH ()-[e]->() RETURN count(*)").item())


def probe(db: Path, shards: list[Path]) -> dict[str, object]:
    """Stage the repositories of ``shards`` against ``db`` and commit them in one group."""
    with Store.open(db) as store:
        before = edges_in(store)
        staged = [stage_repository(store, s, options=_OPTIONS, shards=s) for s in shards]
        loads = [s.load for s in staged]
        rows = sum(load_rows(load) for load in loads)
        t0 = time.perf_counter()
        load_code_group(store, loads)
        seconds = time.perf_counter() - t0
        for s in staged:  # links and counts, as the batch does after the commit
            s.loaded(store)
            finish_repository(store, s, options=_OPTIONS, searchable=False, compact=False)
    return {"edges_before": before, "rows": rows, "seconds": round(seconds, 3),
            "us_per_row": round(seconds / rows * 1e6, 2),
            "load_avg": round(os.getloadavg()[0], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--big", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--small-edges", type=int, default=100_000)
    parser.add_argument("--group-repos", type=int, default=11)
    parser.add_argument("--files", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    profile = measure(ROOT)
    shards = args.work / "shards"
    template = args.work / "small"  # kept: a second run reuses it
    shutil.rmtree(shards, ignore_errors=True)
    r = 0
    with Store.open(template):
        pass
    while True:  # the small graph: repositories until it holds --small-edges
        with Store.open(template) as store:
            if edges_in(store) >= args.small_edges:
                break
        name = f"small{r:04d}"
        generate_repo(shards / name, name, profile, files=args.files, seed=args.seed + r)
        probe(template, [shards / name])
        r += 1
    out: dict[str, list] = {"small": [], "big": []}
    if not args.rounds:
        return
    for round_ in range(args.rounds):
        group = []
        for i in range(args.group_repos):
            name = f"probe{args.seed}r{round_:02d}x{i:02d}"
            generate_repo(shards / name, name, profile, files=args.files,
                          seed=args.seed * 1000 + round_ * 100 + i)
            group.append(shards / name)
        small = args.work / f"small-{round_}"
        shutil.copytree(template, small)
        for kind, db in (("small", small), ("big", args.big)):
            result = probe(db, group)
            out[kind].append(result)
            print(json.dumps({"round": round_, "graph": kind, **result}), flush=True)
        shutil.rmtree(small)
    ratio = (statistics.median(p["us_per_row"] for p in out["big"])
             / statistics.median(p["us_per_row"] for p in out["small"]))
    print(json.dumps({"median_us_per_row": {k: statistics.median(p["us_per_row"] for p in v)
                                            for k, v in out.items()},
                      "ratio_big_to_small": round(ratio, 2)}))


if __name__ == "__main__":
    main()
