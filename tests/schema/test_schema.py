"""The schema is the one definition: its generated DDL is pinned, and it is well formed."""

from __future__ import annotations

from pathlib import Path

import polars as pl

import schema

SNAPSHOT = Path(__file__).with_name("ddl.snapshot.cypher")


def test_generated_ddl_matches_the_snapshot() -> None:
    """A schema change must show up here; update the snapshot and bump SCHEMA_VERSION (with a
    migration in graphdb.migrations) in the same commit."""
    generated = ";\n".join(schema.ddl_statements()) + ";\n"
    assert generated == SNAPSHOT.read_text(encoding="utf-8")


def test_every_table_carries_provenance_and_bitemporal_properties() -> None:
    common = {"source", "confidence", "recorded_at", "expired_at", "valid_from", "valid_to"}
    for table in (*schema.NODE_TABLES, *schema.REL_TABLES):
        assert common <= {p.name for p in table.columns}, table.name
        assert table.doc, table.name


def test_names_are_unique_and_cased_by_kind() -> None:
    nodes = [t.name for t in schema.NODE_TABLES]
    rels = [t.name for t in schema.REL_TABLES]
    assert len(set(nodes + rels)) == len(nodes) + len(rels)
    assert all(n[0].isupper() and not n.isupper() for n in nodes)
    assert all(r.isupper() for r in rels)
    for table in (*schema.NODE_TABLES, *schema.REL_TABLES):
        names = [p.name for p in table.columns]
        assert len(names) == len(set(names)), table.name


def test_rel_pairs_name_declared_node_tables() -> None:
    declared = set(schema.NODE_TABLES)
    for rel in schema.REL_TABLES:
        assert rel.pairs
        for src, dst in rel.pairs:
            assert src in declared and dst in declared, rel.name


def test_frame_schemas_follow_the_tables() -> None:
    frame = schema.frame_schema(schema.CALLS)
    assert list(frame)[:3] == ["from", "to", "line"]
    assert frame["recorded_at"] == pl.Datetime("us")
    assert schema.frame_schema(schema.ENTRY)["scope"] == pl.List(pl.Utf8)


def test_ids_are_deterministic() -> None:
    assert schema.symbol_id("r", "a/b.py", "C.m~2") == "sym:r/a/b.py#C.m~2"
    assert schema.file_id("r", "a/b.py") == "file:r/a/b.py"
    assert schema.external_id("python", "os.path.join") == "ext:python:os.path.join"
    assert schema.ref_id("file:r/a.py") == "ref:file:r/a.py"


def test_schema_reference_in_docs_is_current() -> None:
    from schema.__main__ import markdown

    docs = Path(__file__).resolve().parents[2] / "docs" / "schema.md"
    assert docs.read_text(encoding="utf-8") == markdown(), "run: python -m schema > docs/schema.md"
