"""A COMMIT that fails on a real full disk (a small tmpfs) reports the truth: "committed"
means the whole transaction is there after reopening, "not committed" means nothing of it
is, and every earlier commit survives (benchmarks/commit_failure.py runs the same
scenarios against another tree; graphdb.wal has the cases, measured on LadybugDB 0.22).
"""

from __future__ import annotations

import pytest

from benchmarks.commit_failure import BASE_ROWS, SCENARIOS, run

pytestmark = pytest.mark.slow

EXPECTED = {
    # the engine would keep the SET and drop the COPY'd rows: the log is cut back instead
    "copy-checkpoint-fails": ("not committed", BASE_ROWS, None),
    # past its commit point: the next open finishes the checkpoint, every row is there
    "copy-checkpoint-half-done": ("committed", BASE_ROWS + 100_000, "1"),
    # the log keeps a small write: committed, with a warning; the next open checkpoints it
    "wal-checkpoint-fails": ("committed", BASE_ROWS + 200, "1"),
    # a torn log record used to make the database refuse to open: the open cuts it off
    "wal-record-torn": ("not committed", BASE_ROWS, None),
    # the pool has room again once the engine restarts, and its close runs the checkpoint
    "copy-buffer-pool-full": ("committed", BASE_ROWS + 200_000, "1"),
}


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_a_failed_commit_on_a_full_disk_reports_what_a_reopen_finds(scenario) -> None:
    result = run(scenario)
    reported, rows, k = EXPECTED[scenario.name]
    assert (result.reported, result.exit_code) == (reported, 0)
    assert result.reopened == {"rows": rows, "k": k, "pre": ["x", "x", "x"]}
    assert result.true
    # a commit whose checkpoint failed and that returned says so on stderr
    warned = "committed, but the checkpoint after it failed" in result.stderr
    assert warned == (scenario.name in WARNED), result.stderr[-2000:]


#: the commits that return normally although their checkpoint failed
WARNED = {"wal-checkpoint-fails", "copy-buffer-pool-full"}
