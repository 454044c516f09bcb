"""Where the grouped loader's memory goes, and what gives it back (issue 28).

Loads ``--groups`` groups of synthetic repositories (``benchmarks/synthetic_graph.py``,
~300K rows each) through the batch's writer (``ingest.batch.group.GroupWriter``, without
its trimming or reopening) and prints, per group, the resident memory by kind of mapping
(``benchmarks/scale_memory.split``) and how much of the anonymous memory (buffer pool,
other anonymous, C heap) each phase added: staging, the load transaction
(``load_code_group``), ``finish_repository``, the keyword sync. Then the memory after a
``CHECKPOINT``, after ``malloc_trim``, after closing the database, after ``malloc_trim``
again, after reopening it, and after the query probes of ``scale.py``.

    VGDB_BUFFER_POOL_MB=2048 .venv/bin/python benchmarks/loader_memory.py --groups 4 \\
        --work /tmp/loader-memory
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import shutil
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import ingest.batch.group as group_module  # noqa: E402
from benchmarks.scale import OPTIONS, measure_queries, rss_mib  # noqa: E402
from benchmarks.scale_memory import split  # noqa: E402
from benchmarks.synthetic_graph import generate_repo, measure  # noqa: E402
from graphdb import Store  # noqa: E402
from ingest.batch.group import GroupWriter, Member  # noqa: E402
from ingest.pipeline import stage_repository  # noqa: E402

_OPTIONS = replace(OPTIONS, embed=False)
added: dict[str, float] = defaultdict(float)


def anonymous() -> float:
    parts = split()
    return parts["other_anonymous"] + parts["heap"] + parts["buffer_pool"]


def counted(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        before = anonymous()
        try:
            return fn(*args, **kwargs)
        finally:
            added[name] += anonymous() - before
    return run


def show(at: str, **extra: object) -> None:
    gc.collect()
    print(json.dumps({"at": at, "rss_mib": round(rss_mib()[0]), **split(), **extra}),
          flush=True)


def _stop(member: Member, exc: BaseException) -> None:
    raise RuntimeError(f"loading {member.name} failed") from exc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=4)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--group-rows", type=int, default=300_000)
    args = parser.parse_args()
    for name in ("load_code_group", "finish_repository", "sync_searchable"):
        setattr(group_module, name, counted(name, getattr(group_module, name)))
    group_module.release_free_memory = lambda: False  # measure the writer before its trim
    trim = ctypes.CDLL("libc.so.6").malloc_trim
    profile = measure(ROOT)
    shutil.rmtree(args.work, ignore_errors=True)
    db, shards = args.work / "db", args.work / "shards"
    store = Store.open(db)
    show("open", load_avg=round(os.getloadavg()[0], 2))
    finished: list[Member] = []
    writer = GroupWriter(store, args.group_rows, finished.append, _stop, lambda exc: False)
    r = 0
    while len(writer.groups) < args.groups:
        name = f"syn{r:05d}"
        generate_repo(shards / name, name, profile, files=500, seed=100_003 + r)
        before = anonymous()
        staged = stage_repository(store, shards / name, options=_OPTIONS, shards=shards / name)
        added["stage"] += anonymous() - before
        shutil.rmtree(shards / name)
        count = len(writer.groups)
        writer.add(Member(name, staged, _OPTIONS, time.perf_counter()))
        r += 1
        if len(writer.groups) != count:
            finished.clear()
            show(f"group {len(writer.groups)}", added_mib={k: round(v) for k, v in added.items()},
                 load_avg=round(os.getloadavg()[0], 2))
            added.clear()
    store.checkpoint(timeout=600)
    show("checkpoint")
    trim(0)
    show("malloc_trim")
    del writer, finished, staged
    store.close()
    show("closed")
    trim(0)
    show("closed + malloc_trim")
    with Store.open(db) as store:
        show("reopened")
        measure_queries(store, 10, 1)
        show("reopened + queries")


if __name__ == "__main__":
    main()
