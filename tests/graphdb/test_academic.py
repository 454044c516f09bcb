"""Academic storage: the version 2 -> 3 migration keeps papers, rel inserts skip stored
pairs, communities can be written."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from graphdb import Store
from graphdb.academic import add_missing_rels, read_paper_index
from schema import (
    CITES,
    META,
    NODE_TABLES,
    PAPER,
    REL_TABLES,
    SCHEMA_VERSION,
)


def test_version_2_database_migrates_and_keeps_session_papers(tmp_path: Path) -> None:
    """Version 2 wrote Paper stubs from session logs (with REFERENCES/BASED_ON edges):
    they survive the rebuild of the academic tables."""
    path = tmp_path / "db"
    v2 = (Path(__file__).parent / "data" / "schema_v2.cypher").read_text(encoding="utf-8")
    with Store.open(path) as store, store.write() as tx:
        for table in [*REL_TABLES, *NODE_TABLES]:
            tx.execute(f"DROP TABLE IF EXISTS {table.name}")
        for statement in filter(None, (s.strip() for s in v2.split(";"))):
            tx.execute(statement)
        tx.execute(f"CREATE (:{META.name} {{id: 'schema_version', value: '2'}})")
        tx.execute("CREATE (:Paper {id: 'paper:doi:10.1000/x', doi: '10.1000/x', "
                   "resolved: false, title: 'X'})")
        tx.execute("CREATE (:Entry {id: 'entry:1', kind: 'decision'})")
        tx.execute("MATCH (e:Entry), (p:Paper) CREATE (e)-[:BASED_ON {source: 'session'}]->(p)")
        tx.execute("MATCH (e:Entry), (p:Paper) CREATE (e)-[:REFERENCES {kind: 'cites', "
                   "location: 'log:3'}]->(p)")
    with Store.open(path) as store:
        assert store.meta("schema_version") == str(SCHEMA_VERSION)
        paper = store.cypher("MATCH (p:Paper) RETURN p.id, p.title, p.resolved, p.sources")
        assert paper.rows() == [("paper:doi:10.1000/x", "X", False, None)]
        rows = store.cypher("MATCH (e:Entry)-[r]->(p:Paper) RETURN label(r) AS rel, r.source "
                            "AS source, r.location AS location ORDER BY rel")
        assert rows.rows() == [("BASED_ON", "session", None), ("REFERENCES", None, "log:3")]
        for table in NODE_TABLES:
            columns = store.cypher(f"CALL table_info('{table.name}') RETURN name")
            assert columns["name"].to_list() == [c.name for c in table.columns], table.name
        tables = set(store.cypher("CALL show_tables() RETURN name")["name"].to_list())
        assert tables == {t.name for t in (*NODE_TABLES, *REL_TABLES)}


def test_add_missing_rels_skips_stored_pairs(store: Store) -> None:
    papers = pl.DataFrame({"id": ["paper:doi:10.1000/a", "paper:doi:10.1000/b"]})
    edge = pl.DataFrame({"from": ["paper:doi:10.1000/a"], "to": ["paper:doi:10.1000/b"],
                         "evidence": ["x"]})
    with store.write() as tx:
        tx.copy_nodes(PAPER, papers)
        assert add_missing_rels(tx, CITES, PAPER, PAPER, pl.concat([edge, edge])) == 1
        assert add_missing_rels(tx, CITES, PAPER, PAPER, edge) == 0
    assert store.cypher("MATCH ()-[e:CITES]->() RETURN count(*)").item() == 1
    assert read_paper_index(store)["id"].to_list() == papers["id"].to_list()
