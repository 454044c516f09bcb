"""The synthetic code-shaped graph: proportions measured on a real tree, seeded shards in our
format, loaded by the real loader into edges the resolver finds."""

from __future__ import annotations

import textwrap
from pathlib import Path

import polars as pl

from benchmarks.synthetic_graph import generate_repo, measure
from graphdb import Store
from ingest.history.pipeline import HistoryOptions
from ingest.pipeline import IngestOptions, ingest_repository
from ingest.shards import read_shards

FILES = {
    "pkg/__init__.py": "",
    "pkg/util.py": """\
        def helper(x):
            return len(x)


        def other():
            return helper(1)
        """,
    "pkg/core.py": """\
        from pkg.util import helper


        class Box(Exception):
            def size(self):
                return helper(self)

            def twice(self):
                return self.size() + run()


        def run():
            return helper(2)
        """,
}


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text))
    return root


def test_measure_counts_what_the_real_extractor_found(tmp_path: Path) -> None:
    profile = measure(_tree(tmp_path))
    assert profile.files == 3
    # (functions, classes, methods, imports, calls, bases) per file, in walk order
    assert sorted(profile.per_file) == [(0, 0, 0, 0, 0, 0), (1, 1, 2, 1, 4, 1),
                                        (2, 0, 0, 0, 2, 0)]
    calls = 6  # len, helper (util); helper, self.size, run, helper (core)
    assert profile.local_call_share == 2 / calls  # helper in util.other, run in twice
    assert profile.imported_call_share == 2 / calls  # helper twice in core


def _tables(shard: Path) -> dict[str, pl.DataFrame]:
    return {n: pl.read_parquet(shard / f"{n}.parquet")
            for n in ("files", "symbols", "imports", "calls", "inherits")}


def test_generation_is_seeded(tmp_path: Path) -> None:
    profile = measure(_tree(tmp_path))
    a = generate_repo(tmp_path / "a", "syn", profile, files=30, seed=7)
    b = generate_repo(tmp_path / "b", "syn", profile, files=30, seed=7)
    generate_repo(tmp_path / "c", "syn", profile, files=30, seed=8)
    assert a == b
    for name, frame in _tables(tmp_path / "a").items():
        assert frame.equals(_tables(tmp_path / "b")[name]), name
    assert not _tables(tmp_path / "a")["calls"].equals(_tables(tmp_path / "c")["calls"])
    assert read_shards(tmp_path / "a").info.counts == a  # checksums and format verified
    assert a["files"] == 30 + 4  # and syn/, syn/sub0..2/__init__.py


def _expected_calls(shard: Path, repo: str) -> set[tuple[str, str]]:
    """(caller, callee) symbol ids the generated names must resolve to, computed from the
    shard alone: a local ``f<k>`` or an imported alias ``<name>_<module index>``."""
    t = _tables(shard)
    top = set(t["symbols"].filter(pl.col("parent") == "").select("path", "name").iter_rows())
    aliases = {(p, a): (m.replace(".", "/") + ".py", n)
               for p, m, n, a in t["imports"].select("path", "module", "name",
                                                       "alias").iter_rows()}
    out = set()
    for path, scope, callee in t["calls"].select("path", "scope", "callee").iter_rows():
        if (path, callee) in top:
            target = (path, callee)
        elif (path, callee) in aliases:
            target = aliases[(path, callee)]
        else:
            continue
        out.add((f"sym:{repo}/{path}#{scope}", f"sym:{repo}/{target[0]}#{target[1]}"))
    return out


def test_the_real_loader_resolves_every_generated_call(tmp_path: Path) -> None:
    profile = measure(_tree(tmp_path))
    shard = tmp_path / "shard"
    counts = generate_repo(shard, "syn", profile, files=40, seed=3)
    options = IngestOptions(history=HistoryOptions(enabled=False), papers=False)
    with Store.open(tmp_path / "db") as store:
        summary = ingest_repository(store, shard, options=options, shards=shard)
        got = set(store.cypher("MATCH (a:Symbol)-[:CALLS]->(b:Symbol) RETURN a.id, b.id")
                  .iter_rows())
        n_symbols = store.cypher("MATCH (s:Symbol) WHERE s.kind <> 'module' "
                                 "RETURN count(*)").item()
    expected = _expected_calls(shard, "syn")
    assert expected  # the profile has local and imported calls
    assert got == expected
    assert n_symbols == counts["symbols"]
    assert summary.added == 40 + 5
