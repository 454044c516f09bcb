"""kill -9 in the middle of a checkpoint of a multi-megabyte write-ahead log, at timed moments
spread over the checkpoint and at the store's failpoints: the killed database opens
(read-only, which finishes an interrupted checkpoint itself, and read-write), passes its
checksum, and holds every committed row and value (benchmarks/checkpoint_kill.py runs more
moments; figures in benchmarks/RESULTS.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.checkpoint_kill import ROOT, ROWS_PER_WRITE, run

pytestmark = pytest.mark.slow

WRITES = 60


def test_a_checkpoint_killed_at_any_moment_loses_no_committed_fact(tmp_path: Path) -> None:
    lines: list[str] = []
    expected, trials = run(ROOT, tmp_path, trials=6, writes=WRITES, log=lines.append)
    assert expected["rows"] == 200_000 + WRITES * ROWS_PER_WRITE
    assert len(trials) == 8
    # the failpoints and most timed kills land while the child is still running
    assert sum(t.killed for t in trials) >= 6, lines
    assert [t.how for t in trials if not t.ok(expected)] == [], lines
