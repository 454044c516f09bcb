"""queries.supersession: whole chains both ways for entries, symbols (renames and moves from
a real git history) and papers, current versions, as_of / known_at, and the CLI."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from api.cli import main
from graphdb import Store
from ingest.pipeline import IngestOptions, ingest_repository
from ingest.sessions import Recorder
from queries import supersession_chain
from queries.supersession import supersession
from schema import NodeNotFoundError
from tests.gitrepo import GitRepo

BODY = "    total = 0\n    for x in xs:\n        total += x * 2\n    return total\n"


def _at(repo: GitRepo, tick: int) -> datetime:
    return datetime.fromtimestamp(repo.time_of(tick), UTC).replace(tzinfo=None)


@pytest.fixture
def renamed(tmp_path: Path) -> tuple[GitRepo, Path]:
    """a.py#old_name renamed to new_name, then the file moved to b.py."""
    repo = GitRepo(tmp_path / "proj")
    repo.commit("add", {"a.py": f"def old_name(xs):\n{BODY}"})
    repo.commit("rename", {"a.py": f"def new_name(xs):\n{BODY}"})
    repo.move("a.py", "b.py")
    repo.commit("move")
    with Store.open(tmp_path / "db") as store:
        ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
    return repo, tmp_path / "db"


def test_symbol_chain_both_ways_from_any_version(renamed: tuple[GitRepo, Path]) -> None:
    repo, db = renamed
    old, mid, new = ("sym:proj/a.py#old_name", "sym:proj/a.py#new_name",
                     "sym:proj/b.py#new_name")
    with Store.open(db, read_only=True) as store:
        chains = [supersession(store, ref) for ref in (old, "a.py#new_name", "b.py#new_name")]
        back = supersession(store, new, as_of=_at(repo, 1))
        between = supersession(store, old, as_of=_at(repo, 2))
    for chain in chains:
        assert [(v.id, v.status, v.current) for v in chain.versions] == [
            (old, "superseded", False), (mid, "superseded", False), (new, "current", True)]
        assert [(e.newer, e.older, e.reason, e.at) for e in chain.edges] == [
            (mid, old, "renamed", _at(repo, 2)), (new, mid, "moved", _at(repo, 3))]
        assert chain.current == (new,)
        assert all(e.source == "git" for e in chain.edges)
    assert (chains[0].replaces, chains[0].replaced_by) == ((), (mid, new))
    assert (chains[1].replaces, chains[1].replaced_by) == ((old,), (new,))
    assert (chains[2].replaces, chains[2].replaced_by) == ((old, mid), ())
    assert back.at == (old,) and back.current == (new,)
    assert between.at == (mid,)
    assert chains[0].to_polars()["id"].to_list() == [old, mid, new]


def test_a_file_means_its_module_symbol(renamed: tuple[GitRepo, Path]) -> None:
    _, db = renamed
    with Store.open(db, read_only=True) as store:
        chain = supersession(store, "b.py")
    assert chain.node == "sym:proj/b.py#<module>"
    assert [v.id for v in chain.versions] == ["sym:proj/a.py#<module>", "sym:proj/b.py#<module>"]
    assert chain.notes == ("file:proj/b.py is a file: showing the chain of its module symbol "
                           "sym:proj/b.py#<module> (file renames and moves)",)


def test_entry_chain_with_as_of_and_known_at(store: Store) -> None:
    rec = Recorder(store, session="s-1", title="layout", agent="claude-code", model="opus")
    t = [datetime(2026, 1, d) for d in (1, 2, 3)]
    a = rec.record_decision("Helpers in utils.py", category="layout", scope=["utils.py"],
                            at=t[0])
    b = rec.record_decision("Helpers in helpers/", category="layout", scope=["utils.py"],
                            supersedes=[a.id], reason="utils.py grew", at=t[1])
    time.sleep(0.01)
    known = datetime.now(UTC).replace(tzinfo=None)
    time.sleep(0.01)
    c = rec.record_decision("Helpers next to their callers", category="layout",
                            scope=["utils.py"], supersedes=[b.id], reason="fewer imports",
                            at=t[2])
    chain = supersession(store, b.display_id)
    assert [(v.display_id, v.status, v.current) for v in chain.versions] == [
        (a.display_id, "superseded", False), (b.display_id, "superseded", False),
        (c.display_id, "active", True)]
    assert [(e.newer, e.older, e.reason, e.at) for e in chain.edges] == [
        (b.id, a.id, "utils.py grew", t[1]), (c.id, b.id, "fewer imports", t[2])]
    assert (chain.replaces, chain.replaced_by, chain.current) == ((a.id,), (c.id,), (c.id,))
    assert supersession(store, a.id, as_of=datetime(2026, 1, 2, 12)).at == (b.id,)
    then = supersession(store, a.display_id, known_at=known)
    assert [(v.display_id, v.current) for v in then.versions] == [
        (a.display_id, False), (b.display_id, True)]
    assert then.current == (b.id,)
    with pytest.raises(NodeNotFoundError, match="known at"):
        supersession(store, c.id, known_at=known)
    # the entry chain of queries.sessions walks the same versions
    assert [link.entry.id for link in supersession_chain(store, b.display_id).links] == [
        a.id, b.id, c.id]


def test_paper_chain_and_unknown_nodes(store: Store) -> None:
    with store.write() as tx:
        tx.execute("CREATE (:Paper {id: 'paper:doi:10.17487/rfc2616', title: 'HTTP/1.1', "
                   "kind: 'rfc', year: 1999}), (:Paper {id: 'paper:doi:10.17487/rfc7230', "
                   "title: 'HTTP/1.1: Message Syntax and Routing', kind: 'rfc', year: 2014})")
        tx.execute("MATCH (n:Paper {id: 'paper:doi:10.17487/rfc7230'}), "
                   "(o:Paper {id: 'paper:doi:10.17487/rfc2616'}) CREATE (n)-[:SUPERSEDES "
                   "{reason: 'obsoletes', source: 'import', confidence: 1.0}]->(o)")
    chain = supersession(store, "paper:doi:10.17487/rfc2616")
    assert chain.table == "Paper"
    assert chain.replaced_by == ("paper:doi:10.17487/rfc7230",)
    assert chain.current == ("paper:doi:10.17487/rfc7230",)
    assert [(e.reason, e.source) for e in chain.edges] == [("obsoletes", "import")]
    lone = supersession(store, "paper:doi:10.17487/rfc7230")
    assert lone.replaces == ("paper:doi:10.17487/rfc2616",)
    with pytest.raises(NodeNotFoundError, match=r"no Paper 'paper:doi:10\.1/none'"):
        supersession(store, "paper:doi:10.1/none")
    with pytest.raises(NodeNotFoundError, match="nothing in the graph is named"):
        supersession(store, "DEC-404")


def test_cli_supersession(renamed: tuple[GitRepo, Path],
                          capsys: pytest.CaptureFixture[str]) -> None:
    _, db = renamed
    main(["supersession", "a.py#old_name", "--db", str(db), "--wide"])  # whole lines
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ("sym:proj/a.py#old_name (Symbol): 3 versions, current: "
                        "sym:proj/b.py#new_name")
    assert lines[1] == "  2023-11-14 23:13  sym:proj/a.py#old_name  superseded  old_name"
    assert lines[2] == ("      replaced by sym:proj/a.py#new_name at 2023-11-15 00:13: "
                        "renamed (" + lines[2].split("(", 1)[1])
    assert lines[-1] == "* 2023-11-15 01:13  sym:proj/b.py#new_name  current  new_name"
    main(["supersession", "b.py#new_name", "--db", str(db), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["current"] == ["sym:proj/b.py#new_name"]
    assert [e["reason"] for e in data["edges"]] == ["renamed", "moved"]
    with pytest.raises(SystemExit) as exit_:
        main(["supersession", "nope.py#f", "--db", str(db)])
    assert exit_.value.code == 1
    assert "nothing in the graph is named 'nope.py#f'" in capsys.readouterr().err
