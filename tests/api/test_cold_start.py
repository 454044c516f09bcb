"""A cold ``vgdb ingest`` creates its database in a thread (:mod:`api.cold_start`): the store
it hands over is the one the ingest writes, an open that fails fails the command as before,
and a store never handed over is closed."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from api.cold_start import ColdStart
from graphdb import Store
from schema import SCHEMA_VERSION, StoreError
from tests.helpers import ROOT, run_vgdb, write_tree


def test_the_store_is_created_in_the_thread_and_handed_over(tmp_path: Path) -> None:
    cold = ColdStart(str(tmp_path / "db"), embed=False, communities=False)
    store = cold.store()
    try:
        assert not store.read_only
        assert store.meta("schema_version") == str(SCHEMA_VERSION)
        with store.write() as tx:  # this thread writes through its own connection
            store.set_meta(tx, "k", "v")
        assert store.meta("k") == "v"
    finally:
        cold.close()  # handed over: left open
        assert store.meta("k") == "v"
        store.close()


def test_a_failed_open_raises_in_the_caller(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a directory")
    cold = ColdStart(str(tmp_path / "file"), embed=False, communities=False)
    with pytest.raises(StoreError, match="not a directory"):
        cold.store()
    cold.close()


def test_a_store_never_handed_over_is_closed(tmp_path: Path) -> None:
    db = tmp_path / "db"
    cold = ColdStart(str(db), embed=False, communities=False)
    cold.close()
    with Store.open(db) as store:  # the lock was released: a second open works
        assert store.meta("schema_version") == str(SCHEMA_VERSION)


def test_the_later_steps_modules_are_imported_in_the_thread(tmp_path: Path) -> None:
    code = textwrap.dedent("""
        import sys
        from api.cold_start import ColdStart
        cold = ColdStart(sys.argv[1], embed=True, communities=True)
        cold.store()
        cold.close()
        print(all(m in sys.modules for m in ("numpy", "igraph", "leidenalg", "graphdb.embed")),
              "matplotlib" in sys.modules)
    """)
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "db")], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False"]


def test_a_cold_ingest_equals_one_without_workers(tmp_path: Path) -> None:
    """The thread's store and the pool path give the graph a single-process ingest gives."""
    files = {f"pkg/m{i}.py": f"import os\n\ndef f{i}(x):\n    return os.path.join(x, f{i - 1}(x))\n"
             if i else "def f0(x):\n    return x\n" for i in range(30)}
    files["pkg/__init__.py"] = ""
    tree = write_tree(tmp_path / "tree", files)
    got = {}
    for label, extra in (("cold", ()), ("one", ("--workers", "1"))):
        done = run_vgdb("ingest", str(tree), "--db", str(tmp_path / label), "--json",
                        "--no-history", *extra)
        assert done.returncode == 0, done.stderr
        data = json.loads(done.stdout)
        got[label] = (data["nodes"], data["edges"], data["communities"]["status"],
                      data["search"]["embed"]["tables"][0]["embedded"]
                      if "embed" in (data.get("search") or {}) else None)
    assert got["cold"] == got["one"], got
    assert got["cold"][0] == {"File": 31, "Symbol": 61, "External": 2}  # modules too
    with Store.open(tmp_path / "cold", read_only=True) as store:
        assert store.cypher("MATCH (a:Symbol)-[:CALLS]->(b:Symbol) RETURN count(*) AS n"
                            )["n"][0] == 29
