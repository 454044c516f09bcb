"""`vgdb redact`: a name planted in a commit message, a session's decision (and its superseded
predecessor) and a paper's abstract leaves the graph, the keyword index (its files on disk
too) and the vectors; the facts keep their ids, times and edges; a tombstone says when and
why; an id blanks one node's text."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from graphdb import Store
from graphdb.embed import default_embedder, entry_text
from graphdb.keyword import bm25
from graphdb.vectors import stored_vectors
from ingest.pipeline import IngestOptions, ingest_repository
from ingest.sessions import load_sessions
from queries.redact import redact
from schema import QueryError
from tests.gitrepo import GitRepo
from tests.helpers import vgdb_in_process
from tests.ingest.test_sessions_fixtures import ev, write_log

NAME = "Orionbank"  # a client's name that must not stay in the graph
AT = datetime(2026, 11, 26, 12, 0)
TOMB = "[redacted 2026-11-26: client name]"
BIB = ("@article{k, title={Ledger replication at scale}, year={2021},\n"
       f" abstract={{Deployed for {NAME} across three regions.}}, doi={{10.1234/ledger}}}}\n")


@pytest.fixture
def graph(tmp_path: Path) -> Store:
    repo = GitRepo(tmp_path / "proj")
    repo.commit(f"Add the settlement job for {NAME}", {
        "settle.py": "def settle():\n    return 1\n", "refs.bib": BIB})
    first = write_log(tmp_path / "s1.jsonl", [
        ev("session_start", "09:00:00", title=f"{NAME} settlement", agent="a", repo="proj"),
        ev("decision", "09:01:00", id="d1", title=f"Settle {NAME} nightly",
           content=f"{NAME} wants nightly batches.", files=["settle.py"])])
    second = write_log(tmp_path / "s2.jsonl", [
        ev("session_start", "10:00:00", session="s2", title="Hourly", agent="a", repo="proj"),
        ev("decision", "10:02:00", session="s2", id="d2", title=f"Settle {NAME} hourly",
           content="Hourly batches after all.", files=["settle.py"], supersedes=["DEC-1"])])
    store = Store.open(tmp_path / "db")
    ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
    load_sessions(store, [first])  # embedded while current: its vector stays as a dead row
    summary = load_sessions(store, [second])
    assert summary.counts["superseded"] == 1, summary.issues
    return store


def _stored_like(db: Path, vectors: np.ndarray) -> list[bool]:
    """Whether some stored Entry row (live or dead: the files, docs of graphdb/vectors.py)
    is each of ``vectors``."""
    manifest = json.loads((db / "vectors" / "manifest.json").read_text())
    stored = np.load(db / "vectors" / f"Entry.{manifest['tables']['Entry']['generation']}.npy")
    return [bool(np.isclose(stored @ v, 1.0, atol=1e-5).any()) for v in vectors]


def _texts(store: Store) -> str:
    return " ".join(repr(store.cypher(f"MATCH (n:{t}) RETURN n").rows())
                    for t in ("Commit", "Entry", "Session", "Paper"))


def test_a_pattern_leaves_graph_keyword_index_and_vectors(graph: Store, tmp_path: Path) -> None:
    store = graph
    assert NAME in _texts(store)
    [[old_entry]] = store.cypher("MATCH (e:Entry) WHERE e.title CONTAINS 'nightly' "
                                 "RETURN e.id").rows()
    leaked = default_embedder().embed([
        entry_text(kind="decision", title=f"Settle {NAME} nightly",
                   content=f"{NAME} wants nightly batches."),
        entry_text(kind="decision", title=f"Settle {NAME} hourly",
                   content="Hourly batches after all.")])
    assert _stored_like(tmp_path / "db", leaked) == [True, True]  # the superseded one: dead
    edges = store.cypher("MATCH ()-[r]->() RETURN count(r)").rows()
    result = redact(store, NAME.lower()[:4].capitalize() + "[a-z]+bank", reason="client name",
                    at=AT)
    assert result.mode == "pattern" and result.tombstone == TOMB
    assert sorted((n.table, n.fields) for n in result.nodes) == [
        ("Commit", ("message", "summary")), ("Entry", ("content", "title")),
        ("Entry", ("title",)), ("Paper", ("abstract",)), ("Session", ("title",))]
    assert result.matches == 7
    # the graph: the text is gone, the tombstone is there, structure kept
    assert NAME not in _texts(store)
    assert store.cypher("MATCH ()-[r]->() RETURN count(r)").rows() == edges
    assert store.cypher("MATCH (c:Commit) RETURN c.summary").rows() == [
        (f"Add the settlement job for {TOMB}",)]
    assert store.cypher("MATCH (e:Entry) RETURN e.title, e.status ORDER BY e.title").rows() == [
        (f"Settle {TOMB} hourly", "active"), (f"Settle {TOMB} nightly", "superseded")]
    assert store.cypher("MATCH (:Entry)-[s:SUPERSEDES]->(e:Entry) RETURN e.id").rows() == [
        (old_entry,)]
    # the keyword index: no hit, and no segment holding the replaced documents' terms
    for table in ("Entry", "Paper"):
        assert bm25(store, NAME, table=table, k=5, status="any") == []
    assert bm25(store, "nightly", table="Entry", k=5, status="any")[0].id == old_entry
    for table in ("Entry", "Paper"):  # rebuilt: no deleted document (and its terms) is kept
        meta = json.loads((tmp_path / "db" / "keyword" / table / "meta.json").read_text())
        assert [seg["deletes"] for seg in meta["segments"]] == [None]
    # the vectors: no stored row, live or dead, holds the old texts' vectors
    assert _stored_like(tmp_path / "db", leaked) == [False, False]
    [[current]] = store.cypher("MATCH (e:Entry) WHERE e.valid_to IS NULL RETURN e.id").rows()
    clean = default_embedder().embed([entry_text(
        kind="decision", title=f"Settle {TOMB} hourly", content="Hourly batches after all.")])
    assert np.allclose(stored_vectors(store, [current])[current], clean[0], atol=1e-5)
    assert set(result.vectors) == {"Entry", "Paper"}
    store.close()


def test_an_id_blanks_one_node(graph: Store, capsys) -> None:
    store = graph
    [[entry, display]] = store.cypher("MATCH (e:Entry) WHERE e.title CONTAINS 'hourly' "
                                      "RETURN e.id, e.display_id").rows()
    db = str(store.path)
    store.close()
    dry = vgdb_in_process(capsys, "redact", display, "--reason", "client name", "--db", db,
                          "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    assert [n["fields"] for n in json.loads(dry.stdout)["nodes"]] == [["content", "title"]]
    run = vgdb_in_process(capsys, "redact", display, "--reason", "client name", "--db", db)
    assert run.returncode == 0, run.stderr
    assert "redacted 2 matches in 1 node" in run.stdout
    with Store.open(db, read_only=True) as ro:
        [[title, content, kind, status]] = ro.cypher(
            "MATCH (e:Entry) WHERE e.id = $id RETURN e.title, e.content, e.kind, e.status",
            {"id": entry}).rows()
        assert (title[:12], content[:12], kind, status) == (
            "[redacted 20", "[redacted 20", "decision", "active")
        assert title.endswith(": client name]")
        assert ro.cypher("MATCH (e:Entry)-[:ABOUT]->(f:File) WHERE e.id = $id RETURN f.id",
                         {"id": entry}).rows() == [("file:proj/settle.py",)]
        # the other decision still holds the name: only that node was redacted
        assert NAME in _texts(ro)


def test_bad_targets_are_refused(graph: Store) -> None:
    with pytest.raises(QueryError, match="reason"):
        redact(graph, NAME, reason=" ")
    with pytest.raises(QueryError, match="matches empty text"):
        redact(graph, "x*", reason="r")
    with pytest.raises(QueryError, match="not a valid regular expression"):
        redact(graph, "(", reason="r")
    with pytest.raises(QueryError, match="no free text"):
        redact(graph, "file:proj/settle.py", reason="r", pattern=False)
    assert NAME in _texts(graph)  # nothing was changed
    graph.close()
