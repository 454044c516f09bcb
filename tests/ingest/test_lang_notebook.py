"""Jupyter notebooks (code cells parsed as Python, cell numbers kept) and documents (Markdown,
reStructuredText, TOML, YAML: File nodes without symbols), extracted and ingested from a real
git repository."""

from __future__ import annotations

import json

import pytest

from graphdb import Store
from ingest import IngestOptions, ingest_repository
from ingest.extract import extract, language_for
from ingest.extract.notebook import cell_of_line, script
from tests.gitrepo import GitRepo


def _notebook(*cells: tuple[str, str]) -> str:
    return json.dumps({
        "cells": [{"cell_type": kind, "metadata": {}, "source": source.splitlines(True),
                   **({"outputs": [], "execution_count": None} if kind == "code" else {})}
                  for kind, source in cells],
        "metadata": {"kernelspec": {"name": "python3"}}, "nbformat": 4, "nbformat_minor": 5})


NOTEBOOK = _notebook(
    ("markdown", "# Sales analysis\nLoads the orders and plots them."),
    ("code", "%matplotlib inline\nfrom shop.util import load_orders\n"),
    ("code", "def summarize(rows):\n    return len(rows)\n"),
    ("markdown", "Now the totals."),
    ("code", "orders = load_orders()\nsummarize(orders)"),
)


def test_notebook_code_cells_are_python_with_cell_markers() -> None:
    text = script(NOTEBOOK.encode()).decode()
    assert text.split("\n") == [
        "# %% cell 2", "# %matplotlib inline", "from shop.util import load_orders", "", "",
        "# %% cell 3", "def summarize(rows):", "    return len(rows)", "", "",
        "# %% cell 5", "orders = load_orders()", "summarize(orders)", "",
    ]
    fx = extract("jupyter", NOTEBOOK.encode(), "analysis.ipynb")
    assert fx.language == "jupyter" and fx.error_lines == []
    assert [(s.qualname, str(s.kind), s.start_line, s.end_line) for s in fx.symbols] == [
        ("summarize", "function", 7, 8), ("orders", "variable", 12, 12)]
    assert [cell_of_line(text, s.start_line) for s in fx.symbols] == [3, 5]
    assert [(i.module, i.name, i.line) for i in fx.imports] == [("shop.util", "load_orders", 3)]
    assert [(c.scope, c.callee, c.line, cell_of_line(text, c.line)) for c in fx.calls] == [
        ("summarize", "len", 8, 3), ("", "load_orders", 12, 5), ("", "summarize", 13, 5)]


def test_a_broken_notebook_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="not a Jupyter notebook"):
        extract("jupyter", b"{not json", "broken.ipynb")


def test_documents_are_files_without_symbols() -> None:
    assert [language_for(p) for p in ("README.md", "docs/index.rst", "pyproject.toml",
                                      ".github/workflows/ci.yml", "conf.yaml", "notes.txt")] \
        == ["markdown", "restructuredtext", "toml", "yaml", "yaml", None]
    fx = extract("markdown", b"# Title\n\nSee `shop.util`.\n", "README.md")
    assert (fx.language, fx.loc, fx.symbols, fx.imports, fx.calls) == ("markdown", 3, [], [], [])


def test_notebook_and_documents_in_a_repository(tmp_path) -> None:  # type: ignore[no-untyped-def]
    repo = GitRepo(tmp_path / "nb")
    repo.commit("analysis", {
        "shop/__init__.py": "",
        "shop/util.py": "def load_orders():\n    return []\n",
        "notebooks/analysis.ipynb": NOTEBOOK,
        "README.md": "# Shop\n",
        "docs/index.rst": "Shop\n====\n",
        "pyproject.toml": "[project]\nname = 'shop'\n",
        ".github/workflows/ci.yml": "on: push\n",
    })
    with Store.open(tmp_path / "db") as store:
        ingest_repository(store, repo.root, options=IngestOptions(name="nb"))
        files = store.cypher("MATCH (f:File) WHERE f.valid_to IS NULL "
                             "RETURN f.path, f.language, f.parse_status, f.loc").rows()
        assert sorted(files) == [
            (".github/workflows/ci.yml", "yaml", "ok", 1),
            ("README.md", "markdown", "ok", 1),
            ("docs/index.rst", "restructuredtext", "ok", 2),
            ("notebooks/analysis.ipynb", "jupyter", "ok", 13),  # lines of the script form
            ("pyproject.toml", "toml", "ok", 2),
            ("shop/__init__.py", "python", "ok", 0),
            ("shop/util.py", "python", "ok", 2),
        ]
        calls = store.cypher(
            "MATCH (a)-[e:CALLS]->(b) WHERE a.valid_to IS NULL RETURN a.id, b.id, "
            "e.resolution").rows()
        assert sorted(calls) == [
            ("sym:nb/notebooks/analysis.ipynb#<module>",
             "sym:nb/notebooks/analysis.ipynb#summarize", "same_module"),
            ("sym:nb/notebooks/analysis.ipynb#<module>", "sym:nb/shop/util.py#load_orders",
             "import"),
            ("sym:nb/notebooks/analysis.ipynb#summarize", "ext:python:builtins.len", "builtin"),
        ]
        docs = store.cypher("MATCH (s:Symbol) WHERE s.id STARTS WITH 'sym:nb/README' "
                            "RETURN s.id, s.kind").rows()
        assert docs == [("sym:nb/README.md#<module>", "module")]  # the file's own scope only
