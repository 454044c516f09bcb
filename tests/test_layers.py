"""The layers of DESIGN §1 / STYLE convention 1, checked on the real import statements.

schema imports nothing of ours; graphdb imports schema and is the only package that imports
kuzu (or hnswlib, tantivy); extractors import only schema (and each other); queries reads through
graphdb; api never imports kuzu, hnswlib or tantivy.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OURS = {"schema", "graphdb", "ingest", "queries", "api", "vectorgraphdb"}
BACKENDS = {"kuzu", "hnswlib", "tantivy"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def _top(names: set[str]) -> set[str]:
    return {n.split(".", 1)[0] for n in names}


def _files(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("package", sorted(OURS))
def test_packages_import_only_what_their_layer_allows(package: str) -> None:
    allowed = {
        "schema": set(),
        "graphdb": {"schema", "graphdb"},
        "ingest": {"schema", "graphdb", "ingest"},
        "queries": {"schema", "graphdb", "queries"},
        "api": {"schema", "graphdb", "ingest", "queries", "api"},
        "vectorgraphdb": {"schema", "graphdb", "ingest", "queries", "vectorgraphdb"},
    }[package] | ({"schema"} if package == "schema" else set())
    for path in _files(package):
        ours = _top(_imports(path)) & OURS
        assert ours <= allowed, f"{path.relative_to(ROOT)} imports {sorted(ours - allowed)}"
        if package != "graphdb":
            backend = _top(_imports(path)) & BACKENDS
            assert not backend, f"{path.relative_to(ROOT)} imports {sorted(backend)}"


def test_extractors_and_resolvers_import_only_schema() -> None:
    """Pure functions: they run in worker processes (and later on Ray/Dask) without the
    database layer."""
    for sub in ("ingest/extract", "ingest/resolve"):
        for path in sorted((ROOT / sub).rglob("*.py")):
            names = _imports(path)
            ours = {n for n in names if n.split(".", 1)[0] in OURS}
            bad = {n for n in ours if not n.startswith(("schema", "ingest.extract",
                                                        "ingest.resolve"))}
            assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def test_only_schema_spells_table_names_in_queries() -> None:
    """Cypher in the code names tables through schema constants (f"{SYMBOL.name}")."""
    import schema

    tables = [t.name for t in (*schema.NODE_TABLES, *schema.REL_TABLES)]
    for package in ("graphdb", "ingest", "queries", "api", "vectorgraphdb"):
        for path in _files(package):
            text = path.read_text(encoding="utf-8")
            for name in tables:
                for pattern in (f"(n:{name}", f"(f:{name}", f"(s:{name}", f"[e:{name}]",
                                f"(r:{name}", f"(e:{name}", f"(t:{name}", f"(c:{name}"):
                    assert pattern not in text, f"{path.relative_to(ROOT)} spells {pattern}"
