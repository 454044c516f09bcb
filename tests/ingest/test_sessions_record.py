"""The one-at-a-time write API (Recorder) on a real graph: conflicts, supersession, dedup,
outcomes, and the same rules as the batch loader."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphdb import Store
from ingest.sessions import Recorder, load_sessions
from schema import ConflictError, NodeNotFoundError, SessionFormatError, session_id
from tests.ingest.test_sessions_fixtures import REPO, ev, seed_code, write_log

T = datetime(2026, 11, 2, 9, 0)


def at(minutes: int) -> datetime:
    return T + timedelta(minutes=minutes)


@pytest.fixture
def rec(store: Store) -> Recorder:
    seed_code(store)
    return Recorder(store, session="api-1", agent="claude-code", model="claude-opus-4",
                    repo=REPO)


def rows(store: Store, query: str, params: dict | None = None) -> list[tuple]:
    return [tuple(r) for r in store.cypher(query, params).rows()]


def test_decision_conflict_supersede_and_narrow_scope(rec: Recorder) -> None:
    first = rec.record_decision("COPY FROM polars frames for every insert", category="storage",
                                scope=["graphdb/**"], at=at(0))
    assert (first.kind, first.display_id, first.merged) == ("decision", "DEC-1", False)
    with pytest.raises(ConflictError) as caught:
        rec.record_decision("UNWIND CREATE for small deltas", category="storage",
                            scope=["graphdb/loader.py"], at=at(5))
    err = caught.value
    assert err.exit_code == 4
    assert err.active == [{"id": first.id, "display_id": "DEC-1",
                           "title": "COPY FROM polars frames for every insert"}]
    assert err.choices == ("supersede", "narrow_scope", "abort")
    assert "declare supersedes DEC-1, narrow the scope, or abort" in err.message
    # another category, or a scope that does not overlap, is no conflict
    assert rec.record_decision("UNWIND CREATE for small deltas", category="style",
                               scope=["graphdb/loader.py"], at=at(6)).display_id == "DEC-2"
    assert rec.record_decision("Queries read through Store.cypher", category="storage",
                               scope=["queries/**"], at=at(7)).display_id == "DEC-3"
    second = rec.record_decision("COPY for bulk, UNWIND CREATE for small deltas",
                                 category="storage", scope=["graphdb/loader.py"],
                                 supersedes="DEC-1", reason="COPY into a populated table "
                                 "is slow at commit", evidence="COMMIT 1 s -> 23 ms", at=at(10))
    assert second.display_id == "DEC-4"
    store = rec.store
    assert rows(store, "MATCH (e:Entry) WHERE e.id = $id RETURN e.status, e.valid_to",
                {"id": first.id}) == [("superseded", at(10))]
    assert rows(store, "MATCH (n:Entry)-[s:SUPERSEDES]->(o:Entry) RETURN n.id, o.id, "
                       "s.reason, s.evidence, s.at, s.by, s.source") == [
        (second.id, first.id, "COPY into a populated table is slow at commit",
         "COMMIT 1 s -> 23 ms", at(10), "agent:claude-code", "session")]
    # the old one cannot be superseded again: the error names the head of the chain
    with pytest.raises(ConflictError) as caught:
        rec.record_decision("MERGE everything", category="storage", supersedes=first.id,
                            at=at(11))
    assert caught.value.active[0]["display_id"] == "DEC-4"
    assert "the current head of its chain is DEC-4" in caught.value.message


def test_patterns_conflict_through_a_common_file_of_the_repository(rec: Recorder) -> None:
    rec.record_pattern("Keep modules small", category="style", scope=["graphdb/*.py"],
                       at=at(0))
    # neither glob covers the other, but both cover graphdb/loader.py, a file of the graph
    with pytest.raises(ConflictError):
        rec.record_pattern("One module per table", category="style", scope=["**/loader.py"],
                           at=at(1))
    # no file of the repository matches both
    assert rec.record_pattern("Tests mirror modules", category="style",
                              scope=["tests/**/test_*.py", "**/conftest.py"],
                              at=at(2)).display_id == "PAT-2"


def test_near_duplicates_merge_into_the_existing_entry(rec: Recorder) -> None:
    first = rec.record_insight("A rel COPY into a populated table costs ~0.5 s at commit",
                               "Kuzu rebuilds the rel table's adjacency at commit.",
                               category="kuzu", at=at(0))
    other = Recorder(rec.store, session="api-2", agent="bench-runner", repo=REPO)
    dup = other.record_insight("A rel COPY into a populated table costs about 0.5 s at commit",
                               "Kuzu rebuilds the rel table's adjacency at commit.",
                               category="Kuzu", at=at(5))
    assert (dup.id, dup.display_id, dup.merged) == (first.id, "INS-1", True)
    assert dup.similarity >= 0.9
    exact = other.record_insight("a rel copy into a populated table costs ~0.5 s at commit!",
                                 "Kuzu rebuilds the rel table's adjacency at commit",
                                 category="kuzu", at=at(6))
    assert (exact.id, exact.merged, exact.similarity) == (first.id, True, 1.0)
    assert rows(rec.store, "MATCH (e:Entry) RETURN count(*)") == [(1,)]
    assert rows(rec.store, "MATCH (e:Entry)-[r:IN_SESSION]->(s:Session) RETURN s.id, r.merged "
                           "ORDER BY s.id") == [(session_id("api-1"), False),
                                                (session_id("api-2"), True)]
    # another category is another entry
    assert not rec.record_insight("A rel COPY into a populated table costs ~0.5 s at commit",
                                  "Kuzu rebuilds the rel table's adjacency at commit.",
                                  category="perf", at=at(7)).merged


def test_failures_resolutions_and_outcomes_append(rec: Recorder) -> None:
    fail = rec.record_failure("KeyError: 'sym:a' at graphdb/loader.py:120", category="kuzu",
                              file="graphdb/loader.py", approach="delete after insert",
                              at=at(0))
    assert (fail.display_id, fail.unresolved) == ("FAIL-1", ())
    res = rec.record_resolution("FAIL-1", "Deletions first", at=at(1))
    assert res.display_id == "RES-1"
    out = rec.record_outcome("RES-1", "partial", at=at(2))
    assert (out.kind, out.id) == ("outcome", res.id)
    rec.record_outcome(res.id, "success", at=at(3))
    assert rows(rec.store, "MATCH (r:Entry)-[o:RESOLVES]->(f:Entry) RETURN o.outcome "
                           "ORDER BY o.valid_from") == [("pending",), ("partial",), ("success",)]
    assert rows(rec.store, "MATCH (e:Entry) WHERE e.id = $id RETURN e.outcome, e.signature",
                {"id": res.id}) == [("pending", None)]  # never edited in place
    assert rows(rec.store, "MATCH (e:Entry) WHERE e.id = $id RETURN e.signature",
                {"id": fail.id}) == [("kuzu | graphdb/loader.py | KeyError: '…' at "
                                      "graphdb/loader.py:<n>",)]
    with pytest.raises(NodeNotFoundError):
        rec.record_outcome("RES-9", "success")
    with pytest.raises(SessionFormatError, match="outcome must be one of"):
        rec.record_outcome("RES-1", "splendid")
    warnings = rec.record_files(["graphdb/store.py", "nope.py"], modified=True, at=at(4))
    assert warnings == ["file_modified: no file 'nope.py' in repository 'vectorgraphdb'"]
    assert rec.record_commit("2bdb19e2", at=at(5)) == []


def test_the_api_and_the_batch_loader_apply_the_same_rules(store: Store,
                                                          tmp_path: Path) -> None:
    """The same events through a log and through Recorder calls give the same entries."""
    log = write_log(tmp_path / "s.jsonl", [
        ev("session_start", "09:00:00", session="batch", agent="a"),
        ev("decision", "09:01:00", session="batch", title="Use COPY", category="db"),
        ev("decision", "09:02:00", session="batch", title="Use CREATE", category="db"),
        ev("decision", "09:03:00", session="batch", title="Use CREATE", category="db",
           supersedes="DEC-1"),
        ev("note", "09:04:00", session="batch", title="Checkpoints cost 1 s"),
        ev("note", "09:05:00", session="batch", title="checkpoints cost 1 s!"),
    ])
    load_sessions(store, [log])
    batch = rows(store, "MATCH (e:Entry) RETURN e.display_id, e.title, e.status, e.valid_to "
                        "ORDER BY e.display_id")
    with Store.open(tmp_path / "api") as other:
        rec = Recorder(other, session="api", agent="a")
        rec.record_decision("Use COPY", category="db", at=at(1))
        with pytest.raises(ConflictError):
            rec.record_decision("Use CREATE", category="db", at=at(2))
        rec.record_decision("Use CREATE", category="db", supersedes="DEC-1", at=at(3))
        rec.record_note("Checkpoints cost 1 s", at=at(4))
        assert rec.record_note("checkpoints cost 1 s!", at=at(5)).merged
        assert rows(other, "MATCH (e:Entry) RETURN e.display_id, e.title, e.status, "
                           "e.valid_to ORDER BY e.display_id") == batch
    assert batch == [("DEC-1", "Use COPY", "superseded", at(3)),
                     ("DEC-2", "Use CREATE", "active", None),
                     ("NOTE-1", "Checkpoints cost 1 s", "active", None)]


# ------------------------------------------------------------------ invariant (hypothesis)
@pytest.fixture(scope="module")
def chain_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    with Store.open(tmp_path_factory.mktemp("chains") / "db") as s:
        yield s


_RUNS = iter(range(10**6))


@given(st.lists(st.tuples(st.integers(0, 6), st.booleans(), st.integers(0, 3)),
                min_size=1, max_size=12))
def test_exactly_one_active_entry_per_chain(chain_store: Store, tmp_path_factory,
                                            steps: list[tuple[int, bool, int]]) -> None:
    """After any sequence of decisions that supersede earlier ones (current or not, same
    scope or not), each chain has exactly one active entry and no entry is superseded twice."""
    run = next(_RUNS)
    cat = f"c{run}"
    events = [ev("session_start", "09:00:00", session=f"h{run}", agent="a")]
    for n, (target, declare, scope) in enumerate(steps):
        fields = {"id": f"d{n}", "title": f"decision {n}", "category": cat,
                  "scope": [f"pkg{scope}/**"]}
        if declare and target < n:
            fields["supersedes"] = f"d{target}"
        events.append(ev("decision", f"09:{n + 1:02d}:00", session=f"h{run}", **fields))
    log = write_log(tmp_path_factory.mktemp("h") / "h.jsonl", events)
    load_sessions(chain_store, [log])
    entries = rows(chain_store, "MATCH (e:Entry) WHERE e.category = $c RETURN e.id, e.status, "
                                "e.valid_to IS NULL AND e.expired_at IS NULL", {"c": cat})
    edges = rows(chain_store, "MATCH (n:Entry)-[:SUPERSEDES]->(o:Entry) WHERE o.category = $c "
                              "RETURN n.id, o.id", {"c": cat})
    assert len({o for _, o in edges}) == len(edges)  # superseded at most once
    parent = {o: n for n, o in edges}
    heads: dict[str, str] = {}
    for eid, _, _ in entries:
        head = eid
        while head in parent:
            head = parent[head]
        heads[eid] = head
    active = {eid for eid, _, current in entries if current}
    assert {eid for eid, status, _ in entries if status == "active"} == active
    for head in set(heads.values()):
        chain = {e for e, h in heads.items() if h == head}
        assert chain & active == {head}
    # and the conflict rule holds: no two active entries with overlapping scopes
    scopes = rows(chain_store, "MATCH (e:Entry) WHERE e.category = $c AND e.valid_to IS NULL "
                               "RETURN e.scope", {"c": cat})
    assert len(scopes) == len({tuple(s) for (s,) in scopes})
