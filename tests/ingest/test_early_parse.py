"""A cold ingest's parse started before the database is opened gives the same graph."""

from __future__ import annotations

from pathlib import Path

from graphdb import Store
from ingest.parsing import POOL_MIN_FILES
from ingest.pipeline import IngestOptions, ingest_repository, start_cold_parse
from tests.helpers import write_tree

_ROWS = {
    "symbols": "MATCH (s:Symbol) RETURN s.id, s.kind, s.signature, s.start_line ORDER BY s.id",
    "calls": "MATCH (a)-[e:CALLS]->(b) RETURN a.id, b.id, e.line, e.resolution ORDER BY a.id, b.id",
    "files": "MATCH (f:File) RETURN f.id, f.sha, f.loc, f.parse_status ORDER BY f.id",
    "refs": "MATCH (a)-[e:REFERENCES]->(p:Paper) RETURN a.id, p.id, e.location ORDER BY a.id",
}


def _tree(root: Path) -> None:
    files = {f"pkg/m{i}.py": (f"from pkg.m{(i + 1) % 40} import f{(i + 1) % 40}\n\n"
                              f"def f{i}(x):\n    \"\"\"See RFC {8000 + i}.\"\"\"\n"
                              f"    return f{(i + 1) % 40}(x)\n") for i in range(40)}
    write_tree(root, {**files, "pkg/__init__.py": "", "README.md": "RFC 8259\n"})


def _graph(db: Path, root: Path, options: IngestOptions, *, early: bool) -> dict:
    started = start_cold_parse(root, options=options) if early else None
    if early:
        assert started is not None and len(started.tasks) == 42 > POOL_MIN_FILES
    with Store.open(db) as store:
        summary = ingest_repository(store, root, options=options, early=started)
        assert summary.parsed == 42
        return {k: store.cypher(q).rows() for k, q in _ROWS.items()}


def test_an_early_parse_gives_the_same_graph(tmp_path) -> None:
    root = tmp_path / "src"
    _tree(root)
    options = IngestOptions(name="r", workers=2)
    late = _graph(tmp_path / "late", root, options, early=False)
    early = _graph(tmp_path / "early", root, options, early=True)
    assert early == late
    assert len(late["calls"]) == 40 and len(late["refs"]) == 41


def test_an_early_parse_of_other_files_is_dropped(tmp_path) -> None:
    """Started with other options (papers off: the tasks differ), the early work is not
    used: the ingest parses again and the graph is the same."""
    root = tmp_path / "src"
    _tree(root)
    options = IngestOptions(name="r", workers=2)
    late = _graph(tmp_path / "late", root, options, early=False)
    other = start_cold_parse(root, options=IngestOptions(name="r", workers=2, papers=False))
    assert other is not None
    with Store.open(tmp_path / "db") as store:
        ingest_repository(store, root, options=options, early=other)
        assert {k: store.cypher(q).rows() for k, q in _ROWS.items()} == late
    assert other.take(other.tasks) is None  # closed


def test_few_files_start_nothing(tmp_path) -> None:
    write_tree(tmp_path, {"a.py": "x = 1\n"})
    assert start_cold_parse(tmp_path, options=IngestOptions(workers=2)) is None
    assert start_cold_parse(tmp_path, options=IngestOptions(workers=1)) is None


def test_a_cold_ingest_walks_the_tree_once(tmp_path) -> None:
    """The ingest takes the early parse's walk over (with the papers step's files): a file
    written after the early start is not in this ingest (the next one adds it), and the
    early results are used, not parsed again."""
    root = tmp_path / "src"
    _tree(root)
    options = IngestOptions(name="r", workers=2)
    late = _graph(tmp_path / "late", root, options, early=False)
    started = start_cold_parse(root, options=options)
    assert started is not None
    (root / "pkg" / "later.py").write_text("def later():\n    return 0\n")
    with Store.open(tmp_path / "db") as store:
        summary = ingest_repository(store, root, options=options, early=started)
        assert (summary.files_seen, summary.parsed) == (42, 42)
        assert {k: store.cypher(q).rows() for k, q in _ROWS.items()} == late
        again = ingest_repository(store, root, options=options)
        assert (again.files_seen, again.added, again.reparsed_paths) == (43, 1, ["pkg/later.py"])
