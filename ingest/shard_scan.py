"""Cross-repository questions answered from Parquet shards by Dask, without any database.

"Which of N repositories call this (deprecated) function?" needs every repository's calls
*resolved*, and in one graph database the answer is bounded by what one writer could load.
Shards (docs/shards.md) hold each repository's parse results; resolution needs only the
repository's own files (``ingest.resolve``), so each shard is read and resolved by its own
Dask task, anywhere a shard directory is readable, and the small per-shard answers are
concatenated. The resolver is the one the loader runs, so a shard's answer is the edges its
repository gets in the graph (minus cross-repository resolution, which needs the graph: a
call into another *ingested* repository is answered here as the External it would be alone).

Dask's bag API runs the tasks (``scheduler``: ``"processes"``, ``"threads"``,
``"synchronous"``, or a ``distributed.Client`` for a cluster). ``dask.dataframe`` is not used:
it needs pandas, which vgdb does not depend on; the tables are read with pyarrow by
:func:`ingest.shards.read_shards`, checksums checked.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ingest.resolve import resolve
from ingest.shards import read_shards
from schema import CALLS


@dataclass(frozen=True, slots=True)
class CallSite:
    """One resolved caller of the target: the graph's CALLS edge (first line of the pair)."""

    repo: str
    caller: str  # symbol id, sym:<repo>/<path>#<qualname>
    line: int
    resolution: str


@dataclass
class ScanResult:
    """The answer, and what it cost: shards read, call edges resolved, seconds."""

    target: str
    sites: list[CallSite]
    shards: int
    call_edges: int
    seconds: float
    repositories: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"target": self.target, "repositories": self.repositories,
                "callers": [s.caller for s in self.sites], "shards": self.shards,
                "call_edges": self.call_edges, "seconds": round(self.seconds, 3)}


def callers_of(shard: str | os.PathLike[str], targets: frozenset[str]) -> tuple[
        list[CallSite], int]:
    """Resolve one shard's calls; the call sites whose callee id is in ``targets`` (one per
    caller and target, the lowest line, as the graph stores CALLS), and the count of CALLS
    edges resolved. Runs in a Dask worker."""
    data = read_shards(shard)
    repo = data.info.repo
    files = {path: r.extract for path, r in data.results.items() if r.extract is not None}
    edges = [e for e in resolve(repo, files).edges if e.rel == CALLS.name]
    first: dict[tuple[str, str], CallSite] = {}
    for e in edges:
        if e.dst in targets:
            key = (e.src, e.dst)
            if key not in first or e.line < first[key].line:
                first[key] = CallSite(repo, e.src, e.line, e.resolution)
    return sorted(first.values(), key=lambda s: (s.caller, s.line)), len(edges)


def who_calls(shards: Sequence[str | os.PathLike[str]], target: str, *,
              scheduler: Any = "processes", workers: int | None = None) -> ScanResult:
    """Every caller, across ``shards``, of ``target`` (an External id such as
    ``ext:python:warnings.warn``, or a symbol id), one Dask task per shard."""
    import dask.bag as db

    paths = [str(Path(s)) for s in shards]
    start = time.perf_counter()
    bag = db.from_sequence(paths, npartitions=max(1, len(paths)))
    parts = bag.map(callers_of, frozenset({target}))
    options: dict[str, Any] = {"scheduler": scheduler}
    if workers is not None and isinstance(scheduler, str):
        options["num_workers"] = workers
    results = parts.compute(**options)
    sites = sorted((s for found, _ in results for s in found),
                   key=lambda s: (s.repo, s.caller))
    return ScanResult(target=target, sites=sites, shards=len(paths),
                      call_edges=sum(n for _, n in results),
                      seconds=time.perf_counter() - start,
                      repositories=sorted({s.repo for s in sites}))
