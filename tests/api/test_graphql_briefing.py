"""briefing and conditional reads over GraphQL: in-process (httpx.ASGITransport) for the
shapes, and over a real uvicorn server with a real client (gql over httpx) for the agent's
loop — brief, poll with ifChangedSince (NOT_MODIFIED in ~20 tokens), record a decision about
the file, poll again and get the new answer. GET answers carry an ETag; If-None-Match
answers 304."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest
from gql import Client, gql
from gql.transport.httpx import HTTPXTransport

from api.graphql import Settings
from api.graphql.server import create_app
from graphdb import Store
from graphdb.tokens import TokenStore
from ingest.pipeline import IngestOptions, ingest_repository
from ingest.sessions.record import Recorder
from queries.briefing import count_tokens
from tests.api.serving import serving_app
from tests.api.test_graphql import FILES, REPO
from tests.helpers import write_tree

BRIEF = """query($tier: BriefingTier!, $since: Int) {
  briefing(files: ["pkg/core.py"], tier: $tier, ifChangedSince: $since) {
    text tokens maxTokens tokenizer graphVersion leftOut
    sections { name omitted items { id text relation status } }
  }
}"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Store, str]]:
    base = tmp_path_factory.mktemp("graphql-briefing")
    root = base / "src"
    root.mkdir()
    write_tree(root, FILES)
    with Store.open(base / "db", serving=True) as store:
        ingest_repository(store, root, options=IngestOptions(name=REPO))
        me = Recorder(store, session="b1", agent="claude", repo=REPO)
        me.record_decision("helper returns an int", category="api", files=["pkg/core.py"])
        me.record_pattern("pkg stays free of I/O", category="layout", scope=["pkg/**"])
        secret = TokenStore(base / "db").create("agent", scope="write")[1]
        yield store, secret


def _post(store: Store, query: str, **variables) -> httpx.Response:
    async def go() -> httpx.Response:
        app = create_app(store, Settings(allow_anonymous=True))
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                     base_url="http://test") as client:
            return await client.post("/graphql", json={"query": query, "variables": variables})
    return asyncio.run(go())


@pytest.mark.parametrize("tier, budget", [("MICRO", 60), ("STANDARD", 500), ("FULL", 2000)])
def test_briefing_fits_each_tier_and_names_the_decisions(served, tier, budget) -> None:
    store, _ = served
    answer = _post(store, BRIEF, tier=tier).json()
    b = answer["data"]["briefing"]
    assert (b["maxTokens"], b["tokenizer"]) == (budget, "cl100k_base")
    assert b["tokens"] == count_tokens(b["text"]) <= budget
    assert answer["extensions"]["graphVersion"] == b["graphVersion"] == store.graph_version()
    decisions = b["sections"][0]
    assert decisions["name"] == "decisions"
    assert decisions["items"][0]["text"].startswith("DEC-1 [about] helper returns an int")
    if tier != "MICRO":
        assert [(i["relation"], i["status"]) for i in decisions["items"]] == [
            ("about", "active"), ("in scope: pkg/**", "active")]
        assert decisions["items"][1]["id"].startswith("entry:")


def test_if_changed_since_answers_not_modified_in_a_few_tokens(served) -> None:
    store, _ = served
    version = store.graph_version()
    response = _post(store, BRIEF, tier="MICRO", since=version)
    assert response.json() == {"data": {"briefing": None},
                               "extensions": {"graphVersion": version,
                                              "notModified": ["briefing"]}}
    assert count_tokens(response.text) <= 25
    several = _post(store, """query($v: Int) {
      decisions(repo: "r", ifChangedSince: $v) { totalCount }
      impact(targets: ["pkg/core.py"], ifChangedSince: $v) { depth }
      provenance(node: "pkg/core.py", ifChangedSince: $v) { id }
      found: search(query: "helper", ifChangedSince: $v) { k }
      old: decisions(ifChangedSince: 0) { totalCount } }""", v=version).json()
    assert several["data"] == {"decisions": None, "impact": None, "provenance": None,
                               "found": None, "old": {"totalCount": 1}}
    assert sorted(several["extensions"]["notModified"]) == [  # in resolution order
        "decisions", "found", "impact", "provenance"]


def test_get_answers_carry_an_etag_and_if_none_match_is_304(served) -> None:
    store, _ = served

    async def go() -> list[httpx.Response]:
        app = create_app(store, Settings(allow_anonymous=True))
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                     base_url="http://test") as client:
            params = {"query": '{ briefing(files: ["pkg/core.py"], tier: MICRO) { tokens } }'}
            first = await client.get("/graphql", params=params)
            again = await client.get("/graphql", params=params,
                                     headers={"If-None-Match": first.headers["etag"]})
            bad = await client.get("/graphql", params={"query": "{ nothing }"})
            return [first, again, bad]

    first, again, bad = asyncio.run(go())
    assert first.status_code == 200 and first.headers["etag"].startswith(
        f'W/"{store.graph_version()}-')
    assert (again.status_code, again.content, again.headers["etag"]) == (
        304, b"", first.headers["etag"])
    assert "etag" not in bad.headers  # an answer with errors is not cached


def test_an_agent_polls_records_and_sees_the_new_briefing(served) -> None:
    store, secret = served
    with serving_app(store, Settings()) as url:
        client = Client(transport=HTTPXTransport(
            url=f"{url}/graphql", timeout=30, headers={"Authorization": f"Bearer {secret}"}))

        def ask(query: str, **variables):
            request = gql(query)
            request.variable_values = variables
            with client as session:
                return session.execute(request, get_execution_result=True)

        first = ask(BRIEF, tier="STANDARD")
        version = first.extensions["graphVersion"]
        assert "DEC-1" in first.data["briefing"]["text"]
        unchanged = ask(BRIEF, tier="STANDARD", since=version)
        assert (unchanged.data, unchanged.extensions) == (
            {"briefing": None}, {"graphVersion": version, "notModified": ["briefing"]})
        recorded = ask("""mutation { recordDecision(session: "b2", title: "helper may cache",
            category: "perf", files: ["pkg/core.py"]) { __typename } }""")
        assert recorded.data == {"recordDecision": {"__typename": "Recorded"}}
        assert recorded.extensions["graphVersion"] > version
        fresh = ask(BRIEF, tier="STANDARD", since=version)
        assert fresh.extensions == {"graphVersion": recorded.extensions["graphVersion"]}
        texts = [i["text"] for i in fresh.data["briefing"]["sections"][0]["items"]]
        assert any(t.startswith("DEC-2 [about] helper may cache") for t in texts)
        assert store.graph_version("r") == recorded.extensions["graphVersion"]


