"""The name lookups of an incremental resolve (issue 26): the callables of the unchanged files
are looked up name by name from their stored rows, and give what listing them all gives."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from graphdb import Store
from ingest import IngestOptions, ingest_repository
from ingest.changes import stored_files
from ingest.extract import extract
from ingest.frames import SYMBOL_COLUMNS
from ingest.resolve.python_index import Index
from ingest.stored import CallablesByName, Extracts
from schema import SYMBOL
from tests.helpers import write_tree

_TREE = {
    "pkg/__init__.py": "",
    "pkg/a.py": "def run():\n    return 1\n\n\nclass Job:\n    def run(self):\n        return 2\n\n"
                "    def __init__(self):\n        self.x = 1\n",
    "pkg/b.py": "def run(x):\n    return x\n\n\ndef helper():\n    return run(1)\n",
    "pkg/c.py": "LIMIT = 3\n\n\ndef only_here():\n    return LIMIT\n",
}
_CHANGED = "def run():\n    return 3\n\n\ndef fresh():\n    return run()\n"


def _extracts(tmp_path: Path) -> Extracts:
    """The unchanged files of an ingested tree as stored rows, pkg/b.py as parsed anew."""
    root = write_tree(tmp_path / "tree", _TREE)
    with Store.open(tmp_path / "db") as store:
        ingest_repository(store, root, options=IngestOptions(name="r", embed=False))
        stored = stored_files(store, "r").filter(pl.col("path") != "pkg/b.py")
        symbols = store.cypher(
            f"MATCH (s:{SYMBOL.name}) WHERE s.repo = 'r' AND s.valid_to IS NULL RETURN "
            "s.file AS file, " + ", ".join(f"s.{c} AS {c}" for c in SYMBOL_COLUMNS))
    parsed = {"pkg/b.py": extract("python", _CHANGED.encode(), "pkg/b.py")}
    return Extracts(parsed, stored, symbols, {}, {})


def test_names_looked_up_one_by_one_come_parsed_first_then_stored(tmp_path: Path) -> None:
    names = _extracts(tmp_path).callables_by_name()
    assert isinstance(names, CallablesByName)
    # the parsed file's definitions first, then the stored ones (pkg/b.py's stored rows
    # are not used: the file was parsed anew)
    assert names["run"] == [("pkg/b.py", "run", "function"), ("pkg/a.py", "run", "function"),
                            ("pkg/a.py", "Job.run", "method")]
    assert names.get("fresh") == [("pkg/b.py", "fresh", "function")]
    assert names.get("Job") == [("pkg/a.py", "Job", "class")]
    assert names.get("helper") is None  # only in pkg/b.py's old version
    assert names.get("LIMIT") is None  # a constant is not a callable
    assert names.get("__init__") is None  # dunder names are left out
    assert "only_here" in names and "nothing" not in names


def test_listing_them_all_gives_the_same_as_asking_each_name(tmp_path: Path) -> None:
    one_by_one = _extracts(tmp_path).callables_by_name()
    listed = _extracts(tmp_path / "again").callables_by_name()
    everything = dict(listed.items())  # iterating lists them all at once
    assert sorted(everything) == ["Job", "fresh", "only_here", "run"]
    assert {name: one_by_one[name] for name in everything} == everything
    assert len(listed) == 4


def test_past_the_lookup_limit_every_name_is_listed_at_once(tmp_path: Path,
                                                            monkeypatch) -> None:
    import ingest.stored

    monkeypatch.setattr(ingest.stored, "_NAMES_UP_TO", 2)
    names = _extracts(tmp_path).callables_by_name()
    assert names.get("absent") is None and names.get("also absent") is None
    assert names["Job"] == [("pkg/a.py", "Job", "class")]  # the third: all listed now
    assert names["only_here"] == [("pkg/c.py", "only_here", "function")]


def test_the_resolver_index_reads_them_as_symbols(tmp_path: Path) -> None:
    index = Index(_extracts(tmp_path), root_package="r")
    runs = index.by_name.get("run", [])
    assert [(s.path, s.qualname, s.kind) for s in runs] == [
        ("pkg/b.py", "run", "function"), ("pkg/a.py", "run", "function"),
        ("pkg/a.py", "Job.run", "method")]
    assert index.by_name.get("nothing", []) == []
