"""queries.provenance on real git histories: commits with authors and times, renames followed
back, bi-temporal filters, and the CLI."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from graphdb import Store
from ingest.pipeline import IngestOptions, ingest_repository
from queries import provenance
from schema import NodeNotFoundError
from tests.gitrepo import GitRepo
from tests.helpers import run_vgdb

BODY = "    total = 0\n    for x in xs:\n        total += x * 2\n    return total\n"


def _at(repo: GitRepo, tick: int) -> datetime:
    return datetime.fromtimestamp(repo.time_of(tick), UTC).replace(tzinfo=None)


@pytest.fixture
def history(tmp_path: Path) -> tuple[GitRepo, Path]:
    """a.py#old_name added by Ann, edited by Bob, renamed to new_name by Ann, file moved."""
    repo = GitRepo(tmp_path / "proj")
    repo.commit("add", {"a.py": f"def old_name(xs):\n{BODY}"})
    repo.commit("tweak", {"a.py": f"def old_name(xs):\n{BODY.replace('* 2', '* 3')}"},
                author="Bob <bob@example.org>")
    repo.commit("rename", {"a.py": f"def new_name(xs):\n{BODY.replace('* 2', '* 3')}"})
    repo.move("a.py", "b.py")
    repo.commit("move")
    db = tmp_path / "db"
    with Store.open(db) as store:
        ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
    return repo, db


def test_symbol_provenance_follows_renames_and_moves_back(history: tuple[GitRepo, Path]
                                                          ) -> None:
    repo, db = history
    with Store.open(db, read_only=True) as store:
        p = provenance(store, "b.py#new_name")
    assert (p.id, p.table, p.current, p.source) == ("sym:proj/b.py#new_name", "Symbol", True,
                                                   "ast")
    assert [(c.summary, c.kind, c.author, c.via, c.at) for c in p.commits] == [
        ("add", "added", "Ann Author", "sym:proj/a.py#old_name", _at(repo, 1)),
        ("tweak", "modified", "Bob", "sym:proj/a.py#old_name", _at(repo, 2)),
        ("rename", "renamed", "Ann Author", "sym:proj/a.py#new_name", _at(repo, 3)),
        ("rename", "renamed", "Ann Author", "sym:proj/a.py#old_name", _at(repo, 3)),
        ("move", "renamed", "Ann Author", "sym:proj/a.py#new_name", _at(repo, 4)),
        ("move", "renamed", "Ann Author", "sym:proj/b.py#new_name", _at(repo, 4)),
    ]
    assert (p.introduced.summary, p.introduced.author_id) == ("add", "person:ann@example.org")
    assert p.last_modified.summary == "move"
    assert [(x.other, x.direction, x.reason) for x in p.lineage] == [
        ("sym:proj/a.py#new_name", "replaces", "moved")]
    assert all(c.source == "git" and c.confidence == 1.0 for c in p.commits)


def test_deleted_symbol_says_when_and_by_whom(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "proj")
    repo.commit("add", {"m.py": "def f():\n    return 1\n\n\ndef g():\n    return 2\n"})
    repo.commit("drop g", {"m.py": "def f():\n    return 1\n"},
                author="Bob <bob@example.org>")
    with Store.open(tmp_path / "db") as store:
        ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
        p = provenance(store, "sym:proj/m.py#g")
    assert (p.current, p.valid_to) == (False, _at(repo, 2))
    assert (p.deleted.summary, p.deleted.author) == ("drop g", "Bob")
    assert p.introduced.summary == "add"


def test_file_provenance_follows_the_file_across_renames(history: tuple[GitRepo, Path]
                                                         ) -> None:
    _, db = history
    with Store.open(db, read_only=True) as store:
        p = provenance(store, "file:proj/b.py")
    assert [(c.summary, c.kind, c.path) for c in p.commits] == [
        ("add", "added", "a.py"), ("tweak", "modified", "a.py"), ("rename", "modified", "a.py"),
        ("move", "renamed", "b.py")]


def test_as_of_keeps_only_facts_already_true(history: tuple[GitRepo, Path]) -> None:
    repo, db = history
    with Store.open(db, read_only=True) as store:
        p = provenance(store, "sym:proj/a.py#old_name", as_of=_at(repo, 2))
        assert [c.summary for c in p.commits] == ["add", "tweak"]
        assert p.lineage == ()
        before = provenance(store, "sym:proj/a.py#old_name",
                            known_at=datetime(2000, 1, 1))
        assert before.commits == ()


def test_unknown_and_ambiguous_references_are_clear_errors(history: tuple[GitRepo, Path]
                                                           ) -> None:
    _, db = history
    with Store.open(db, read_only=True) as store:
        with pytest.raises(NodeNotFoundError, match="nothing in the graph is named"):
            provenance(store, "nope.py#f")
        with pytest.raises(NodeNotFoundError, match="no node with id"):
            provenance(store, "sym:proj/nope.py#f")


def test_cli_prints_and_serializes_provenance(history: tuple[GitRepo, Path]) -> None:
    _, db = history
    shown = run_vgdb("provenance", "b.py#new_name", "--db", str(db))
    assert shown.returncode == 0, shown.stderr
    assert "introduced:" in shown.stdout and "Ann Author: add" in shown.stdout
    data = json.loads(run_vgdb("provenance", "b.py#new_name", "--db", str(db), "--json").stdout)
    assert data["introduced"]["summary"] == "add"
    missing = run_vgdb("provenance", "nope.py#f", "--db", str(db))
    assert missing.returncode == 1
    assert "nothing in the graph is named" in missing.stderr


def test_sessions_and_decisions_join_the_commits(history: tuple[GitRepo, Path]) -> None:
    """A session that read the file, decided about the symbol and made the last commit shows
    up in the symbol's provenance; the decision's own provenance names its session, what it
    replaced and who made it."""
    from ingest.sessions import Recorder

    repo, db = history
    move_sha = repo.git("rev-parse", "HEAD")
    with Store.open(db) as store:
        rec = Recorder(store, session="s-1", title="tidy names", agent="claude-code",
                       model="opus", repo="proj")
        rec.record_files(["b.py"], modified=True)
        first = rec.record_decision("Sum helpers live in b.py", category="layout",
                                    scope=["b.py"], symbols=["b.py#new_name"])
        second = rec.record_decision("Sum helpers live in sums.py", category="layout",
                                     scope=["b.py"], symbols=["b.py#new_name"],
                                     supersedes=[first.id], reason="b.py grew too large")
        assert rec.record_commit(move_sha[:10]) == []
        sym = provenance(store, "b.py#new_name")
        decision = provenance(store, second.display_id)
        file = provenance(store, "b.py")
    assert [(e.display_id, e.relation, e.current) for e in sym.entries] == [
        (first.display_id, "about", False), (second.display_id, "about", True)]
    move = next(c for c in sym.commits if c.summary == "move")
    assert move.session == "session:s-1"
    assert [(s.id, s.relation) for s in file.sessions] == [("session:s-1", "modified")]
    assert (decision.table, decision.current) == ("Entry", True)
    assert [(s.id, s.relation, s.by) for s in decision.sessions] == [
        ("session:s-1", "contains", "claude-code")]
    assert [(x.other, x.direction, x.reason) for x in decision.lineage] == [
        (first.id, "replaces", "b.py grew too large")]
