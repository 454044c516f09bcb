"""A repeated no-op ``vgdb ingest`` is answered from its record without opening the
database (api/ingest_noop.py), and anything its result depends on sends it back to the real
ingest: a changed or touched file, a new commit, another write to the database."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from api.ingest_noop import NOOP_FILE
from tests.helpers import commit_into_wal, run_vgdb, write_tree

_FILES = {"pkg/__init__.py": "", "pkg/a.py": "def f():\n    return 1\n",
          "pkg/b.py": "from .a import f\n\n\ndef g():\n    return f()\n"}


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@invalid", *args],
                   cwd=root, check=True, capture_output=True)


def _ingest(root: Path, db: Path) -> dict:
    out = run_vgdb("ingest", str(root), "--db", str(db), "--name", "r", "--no-embed", "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _settle(root: Path, db: Path) -> None:
    """Ingest until a run writes nothing (after a change, communities may follow in the
    next run) and is recorded."""
    for _ in range(4):
        _ingest(root, db)
        if (db / NOOP_FILE).exists():
            return
    raise AssertionError("no run was recorded as a no-op")


def _answered_from_record(data: dict) -> bool:
    return list(data["seconds"]) == ["unchanged-check"]


def test_a_repeated_no_op_is_answered_from_its_record_until_something_changes(
        tmp_path: Path) -> None:
    root = write_tree(tmp_path / "tree", _FILES)
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "first")
    db = tmp_path / "db"
    assert _ingest(root, db)["files"]["parsed"] == 3
    assert not (db / NOOP_FILE).exists()  # that run wrote: nothing recorded
    _settle(root, db)
    slow = json.loads((db / NOOP_FILE).read_text())["data"]
    fast = _ingest(root, db)
    assert _answered_from_record(fast)
    assert {k: v for k, v in fast.items() if k != "seconds"} == \
        {k: v for k, v in slow.items() if k != "seconds"}

    # an edited file: the real ingest, which parses it and drops the record
    (root / "pkg/a.py").write_text("def f():\n    return 2\n")
    edited = _ingest(root, db)
    assert edited["files"]["modified"] == 1 and not (db / NOOP_FILE).exists()
    _settle(root, db)
    assert _answered_from_record(_ingest(root, db))

    # a new commit of that edit: history sees it
    _git(root, "commit", "-qam", "second")
    committed = _ingest(root, db)
    assert not _answered_from_record(committed)
    assert committed["history"]["commits"] == 1

    # a new file, then another process's write to the database
    _settle(root, db)
    (root / "pkg/c.py").write_text("def h():\n    return 3\n")
    assert _ingest(root, db)["files"]["added"] == 1
    _settle(root, db)
    assert _answered_from_record(_ingest(root, db))
    commit_into_wal(db, "CREATE (:File {id: 'file:other/x.py', path: 'x.py', repo: 'other'})")
    assert not _answered_from_record(_ingest(root, db))


def test_other_options_or_a_running_server_take_the_real_path(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "tree", _FILES)
    db = tmp_path / "db"
    _ingest(root, db)
    _settle(root, db)
    assert _answered_from_record(_ingest(root, db))
    out = run_vgdb("ingest", str(root), "--db", str(db), "--name", "r", "--no-embed",
                   "--json", "--since", "2020-01-01")  # not an option the record knows
    assert out.returncode == 0, out.stderr
    assert not _answered_from_record(json.loads(out.stdout))
    (db / "server.json").write_text("{}")  # a stale server record: the real path decides
    assert not _answered_from_record(_ingest(root, db))
