"""Schema 3 -> 4 (EXECUTES for recorded coverage) and 4 -> 5 (its ``cases``) on real Kuzu
databases."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphdb import Store
from schema import EXECUTES, META, SCHEMA_VERSION, SchemaVersionError

#: EXECUTES as schema version 3 declared it (never written by version 3)
V3_EXECUTES = ("CREATE REL TABLE EXECUTES(FROM Symbol TO Symbol, lines STRING[], commit STRING, "
               "source STRING, confidence DOUBLE, recorded_at TIMESTAMP, expired_at TIMESTAMP, "
               "valid_from TIMESTAMP, valid_to TIMESTAMP)")


def _v3(path: Path, *, with_row: bool = False) -> Path:
    with Store.open(path) as store, store.write() as tx:
        tx.execute(f"DROP TABLE {EXECUTES.name}")
        tx.execute(V3_EXECUTES)
        tx.execute(f"MATCH (m:{META.name} {{id: 'schema_version'}}) SET m.value = '3'")
        tx.execute("CREATE (:Symbol {id: 'sym:r/t.py#test_a'}), (:Symbol {id: 'sym:r/a.py#f'})")
        if with_row:
            tx.execute("MATCH (a:Symbol {id: 'sym:r/t.py#test_a'}), (b:Symbol {id: "
                       "'sym:r/a.py#f'}) CREATE (a)-[:EXECUTES {commit: 'x'}]->(b)")
    return path


#: EXECUTES as schema version 4 declared it (no ``cases``)
V4_EXECUTES = ("CREATE REL TABLE EXECUTES(FROM Symbol TO Symbol, FROM Symbol TO File, repo STRING, "
               "commit STRING, lines STRING, count INT64, phases STRING, source STRING, "
               "confidence DOUBLE, recorded_at TIMESTAMP, expired_at TIMESTAMP, "
               "valid_from TIMESTAMP, valid_to TIMESTAMP)")


def test_version_3_database_gains_the_new_executes(tmp_path: Path) -> None:
    with Store.open(_v3(tmp_path / "db")) as store:
        assert store.meta("schema_version") == str(SCHEMA_VERSION) == "5"
        columns = store.cypher(f"CALL table_info('{EXECUTES.name}') RETURN name, type")
        assert columns.rows()[:6] == [("repo", "STRING"), ("commit", "STRING"),
                                      ("lines", "STRING"), ("count", "INT64"),
                                      ("phases", "STRING"), ("cases", "STRING")]
        assert store.cypher("MATCH (s:Symbol) RETURN count(*)").item() == 2
        with store.write() as tx:  # the new Symbol -> File pair
            tx.execute("CREATE (:File {id: 'file:r/a.py'})")
            tx.execute("MATCH (a:Symbol {id: 'sym:r/t.py#test_a'}), (b:File {id: "
                       "'file:r/a.py'}) CREATE (a)-[:EXECUTES {lines: '1-3'}]->(b)")


def test_version_3_database_with_executes_rows_is_refused(tmp_path: Path) -> None:
    path = _v3(tmp_path / "db", with_row=True)
    with pytest.raises(SchemaVersionError, match="EXECUTES holds 1 rows"):
        Store.open(path)
    with pytest.raises(SchemaVersionError, match="has schema version 3"):
        Store.open(path, read_only=True)  # the failed migration left version 3


def test_version_4_database_keeps_its_recorded_coverage(tmp_path: Path) -> None:
    """4 -> 5 adds ``cases`` in the declared column order (later COPYs from frames rely on
    it) and keeps every EXECUTES row, both pairs, with ``cases`` null: every case."""
    path = tmp_path / "db"
    with Store.open(path) as store, store.write() as tx:
        tx.execute(f"DROP TABLE {EXECUTES.name}")
        tx.execute(V4_EXECUTES)
        tx.execute(f"MATCH (m:{META.name} {{id: 'schema_version'}}) SET m.value = '4'")
        tx.execute("CREATE (:Symbol {id: 'sym:r/t.py#test_a'}), (:Symbol {id: 'sym:r/a.py#f'}),"
                   " (:File {id: 'file:r/b.py'})")
        tx.execute("MATCH (a:Symbol {id: 'sym:r/t.py#test_a'}), (b:Symbol {id: 'sym:r/a.py#f'}),"
                   " (c:File {id: 'file:r/b.py'}) CREATE (a)-[:EXECUTES {repo: 'r', lines: "
                   "'2-3', count: 2, phases: 'run', source: 'coverage'}]->(b), "
                   "(a)-[:EXECUTES {repo: 'r', lines: '1', count: 1, phases: 'collect'}]->(c)")
    with Store.open(path) as store:
        assert store.meta("schema_version") == "5"
        names = store.cypher(f"CALL table_info('{EXECUTES.name}') RETURN name")["name"]
        assert names.to_list() == [p.name for p in EXECUTES.columns]
        rows = store.cypher(f"MATCH (a)-[e:{EXECUTES.name}]->(b) RETURN a.id, b.id, e.lines, "
                            "e.count, e.phases, e.cases, e.source ORDER BY b.id").rows()
    assert rows == [("sym:r/t.py#test_a", "file:r/b.py", "1", 1, "collect", None, None),
                    ("sym:r/t.py#test_a", "sym:r/a.py#f", "2-3", 2, "run", None, "coverage")]
