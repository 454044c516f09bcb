"""A cold ``vgdb ingest`` records its compaction baseline once the graph is complete, its
communities included (:func:`graphdb.compact.baseline_after_build`): recorded before them,
the first one-line update found the file far past the baseline and compacted it for nothing
(2.4 s on click)."""

from __future__ import annotations

import json
from pathlib import Path

from graphdb import Store
from graphdb.compact import BASELINE_KEY, compaction_due, graph_rows
from tests.helpers import run_vgdb, write_tree


def _tree(root: Path) -> Path:
    files = {"pkg/__init__.py": ""}
    for i in range(40):
        files[f"pkg/m{i}.py"] = (f"from pkg import m{max(i - 1, 0)}\n\n\n"
                                 f"class C{i}:\n    def run(self, x):\n        return f{i}(x)\n\n\n"
                                 f"def f{i}(x):\n    return m{max(i - 1, 0)}.f{max(i - 1, 0)}(x)\n")
    return write_tree(root, files)


def test_the_baseline_of_a_new_graph_includes_its_communities(tmp_path: Path) -> None:
    tree, db = _tree(tmp_path / "tree"), tmp_path / "db"
    done = run_vgdb("ingest", str(tree), "--db", str(db), "--json", "--no-history")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["communities"]["status"] == "detected"
    assert data["compacted"] is None and "compact" in data["seconds"]
    with Store.open(db, read_only=True) as store:
        size, rows = (int(v) for v in store.meta(BASELINE_KEY).split())
        assert size == (db / "graph.lbug").stat().st_size  # nothing checkpointed since
        assert rows == graph_rows(store) - 1  # every row but the baseline's own
        assert store.cypher("MATCH (c:Community) RETURN count(*) AS n")["n"][0] > 0
    with Store.open(db) as store:
        assert not compaction_due(store)

    (tree / "pkg/m3.py").write_text((tree / "pkg/m3.py").read_text() + "\n\ndef g():\n    pass\n")
    done = run_vgdb("ingest", str(tree), "--db", str(db), "--json", "--no-history")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["files"]["modified"] == 1
    assert data["compacted"] is None  # (click before this: compacted at its first edit)
