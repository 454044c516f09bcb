"""Executors: the local pool and a real Dask LocalCluster extract shards; a task that kills
its worker fails alone, a task that raises hands back its exception, the rest succeed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from graphdb import Store
from ingest import IngestOptions, ingest_repository
from ingest.executors import LocalExecutor, WorkerCrashError, get_executor
from ingest.history.pipeline import HistoryOptions
from ingest.shards import ExtractRequest, ShardInfo, extract_shards
from schema import IngestError
from tests.helpers import write_tree


def extract_or_crash(request: ExtractRequest) -> ShardInfo:
    """A task that kills its worker process (as a segfaulting parser would) for the
    repository named ``crash``, and extracts the others (module level: workers import it)."""
    if request.repo == "crash":
        os._exit(3)
    return extract_shards(request)


def _requests(tmp_path: Path) -> list[ExtractRequest]:
    one = write_tree(tmp_path / "one", {
        "a.py": "def f():\n    return g()\n\n\ndef g():\n    return 1\n",
        "b.py": "from a import f\n\n\nclass K:\n    def m(self):\n        return f()\n"})
    two = write_tree(tmp_path / "two", {"main.go": "package main\n\nfunc main() { run() }\n\n"
                                                   "func run() {}\n"})
    return [ExtractRequest(str(one), str(tmp_path / "shards" / "one"), repo="one"),
            ExtractRequest(str(tmp_path / "one"), str(tmp_path / "shards" / "x"), repo="crash"),
            ExtractRequest(str(two), str(tmp_path / "shards" / "two"), repo="two"),
            ExtractRequest(str(tmp_path / "nowhere"), str(tmp_path / "shards" / "n"),
                           repo="missing")]


def _check_batch(outcomes: dict[str, object], tmp_path: Path) -> None:
    assert sorted(outcomes) == ["crash", "missing", "one", "two"]
    assert isinstance(outcomes["crash"], WorkerCrashError)
    assert outcomes["crash"].item.repo == "crash"  # type: ignore[attr-defined]
    assert isinstance(outcomes["missing"], IngestError)
    assert "not a directory" in str(outcomes["missing"])
    one, two = outcomes["one"], outcomes["two"]
    assert isinstance(one, ShardInfo) and isinstance(two, ShardInfo)
    assert one.counts["files"] == 2 and two.counts["symbols"] == 2
    options = IngestOptions(history=HistoryOptions(enabled=False), papers=False)
    with Store.open(tmp_path / "db") as store:
        for info in (one, two):
            summary = ingest_repository(store, info.root, options=options, shards=info)
            assert summary.repo == info.repo
        calls = store.cypher("MATCH (a)-[:CALLS]->(b) RETURN a.id AS src, b.id AS dst "
                             "ORDER BY src")
    assert calls.rows() == [("sym:one/a.py#f", "sym:one/a.py#g"),
                            ("sym:one/b.py#K.m", "sym:one/a.py#f"),
                            ("sym:two/main.go#main", "sym:two/main.go#run")]


def test_local_pool_reports_a_crashed_worker_as_that_items_failure(tmp_path: Path) -> None:
    with get_executor("local", workers=2) as executor:
        assert isinstance(executor, LocalExecutor) and executor.workers == 2
        outcomes = {r.repo: out for r, out in executor.map_unordered(extract_or_crash,
                                                                     _requests(tmp_path))}
    _check_batch(outcomes, tmp_path)


def test_dask_local_cluster_extracts_shards_for_real(tmp_path: Path) -> None:
    with get_executor("dask://local", workers=2) as executor:
        assert executor.workers == 2 and executor.start_seconds > 0
        outcomes = {r.repo: out for r, out in executor.map_unordered(extract_or_crash,
                                                                     _requests(tmp_path))}
        # the nanny replaced the dead worker: the cluster still runs tasks
        again = list(executor.map_unordered(extract_shards, _requests(tmp_path)[:1]))
        assert isinstance(again[0][1], ShardInfo)
    _check_batch(outcomes, tmp_path)


@pytest.mark.parametrize("url", ["spark://x", "dask://", "ray:/local", "nonsense"])
def test_unknown_executor_is_a_clear_error(url: str) -> None:
    with pytest.raises(IngestError, match="unknown executor"):
        get_executor(url)
