"""Ordering (``orderBy``), time ranges (``since``/``until``) and keyset cursors of the GraphQL
connections, over a real git history served by uvicorn and queried with gql."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from api.graphql import Context, Settings
from api.graphql.nodes import SortKey, page, sort_items
from graphdb import Store
from ingest.pipeline import IngestOptions, ingest_repository
from ingest.sessions.record import Recorder
from tests.api.serving import serving_app
from tests.api.test_graphql import FILES, errors, run
from tests.gitrepo import GitRepo

# GitRepo commits one hour apart from 2023-11-14T22:13:20Z: tick 1 is 23:13:20, tick 2 is
# 00:13:20 the next day, tick 3 01:13:20, tick 4 02:13:20.
SUMMARIES = ["init", "core gains twice", "api pings less", "core gains thrice"]


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    base = tmp_path_factory.mktemp("graphql-order")
    repo = GitRepo(base / "proj")
    repo.commit(SUMMARIES[0], FILES)
    repo.commit(SUMMARIES[1], {"pkg/core.py": FILES["pkg/core.py"] +
                               "\n\ndef twice():\n    return helper() + helper()\n"})
    repo.commit(SUMMARIES[2], {"pkg/api.py": FILES["pkg/api.py"].replace(
        "def ping():\n    return helper()\n", "")})
    repo.commit(SUMMARIES[3], {"pkg/core.py": (repo.root / "pkg/core.py").read_text() +
                               "\n\ndef thrice():\n    return twice() + helper()\n"})
    with Store.open(base / "db") as store:
        ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
        early = Recorder(store, session="s-early", title="early", repo="proj")
        early.start_session(at=datetime(2023, 11, 15, 0, 30))
        early.record_decision("Keep helper small", category="style", scope=["pkg/core.py"],
                              at=datetime(2023, 11, 15, 0, 40))
        late = Recorder(store, session="s-late", title="late", repo="proj")
        late.start_session(at=datetime(2023, 11, 15, 2, 0))
        late.record_decision("Tests for thrice", category="tests", scope=["tests/**"],
                             at=datetime(2023, 11, 15, 2, 10))
        late.record_decision("API stays tiny", category="api", scope=["pkg/api.py"],
                             at=datetime(2023, 11, 15, 2, 20))
        with serving_app(store, Settings(allow_anonymous=True)) as url:
            yield url


def _summaries(connection: dict) -> list[str]:
    return [e["node"]["summary"] for e in connection["edges"]]


def test_root_commits_newest_first_in_a_time_range_and_ordered(history) -> None:
    data = run(history, """{
      all: commits(repo: "proj") { totalCount edges { node { summary committedAt } } }
      window: commits(since: "2023-11-15T00:13:20Z", until: "2023-11-15T02:13:20Z") {
        totalCount edges { node { summary } } }
      oldest: commits(repo: "proj", orderBy: [{field: "committedAt"}], first: 2) {
        edges { node { summary } } }
      byFiles: commits(orderBy: [{field: "filesChanged", direction: DESC},
                                 {field: "committedAt", direction: ASC}]) {
        edges { node { summary filesChanged } } }
      none: commits(repo: "elsewhere") { totalCount }
    }""")
    assert _summaries(data["all"]) == SUMMARIES[::-1]
    assert data["all"]["edges"][0]["node"]["committedAt"] == "2023-11-15T02:13:20Z"
    # since is inclusive, until exclusive
    assert _summaries(data["window"]) == ["api pings less", "core gains twice"]
    assert data["window"]["totalCount"] == 2
    assert _summaries(data["oldest"]) == ["init", "core gains twice"]
    assert [(e["node"]["summary"], e["node"]["filesChanged"])
            for e in data["byFiles"]["edges"]] == [
        ("init", len(FILES)), ("core gains twice", 1), ("api pings less", 1),
        ("core gains thrice", 1)]
    assert data["none"]["totalCount"] == 0


def test_edge_connections_take_time_ranges_and_order_by_node_or_edge(history) -> None:
    data = run(history, """{ file(repo: "proj", path: "pkg/core.py") {
        newest: changedBy(orderBy: [{field: "committedAt", direction: DESC}]) {
          edges { kind node { ... on Commit { summary } } } }
        later: changedBy(since: "2023-11-15T00:00:00Z") {
          totalCount edges { node { ... on Commit { summary } } } }
        before: changedBy(until: "2023-11-15T01:00:00Z",
                          orderBy: [{field: "committedAt", direction: DESC}]) {
          edges { node { ... on Commit { summary } } } }
        biggest: changedBy(orderBy: [{field: "additions", edge: true, direction: DESC}]) {
          edges { additions node { ... on Commit { summary } } } }
        contains(orderBy: [{field: "startLine", direction: DESC}]) {
          edges { node { ... on Symbol { qualname startLine } } } }
      } }""")["file"]
    assert [e["node"]["summary"] for e in data["newest"]["edges"]] == [
        "core gains thrice", "core gains twice", "init"]
    assert [e["kind"] for e in data["newest"]["edges"]] == ["modified", "modified", "added"]
    assert sorted(e["node"]["summary"] for e in data["later"]["edges"]) == [
        "core gains thrice", "core gains twice"]
    assert [e["node"]["summary"] for e in data["before"]["edges"]] == [
        "core gains twice", "init"]
    assert [(e["node"]["summary"], e["additions"]) for e in data["biggest"]["edges"]] == [
        ("init", 14), ("core gains thrice", 4), ("core gains twice", 4)]  # ties: by key
    lines = [e["node"]["startLine"] for e in data["contains"]["edges"]]
    assert lines == sorted(lines, reverse=True) and lines[-1] == 1  # the module last
    assert [e["node"]["qualname"] for e in data["contains"]["edges"]][:2] == [
        "thrice", "twice"]


def test_sessions_and_decisions_between_two_times(history) -> None:
    data = run(history, """{
      sessions(repo: "proj") { edges { node { key title startedAt } } }
      early: sessions(until: "2023-11-15T01:00:00Z") { edges { node { title } } }
      late: decisions(since: "2023-11-15T02:00:00Z") { edges { node { title } } }
      byTitle: decisions(orderBy: [{field: "title"}]) { edges { node { title } } }
      lateItems: sessions(since: "2023-11-15T02:00:00Z") { edges { node {
        sessionItems(orderBy: [{field: "validFrom", direction: DESC}]) {
          edges { node { ... on Entry { title } } } } } } }
    }""")
    assert [e["node"]["title"] for e in data["sessions"]["edges"]] == ["late", "early"]
    assert data["sessions"]["edges"][1]["node"]["startedAt"] == "2023-11-15T00:30:00Z"
    assert [e["node"]["title"] for e in data["early"]["edges"]] == ["early"]
    assert [e["node"]["title"] for e in data["late"]["edges"]] == [
        "API stays tiny", "Tests for thrice"]
    assert [e["node"]["title"] for e in data["byTitle"]["edges"]] == [
        "API stays tiny", "Keep helper small", "Tests for thrice"]
    [late] = data["lateItems"]["edges"]
    assert [e["node"]["title"] for e in late["node"]["sessionItems"]["edges"]] == [
        "API stays tiny", "Tests for thrice"]


def test_ordered_pages_walk_every_item_once_with_keyset_cursors(history) -> None:
    query = """query($after: String) { commits(first: 1, after: $after,
        orderBy: [{field: "filesChanged", direction: DESC}]) {
        pageInfo { hasNextPage endCursor } edges { node { summary } } } }"""
    seen, after = [], None
    while True:
        conn = run(history, query, {"after": after})["commits"]
        seen += _summaries(conn)
        if not conn["pageInfo"]["hasNextPage"]:
            break
        after = conn["pageInfo"]["endCursor"]
    assert seen == ["init", "core gains thrice", "core gains twice", "api pings less"]
    first = run(history, "{ commits(first: 1) { pageInfo { endCursor } } }")
    [other] = errors(history, """query($c: String) { commits(after: $c,
        orderBy: [{field: "summary"}]) { totalCount } }""",
                     {"c": first["commits"]["pageInfo"]["endCursor"]})
    assert other["message"].endswith("was made for another orderBy")


def test_order_by_is_checked_against_the_schema(history) -> None:
    [unknown] = errors(history, """{ file(repo: "proj", path: "pkg/core.py") {
        contains(orderBy: [{field: "nope"}]) { totalCount } } }""")
    assert unknown["message"] == (
        "cannot order File.contains by 'nope': Symbol has no such property")
    assert "startLine" in unknown["extensions"]["suggestion"]
    [edge] = errors(history, """{ file(repo: "proj", path: "pkg/core.py") {
        changedBy(orderBy: [{field: "nope", edge: true}]) { totalCount } } }""")
    assert edge["message"] == (
        "cannot order File.changedBy by 'nope': a CHANGED edge has no such property")
    [root] = errors(history, '{ commits(orderBy: [{field: "x", edge: true}]) { totalCount } }')
    assert root["message"] == "commits has no edges to order by"
    [lists] = errors(history, '{ decisions(orderBy: [{field: "scope"}]) { totalCount } }')
    assert lists["message"].startswith("cannot order decisions by 'scope'")  # a list


def test_keyset_cursors_survive_inserts_and_removals(tmp_path: Path) -> None:
    with Store.open(tmp_path / "db") as store:
        context = Context(store, Settings())
    keys = (SortKey(False, "size", True),)
    items = sort_items([{"_id": i, "_n_size": s} for i, s in
                        (("a", 3), ("b", 2), ("c", 2), ("d", None))], keys)
    assert [i["_id"] for i in items] == ["a", "b", "c", "d"]  # nulls last
    window, _ = page(items, first=2, after=None, last=None, before=None, context=context,
                     keys=keys)
    cursor = window[-1][0]  # after b
    grown = sort_items([*items, {"_id": "aa", "_n_size": 5}, {"_id": "bb", "_n_size": 2}],
                       keys)
    rest, info = page(grown, first=10, after=cursor, last=None, before=None,
                      context=context, keys=keys)
    assert [i["_id"] for _, i in rest] == ["bb", "c", "d"] and info.has_previous_page
    shrunk = [i for i in items if i["_id"] != "b"]  # the cursor's own item is gone
    rest, _ = page(shrunk, first=10, after=cursor, last=None, before=None, context=context,
                   keys=keys)
    assert [i["_id"] for _, i in rest] == ["c", "d"]
    back, _ = page(grown, first=None, after=None, last=2, before=cursor, context=context,
                   keys=keys)
    assert [i["_id"] for _, i in back] == ["aa", "a"]
