"""Scope as a relation on node connections (File/Symbol ``entries``, batched per level) and
``knownAt`` on entry lists, in-process through ``create_app`` and httpx.ASGITransport."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.graphql import Context, Settings, build_schema
from api.graphql.server import create_app
from graphdb import Store
from ingest.pipeline import IngestOptions, ingest_repository
from ingest.sessions.record import Recorder
from tests.api.test_graphql import FILES, REPO
from tests.helpers import write_tree


def _ingested(base: Path) -> Store:
    root = base / "src"
    root.mkdir()
    write_tree(root, FILES)
    store = Store.open(base / "db")
    ingest_repository(store, root, options=IngestOptions(name=REPO))
    return store


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    with _ingested(tmp_path_factory.mktemp("graphql-scope")) as store:
        me = Recorder(store, session="s1", agent="claude", repo=REPO)
        me.record_decision("the api module stays thin", category="layout",
                           scope=["pkg/api*.py"])
        me.record_decision("serve returns an int", category="api",
                           symbols=["pkg/api.py#serve"])
        yield store


def _query(store: Store, query: str, **variables: Any) -> dict[str, Any]:
    async def go() -> httpx.Response:
        app = create_app(store, Settings(allow_anonymous=True))
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                     base_url="http://test") as client:
            return await client.post("/graphql", json={"query": query,
                                                       "variables": variables})
    body = asyncio.run(go()).json()
    assert "errors" not in body, body["errors"]
    return body["data"]


ENTRIES = "entries { totalCount edges { relation status current node { displayId } } }"


def test_files_and_symbols_list_the_entries_about_them_or_in_scope(store) -> None:
    data = _query(store, f"""{{
      api: file(repo: "r", path: "pkg/api.py") {{ {ENTRIES} }}
      serve: symbol(ref: "pkg/api.py#serve") {{ {ENTRIES} }}
      ping: symbol(ref: "pkg/api.py#ping") {{ {ENTRIES} }}
      cli: file(repo: "r", path: "pkg/cli.py") {{ {ENTRIES} }}
      main: symbol(ref: "pkg/cli.py#main") {{ {ENTRIES} }}
    }}""")
    scoped = {"relation": "in scope: pkg/api*.py", "status": "active", "current": True,
              "node": {"displayId": "DEC-1"}}
    about = {"relation": "about", "status": "active", "current": True,
             "node": {"displayId": "DEC-2"}}
    assert data["api"]["entries"] == {"totalCount": 1, "edges": [scoped]}
    assert data["serve"]["entries"] == {"totalCount": 2, "edges": [about, scoped]}
    assert data["ping"]["entries"] == {"totalCount": 1, "edges": [scoped]}
    assert data["cli"]["entries"] == {"totalCount": 0, "edges": []}
    assert data["main"]["entries"] == {"totalCount": 0, "edges": []}


def test_entries_of_a_whole_level_are_one_batch(store) -> None:
    """Every symbol of every file: one call for all symbols, however many there are."""
    query = """{ repository(name: "r") { contains { edges { node { ... on File {
      entries { totalCount } contains { edges { node { ... on Symbol {
        entries(kind: "decision") { edges { relation node { id } } } } } } } } } } } } }"""
    context = Context(store, Settings(allow_anonymous=True))
    result = asyncio.run(build_schema().execute(query, context_value=context))
    assert result.errors is None
    files = {e["node"]["entries"]["totalCount"] for e in
             result.data["repository"]["contains"]["edges"]}
    relations = sorted(s["relation"] for f in result.data["repository"]["contains"]["edges"]
                       for n in f["node"]["contains"]["edges"]
                       for s in n["node"]["entries"]["edges"])
    assert files == {0, 1}
    # serve (about + scope), ping and the module symbol of pkg/api.py (scope)
    assert relations == ["about", "in scope: pkg/api*.py", "in scope: pkg/api*.py",
                         "in scope: pkg/api*.py"]
    # the repository, its files, the files' entries, their symbols, the symbols' entries
    assert context.queries == 5


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text.removesuffix("Z"))


def test_known_at_ignores_supersessions_recorded_after_it(tmp_path: Path) -> None:
    with _ingested(tmp_path) as store:
        _known_at_ignores_later_supersessions(store)


def _known_at_ignores_later_supersessions(store: Store) -> None:
    me = Recorder(store, session="s2", agent="claude", repo=REPO)
    old = me.record_decision("cli exits 0 on success", category="exit-codes",
                             symbols=["pkg/cli.py#main"])
    late = me.record_decision("cli exits 1 on usage errors", category="exit-codes-late")
    time.sleep(0.2)
    t = datetime.now(UTC).replace(tzinfo=None)  # T: after both were recorded
    time.sleep(0.2)
    # recorded after T, valid (by `at`) from before T: superseded as of T, learned later
    new = me.record_decision("cli exits 2 on success", category="exit-codes",
                             supersedes=old.id, at=t - timedelta(seconds=0.1),
                             symbols=["pkg/cli.py#main"])
    # recorded after T and valid after T: not superseded as of T, whatever is known
    me.record_decision("cli exits 64 on usage errors", category="exit-codes-late",
                       supersedes=late.id)
    query = """query($t: DateTime!, $k: DateTime) {
      known: decisions(asOf: $t, knownAt: $k, category: "exit-codes") {
        edges { node { displayId status validTo } } }
      replaced: decisions(asOf: $t, knownAt: $k, status: "superseded") {
        edges { node { displayId status } } }
      late: decisions(asOf: $t, knownAt: $k, category: "exit-codes-late") {
        edges { node { displayId status validTo } } }
      provenance(node: "pkg/cli.py#main", asOf: $t, knownAt: $k) {
        entries { displayId status current } }
      main: symbol(ref: "pkg/cli.py#main") { entries(asOf: $t, knownAt: $k) {
        edges { relation status current node { displayId } } } }
    }"""
    then = _query(store, query, t=t.isoformat() + "Z", k=t.isoformat() + "Z")
    assert then["known"]["edges"] == [
        {"node": {"displayId": old.display_id, "status": "active", "validTo": None}}]
    assert then["replaced"]["edges"] == []
    assert then["late"]["edges"] == [
        {"node": {"displayId": late.display_id, "status": "active", "validTo": None}}]
    assert then["provenance"]["entries"] == [
        {"displayId": old.display_id, "status": "active", "current": True}]
    assert then["main"]["entries"]["edges"] == [
        {"relation": "about", "status": "active", "current": True,
         "node": {"displayId": old.display_id}}]
    now = _query(store, query, t=t.isoformat() + "Z")
    assert now["provenance"]["entries"] == [
        {"displayId": old.display_id, "status": "superseded", "current": False},
        {"displayId": new.display_id, "status": "active", "current": True}]
    assert now["main"]["entries"]["edges"] == [
        {"relation": "about", "status": "active", "current": True,
         "node": {"displayId": new.display_id}}]
    # as known now, `old` was no longer in force at T: the list of T holds its successor,
    # and asking for superseded ones shows it so
    assert now["known"]["edges"] == [
        {"node": {"displayId": new.display_id, "status": "active", "validTo": None}}]
    assert now["replaced"]["edges"] == [{"node": {"displayId": old.display_id,
                                                  "status": "superseded"}}]
    [was] = now["late"]["edges"]
    assert (was["node"]["displayId"], was["node"]["status"]) == (late.display_id, "active")
    assert _at(was["node"]["validTo"]) > t
