"""Vectors and hnswlib indexes in the database directory: embed_graph, nearest, rebuilds."""

from __future__ import annotations

import json
import shutil
import uuid
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import graphdb.vector_files as vector_files_module
import graphdb.vector_search as vector_search_module
import graphdb.vectors as vectors_module
from api.cli import main
from graphdb import (
    EmbeddingModelError,
    Store,
    default_embedder,
    embed_graph,
    nearest,
    vector_status,
)
from graphdb.health import check_database
from graphdb.vector_files import VectorDir, vector_dir
from ingest import IngestOptions, ingest_repository
from schema import ENTRY, QueryError
from tests.helpers import write_tree

TREE = {
    "files.py": '''
        def read_text_file(path):
            """Read a whole text file."""


        def remove_directory_tree(path):
            """Delete a folder and everything in it."""
        ''',
    "maths.py": '''
        def square_root(x):
            """Compute the square root of a number."""


        def greatest_common_divisor(a, b):
            """Largest integer dividing both."""
        ''',
    "mail.py": '''
        class SmtpClient:
            """Send email messages."""

            def send_message(self, msg):
                """Send one email message over SMTP."""
        ''',
}
#: Symbols of TREE: 3 modules, 4 functions, a class and a method.
SYMBOLS = 9
#: the shipped size up to which a table keeps no HNSW index (the autouse fixture lowers it)
EXACT_MAX_ROWS = vector_files_module.EXACT_MAX_ROWS
QUERIES = ("delete a folder recursively", "send an email", "numbers", "read a file")


class OtherModel:
    """A second, real (if crude) embedder: a fixed random projection of letter counts."""

    model_id = "letters@1"
    dim = 16

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rng = np.random.default_rng(0)
        proj = rng.normal(size=(26, self.dim)).astype(np.float32)
        counts = np.array([[t.lower().count(chr(97 + i)) for i in range(26)] for t in texts],
                          dtype=np.float32).reshape(len(texts), 26)
        out = counts @ proj
        return out / (np.linalg.norm(out, axis=1, keepdims=True) + 1e-12)


def _ingest(db: Path, root: Path) -> None:
    """Without the ingest's own embedding step: these tests watch what embed_graph does."""
    with Store.open(db) as store:
        ingest_repository(store, root, options=IngestOptions(name="r", embed=False))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "src", TREE)


@pytest.fixture(autouse=True)
def indexed(monkeypatch: pytest.MonkeyPatch) -> None:
    """TREE's 9 symbols are far below the size that keeps an HNSW index (graphdb.vector_files.
    EXACT_MAX_ROWS): these tests exercise the index, so every table keeps one; the tests of
    small tables searched exactly set it back."""
    monkeypatch.setattr(vector_files_module, "EXACT_MAX_ROWS", 0)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """TREE ingested and embedded once per module; tests work on copies."""
    root = tmp_path_factory.mktemp("vectors")
    path = root / "db"
    _ingest(path, write_tree(root / "src", TREE))
    with pytest.MonkeyPatch.context() as patch, Store.open(path) as store:
        patch.setattr(vector_files_module, "EXACT_MAX_ROWS", 0)
        summary = embed_graph(store)
    symbol = summary.tables[0]
    assert (symbol.table, symbol.current, symbol.embedded, symbol.index) == \
        ("Symbol", SYMBOLS, SYMBOLS, "built")
    return path


@pytest.fixture
def db(tmp_path: Path, template: Path) -> Path:
    path = tmp_path / "db"
    shutil.copytree(template, path, ignore=shutil.ignore_patterns("vgdb.lock"))
    return path


def _ids(hits: list) -> list[str]:
    return [h.id for h in hits]


def test_nearest_finds_by_meaning_and_checks_the_model(db: Path) -> None:
    with Store.open(db, read_only=True) as store:
        hits = nearest(store, "delete a folder recursively", k=3)
        assert hits[0].id == "sym:r/files.py#remove_directory_tree"
        assert len(hits) == 3 and hits[0].distance <= hits[1].distance <= hits[2].distance
        # a vector of the same model gives the same answer
        vec = default_embedder().embed(["delete a folder recursively"])[0]
        assert _ids(nearest(store, vec, k=3)) == _ids(hits)
        with pytest.raises(EmbeddingModelError) as info:
            nearest(store, "anything", embedder=OtherModel())
        assert info.value.found.startswith("minilm-l6-v2-static256@")
        assert info.value.expected == "letters@1"
        with pytest.raises(EmbeddingModelError, match="16 dimensions"):
            nearest(store, np.ones(16, dtype=np.float32))
        status = vector_status(store)
    assert status["model_id"] == default_embedder().model_id
    assert status["tables"]["Symbol"]["live"] == SYMBOLS


def test_rerun_embeds_nothing_and_writes_nothing(db: Path) -> None:
    before = {p.name: p.stat().st_mtime_ns for p in (db / "vectors").iterdir()}
    with Store.open(db) as store:
        summary = embed_graph(store)
    t = summary.tables[0]
    assert (summary.embedded, t.unchanged, t.reused, t.index) == (0, SYMBOLS, 0, "up to date")
    assert {p.name: p.stat().st_mtime_ns for p in (db / "vectors").iterdir()} == before


def test_incremental_change_delete_and_cache_by_content_hash(db: Path, project: Path) -> None:
    original = (project / "maths.py").read_text()
    (project / "maths.py").write_text(original.replace(
        "def square_root(x):", "def square_root(x, precision):").replace(
        'def greatest_common_divisor(a, b):\n    """Largest integer dividing both."""\n', ""))
    _ingest(db, project)
    with Store.open(db) as store:
        t = embed_graph(store).tables[0]
        # square_root and the module (its text holds no signature, so it is unchanged) ...
        assert (t.current, t.embedded, t.reused, t.removed, t.index) == \
            (SYMBOLS - 1, 1, 0, 1, "updated")
        hits = nearest(store, "largest integer dividing both numbers", k=SYMBOLS)
        assert "sym:r/maths.py#greatest_common_divisor" not in _ids(hits)
        assert len(hits) == SYMBOLS - 1
        rows = pl.read_parquet(next((db / "vectors").glob("Symbol.*.rows.parquet")))
        assert rows.height == SYMBOLS + 1 and int(rows["live"].sum()) == SYMBOLS - 1
    # back to the original text: both vectors come from the cache, none is embedded
    (project / "maths.py").write_text(original)
    _ingest(db, project)
    with Store.open(db) as store:
        t = embed_graph(store).tables[0]
        assert (t.current, t.embedded, t.reused, t.removed) == (SYMBOLS, 0, 2, 0)
        hits = nearest(store, "largest integer dividing both numbers", k=1)
        assert _ids(hits) == ["sym:r/maths.py#greatest_common_divisor"]
    assert sorted(p.name.split(".")[1] for p in (db / "vectors").glob("Symbol.*")) == ["3"] * 3


def test_embed_of_given_ids_touches_only_them(db: Path, project: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """An update's step: only the changed file's symbols are compared; when their texts are
    unchanged neither the model nor the index is loaded and nothing is written."""
    with Store.open(db, read_only=True) as store:
        maths = store.cypher("MATCH (s:Symbol) WHERE s.file = 'file:r/maths.py' "
                             "RETURN s.id AS id ORDER BY id")["id"].to_list()
    assert len(maths) == 3 and "sym:r/maths.py#square_root" in maths  # and the module
    index = next((db / "vectors").glob("Symbol.*.hnsw"))
    good = index.read_bytes()
    index.write_bytes(b"not an index")  # read, it would be rebuilt and saved
    before = {p.name: p.stat().st_mtime_ns for p in (db / "vectors").iterdir()}
    monkeypatch.setattr(vectors_module, "default_embedder", lambda: pytest.fail("loaded"))
    with Store.open(db) as store:
        summary = embed_graph(store, ids={"Symbol": maths})
    assert [(t.table, t.current, t.unchanged, t.embedded, t.index) for t in summary.tables] \
        == [("Symbol", 3, 3, 0, "up to date")]
    assert {p.name: p.stat().st_mtime_ns for p in (db / "vectors").iterdir()} == before
    index.write_bytes(good)
    monkeypatch.setattr(vectors_module, "default_embedder", default_embedder)
    (project / "maths.py").write_text((project / "maths.py").read_text().replace(
        "Compute the square root", "Compute the positive square root"))
    _ingest(db, project)
    with Store.open(db) as store:
        t = embed_graph(store, ids={"Symbol": maths}).tables
        assert [(x.table, x.current, x.unchanged, x.embedded, x.removed, x.index)
                for x in t] == [("Symbol", 3, 2, 1, 0, "updated")]
        hits = nearest(store, "positive square root of a number", k=1)
        assert _ids(hits) == ["sym:r/maths.py#square_root"]
        assert vector_status(store)["tables"]["Symbol"]["live"] == SYMBOLS


def test_model_mismatch_refused_unless_reembed(db: Path) -> None:
    with Store.open(db) as store:
        with pytest.raises(EmbeddingModelError, match="letters@1"):
            embed_graph(store, embedder=OtherModel())
        summary = embed_graph(store, embedder=OtherModel(), reembed=True)
        assert (summary.model_id, summary.dim, summary.embedded) == ("letters@1", 16, SYMBOLS)
        with pytest.raises(EmbeddingModelError):
            nearest(store, "read a file")  # the default model did not build this index
        assert len(nearest(store, "read a file", embedder=OtherModel(), k=4)) == 4


def _break(db: Path, how: str) -> None:
    index = next((db / "vectors").glob("Symbol.*.hnsw"))
    if how == "missing":
        index.unlink()
    elif how == "corrupt":  # same size, bytes flipped in the middle
        data = bytearray(index.read_bytes())
        mid = len(data) // 2
        data[mid:mid + 64] = bytes(b ^ 0xFF for b in data[mid:mid + 64])
        index.write_bytes(bytes(data))
    elif how == "truncated":
        index.write_bytes(index.read_bytes()[:1000])
    elif how == "stale":  # an index of another state: fewer elements than stored rows
        manifest = json.loads((db / "vectors" / "manifest.json").read_text())
        manifest["tables"]["Symbol"]["index"]["elements"] -= 1
        (db / "vectors" / "manifest.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize(("how", "state"), [("missing", "missing"), ("corrupt", "corrupt"),
                                            ("truncated", "stale"), ("stale", "stale")])
def test_damaged_index_is_rebuilt_from_stored_vectors(db: Path, how: str, state: str) -> None:
    vdir = db / "vectors"
    with Store.open(db, read_only=True) as store:
        before = nearest(store, "send an email", k=5)
    _break(db, how)
    assert VectorDir(vdir).table("Symbol", writable=False).index_state == state
    if how == "missing":
        with Store.open(db, read_only=True) as store:  # rebuilt in memory, nothing written
            assert nearest(store, "send an email", k=5) == before
        assert not list(vdir.glob("*.hnsw"))
    with Store.open(db) as store:
        assert nearest(store, "send an email", k=5) == before  # rebuilt and saved
        t = embed_graph(store).tables[0]
        assert (t.embedded, t.index) == (0, f"rebuilt ({state})")
    assert VectorDir(vdir).table("Symbol", writable=False).index_state == "ok"


def test_hits_are_checked_against_kuzu(db: Path) -> None:
    """A node no longer current in the graph is never returned, even before re-embedding."""
    gone = "sym:r/mail.py#SmtpClient.send_message"
    with Store.open(db) as store:
        assert nearest(store, "send one email message over smtp", k=1)[0].id == gone
        with store.write() as tx:
            tx.execute("MATCH (n:Symbol {id: $id}) SET n.valid_to = $t",
                       {"id": gone, "t": datetime(2026, 1, 1)})
        for exact in (False, True):
            hits = nearest(store, "send one email message over smtp", k=SYMBOLS, exact=exact)
            assert gone not in _ids(hits) and len(hits) == SYMBOLS - 1


@pytest.mark.parametrize("brute_force_max", [20_000, 0])
def test_filtered_search_returns_k(db: Path, monkeypatch: pytest.MonkeyPatch,
                                   brute_force_max: int) -> None:
    """Exact over a small candidate set, or a filtered HNSW walk: k hits whenever k pass."""
    monkeypatch.setattr(vector_search_module, "_BRUTE_FORCE_MAX", brute_force_max)
    with Store.open(db, read_only=True) as store:
        hits = nearest(store, "send an email", k=4, where="n.kind = $kind",
                       params={"kind": "function"})
        assert sorted(_ids(hits)) == sorted(f"sym:r/{p}" for p in (
            "files.py#read_text_file", "files.py#remove_directory_tree",
            "maths.py#square_root", "maths.py#greatest_common_divisor"))
        assert len(nearest(store, "email", k=10, where="n.kind = 'function'")) == 4
        both = {"sym:r/maths.py#square_root", "sym:r/mail.py#SmtpClient"}
        assert set(_ids(nearest(store, "numbers", k=5, candidates=both))) == both
        exact = nearest(store, "numbers", k=3, where="n.kind <> 'module'", exact=True)
        assert _ids(nearest(store, "numbers", k=3, where="n.kind <> 'module'")) == _ids(exact)


def test_entries_are_embedded(db: Path) -> None:
    now = datetime(2026, 11, 21)
    frame = pl.DataFrame({
        "id": [f"entry:{uuid.UUID(int=1)}"], "display_id": ["DEC-1"], "kind": ["decision"],
        "title": ["Keep vectors outside Kuzu"], "content": ["hnswlib files beside the graph"],
        "status": ["active"], "source": ["user"], "confidence": [1.0], "recorded_at": [now],
        "valid_from": [now]})
    with Store.open(db) as store:
        with store.write() as tx:
            tx.copy_nodes(ENTRY, frame)
        summary = embed_graph(store, tables=["Entry"])
        assert [(t.table, t.embedded) for t in summary.tables] == [("Entry", 1)]
        hits = nearest(store, "where do the vector indexes live", k=1, tables=["Entry"])
        assert _ids(hits) == [f"entry:{uuid.UUID(int=1)}"]
        # a condition only Symbol binds skips Entry; one no table binds is an error
        hits = nearest(store, "vectors", k=20, where="n.file STARTS WITH 'file:r/maths'")
        assert sorted(_ids(hits)) == ["sym:r/maths.py#<module>",
                                      "sym:r/maths.py#greatest_common_divisor",
                                      "sym:r/maths.py#square_root"]
        with pytest.raises(QueryError):
            nearest(store, "vectors", where="n.no_such_property = 1")


def test_vgdb_embed_cli(db: Path, tmp_path: Path, project: Path,
                        capsys: pytest.CaptureFixture[str]) -> None:
    main(["embed", "--db", str(db), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["embedded"] == 0
    assert [t["index"] for t in data["tables"]] == ["up to date", "empty", "empty"]
    fresh = tmp_path / "db2"
    _ingest(fresh, project)
    main(["embed", "--db", str(fresh), "--table", "Symbol"])
    out = capsys.readouterr().out
    assert f"{SYMBOLS} texts embedded" in out
    assert f"Symbol: {SYMBOLS} current, 0 unchanged, {SYMBOLS} embedded" in out


def _hits(store: Store, query: str, **kwargs) -> list[tuple[str, float]]:
    return [(h.id, round(h.distance, 5)) for h in nearest(store, query, k=SYMBOLS, **kwargs)]


def test_a_small_table_keeps_no_index_and_finds_what_the_index_finds(
        db: Path, tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Below EXACT_MAX_ROWS live rows no HNSW index is built, written or read: searches are
    exact, and give what the indexed copy of the same vectors gives."""
    with Store.open(db, read_only=True) as store:  # the template: indexed
        assert vector_dir(store).table("Symbol", writable=False).index is not None
        indexed = {q: _hits(store, q) for q in QUERIES}
    monkeypatch.setattr(vector_files_module, "EXACT_MAX_ROWS", EXACT_MAX_ROWS)
    small = tmp_path / "small"
    _ingest(small, project)
    with Store.open(small) as store:
        t = embed_graph(store).tables[0]
        assert (t.table, t.embedded, t.index) == ("Symbol", SYMBOLS, vectors_module.EXACT)
        record = vector_status(store)["tables"]["Symbol"]
        assert (record["live"], record["index"]) == (SYMBOLS, None)
        assert embed_graph(store).tables[0].index == "up to date"
    assert not list((small / "vectors").glob("*.hnsw"))
    assert VectorDir(small / "vectors").table("Symbol", writable=False).index is None
    with Store.open(small, read_only=True) as store:
        for query in QUERIES:
            assert len(indexed[query]) == SYMBOLS
            assert _hits(store, query) == indexed[query] == _hits(store, query, exact=True)
            assert all(h.exact for h in nearest(store, query, k=3))
    report = check_database(small)
    assert report.ok
    assert [f.detail for f in report.findings if f.check == "vectors Symbol"] == \
        [f"{SYMBOLS} live vectors, searched exactly (no index)"]
    # a database whose small table has an index (as earlier versions built): searched
    # exactly, index file unread; still verified by check; dropped at the next update
    with Store.open(db) as store:
        assert {q: _hits(store, q) for q in QUERIES} == indexed
    assert check_database(db).ok
    (project / "mail.py").unlink()
    _ingest(db, project)
    with Store.open(db) as store:
        assert embed_graph(store).tables[0].index == vectors_module.EXACT
    assert not list((db / "vectors").glob("*.hnsw")) and check_database(db).ok


def test_a_table_crossing_the_size_gains_or_drops_its_index(
        tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vector_files_module, "EXACT_MAX_ROWS", SYMBOLS - 2)
    db = tmp_path / "db"
    _ingest(db, project)
    with Store.open(db) as store:
        assert embed_graph(store).tables[0].index == "built"
        before = {q: _hits(store, q) for q in QUERIES}
    assert len(list((db / "vectors").glob("Symbol.*.hnsw"))) == 1
    maths = (project / "maths.py").read_text()
    (project / "maths.py").unlink()  # 3 symbols go: 6 live rows, at most SYMBOLS - 2
    _ingest(db, project)
    with Store.open(db) as store:
        t = embed_graph(store).tables[0]
        assert (t.current, t.removed, t.index) == (SYMBOLS - 3, 3, vectors_module.EXACT)
        assert "sym:r/maths.py#square_root" not in [i for i, _ in _hits(store, "numbers")]
    assert not list((db / "vectors").glob("*.hnsw"))
    (project / "maths.py").write_text(maths)  # back: the vectors come from the cache
    _ingest(db, project)
    with Store.open(db) as store:
        t = embed_graph(store).tables[0]
        assert (t.current, t.embedded, t.reused, t.index) == (SYMBOLS, 0, 3, "built")
        assert {q: _hits(store, q) for q in QUERIES} == before
    assert check_database(db).ok


@pytest.mark.parametrize("seed", range(5))
def test_exact_order_is_a_stable_sort_even_with_ties(seed: int) -> None:
    rng = np.random.default_rng(seed)
    distances = rng.integers(0, 6, size=300).astype(np.float32) / 7  # many ties
    for n in (1, 5, 64, 299, 300, 400):
        assert vector_search_module._smallest(distances, n).tolist() == \
            np.argsort(distances, kind="stable")[:n].tolist()
