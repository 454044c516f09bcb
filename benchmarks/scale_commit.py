"""Commit cost per row of one group at a large graph against a group at ~100K edges,
interleaved in one run (issue 28: "commit cost per row at 10M edges within 2x of its cost
at 100K"), so both see the same machine load; each group sized by the batch's own policy.
``--rounds 0`` builds the small template only (kept in ``--work`` for the next run).

A small database of ``--small-edges`` code-shaped edges is built once (``benchmarks/
synthetic_graph.py``) and kept as a template. Then for each of ``--rounds`` rounds, fresh
synthetic repositories are generated and fed, staged one by one, to the batch's writer
(:class:`ingest.batch.group.GroupWriter`, what ``vgdb ingest-batch`` uses) on a fresh copy
of the small database and then on ``--big`` (a copy of the database ``benchmarks/scale.py``
left; it grows by the probes), until the writer commits its first group: its size is the
policy's target for that graph (``--group-rows``, ``--growth``, ``--max-rows``; defaults
the batch's: :func:`ingest.batch.group.group_target`). Printed per probe: the edges and
rows in the graph before it, the group's target, repositories and rows, the seconds of its
load transaction and µs per row, where those seconds went (cProfile of
``load_code_group``: the COPYs, the COMMIT, the graph file's digest, the lookups of
existing ids), and the load average.

    VGDB_BUFFER_POOL_MB=4096 .venv/bin/python benchmarks/scale_commit.py \\
        --big /tmp/scale-commit-big/db --work /tmp/scale-commit --rounds 3
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import shutil
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import ingest.batch.group as group_module  # noqa: E402
from benchmarks.scale import OPTIONS  # noqa: E402
from benchmarks.synthetic_graph import generate_repo, measure  # noqa: E402
from graphdb import Store  # noqa: E402
from ingest.batch.group import (  # noqa: E402
    GROUP_GROWTH,
    GROUP_MAX_ROWS,
    GROUP_ROWS,
    GroupWriter,
    Member,
    graph_rows,
)
from ingest.pipeline import stage_repository  # noqa: E402

_OPTIONS = replace(OPTIONS, embed=False)

#: where a group's load transaction spends its time: function names in cProfile's records
PARTS = {"copy": "_copy", "commit": "_commit", "digest": "graph_digest",
         "existing_ids": "_existing", "frames": "_concat"}


def edges_in(store: Store) -> int:
    return int(store.cypher("MATCH ()-[e]->() RETURN count(*)").item())


def _stop(member: Member, exc: BaseException) -> None:
    raise RuntimeError(f"loading {member.name} failed") from exc


class ProfiledLoad:
    """``load_code_group`` as the writer calls it, under cProfile (measurement only)."""

    def __init__(self) -> None:
        self.real = group_module.load_code_group
        self.profile = cProfile.Profile()

    def __call__(self, store: Store, loads: list) -> dict[str, int]:
        self.profile.enable()
        try:
            return self.real(store, loads)
        finally:
            self.profile.disable()

    def parts(self) -> dict[str, float]:
        stats = pstats.Stats(self.profile).stats  # (file, line, name) -> (.., .., .., cum, ..)
        out = {}
        for part, name in PARTS.items():
            out[part] = round(sum(v[3] for k, v in stats.items() if k[2] == name), 2)
        return out


def probe(db: Path, shard: Callable[[int], Path], args: argparse.Namespace) -> dict[str, object]:
    """Stage repositories ``shard(0)``, ``shard(1)``, ... against ``db`` into the batch's
    writer until it commits its first group."""
    profiled = ProfiledLoad()
    group_module.load_code_group = profiled
    try:
        with Store.open(db) as store:
            before = edges_in(store)
            finished: list[Member] = []
            writer = GroupWriter(store, args.group_rows, finished.append, _stop,
                                 lambda exc: False, graph_rows=graph_rows(store),
                                 growth=args.growth, growth_max_rows=args.max_rows)
            rows_before, target = writer.graph_rows, writer.target_rows
            i = 0
            while not writer.groups:
                path = shard(i)
                staged = stage_repository(store, path, options=_OPTIONS, shards=path)
                writer.add(Member(path.name, staged, _OPTIONS, time.perf_counter()))
                i += 1
            members, rows, seconds = writer.groups[0]
    finally:
        group_module.load_code_group = profiled.real
    return {"edges_before": before, "rows_before": rows_before, "target": target,
            "repos": members, "rows": rows, "seconds": round(seconds, 3),
            "us_per_row": round(seconds / rows * 1e6, 2), "parts_s": profiled.parts(),
            "load_avg": round(os.getloadavg()[0], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--big", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--small-edges", type=int, default=100_000)
    parser.add_argument("--group-rows", type=int, default=GROUP_ROWS,
                        help="the group's floor (the batch's --group-rows)")
    parser.add_argument("--growth", type=float, default=GROUP_GROWTH,
                        help="share of the graph's rows a group holds at least (0: fixed)")
    parser.add_argument("--max-rows", type=int, default=GROUP_MAX_ROWS)
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
        small_args = argparse.Namespace(group_rows=1, growth=0.0, max_rows=1)
        probe(template, lambda _i, n=name: shards / n, small_args)
        r += 1
    out: dict[str, list] = {"small": [], "big": []}
    if not args.rounds:
        return
    for round_ in range(args.rounds):
        def shard(i: int, round_: int = round_) -> Path:
            """The round's i-th repository, generated once for both probes."""
            name = f"probe{args.seed}r{round_:02d}x{i:03d}"
            if not (shards / name).exists():
                generate_repo(shards / name, name, profile, files=args.files,
                              seed=args.seed * 1000 + round_ * 100 + i)
            return shards / name
        small = args.work / f"small-{round_}"
        shutil.copytree(template, small)
        for kind, db in (("small", small), ("big", args.big)):
            result = probe(db, shard, args)
            out[kind].append(result)
            print(json.dumps({"round": round_, "graph": kind, **result}), flush=True)
        shutil.rmtree(small)
        for old in shards.glob(f"probe{args.seed}r{round_:02d}x*"):
            shutil.rmtree(old)
    ratio = (statistics.median(p["us_per_row"] for p in out["big"])
             / statistics.median(p["us_per_row"] for p in out["small"]))
    print(json.dumps({"median_us_per_row": {k: statistics.median(p["us_per_row"] for p in v)
                                            for k, v in out.items()},
                      "ratio_big_to_small": round(ratio, 2)}))


if __name__ == "__main__":
    main()
