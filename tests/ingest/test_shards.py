"""Parquet shards: round trip, version and corruption errors, and ingest from shards giving
exactly the graph a normal ingest gives (first load and incremental update)."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest

from graphdb import Store
from ingest import IngestOptions, ingest_repository
from ingest.history.pipeline import HistoryOptions
from ingest.shards import (
    FORMAT_VERSION,
    MANIFEST,
    CorruptShardError,
    ExtractRequest,
    ShardError,
    ShardVersionError,
    extract_shards,
    read_shards,
    shard_info,
)
from ingest.walk import walk
from ingest.worker import ParseTask, parse_file
from schema import IngestError, ParseStatus
from tests.gitrepo import GitRepo
from tests.helpers import STDLIB, run_vgdb, write_tree
from tests.ingest.test_incremental import snapshot

FILES: dict[str, str | bytes] = {
    "pkg/__init__.py": "from .core import Engine\n__all__ = ['Engine']\n",
    "pkg/core.py": '''
        """The core."""
        import os


        class Base:
            def run(self):
                return os.getcwd()


        class Engine(Base):
            """Runs things."""
            def run(self):
                helper = Base()
                return helper.run() + super().run()


        def main():
            return Engine().run()
        ''',
    "pkg/broken.py": "def ok():\n    return 1\n\ndef broken(:\n    pass\n",
    "pkg/latin.py": b"# -*- coding: latin-1 -*-\nNAME = '\xe9t\xe9'\n",
    "pkg/blob.py": b"\x00\x01binary",
    "pkg/big.py": "X = 1\n" * 400,
    "web/app.js": "import { f } from './util';\nexport function g() { return f(); }\n",
    "web/util.js": "export function f() { return 1; }\n",
    "tests/test_core.py": "from pkg.core import main\n\ndef test_main():\n    main()\n",
}
OPTIONS = IngestOptions(name="r", history=HistoryOptions(enabled=False), papers=False)


def _request(root: Path, out: Path, **kw: object) -> ExtractRequest:
    return ExtractRequest(str(root), str(out), max_file_size=2_000, **kw)  # type: ignore[arg-type]


def test_round_trip_gives_back_the_walk_and_every_parse_result(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "src", FILES)
    info = extract_shards(_request(root, tmp_path / "shard", repo="demo"))
    assert (info.repo, info.root, info.commit) == ("demo", str(root), None)
    assert info.format_version == FORMAT_VERSION
    shard = read_shards(tmp_path / "shard")
    assert shard.info == info
    candidates, skipped = walk(root, max_file_size=2_000)
    assert shard.candidates == candidates
    assert shard.skipped == skipped == [shard.skipped[0]]
    assert (skipped[0].path, skipped[0].language) == ("pkg/big.py", "python")
    expected = {c.path: parse_file(ParseTask(str(root / c.path), c.path, c.language))
                for c in candidates}
    assert shard.results == expected
    statuses = {p: r.status for p, r in shard.results.items()}
    assert statuses["pkg/broken.py"] == ParseStatus.PARTIAL
    assert statuses["pkg/blob.py"] == ParseStatus.SKIPPED
    assert shard.results["pkg/latin.py"].error == ""  # declared encoding honoured
    # assigns: ``helper = Base()``, and what ``main`` returns (``return Engine().run()``)
    assert info.counts == {"files": 9, "symbols": 12, "imports": 4, "calls": 9,
                           "inherits": 1, "assigns": 2}


def test_shard_tables_are_plain_parquet(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "src", FILES)
    extract_shards(_request(root, tmp_path / "shard"))
    files = pl.read_parquet(tmp_path / "shard" / "files.parquet")
    assert files.filter(pl.col("path") == "pkg/core.py").select(
        "language", "stage", "status", "loc").row(0) == ("python", "parse", "ok", 18)
    symbols = pq.read_table(tmp_path / "shard" / "symbols.parquet").to_pylist()
    assert [s["qualname"] for s in symbols if s["path"] == "pkg/core.py"] == [
        "Base", "Base.run", "Engine", "Engine.run", "main"]
    manifest = json.loads((tmp_path / "shard" / MANIFEST).read_text())
    assert manifest["format"] == "vgdb-shard" and manifest["format_version"] == 1


def test_commit_is_recorded_in_a_git_repository(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.commit("first", {"a.py": "def f():\n    return 1\n"})
    info = extract_shards(_request(repo.root, tmp_path / "shard"))
    assert info.commit == repo.git("rev-parse", "HEAD")
    assert shard_info(tmp_path / "shard").commit == info.commit


def test_other_format_version_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "src", FILES)
    extract_shards(_request(root, tmp_path / "shard"))
    manifest = tmp_path / "shard" / MANIFEST
    data = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**data, "format_version": 99}))
    with pytest.raises(ShardVersionError, match="shard format 99; this vgdb reads format 1") \
            as caught:
        read_shards(tmp_path / "shard")
    assert (caught.value.found, caught.value.expected) == (99, FORMAT_VERSION)
    # a table written by another version, under a manifest that matches it
    manifest.write_text(json.dumps(data))
    calls = tmp_path / "shard" / "calls.parquet"
    table = pq.read_table(calls)
    pq.write_table(table.replace_schema_metadata({b"vgdb.shard.format_version": b"2"}), calls)
    from ingest.shards import _digest

    manifest.write_text(json.dumps({**data, "checksums": {**data["checksums"],
                                                          "calls.parquet": _digest(calls)}}))
    with pytest.raises(ShardVersionError, match=re.escape("calls.parquet is shard format 2")):
        read_shards(tmp_path / "shard")


def test_corrupt_or_unfinished_shards_are_refused(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "src", FILES)
    extract_shards(_request(root, tmp_path / "good"))
    shard = tmp_path / "shard"
    shutil.copytree(tmp_path / "good", shard)
    symbols = shard / "symbols.parquet"
    symbols.write_bytes(symbols.read_bytes()[:100])
    with pytest.raises(CorruptShardError, match="does not match the checksum"):
        read_shards(shard)
    with pytest.raises(CorruptShardError, match=re.escape("symbols.parquet cannot be read")):
        read_shards(shard, verify=False)
    symbols.unlink()
    with pytest.raises(CorruptShardError, match="does not match the checksum"):
        read_shards(shard)
    (shard / MANIFEST).write_text("{not json")
    with pytest.raises(CorruptShardError, match=re.escape("shard.json cannot be read")):
        read_shards(shard)
    (shard / MANIFEST).unlink()
    with pytest.raises(ShardError, match=re.escape(
            "has no shard.json: not a shard, or its extraction did not finish")):
        read_shards(shard)
    with pytest.raises(ShardError, match="no shard directory"):
        read_shards(tmp_path / "missing")
    with pytest.raises(IngestError, match="not a directory"):
        extract_shards(_request(tmp_path / "missing", tmp_path / "out"))


def _ingest(db: Path, root: Path, shards: Path | None = None) -> tuple[dict, dict]:
    with Store.open(db) as store:
        summary = ingest_repository(store, root, options=OPTIONS, shards=shards)
        return summary.to_dict(), snapshot(store)


def test_ingest_from_shards_equals_a_normal_ingest(tmp_path: Path,
                                                   stdlib_copy: object) -> None:
    root = stdlib_copy("json")  # type: ignore[operator]
    shutil.copytree(STDLIB / "http", root / "http",
                    ignore=shutil.ignore_patterns("__pycache__"))
    normal, expected = _ingest(tmp_path / "a", root)
    extract_shards(ExtractRequest(str(root), str(tmp_path / "s1"), repo="ignored"))
    loaded, found = _ingest(tmp_path / "b", root, tmp_path / "s1")
    assert found == expected
    assert (loaded["nodes"], loaded["edges"]) == (normal["nodes"], normal["edges"])
    assert loaded["files"]["parsed"] == normal["files"]["parsed"] == len(
        list(root.rglob("*.py")))

    # edit one file, touch another (new mtime, same content), remove a third
    (root / "json" / "decoder.py").write_text(
        (root / "json" / "decoder.py").read_text() + "\n\ndef extra():\n    return scanstring\n")
    touched = root / "http" / "client.py"
    os.utime(touched, ns=(touched.stat().st_atime_ns, touched.stat().st_mtime_ns + 10**9))
    (root / "http" / "cookies.py").unlink()
    normal, expected = _ingest(tmp_path / "a", root)
    extract_shards(ExtractRequest(str(root), str(tmp_path / "s2")))
    loaded, found = _ingest(tmp_path / "b", root, tmp_path / "s2")
    assert found == expected
    assert loaded["reparsed_paths"] == normal["reparsed_paths"] == ["json/decoder.py"]
    for key in ("unchanged", "removed", "re_resolved"):
        assert loaded["files"][key] == normal["files"][key], key
    with Store.open(tmp_path / "b", read_only=True) as store:
        mtime = store.cypher("MATCH (f:File {path: 'http/client.py'}) RETURN f.mtime_ns").item()
    assert mtime == touched.stat().st_mtime_ns


def test_cli_extracts_and_loads_a_shard(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "src", FILES)
    done = run_vgdb("extract-shards", str(root), str(tmp_path / "shard"), "--name", "demo",
                    "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["counts"]["files"] == 9
    done = run_vgdb("load-shards", str(tmp_path / "shard"), "--db", str(tmp_path / "db"),
                    "--no-history", "--no-papers", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["repo"], data["files"]["parsed"], data["nodes"]["File"]) == ("demo", 8, 9)
    (tmp_path / "shard" / MANIFEST).unlink()
    done = run_vgdb("load-shards", str(tmp_path / "shard"), "--db", str(tmp_path / "db"))
    assert done.returncode == 2
    assert "has no shard.json" in done.stderr
