"""The batch's group size grows with the graph (ingest/batch/group.py): the exact target
for a graph size, its settings, and a real batch whose grouping follows the rows already
in the database."""

from __future__ import annotations

import json
import shutil
import sysconfig
from pathlib import Path

import pytest

from graphdb import Store
from ingest.batch import load_manifest, run_batch
from ingest.batch.group import (
    GROUP_GROWTH,
    GROUP_MAX_ROWS,
    GROUP_ROWS,
    graph_rows,
    group_growth,
    group_max_rows,
    group_target,
)
from tests.helpers import write_tree


def test_the_target_is_the_floor_until_the_graph_outgrows_it() -> None:
    assert group_target(300_000, 0, 0.06, 1_500_000) == 300_000
    assert group_target(300_000, 5_000_000, 0.06, 1_500_000) == 300_000
    assert group_target(300_000, 5_000_001, 0.06, 1_500_000) == 300_001  # rounded up
    assert group_target(300_000, 15_000_000, 0.06, 1_500_000) == 900_000
    assert group_target(300_000, 100_000_000, 0.06, 1_500_000) == 1_500_000  # the ceiling
    assert group_target(2_000_000, 100_000_000, 0.06, 1_500_000) == 2_000_000  # floor wins
    assert group_target(300_000, 100_000_000, 0.0, 1_500_000) == 300_000  # growth off
    assert group_target(1, 100_000_000, 0.06, 1_500_000) == 1  # one repository each


def test_the_defaults_at_100k_and_10m_edges() -> None:
    """The shipped policy on the graphs of RESULTS.md: ~160K rows at ~110K edges, 14.85M
    rows at 11.5M edges."""
    assert (GROUP_ROWS, GROUP_GROWTH, GROUP_MAX_ROWS) == (300_000, 0.06, 1_500_000)
    assert group_target(GROUP_ROWS, 160_000, GROUP_GROWTH, GROUP_MAX_ROWS) == 300_000
    assert group_target(GROUP_ROWS, 14_851_972, GROUP_GROWTH, GROUP_MAX_ROWS) == 891_119


def test_settings_come_from_the_argument_then_the_environment(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VGDB_BATCH_GROUP_GROWTH", raising=False)
    monkeypatch.delenv("VGDB_BATCH_GROUP_MAX_ROWS", raising=False)
    assert group_growth() == GROUP_GROWTH
    assert group_max_rows() == GROUP_MAX_ROWS
    monkeypatch.setenv("VGDB_BATCH_GROUP_GROWTH", "0.1")
    monkeypatch.setenv("VGDB_BATCH_GROUP_MAX_ROWS", "5000")
    assert group_growth() == 0.1
    assert group_max_rows() == 5000
    assert group_growth(0.0) == 0.0
    assert group_max_rows(7) == 7
    with pytest.raises(ValueError, match=r"between 0 and 1, not 1\.5"):
        group_growth(1.5)
    with pytest.raises(ValueError, match="at least one row, not 0"):
        group_max_rows(0)


def _manifest(path: Path, names: list[str]) -> Path:
    lines = ["[defaults]", "papers = false"]
    for name in names:
        lines += ["[[repositories]]", f"path = {json.dumps(name)}"]
    path.write_text("\n".join(lines) + "\n")
    return path


def _trees(tmp_path: Path) -> None:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    shutil.copytree(stdlib / "json", tmp_path / "json",
                    ignore=shutil.ignore_patterns("__pycache__"))
    write_tree(tmp_path / "one", {"one.py": "def a():\n    return 1\n"})
    write_tree(tmp_path / "two", {"two.py": "def b():\n    return 2\n"})


@pytest.mark.slow
def test_a_batch_into_a_larger_graph_commits_larger_groups(tmp_path: Path) -> None:
    """Two small repositories after the json package: with a floor of 2 rows each goes in
    its own transaction; with the group growing to the graph's rows (growth 1.0) both wait
    for one commit (their rows are fewer than the graph's), unless the ceiling is 2 rows.
    Every way gives the same graph."""
    _trees(tmp_path)
    first = load_manifest(_manifest(tmp_path / "first.toml", ["json"]))
    second = load_manifest(_manifest(tmp_path / "second.toml", ["one", "two"]))
    graphs, groups = {}, {}
    for name, growth, most in (("fixed", 0.0, 10**9), ("grown", 1.0, 10**9),
                               ("capped", 1.0, 2)):
        with Store.open(tmp_path / name) as store:
            assert [g[0] for g in run_batch(store, first, workers=1, group_rows=1).groups] \
                == [1]
            before = graph_rows(store)
            summary = run_batch(store, second, workers=1, group_rows=2, growth=growth,
                                growth_max_rows=most)
            assert {o.name: o.status for o in summary.outcomes} == {"one": "done",
                                                                    "two": "done"}
            groups[name] = [g[0] for g in summary.groups]
            rows = sum(g[1] for g in summary.groups)
            assert 2 < rows < before  # so the grown group holds both
            graphs[name] = (
                store.cypher("MATCH (f:File) RETURN f.id ORDER BY f.id").rows(),
                store.cypher("MATCH (s:Symbol) RETURN s.id ORDER BY s.id").rows())
    assert groups == {"fixed": [1, 1], "grown": [2], "capped": [1, 1]}
    assert graphs["fixed"] == graphs["grown"] == graphs["capped"]
    assert ("sym:two/two.py#b",) in graphs["grown"][1]
