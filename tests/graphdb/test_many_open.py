"""One process holds many open databases (a partition router opens one per partition).

LadybugDB reserves ``max_db_size`` of address space per open database, 8 TiB by default, so
a process could open only 15 (the 16th failed "Mmap for size 8796093022208 failed");
:func:`graphdb.engine.max_db_bytes` derives the size from the disk instead.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest

from graphdb import Store
from graphdb.engine import max_db_bytes
from schema import REPOSITORY

N_DATABASES = 20


def test_twenty_databases_are_open_and_written_in_one_process(tmp_path: Path) -> None:
    stores: list[Store] = []
    try:
        for i in range(N_DATABASES):
            store = Store.open(tmp_path / f"db{i}")
            stores.append(store)
            with store.write() as tx:
                tx.copy_nodes(REPOSITORY, pl.DataFrame({"id": [f"repo:r{i}"],
                                                        "name": [f"r{i}"]}))
        for i in range(N_DATABASES, N_DATABASES + 3):  # and read-only ones, as a router has
            with Store.open(tmp_path / f"db{i}") as store, store.write() as tx:
                tx.copy_nodes(REPOSITORY, pl.DataFrame({"id": [f"repo:r{i}"],
                                                        "name": [f"r{i}"]}))
            stores.append(Store.open(tmp_path / f"db{i}", read_only=True))
        names = [s.cypher("MATCH (r:Repository) RETURN r.name AS n")["n"].to_list()
                 for s in stores]
        assert names == [[f"r{i}"] for i in range(N_DATABASES + 3)]
        status = Path("/proc/self/status").read_text().splitlines()
        vm_kib = int(next(line for line in status if line.startswith("VmSize")).split()[1])
        # 23 engines at the engine's default would reserve 184 TiB; with the derived size
        # they stay far below the 128 TiB a process can map
        assert vm_kib << 10 < 23 * max_db_bytes(tmp_path / "db0" / "graph.lbug") + (64 << 30)
    finally:
        for store in stores:
            store.close()


def test_max_db_size_is_a_power_of_two_from_the_disk(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VGDB_MAX_DB_GB", raising=False)
    graph = tmp_path / "graph.lbug"
    size = max_db_bytes(graph)
    total = shutil.disk_usage(tmp_path).total
    assert size & (size - 1) == 0
    assert max(2 * total, 64 << 30) <= size < max(4 * total, 128 << 30) or size == 8 << 40
    monkeypatch.setenv("VGDB_MAX_DB_GB", "100")
    assert max_db_bytes(graph) == 128 << 30

