"""Briefings on a real graph with git history and recorded sessions: every tier stays within
its budget (counted with cl100k_base), a decision linked to the file and one in scope by glob
are in it, a decision about code changed since is stale (naming the commit), others' intents
and failures with their fixes are there; session writes advance their repository's version
(conditional reads); packing drops low-priority sections before it cuts high ones."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from graphdb import Store
from ingest.pipeline import IngestOptions, ingest_repository
from ingest.sessions.record import Recorder
from queries.briefing import TIERS, briefing, briefing_repo, count_tokens, tokenizer_name
from queries.briefing.model import BriefingItem
from queries.briefing.pack import pack
from queries.versions import unchanged_since
from schema import NodeNotFoundError, QueryError
from tests.gitrepo import BASE_TIME, GitRepo
from tests.helpers import vgdb_in_process

CORE = '"""Core."""\n\n\ndef helper():\n    return 1\n'
API = ("from pkg.core import helper\n\n\ndef serve():\n    return helper() + 1\n")
TEST = "from pkg.api import serve\n\n\ndef test_serve():\n    assert serve() == 2\n"


def _at(hours: float) -> datetime:
    return datetime.fromtimestamp(BASE_TIME + hours * 3600, UTC).replace(tzinfo=None)


@pytest.fixture
def graph(tmp_path: Path) -> Iterator[tuple[Store, dict[str, str]]]:
    repo = GitRepo(tmp_path / "demo")
    repo.commit("core and api", {"pkg/__init__.py": "", "pkg/core.py": CORE,
                                 "pkg/api.py": API, "tests/test_api.py": TEST})
    second = repo.commit("helper returns 2", {"pkg/core.py": CORE.replace("1", "2")})
    with Store.open(tmp_path / "db") as store:
        ingest_repository(store, repo.root, options=IngestOptions(name="demo", workers=1))
        me = Recorder(store, session="me", agent="claude", repo="demo")
        ids = {"second": second}
        ids["linked"] = me.record_decision(
            "helper stays pure", "no I/O in helper", category="api",
            files=["pkg/core.py"], at=_at(1.5)).display_id  # before the second commit
        ids["scoped"] = me.record_pattern("pkg modules import nothing from tests",
                                          category="layout", scope=["pkg/**"]).display_id
        failure = me.record_failure("AssertionError: serve() == 2", file="pkg/core.py",
                                    category="tests")
        ids["failure"] = failure.display_id
        ids["fix"] = me.record_resolution(failure.display_id, "serve adds one",
                                          outcome="success").display_id
        other = Recorder(store, session="other", agent="codex", repo="demo")
        ids["intent"] = other.record_intent("rename helper", scope=["pkg/core.py"]).display_id
        yield store, ids


def _texts(b, section: str) -> list[str]:
    found = b.section(section)
    return [i.text for i in found.items] if found else []


@pytest.mark.parametrize("tier", ["micro", "standard", "full"])
def test_each_tier_stays_within_its_budget_with_the_linked_decision(graph, tier) -> None:
    store, ids = graph
    b = briefing(store, files=["pkg/core.py"], tier=tier)
    assert tokenizer_name() == b.tokenizer == "cl100k_base"
    assert b.max_tokens == TIERS[tier].tokens
    assert b.tokens == count_tokens(b.text) <= b.max_tokens
    assert b.targets == ("file:demo/pkg/core.py",)
    assert b.graph_version == store.graph_version()
    decisions = b.section("decisions")
    assert decisions is not None and decisions.items[0].text.startswith(
        f"{ids['linked']} [about] helper stays pure (active")
    assert ids["linked"] in b.text
    if tier != "micro":
        assert [(i.relation, i.status) for i in decisions.items] == [
            ("about", "active"), ("in scope: pkg/**", "active")]
        assert f"{ids['scoped']} [in scope: pkg/**] pkg modules import nothing" in b.text


def test_full_briefing_says_what_applies_from_every_domain(graph) -> None:
    store, ids = graph
    b = briefing(store, files=["pkg/core.py"], tier="full")
    assert b.left_out == ()
    assert [s.name for s in b.sections] == ["decisions", "stale", "failures", "intents",
                                            "tests", "dependents", "commits"]
    [stale] = b.section("stale").items
    assert (stale.status, stale.relation) == ("stale", f"changed by commit:{ids['second']}")
    assert stale.text.startswith(f"{ids['linked']} (decided 2023-11-14): pkg/core.py changed "
                                 f"by {ids['second'][:10]} 2023-11-15 \"helper returns 2\"")
    [failure] = b.section("failures").items
    assert failure.text == (f"{ids['failure']} resolved: AssertionError: serve() == 2 - tried "
                            f"{ids['fix']} success: serve adds one")
    assert _texts(b, "intents") == [f"{ids['intent']} by codex: rename helper "
                                    "(scope pkg/core.py)"]
    assert _texts(b, "tests") == ["tests/test_api.py (rule)"]  # impact's own answer
    assert [i.id for i in b.section("dependents").items][:2] == [
        "file:demo/pkg/api.py", "sym:demo/pkg/api.py#serve"]
    commits = b.section("commits").items
    assert commits[0].id == f"commit:{ids['second']}"
    assert commits[0].text.startswith(f"{ids['second'][:10]} 2023-11-15 Ann Author: "
                                      "helper returns 2 (modified +1/-1)")
    assert json.loads(json.dumps(b.to_dict(), default=str))["tier"] == "full"


def test_own_intents_are_not_others_and_scoped_targets_work(graph) -> None:
    store, ids = graph
    assert briefing(store, files=["pkg/core.py"], tier="full",
                    session="other").section("intents") is None
    b = briefing(store, globs=["pkg/*.py"], symbols=["pkg/api.py#serve"], tier="full")
    assert b.targets == ("sym:demo/pkg/api.py#serve", "file:demo/pkg/__init__.py",
                         "file:demo/pkg/api.py", "file:demo/pkg/core.py")
    assert ids["scoped"] in b.text and ids["intent"] in b.text
    with pytest.raises(NodeNotFoundError, match=r"unknown targets: pkg/nope\.py"):
        briefing(store, files=["pkg/nope.py"])
    with pytest.raises(QueryError, match="unknown tier"):
        briefing(store, files=["pkg/core.py"], tier="huge")
    with pytest.raises(QueryError, match="needs files, symbols, globs or a task"):
        briefing(store)


def test_a_task_without_targets_briefs_the_code_search_finds(graph) -> None:
    store, _ = graph
    b = briefing(store, task="serve", tier="standard")
    assert "sym:demo/pkg/api.py#serve" in b.targets
    assert b.notes[0].startswith("targets found by searching the task")


def test_session_writes_advance_their_repository_version(graph) -> None:
    store, _ = graph
    b = briefing(store, files=["pkg/core.py"])
    assert briefing_repo(store, files=["pkg/core.py"]) == "demo"
    assert unchanged_since(store, b.graph_version, repo="demo")
    assert not unchanged_since(store, b.graph_version + 1)  # a version the graph never had
    Recorder(store, session="third", agent="x").record_decision(
        "helper logs nothing", category="logging", files=["pkg/core.py"])  # no repo given
    assert store.graph_version("demo") == store.graph_version() == b.graph_version + 1
    assert not unchanged_since(store, b.graph_version, repo="demo")
    again = briefing(store, files=["pkg/core.py"])
    assert "helper logs nothing" in again.text and again.graph_version == b.graph_version + 1


def test_packing_drops_low_sections_before_cutting_high_ones() -> None:
    def items(name: str, n: int) -> list[BriefingItem]:
        return [BriefingItem(f"{name}:{i}", f"{name} item {i} " + "word " * 8) for i in range(n)]

    found = {"decisions": items("decision", 3), "tests": items("test", 3),
             "community": items("community", 1)}
    follow = dict.fromkeys(("decisions", "tests", "community"), "ask()")
    wide = pack("h", found, follow, budget=10_000, per_section=5, width=200,
                count=count_tokens)
    assert [s.name for s in wide.sections] == ["decisions", "tests", "community"]
    left = "left out: tests 3, community 1 (ask tier FULL)"
    budget = count_tokens("\n".join([*wide.text.splitlines()[:5], left])) + 3
    tight = pack("h", found, follow, budget=budget, per_section=5, width=200,
                 count=count_tokens)
    assert [(s.name, len(s.items)) for s in tight.sections] == [("decisions", 3)]
    assert tight.left_out == ("tests", "community")
    assert tight.text.endswith(left)
    assert tight.tokens <= budget
    capped = pack("h", found, follow, budget=10_000, per_section=2, width=200,
                  count=count_tokens)
    assert "  +1 more: ask()" in capped.text


def test_cli_briefing(graph, capsys) -> None:
    store, ids = graph
    db = str(store.path)
    store.close()
    run = vgdb_in_process(capsys, "briefing", "pkg/core.py", "--db", db, "--tier", "micro")
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("briefing pkg/core.py\ndecisions:\n"
                                 f"- {ids['linked']} [about] helper stays pure")
    assert count_tokens(run.stdout.rstrip("\n")) <= 60
    assert "tokens (cl100k_base), graph version" in run.stderr
    run = vgdb_in_process(capsys, "briefing", "pkg/*.py", "--db", db, "--json",
                          "--max-tokens", "300")
    data = json.loads(run.stdout)
    assert (data["max_tokens"], data["tier"]) == (300, "standard")
    assert "file:demo/pkg/core.py" in data["targets"] and data["tokens"] <= 300
