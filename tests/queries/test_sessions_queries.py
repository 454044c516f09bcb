"""Reading sessions back: as_of (valid time) and known_at (transaction time), supersession
chains, and failures grouped by signature with ranked resolutions — on a real graph."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest

from graphdb import Store
from ingest.sessions import Recorder, load_sessions
from queries import failure_groups, get_entry, list_entries, supersession_chain
from schema import NodeNotFoundError, session_id
from tests.helpers import ROOT
from tests.ingest.test_sessions_fixtures import REPO, seed_code

EXAMPLE = ROOT / "datasets" / "sessions" / "example-session.jsonl"
T = datetime(2026, 11, 2, 9, 0)


def at(minutes: int) -> datetime:
    return T + timedelta(minutes=minutes)


def now() -> datetime:
    time.sleep(0.002)
    return datetime.now(UTC).replace(tzinfo=None)


def test_as_of_and_known_at(store: Store) -> None:
    rec = Recorder(store, session="s", agent="a", repo=REPO)
    old = rec.record_decision("COPY everything", category="storage", scope=["graphdb/**"],
                              at=at(0))
    before_supersession = now()
    new = rec.record_decision("COPY for bulk, CREATE for deltas", category="storage",
                              scope=["graphdb/**"], supersedes=old.id, at=at(60))

    def ids(**kw: object) -> list[str]:
        return [e.display_id for e in list_entries(store, kind="decision", **kw)]

    assert ids() == ["DEC-2"]
    assert ids(as_of=at(30)) == ["DEC-1"]          # valid time: before the new decision
    assert ids(as_of=at(60)) == ["DEC-2"]
    assert ids(as_of=at(-1)) == []                   # before anything was decided
    # transaction time: before the supersession was recorded, DEC-1 was believed current
    assert ids(known_at=before_supersession) == ["DEC-1"]
    assert ids(known_at=before_supersession, as_of=at(90)) == ["DEC-1"]
    assert ids(known_at=datetime(2000, 1, 1)) == []
    history = list_entries(store, kind="decision", history=True)
    assert [(e.display_id, e.status, e.valid_to, e.superseded_by) for e in history] == [
        ("DEC-1", "superseded", at(60), new.id), ("DEC-2", "active", None, "")]
    assert get_entry(store, "DEC-1", known_at=before_supersession).status == "active"
    assert get_entry(store, old.id).status == "superseded"
    with pytest.raises(NodeNotFoundError):
        get_entry(store, "DEC-99")


def test_filters_and_chain_on_the_example_session(store: Store) -> None:
    seed_code(store)
    load_sessions(store, [EXAMPLE])
    assert [e.display_id for e in list_entries(store, category="storage", history=True)] == [
        "DEC-1", "DEC-2"]
    # scope: entries whose scope overlaps graphdb/store.py
    assert [e.display_id for e in list_entries(store, scope="graphdb/store.py")] == [
        "PAT-1", "FAIL-1", "RES-1", "FAIL-2", "INS-1", "DEC-2", "NOTE-1"]
    sub = session_id("2026-11-02-incremental-loader.bench")
    assert [e.display_id for e in list_entries(store, session=sub)] == [
        "FAIL-2", "INS-1"]
    # the intent lapsed at 2026-11-03 18:00
    assert [e.display_id for e in list_entries(store, kind="intent",
                                               as_of=datetime(2026, 11, 2, 12))] == ["INT-1"]
    assert list_entries(store, kind="intent", as_of=datetime(2026, 11, 4)) == ()
    chain = supersession_chain(store, "DEC-1")
    assert [(link.entry.display_id, link.reason) for link in chain.links] == [
        ("DEC-1", "COPY into a populated table makes Kuzu rebuild the table at commit"),
        ("DEC-2", "")]
    assert chain.current is not None and chain.current.display_id == "DEC-2"
    assert supersession_chain(store, "DEC-2").current == chain.current
    assert get_entry(store, "RES-1").outcome == "success"
    assert get_entry(store, "RES-1", as_of=datetime(2026, 11, 2, 9, 50)).outcome == "pending"


def test_failures_group_by_signature_with_resolutions_ranked(store: Store) -> None:
    error = "TimeoutError: lock held by 'vgdb ingest (pid {})' at graphdb/lock.py:{}"
    outcomes = ["worsened", "failed", "pending", "partial", "success", "success"]
    for n, outcome in enumerate(outcomes):
        rec = Recorder(store, session=f"s{n}", agent="a")
        fail = rec.record_failure(error.format(1000 + n, 40 + n), category="locking",
                                  file="graphdb/lock.py", at=at(n * 10))
        res = rec.record_resolution(fail.id, f"fix {n}", at=at(n * 10 + 1))
        if outcome != "pending":
            rec.record_outcome(res.id, outcome, at=at(n * 10 + 2))
    other = Recorder(store, session="other", agent="a")
    other.record_failure("ValueError: bad config 'x'", category="config", at=at(100))
    groups = failure_groups(store)
    assert [(g.category, g.file, len(g.failures), len(g.sessions)) for g in groups] == [
        ("locking", "graphdb/lock.py", 6, 6), ("config", "", 1, 1)]
    top = groups[0]
    assert top.signature == ("locking | graphdb/lock.py | TimeoutError: lock held by '…' at "
                             "graphdb/lock.py:<n>")
    assert [(r.title, r.outcome) for r in top.resolutions] == [
        ("fix 5", "success"), ("fix 4", "success"), ("fix 3", "partial"),
        ("fix 2", "pending"), ("fix 1", "failed"), ("fix 0", "worsened")]
    assert groups[1].resolutions == ()
    # as it stood at minute 25: three failures, and fix 1 had not failed yet
    early = failure_groups(store, as_of=at(25), category="locking")
    assert [(r.title, r.outcome) for r in early[0].resolutions] == [
        ("fix 2", "pending"), ("fix 1", "failed"), ("fix 0", "worsened")]
    assert len(early[0].failures) == 3
    assert failure_groups(store, file="graphdb/lock.py")[0].signature == top.signature
    assert failure_groups(store, file="nope.py") == ()
