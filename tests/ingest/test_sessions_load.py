"""Batch load of session logs into a real Kuzu graph: the example session, idempotent
reloads, and every kind of bad input (each bad line reported with its number, every good line
kept)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphdb import Store
from ingest.sessions import load_sessions
from schema import commit_id, file_id, session_id, symbol_id
from tests.helpers import ROOT, run_vgdb
from tests.ingest.test_sessions_fixtures import REPO, SHA, ev, seed_code, write_log

EXAMPLE = ROOT / "datasets" / "sessions" / "example-session.jsonl"
MAIN = session_id("2026-11-02-incremental-loader")
SUB = session_id("2026-11-02-incremental-loader.bench")


@pytest.fixture
def code(store: Store) -> Store:
    seed_code(store)
    return store


def rows(store: Store, query: str, params: dict | None = None) -> list[tuple]:
    return [tuple(r) for r in store.cypher(query, params).rows()]


def test_example_session_loads_every_event(code: Store) -> None:
    summary = load_sessions(code, [EXAMPLE])
    assert summary.written == {
        "Agent": 2, "Person": 1, "Paper": 2, "Session": 2, "Entry": 10, "ABOUT": 18,
        "BY": 13, "IN_SESSION": 13, "RESOLVES": 2, "SUPERSEDES": 1, "BASED_ON": 2}
    assert summary.counts == {"sessions": 2, "entries": 10, "merged": 1, "superseded": 1,
                              "outcomes": 1, "events": 21, "bad_lines": 0}
    assert [(i.line, i.message) for i in summary.issues] == [
        (2, "file_read: no file 'README.md' in repository 'vectorgraphdb'"),
        (2, "file_read: no file 'docs/ingest.md' in repository 'vectorgraphdb'"),
        (4, "decision: paper reference {'url': 'https://kuzudb.com/docs/import', 'title': "
            "'Kuzu: import data'} has no DOI or arXiv id; kept as unresolved"),
        (10, "file_read: no file 'benchmarks/README.md' in repository 'vectorgraphdb'"),
        (19, "file_modified: no file 'docs/ingest.md' in repository 'vectorgraphdb'")]
    entries = rows(code, "MATCH (e:Entry) RETURN e.display_id, e.kind, e.status, e.source "
                         "ORDER BY e.valid_from")
    assert entries == [
        ("INT-1", "intent", "active", "session"), ("DEC-1", "decision", "superseded", "session"),
        ("PAT-1", "pattern", "active", "session"), ("FAIL-1", "failure", "active", "session"),
        ("RES-1", "resolution", "active", "session"), ("FAIL-2", "failure", "active", "session"),
        ("INS-1", "insight", "active", "session"), ("DEC-2", "decision", "active", "session"),
        ("DEC-3", "decision", "active", "session"), ("NOTE-1", "note", "active", "session")]
    # sessions: agent, model, parent, end, file
    assert rows(code, "MATCH (s:Session) RETURN s.id, s.agent, s.model, s.parent, s.outcome, "
                      "s.file, s.format_version ORDER BY s.id") == [
        (MAIN, "claude-code", "claude-opus-4", "", "success", str(EXAMPLE), 1),
        (SUB, "bench-runner", "claude-haiku-4", MAIN, "success", str(EXAMPLE), 1)]
    assert rows(code, "MATCH (a:Session)-[:IN_SESSION]->(b:Session) RETURN a.id, b.id") == [
        (SUB, MAIN)]
    assert rows(code, "MATCH (s:Session)-[:BY]->(p:Person) RETURN s.id, p.id, p.name") == [
        (MAIN, "person:ada@vectorgraphdb.dev", "Ada Maintainer")]
    # the abbreviated sha names the commit: commit <-> session, both ways through IN_SESSION
    assert rows(code, "MATCH (c:Commit)-[:IN_SESSION]->(s:Session) RETURN c.id, s.id") == [
        (commit_id(SHA), MAIN)]
    about = rows(code, "MATCH (s:Session)-[a:ABOUT]->(f:File) WHERE s.id = $s "
                       "RETURN f.path, a.kind ORDER BY a.kind, f.path", {"s": MAIN})
    assert about == [("graphdb/loader.py", "modified"), ("graphdb/store.py", "modified"),
                     ("tests/ingest/test_incremental.py", "modified"),
                     ("graphdb/loader.py", "read"), ("graphdb/store.py", "read"),
                     ("ingest/pipeline.py", "read")]
    assert rows(code, "MATCH (e:Entry {display_id: 'FAIL-1'})-[:ABOUT]->(x) RETURN x.id "
                      "ORDER BY x.id") == [
        (file_id(REPO, "graphdb/loader.py"),),
        (symbol_id(REPO, "graphdb/loader.py", "_delete_outgoing"),)]
    assert rows(code, "MATCH (e:Entry {display_id: 'DEC-3'})-[:BASED_ON]->(p:Paper) "
                      "RETURN p.id, p.resolved, p.source ORDER BY p.id") == [
        ("paper:arxiv:1810.08473", False, "session"),
        ("paper:doi:10.1038/s41598-019-41695-z", False, "session")]
    assert rows(code, "MATCH (e:Entry {display_id: 'DEC-1'}) RETURN e.unresolved") == [
        (["paper:{'url': 'https://kuzudb.com/docs/import', 'title': 'Kuzu: import data'}"],)]


def test_example_supersession_dedup_and_outcomes(code: Store) -> None:
    load_sessions(code, [EXAMPLE])
    # DEC-2 supersedes DEC-1: old valid_to = new valid_from; edge with reason, evidence, by
    assert rows(code, "MATCH (n:Entry)-[s:SUPERSEDES]->(o:Entry) RETURN n.display_id, "
                      "o.display_id, o.valid_to = n.valid_from, s.reason, s.evidence, s.by") == [
        ("DEC-2", "DEC-1", True, "COPY into a populated table makes Kuzu rebuild the table at "
         "commit", "benchmark sub-session: one-file update COMMIT 1 s -> 23 ms",
         "agent:claude-code")]
    # the insight recorded again in the main session merged into the sub-session's one
    assert rows(code, "MATCH (e:Entry {display_id: 'INS-1'})-[r:IN_SESSION]->(s:Session) "
                      "RETURN s.id, r.merged ORDER BY s.id") == [(MAIN, True), (SUB, False)]
    # the outcome is a second RESOLVES edge, the first (pending) is kept
    assert rows(code, "MATCH (r:Entry)-[o:RESOLVES]->(f:Entry) RETURN r.display_id, "
                      "f.display_id, o.outcome ORDER BY o.valid_from") == [
        ("RES-1", "FAIL-1", "pending"), ("RES-1", "FAIL-1", "success")]
    # the same failure from two sessions has one signature
    assert rows(code, "MATCH (e:Entry {kind: 'failure'}) RETURN count(DISTINCT e.signature)"
                ) == [(1,)]


def test_loading_the_same_log_again_changes_nothing(code: Store) -> None:
    load_sessions(code, [EXAMPLE])
    before = rows(code, "MATCH (n) RETURN label(n), count(*) ORDER BY label(n)")
    edges = rows(code, "MATCH ()-[r]->() RETURN label(r), count(*) ORDER BY label(r)")
    again = load_sessions(code, [EXAMPLE])
    assert again.written == {}
    assert again.counts == {"already": 11, "merged": 1, "events": 21, "bad_lines": 0}
    assert rows(code, "MATCH (n) RETURN label(n), count(*) ORDER BY label(n)") == before
    assert rows(code, "MATCH ()-[r]->() RETURN label(r), count(*) ORDER BY label(r)") == edges


def test_bad_lines_are_reported_and_every_good_line_is_kept(code: Store,
                                                            tmp_path: Path) -> None:
    log = write_log(tmp_path / "bad.jsonl", [
        ev("session_start", "09:00:00", agent="claude-code", repo=REPO),       # 1
        "{\"type\": \"decision\", \"ts\": ",                                     # 2 malformed
        ev("decision", "09:01:00", id="d1", title="Kept", category="storage"),  # 3
        ev("mind_meld", "09:02:00", title="?"),                                 # 4 unknown type
        ev("note", "09:03:00", title="from the future", v=2),                   # 5 newer format
        ev("note", "09:04:00", title="kept too", files=["no/such/file.py"],     # 6 refs to
           symbols=["graphdb/store.py#Nope"], commits=["2b"],                   #   nothing
           papers=["A paper without an identifier"]),
        ev("resolution", "09:05:00", title="fix", resolves="FAIL-99"),          # 7 unknown ref
        ev("outcome", "09:06:00", resolution="RES-42", outcome="success"),      # 8 unknown ref
        ev("decision", "09:07:00", title="Also kept", category="storage",       # 9 supersedes
           supersedes="DEC-77"),                                                #   nothing
        ev("note", "08:59:00", title="out of order"),                           # 10 earlier ts
    ])
    summary = load_sessions(code, [log])
    errors = [(i.line, i.code) for i in summary.issues if i.severity == "error"]
    assert errors == [(2, "invalid"), (4, "invalid"), (5, "invalid"), (8, "not_found"),
                      (9, "conflict")]
    conflict = next(i for i in summary.issues if i.line == 9 and i.severity == "error")
    assert conflict.active == ({"id": summary.recorded[1].id, "display_id": "DEC-1",
                                "title": "Kept"},)
    warnings = [(i.line, i.message) for i in summary.issues if i.severity == "warning"]
    assert warnings == [
        (6, "note: no file 'no/such/file.py' in 'vectorgraphdb'; kept as unresolved"),
        (6, "note: no symbol 'graphdb/store.py#Nope' in 'vectorgraphdb'; kept as unresolved"),
        (6, "note: no commit '2b' (or the prefix is ambiguous); kept as unresolved"),
        (6, "note: paper reference 'A paper without an identifier' has no DOI or arXiv id; "
            "kept as unresolved"),
        (7, "resolution: resolves 'FAIL-99', which names no entry; kept as unresolved"),
        (9, "decision: supersedes 'DEC-77', which names no entry"),
        (10, "note at 2026-11-02T08:59:00 is earlier than line 9 (2026-11-02T09:07:00); "
             "events are applied in time order")]
    assert rows(code, "MATCH (e:Entry) RETURN e.display_id, e.title, e.unresolved "
                      "ORDER BY e.valid_from") == [
        ("NOTE-1", "out of order", []), ("DEC-1", "Kept", []),
        ("NOTE-2", "kept too", ["file:no/such/file.py", "symbol:graphdb/store.py#Nope",
                                "commit:2b", "paper:A paper without an identifier"]),
        ("RES-1", "fix", ["resolves:FAIL-99"])]
    assert summary.files[0].errors == 5 and summary.files[0].warnings == 7


def test_events_out_of_order_and_sessions_without_a_start(code: Store, tmp_path: Path) -> None:
    log = write_log(tmp_path / "order.jsonl", [
        ev("decision", "10:05:00", id="d1", title="Decided before the start line"),
        ev("session_start", "10:00:00", agent="claude-code", title="late start line"),
        ev("resolution", "10:07:00", id="r1", title="fix", resolves="f1"),  # failure comes later
        ev("failure", "10:06:00", id="f1", error="boom at x.py:3"),
        ev("note", "10:08:00", session="orphan", title="no session_start anywhere"),
        ev("session_end", "10:09:00", summary="done"),
    ])
    summary = load_sessions(code, [log])
    assert [(i.line, i.code, i.severity) for i in summary.issues] == [
        (2, "order", "warning"), (4, "order", "warning"), (5, "order", "warning")]
    assert summary.issues[2].message == ("session 'orphan' has no session_start; created "
                                         "from this event")
    assert rows(code, "MATCH (s:Session) RETURN s.id, s.title, s.started_at, s.ended_at, "
                      "s.summary ORDER BY s.id") == [
        ("session:orphan", "", *[_t("10:08:00")], None, ""),
        ("session:s1", "late start line", _t("10:00:00"), _t("10:09:00"), "done")]
    assert rows(code, "MATCH (r:Entry)-[:RESOLVES]->(f:Entry) RETURN r.title, f.title") == [
        ("fix", "boom at x.py:3")]
    assert rows(code, "MATCH (e:Entry)-[:BY]->(a:Agent) RETURN count(*)") == [(3,)]


def _t(hms: str) -> object:
    from datetime import datetime
    return datetime.fromisoformat(f"2026-11-02T{hms}")


def test_superseding_a_superseded_entry_names_the_head_of_its_chain(code: Store,
                                                                    tmp_path: Path) -> None:
    log = write_log(tmp_path / "chain.jsonl", [
        ev("decision", "10:00:00", id="a", title="Use COPY", category="storage"),
        ev("decision", "10:01:00", id="b", title="Use CREATE", category="storage",
           supersedes="a", reason="small deltas"),
        ev("decision", "10:02:00", id="c", title="Use MERGE", category="storage",
           supersedes="a"),
        ev("pattern", "10:03:00", id="p", title="Cannot supersede a decision", category="x",
           supersedes="b"),
    ])
    summary = load_sessions(code, [log])
    errors = [i for i in summary.issues if i.severity == "error"]
    assert [(i.line, i.code) for i in errors] == [(3, "superseded"), (4, "invalid")]
    assert errors[0].message.startswith(
        "DEC-1 is no longer active: it was superseded; the current head of its chain is DEC-2")
    assert errors[0].active[0]["display_id"] == "DEC-2"
    assert errors[1].message == "pattern cannot supersede DEC-2, a decision"
    # again, in a later load against the stored graph
    again = load_sessions(code, [write_log(tmp_path / "later.jsonl", [
        ev("decision", "11:00:00", session="s2", title="Use MERGE", category="storage",
           supersedes="DEC-1")])])
    assert [i.code for i in again.issues] == ["order", "superseded"]
    assert "the current head of its chain is DEC-2" in again.issues[1].message


def test_cli_ingest_session(tmp_path: Path) -> None:
    db = tmp_path / "db"
    done = run_vgdb("ingest-session", str(EXAMPLE), "--db", str(db), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["events"] == 21 and data["counts"]["entries"] == 10
    assert [f["events"] for f in data["files"]] == [21]
    # an empty graph: no file, symbol or commit resolves, and every line is still loaded
    assert data["errors"] == []
    assert {w["code"] for w in data["warnings"]} == {"unresolved"}
    assert sorted({w["line"] for w in data["warnings"]}) == [
        2, 4, 5, 6, 7, 8, 10, 11, 12, 15, 18, 19, 20]
    text = run_vgdb("ingest-session", str(EXAMPLE), str(tmp_path / "missing.jsonl"),
                    "--db", str(db))
    assert text.returncode == 2
    assert "cannot read" in text.stderr and "missing.jsonl" in text.stderr
    assert "21 events, 0 bad lines" in text.stdout
    assert "11 already loaded" in text.stdout
