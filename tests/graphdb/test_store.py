"""graphdb.Store on real Kuzu databases: creation, versions, corruption, locking, transactions
and the read-only guard."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib.metadata import version
from pathlib import Path

import polars as pl
import pytest

import graphdb.migrations
from graphdb import Store, Transaction
from schema import (
    CONTAINS,
    FILE,
    META,
    NODE_TABLES,
    REL_TABLES,
    REPOSITORY,
    SCHEMA_VERSION,
    CorruptDatabaseError,
    QueryError,
    ReadOnlyViolationError,
    SchemaVersionError,
    StoreError,
    StoreLockedError,
    StoreNotFoundError,
)
from tests.helpers import ROOT, commit_into_wal

ENGINE_VERSION = version("ladybug")

_HOLD = """
import sys
from graphdb import Store
store = Store.open(sys.argv[1], read_only=sys.argv[2] == "ro")
print("ready", flush=True)
sys.stdin.read()
store.close()
"""


@contextmanager
def holding(path: Path, *, read_only: bool = False) -> Iterator[subprocess.Popen[str]]:
    """Another process that has the database at ``path`` open until the block ends."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(path), "ro" if read_only else "rw"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        if line.strip() != "ready":
            proc.kill()
            _, err = proc.communicate(timeout=10)
            raise AssertionError(f"holder did not start: {line!r} {err}")
        yield proc
    finally:
        if proc.poll() is None:
            proc.communicate(input="", timeout=20)


def _set_schema_version(store: Store, version: int) -> None:
    with store.write() as tx:
        tx.execute(f"MATCH (m:{META.name} {{id: 'schema_version'}}) SET m.value = $v",
                   {"v": str(version)})


def _old_database(path: Path, version: int = 0) -> Path:
    """A database that says it has schema ``version`` (0: older than every migration)."""
    with Store.open(path) as store:
        _set_schema_version(store, version)
    return path


def _files(*ids: str) -> pl.DataFrame:
    return pl.DataFrame({"id": list(ids), "path": [i.removeprefix("file:") for i in ids]})


def _file_ids(store: Store) -> list[str]:
    return store.cypher(f"MATCH (f:{FILE.name}) RETURN f.id AS id ORDER BY id")["id"].to_list()


def _write_manifest(directory: Path, **fields: object) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "manifest.json").write_text(json.dumps(fields), encoding="utf-8")


# ----------------------------------------------------------------------------------- creation
def test_new_database_has_every_schema_table(store: Store) -> None:
    tables = store.cypher("CALL show_tables() RETURN *")
    expected = {t.name: "NODE" for t in NODE_TABLES} | {t.name: "REL" for t in REL_TABLES}
    assert dict(zip(tables["name"], tables["type"], strict=True)) == expected


def test_new_database_stores_schema_version_in_meta(store: Store) -> None:
    assert store.meta("schema_version") == str(SCHEMA_VERSION)


def test_new_database_writes_manifest(store: Store) -> None:
    manifest = json.loads((store.path / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["format"] == "vectorgraphdb"
    assert manifest["schema_version"] == SCHEMA_VERSION
    assert (manifest["engine"], manifest["engine_version"]) == ("ladybug", ENGINE_VERSION)


def test_reopen_keeps_data(tmp_path: Path) -> None:
    with Store.open(tmp_path / "db") as store, store.write() as tx:
        tx.copy_nodes(FILE, _files("file:r/a.py"))
    with Store.open(tmp_path / "db") as store:
        assert _file_ids(store) == ["file:r/a.py"]
    with Store.open(tmp_path / "db", read_only=True) as store:
        assert store.read_only
        assert _file_ids(store) == ["file:r/a.py"]


def test_read_only_store_refuses_write_transactions(tmp_path: Path) -> None:
    Store.open(tmp_path / "db").close()
    with Store.open(tmp_path / "db", read_only=True) as store, \
            pytest.raises(StoreError, match="read-only"):
        store.write().__enter__()


# ----------------------------------------------------------------------------------- versions
def test_older_schema_without_migration_is_refused_read_write(tmp_path: Path) -> None:
    path = _old_database(tmp_path / "db")
    with pytest.raises(SchemaVersionError) as excinfo:
        Store.open(path)
    assert (excinfo.value.found, excinfo.value.expected) == (0, SCHEMA_VERSION)
    assert "no migration from version 0" in str(excinfo.value)
    assert excinfo.value.suggestion


def test_older_schema_is_refused_read_only(tmp_path: Path) -> None:
    path = _old_database(tmp_path / "db", SCHEMA_VERSION - 1)
    with pytest.raises(SchemaVersionError) as excinfo:
        Store.open(path, read_only=True)
    assert (excinfo.value.found, excinfo.value.expected) == (SCHEMA_VERSION - 1, SCHEMA_VERSION)


def test_refused_open_leaves_database_free_for_other_processes(tmp_path: Path) -> None:
    path = _old_database(tmp_path / "db")
    with pytest.raises(SchemaVersionError) as refused:  # kept, as a notebook or log would
        Store.open(path)
    code = ("import sys\nfrom graphdb import Store\nfrom schema import SchemaVersionError\n"
            "try:\n    Store.open(sys.argv[1], read_only=True)\n"
            "except SchemaVersionError:\n    print('refused by version')\n")
    child = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                           text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)},
                           check=False)
    assert child.stdout.strip() == "refused by version", child.stderr
    assert refused.value.found == 0


def test_registered_migration_runs_and_bumps_version(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    path = _old_database(tmp_path / "db", SCHEMA_VERSION - 1)
    applied: list[int] = []

    def mark(tx: Transaction) -> None:
        applied.append(SCHEMA_VERSION - 1)
        tx.execute(f"CREATE (:{META.name} {{id: 'migrated', value: 'yes'}})")

    monkeypatch.setitem(graphdb.migrations.MIGRATIONS, SCHEMA_VERSION - 1, mark)
    with Store.open(path) as store:
        assert applied == [SCHEMA_VERSION - 1]
        assert store.meta("migrated") == "yes"
        assert store.meta("schema_version") == str(SCHEMA_VERSION)
    with Store.open(path, read_only=True) as store:
        assert store.meta("schema_version") == str(SCHEMA_VERSION)
    assert applied == [SCHEMA_VERSION - 1]


def test_failing_migration_leaves_old_version(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    path = _old_database(tmp_path / "db", SCHEMA_VERSION - 1)

    def broken(tx: Transaction) -> None:
        tx.execute(f"CREATE (:{META.name} {{id: 'half', value: 'done'}})")
        raise RuntimeError("migration bug")

    monkeypatch.setitem(graphdb.migrations.MIGRATIONS, SCHEMA_VERSION - 1, broken)
    with pytest.raises(RuntimeError, match="migration bug"):
        Store.open(path)
    monkeypatch.delitem(graphdb.migrations.MIGRATIONS, SCHEMA_VERSION - 1)
    with pytest.raises(SchemaVersionError), Store.open(path, read_only=True):
        pass


def test_version_1_database_migrates_and_keeps_its_code_graph(tmp_path: Path) -> None:
    """A database created by schema version 1 (its DDL kept in data/) opens read-write,
    gains the version-2 history columns and keeps every code row."""
    path = tmp_path / "db"
    v1 = (Path(__file__).parent / "data" / "schema_v1.cypher").read_text(encoding="utf-8")
    with Store.open(path) as store, store.write() as tx:
        for table in [*REL_TABLES, *NODE_TABLES]:
            tx.execute(f"DROP TABLE {table.name}")
        for statement in filter(None, (s.strip() for s in v1.split(";"))):
            tx.execute(statement)
        tx.execute(f"CREATE (:{META.name} {{id: 'schema_version', value: '1'}})")
        tx.execute(f"CREATE (:{FILE.name} {{id: 'file:r/a.py', path: 'a.py'}})")
    with Store.open(path) as store:
        assert store.meta("schema_version") == str(SCHEMA_VERSION)
        assert _file_ids(store) == ["file:r/a.py"]
        entry = store.cypher("CALL table_info('Entry') RETURN name")["name"].to_list()
        assert {"hash", "error", "unresolved", "expires_at"} <= set(entry)


def test_manifest_with_newer_schema_is_refused_before_the_engine_opens(tmp_path: Path) -> None:
    _write_manifest(tmp_path / "db", format="vectorgraphdb", schema_version=SCHEMA_VERSION + 1,
                    engine="ladybug", engine_version=ENGINE_VERSION)
    with pytest.raises(SchemaVersionError) as excinfo:
        Store.open(tmp_path / "db")
    assert (excinfo.value.found, excinfo.value.expected) == (SCHEMA_VERSION + 1, SCHEMA_VERSION)
    assert not (tmp_path / "db" / "graph.lbug").exists()


# ---------------------------------------------------------------------------------- corruption
def _damaged(db: Path, damage: Callable[[Path], None]) -> dict[str, bytes]:
    """A closed database with two committed files, damaged by ``damage``; its files' bytes."""
    with Store.open(db) as store, store.write() as tx:
        tx.copy_nodes(FILE, _files("file:r/a.py", "file:r/b.py"))
    damage(db)
    return {p.name: p.read_bytes() for p in db.iterdir() if p.is_file()}


def _flip(path: Path, at: int) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", [
    pytest.param(lambda db: (db / "graph.lbug").write_bytes(bytes(range(256)) * 64),
                 id="garbage"),
    pytest.param(lambda db: _flip(db / "graph.lbug", (db / "graph.lbug").stat().st_size // 2),
                 id="one-byte-flipped"),
    pytest.param(lambda db: os.truncate(db / "graph.lbug", (db / "graph.lbug").stat().st_size
                                        // 2), id="cut-in-half"),
    pytest.param(lambda db: os.truncate(db / "graph.lbug", 0), id="emptied"),
    pytest.param(lambda db: (db / "graph.lbug").unlink(), id="deleted"),
])
def test_a_damaged_graph_file_is_reported_and_left_as_it_is(
        tmp_path: Path, damage: Callable[[Path], None]) -> None:
    """The engine does not checksum its pages (a flipped byte reads back as other data); the
    graph.sum record does, and no open, read-only or read-write, changes a byte."""
    db = tmp_path / "db"
    before = _damaged(db, damage)
    for read_only in (True, False):
        with pytest.raises(CorruptDatabaseError) as excinfo:
            Store.open(db, read_only=read_only)
        assert "nothing was changed" in excinfo.value.suggestion.lower()
        assert {p.name: p.read_bytes() for p in db.iterdir() if p.is_file()} == before


def _committed_in_wal(db: Path) -> None:
    commit_into_wal(db, "CREATE (:File {id: 'file:r/c.py', path: 'c.py'})")


@pytest.mark.parametrize("damage", [
    pytest.param(lambda wal: os.truncate(wal, wal.stat().st_size // 2), id="cut"),
    pytest.param(lambda wal: _flip(wal, wal.stat().st_size // 2), id="one-byte-flipped"),
])
def test_a_damaged_wal_is_reported_and_repair_keeps_it_aside(
        tmp_path: Path, damage: Callable[[Path], None]) -> None:
    db = tmp_path / "db"
    _damaged(db, _committed_in_wal)
    wal = db / "graph.lbug.wal"
    assert wal.stat().st_size > 0
    damage(wal)
    for read_only in (True, False):
        with pytest.raises(CorruptDatabaseError, match="write-ahead log") as excinfo:
            Store.open(db, read_only=read_only)
        assert "--discard-wal" in excinfo.value.suggestion
        assert wal.exists()


def test_a_committed_write_in_the_wal_survives_a_kill(tmp_path: Path) -> None:
    db = tmp_path / "db"
    _damaged(db, _committed_in_wal)
    with Store.open(db, read_only=True) as store:
        assert _file_ids(store) == ["file:r/a.py", "file:r/b.py", "file:r/c.py"]
    with Store.open(db) as store:  # replayed and folded into the graph file, then verified
        assert _file_ids(store) == ["file:r/a.py", "file:r/b.py", "file:r/c.py"]
    with Store.open(db, read_only=True) as store:
        assert _file_ids(store) == ["file:r/a.py", "file:r/b.py", "file:r/c.py"]


def test_kuzu_database_without_meta_is_corrupt(tmp_path: Path) -> None:
    with Store.open(tmp_path / "db") as store, store.write() as tx:
        tx.execute(f"MATCH (m:{META.name}) DELETE m")
    with pytest.raises(CorruptDatabaseError, match="without VectorGraphDB metadata"):
        Store.open(tmp_path / "db")


def test_directory_with_foreign_manifest_is_corrupt(tmp_path: Path) -> None:
    _write_manifest(tmp_path / "db", format="something-else")
    with pytest.raises(CorruptDatabaseError, match="not a VectorGraphDB database directory"):
        Store.open(tmp_path / "db")


def test_unreadable_manifest_is_corrupt(tmp_path: Path) -> None:
    (tmp_path / "db").mkdir()
    (tmp_path / "db" / "manifest.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(CorruptDatabaseError, match="unreadable manifest"):
        Store.open(tmp_path / "db")


def test_regular_file_as_database_is_a_store_error(tmp_path: Path) -> None:
    (tmp_path / "db").write_text("hello", encoding="utf-8")
    with pytest.raises(StoreError, match="is not a directory") as excinfo:
        Store.open(tmp_path / "db")
    assert excinfo.value.suggestion


def test_read_only_open_of_missing_database_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(StoreNotFoundError) as excinfo:
        Store.open(tmp_path / "missing", read_only=True)
    assert excinfo.value.path == str(tmp_path / "missing")
    assert "vgdb ingest" in excinfo.value.suggestion
    assert not (tmp_path / "missing").exists()


# --------------------------------------------------------------------------------------- lock
def test_writer_in_another_process_locks_out_writers_and_readers(tmp_path: Path) -> None:
    path = tmp_path / "db"
    Store.open(path).close()
    with holding(path) as holder:
        for read_only in (False, True):
            with pytest.raises(StoreLockedError) as excinfo:
                Store.open(path, read_only=read_only)
            assert f"process {holder.pid} " in str(excinfo.value)
            assert excinfo.value.holder["pid"] == holder.pid
            assert excinfo.value.path == str(path)
    with Store.open(path) as store:
        assert store.meta("schema_version") == str(SCHEMA_VERSION)


def test_reader_in_another_process_locks_out_writers_only(tmp_path: Path) -> None:
    path = tmp_path / "db"
    Store.open(path).close()
    with holding(path, read_only=True):
        with pytest.raises(StoreLockedError, match="read-only"):
            Store.open(path)
        with Store.open(path, read_only=True) as store:
            assert store.meta("schema_version") == str(SCHEMA_VERSION)
    Store.open(path).close()


def test_a_dead_writers_record_does_not_name_it_as_the_holder(tmp_path: Path) -> None:
    """A writer killed (or the CLI's fast exit) leaves its record in the lock file; when a
    reader holds the lock later, the error must not blame the dead writer."""
    path = tmp_path / "db"
    Store.open(path).close()
    (path / "vgdb.lock").write_text('{"pid": 999999999, "command": "vgdb ingest old", '
                                    '"since": "2026-01-01T00:00:00+0000"}')
    with holding(path, read_only=True), pytest.raises(StoreLockedError) as excinfo:
        Store.open(path)
    assert "read-only" in str(excinfo.value) and "999999999" not in str(excinfo.value)


# ------------------------------------------------------------------------------- transactions
def test_exception_in_write_block_rolls_back(store: Store) -> None:
    with pytest.raises(ValueError, match="boom"), store.write() as tx:
        assert tx.copy_nodes(FILE, _files("file:r/a.py", "file:r/b.py")) == 2
        raise ValueError("boom")
    assert _file_ids(store) == []


def test_failed_copy_raises_query_error_and_keeps_previous_data(store: Store) -> None:
    with store.write() as tx:
        tx.copy_nodes(FILE, _files("file:r/a.py"))
    with pytest.raises(QueryError, match="duplicated primary key"), store.write() as tx:
        tx.copy_nodes(FILE, _files("file:r/b.py", "file:r/a.py"))
    assert _file_ids(store) == ["file:r/a.py"]
    with store.write() as tx:
        tx.copy_nodes(FILE, _files("file:r/c.py"))
    assert _file_ids(store) == ["file:r/a.py", "file:r/c.py"]


def test_copy_of_empty_frame_is_a_no_op(store: Store) -> None:
    with store.write() as tx:
        assert tx.copy_nodes(FILE, pl.DataFrame({"id": []}, schema={"id": pl.Utf8})) == 0
    assert _file_ids(store) == []


def test_copy_rels_from_polars_frame(store: Store) -> None:
    with store.write() as tx:
        tx.copy_nodes(REPOSITORY, pl.DataFrame({"id": ["repo:r"], "name": ["r"]}))
        tx.copy_nodes(FILE, _files("file:r/a.py", "file:r/b.py"))
        rels = pl.DataFrame({"from": ["repo:r", "repo:r"], "to": ["file:r/a.py", "file:r/b.py"],
                             "source": ["ast", "ast"]})
        assert tx.copy_rels(CONTAINS, rels, src=REPOSITORY, dst=FILE) == 2
    rows = store.cypher(f"MATCH (r:{REPOSITORY.name})-[c:{CONTAINS.name}]->(f:{FILE.name}) "
                        "RETURN r.id, f.id, c.source ORDER BY f.id")
    assert rows.rows() == [("repo:r", "file:r/a.py", "ast"), ("repo:r", "file:r/b.py", "ast")]


# ---------------------------------------------------------------------------- read-only guard
@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """One read-write store for the guard tests (the engine itself would allow writes)."""
    with Store.open(tmp_path_factory.mktemp("guard") / "db") as store:
        yield store


@pytest.mark.parametrize("query", [
    "CREATE (:File {id: 'file:r/x.py'})",
    "MERGE (:File {id: 'file:r/x.py'})",
    "MATCH (f:File) SET f.path = 'x'",
    "MATCH (f:File) DELETE f",
    "match (f:File) detach delete f",
    "DROP TABLE File",
    "COPY (MATCH (f:File) RETURN f.id) TO '{out}/rows.csv'",
    "LOAD FROM '{out}/rows.csv' RETURN *",
    "EXPORT DATABASE '{out}/export'",
    "IMPORT DATABASE '{out}/export'",
    "ATTACH '{out}/other' AS other (dbtype kuzu)",
    "INSTALL fts",
    "LOAD EXTENSION fts",
    "BEGIN TRANSACTION",
    "RETURN 1; CREATE (:File {id: 'file:r/x.py'})",
    "CALL CREATE_FTS_INDEX('File', 'paths', ['path'])",
])
def test_read_only_guard_refuses_writes_and_file_access(guarded: Store, tmp_path: Path,
                                                        query: str) -> None:
    with pytest.raises(ReadOnlyViolationError, match="read-only query refused"):
        guarded.cypher(query.replace("{out}", str(tmp_path)))
    assert _file_ids(guarded) == []
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("query", [
    "MATCH (n:Symbol) WHERE n.name = 'delete me' RETURN n.id",
    'MATCH (n:Symbol) WHERE n.docstring CONTAINS "CREATE TABLE" RETURN n.id',
    "MATCH (n:Symbol) RETURN n.id AS created, n.recorded_at AS settled // then DELETE",
    "MATCH (n:Symbol) RETURN n.`source` /* DROP TABLE File */",
])
def test_read_only_guard_ignores_words_in_literals_names_and_comments(guarded: Store,
                                                                      query: str) -> None:
    assert guarded.cypher(query).is_empty()


def test_syntax_error_is_query_error_with_kuzu_message(guarded: Store) -> None:
    with pytest.raises(QueryError) as excinfo:
        guarded.cypher("MATCH (n RETURN n")
    assert not isinstance(excinfo.value, ReadOnlyViolationError)
    assert str(excinfo.value).startswith("Parser exception: Invalid input <MATCH (n RETURN>")
    assert excinfo.value.query == "MATCH (n RETURN n"


def test_unknown_table_is_query_error_with_kuzu_message(guarded: Store) -> None:
    with pytest.raises(QueryError, match=r"^Binder exception: Table Nope does not exist"):
        guarded.cypher("MATCH (n:Nope) RETURN n")


def test_cypher_passes_parameters(store: Store) -> None:
    with store.write() as tx:
        tx.copy_nodes(FILE, _files("file:r/a.py", "file:r/b.py"))
    rows = store.cypher(f"MATCH (f:{FILE.name}) WHERE f.path = $p RETURN f.id AS id",
                        {"p": "r/b.py"})
    assert rows["id"].to_list() == ["file:r/b.py"]


def test_serving_store_commits_a_bulk_load_while_readers_run(tmp_path: Path) -> None:
    """Kuzu checkpoints when a COPY commits and waits for open reads (failing the write
    after a timeout); a serving store lets running reads finish first and holds new ones."""
    import threading

    import polars as pl

    from schema import REPOSITORY

    store = Store.open(tmp_path / "db", serving=True)
    try:
        counts: list[int] = []

        def read() -> None:
            for _ in range(3):
                counts.append(store.cypher(
                    "UNWIND range(1, 600000) AS x WITH x WHERE x % 7 = 0 "
                    "RETURN count(*) AS n")["n"][0])

        readers = [threading.Thread(target=read) for _ in range(2)]
        for r in readers:
            r.start()
        with store.write() as tx:
            tx.copy_nodes(REPOSITORY, pl.DataFrame(
                {"id": [f"repo:{i}" for i in range(500)], "name": [str(i) for i in range(500)]}))
        for r in readers:
            r.join()
        assert counts == [85714] * 6
        assert store.cypher("MATCH (r:Repository) RETURN count(*) AS n")["n"][0] == 500
        assert store.checkpoint() is True
    finally:
        store.close()


def test_a_read_over_its_timeout_is_interrupted_and_the_store_answers_after(
        store: Store) -> None:
    """Kuzu stops the running query at the deadline (400M rows would take seconds); the same
    connection then answers the next query without a timeout."""
    started = time.perf_counter()
    with pytest.raises(QueryError, match=r"query timed out after 0\.2 s"):
        store.cypher("UNWIND range(1, 20000) AS x UNWIND range(1, 20000) AS y "
                     "RETURN sum(x * y) AS s", timeout=0.2)
    assert time.perf_counter() - started < 2.0
    assert store.cypher("UNWIND range(1, 3) AS x RETURN sum(x) AS s")["s"].to_list() == [6]


def test_prepared_reads_are_planned_again_after_a_schema_change(store: Store) -> None:
    """A parameterised read is prepared once per connection; a write transaction (which may
    change the catalog) drops the prepared statements, so the read sees the new schema."""
    query = "CALL show_tables() WHERE name = $n RETURN count(*) AS c"
    assert store.cypher(query, {"n": "Scratch"})["c"].to_list() == [0]
    with store.write() as tx:
        tx.execute("CREATE NODE TABLE Scratch(id STRING PRIMARY KEY)")
    assert store.cypher(query, {"n": "Scratch"})["c"].to_list() == [1]
    assert store.cypher(query, {"n": "Symbol"})["c"].to_list() == [1]


# ------------------------------------------------------------------------------ graph version
def test_every_committed_write_advances_the_graph_version(store: Store) -> None:
    start = store.graph_version()
    with store.write() as tx:
        tx.copy_nodes(FILE, _files("file:r/a.py"))
        tx.touch("r")
    assert store.graph_version() == start + 1 == store.graph_version("r")
    with pytest.raises(RuntimeError), store.write() as tx:  # rolled back: no new version
        tx.touch("r")
        raise RuntimeError("no")
    with store.write() as tx:
        tx.touch("other")
    assert (store.graph_version(), store.graph_version("r"),
            store.graph_version("other")) == (start + 2, start + 1, start + 2)
    assert store.graph_version("never") == 0


def test_a_store_nobody_closes_is_closed_with_its_checksum(tmp_path: Path) -> None:
    """A script that ends (or a store collected) without close(): the engine closes then and
    writes the graph file, which must not read as damage at the next open."""
    db = tmp_path / "db"
    with Store.open(db) as store, store.write() as tx:
        tx.copy_nodes(FILE, _files("file:r/a.py"))
    code = "import sys; from graphdb import Store\ns = Store.open(sys.argv[1])\n"
    subprocess.run([sys.executable, "-c", code, str(db)], check=True, cwd=ROOT)
    dropped = Store.open(db)
    del dropped
    with Store.open(db, read_only=True) as store:
        assert _file_ids(store) == ["file:r/a.py"]


def test_restart_keeps_the_lock_and_every_fact(tmp_path: Path) -> None:
    """``Store.restart`` closes the engine and opens it again (a long batch does it to get
    the engine's memory back) without giving up the directory lock: another process still
    cannot open the database, every committed fact is there, and the checksum record vouches
    for the file the restart checkpointed."""
    path = tmp_path / "db"
    store = Store.open(path)
    with store.write() as tx:
        tx.execute(f"CREATE (:{META.name} {{id: 'probe', value: 'kept'}})")
    store.restart()
    other = subprocess.run(
        [sys.executable, "-c", "import sys\nfrom graphdb import Store\nStore.open(sys.argv[1])",
         str(path)], capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)
    assert other.returncode != 0 and "StoreLockedError" in other.stderr
    assert store.meta("probe") == "kept"
    with store.write() as tx:  # the restarted engine takes writes
        tx.execute(f"MATCH (m:{META.name} {{id: 'probe'}}) SET m.value = 'again'")
    store.close()
    with Store.open(path, read_only=True) as reader:
        assert reader.meta("probe") == "again"
        with pytest.raises(StoreError, match="read-only"):
            reader.restart()
