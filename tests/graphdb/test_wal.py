"""The write-ahead log past the last commit that returned: a torn record (a write that never
finished) is cut off by the next read-write open, anything else is still refused.

``graph.sum`` records the log's size when each write finished (graphdb.integrity); a
full disk tears the engine's record and LadybugDB 0.22 then aborts the process (the real
case runs in tests/graphdb/test_commit_failure.py); here the torn tail is appended bytes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from graphdb import Store
from schema import CorruptDatabaseError
from tests.helpers import commit_into_wal


def _two_commits_in_the_wal(db: Path) -> Path:
    with Store.open(db):
        pass
    commit_into_wal(db, "CREATE (:File {id: 'file:r/a.py', path: 'a.py'})")
    commit_into_wal(db, "CREATE (:File {id: 'file:r/b.py', path: 'b.py'})")
    wal = db / "graph.lbug.wal"
    assert json.loads((db / "graph.sum").read_text())["wal"] == wal.stat().st_size > 0
    return wal


def _ids(store: Store) -> list[str]:
    return store.cypher("MATCH (f:File) RETURN f.id AS id ORDER BY id")["id"].to_list()


def test_a_torn_record_after_the_last_commit_is_cut_and_every_commit_kept(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "db"
    wal = _two_commits_in_the_wal(db)
    committed = wal.read_bytes()
    torn = committed + os.urandom(3000)
    wal.write_bytes(torn)
    with pytest.raises(CorruptDatabaseError, match="write-ahead log"):
        Store.open(db, read_only=True)  # a reader never cuts: a writer may be appending
    with Store.open(db) as store:
        assert _ids(store) == ["file:r/a.py", "file:r/b.py"]
    kept = list(db.glob("graph.lbug.wal.torn-*"))
    assert [p.read_bytes() for p in kept] == [torn]
    assert "3000 bytes past the last commit" in caplog.text
    with Store.open(db, read_only=True) as store:
        assert _ids(store) == ["file:r/a.py", "file:r/b.py"]


def test_damage_inside_the_committed_log_is_still_refused_and_nothing_changes(
        tmp_path: Path) -> None:
    db = tmp_path / "db"
    wal = _two_commits_in_the_wal(db)
    data = bytearray(wal.read_bytes())
    data[len(data) // 2] ^= 0xFF
    damaged = bytes(data) + os.urandom(3000)  # longer than recorded, but damaged before
    wal.write_bytes(damaged)
    with pytest.raises(CorruptDatabaseError, match="write-ahead log"):
        Store.open(db)
    assert wal.read_bytes() == damaged
    assert list(db.glob("graph.lbug.wal.torn-*")) == []


def test_a_log_kept_aside_does_not_make_every_later_open_checkpoint(tmp_path: Path) -> None:
    """After the cut, a small log is replayed in memory as before (the graph file is not
    written: its checksum record's stamp stays), the kept copy notwithstanding."""
    db = tmp_path / "db"
    wal = _two_commits_in_the_wal(db)
    wal.write_bytes(wal.read_bytes() + os.urandom(3000))
    Store.open(db).close()
    commit_into_wal(db, "CREATE (:File {id: 'file:r/c.py', path: 'c.py'})")
    stamp = (db / "graph.lbug").stat().st_mtime_ns
    with Store.open(db) as store:
        assert _ids(store) == ["file:r/a.py", "file:r/b.py", "file:r/c.py"]
        assert (db / "graph.lbug").stat().st_mtime_ns == stamp
        assert (db / "graph.lbug.wal").exists()
    assert len(list(db.glob("graph.lbug.wal.torn-*"))) == 1
