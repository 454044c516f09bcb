"""The code version (:meth:`Store.code_version`): what a server's impact adjacency stands for.
A memory-only write (:meth:`Transaction.leaves_code`) keeps it, any other write advances it
with the global graph version, and an insert into a code table takes a memory-only mark back."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from graphdb import Store
from schema import FILE


def _code_write(store: Store, path: str) -> None:
    with store.write() as tx:
        tx.execute(f"CREATE (:File {{id: 'file:r/{path}', path: '{path}'}})")


def _memory_write(store: Store, key: str) -> None:
    with store.write() as tx:
        tx.leaves_code()
        store.set_meta(tx, key, "x")


def test_memory_writes_keep_the_code_version_and_other_writes_advance_it(
        tmp_path: Path) -> None:
    db = tmp_path / "db"
    with Store.open(db) as store:
        _code_write(store, "a.py")
        code = store.graph_version()
        assert store.code_version() == code
        _memory_write(store, "note:1")
        _memory_write(store, "note:2")
        assert (store.graph_version(), store.code_version()) == (code + 2, code)
        with store.write() as tx:  # marked memory-only, but it inserts a File
            tx.leaves_code()
            tx.copy_nodes(FILE, pl.DataFrame({"id": ["file:r/b.py"], "path": ["b.py"]}),
                          bulk=False)
        assert store.code_version() == store.graph_version() == code + 3
        _memory_write(store, "note:3")
        assert (store.graph_version(), store.code_version()) == (code + 4, code + 3)
    with Store.open(db, read_only=True) as store:  # read back from the database
        assert (store.graph_version(), store.code_version()) == (code + 4, code + 3)
    with Store.open(db) as store:
        _code_write(store, "c.py")
        assert store.code_version() == store.graph_version() == code + 5
        _memory_write(store, "note:4")
        assert (store.graph_version(), store.code_version()) == (code + 6, code + 5)
