"""The agent-memory scenario of issue 19 as an agent runs it with the issue-20 API, over a
real uvicorn server (as `vgdb serve --writable`) with a real GraphQL client (gql over
httpx): batched `record` mutations and several mutations in one document, `briefing` with
`ifChangedSince`, and several root fields in one query. Same writes and the same exact
answers as tests/api/test_graphql_memory.py (9 round trips there); here every HTTP request
the client sends is counted at the transport, and there must be at most 8."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import httpx
import pytest
from gql import Client, gql
from gql.transport.httpx import HTTPXTransport

from api.graphql import Settings
from graphdb import Store
from graphdb.tokens import TokenStore
from ingest.pipeline import IngestOptions, ingest_repository
from tests.api.serving import serving_app
from tests.api.test_graphql import FILES, REPO
from tests.api.test_graphql_memory import API_ENTRIES, HELPER_ENTRIES, IMPACT_ENTRIES
from tests.helpers import write_tree

HELPER = f"sym:{REPO}/pkg/core.py#helper"


@pytest.fixture
def server(tmp_path: Any) -> Iterator[tuple[str, str]]:
    root = tmp_path / "src"
    root.mkdir()
    write_tree(root, FILES)
    with Store.open(tmp_path / "db", serving=True) as store:  # as `vgdb serve --writable`
        ingest_repository(store, root, options=IngestOptions(name=REPO))
        secret = TokenStore(tmp_path / "db").create("agent", scope="write")[1]
        with serving_app(store, Settings()) as url:
            yield url, secret


class CountedAgent:
    """A GraphQL client whose HTTP requests are counted by httpx itself (an event hook on
    every request the transport sends), not by the test."""

    def __init__(self, url: str, token: str) -> None:
        self.requests: list[str] = []
        self.client = Client(transport=HTTPXTransport(
            url=f"{url}/graphql", timeout=30, headers={"Authorization": f"Bearer {token}"},
            event_hooks={"request": [self._sent]}))

    def _sent(self, request: httpx.Request) -> None:
        self.requests.append(f"{request.method} {request.url.path}")

    def __call__(self, query: str, **variables: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        request = gql(query)
        request.variable_values = variables or None
        with self.client as session:
            result = session.execute(request, get_execution_result=True)
        return result.data or {}, result.extensions or {}


BRIEF_FIELD = """briefing(symbols: [$helper], files: ["pkg/api.py"], ifChangedSince: $since) {
    graphVersion sections { name items { id relation status } } }"""

R = "__typename ... on Recorded { id key displayId at } " \
    "... on Conflict { active { id key displayId title } } " \
    "... on Rejected { code reference closest index }"

WRITES = f"""mutation($helper: String!) {{
  startSession(session: "m1", title: "helper semantics", agent: "claude") {{ session }}
  first: recordDecision(session: "m1", key: "d1", title: "helper returns an int",
                        category: "api", symbols: ["pkg/core.py#helper"]) {{ {R} }}
  clash: recordDecision(session: "m1", title: "helper may return None", category: "api",
                        symbols: [$helper]) {{ {R} }}
  typo: recordDecision(session: "m1", title: "helper is pure", category: "purity",
                       symbols: ["pkg/core.py#helpr"]) {{ {R} }}
  rest: record(session: "m1", records: [
    {{type: DECISION, title: "the api module stays thin", category: "layout",
      scope: ["pkg/api*.py"]}},
    {{type: DECISION, title: "helper returns an int or raises", category: "api",
      symbols: ["helper"], supersedes: ["d1"], reason: "raising is clearer"}},
    {{type: FAILURE, key: "f1", error: "AssertionError: serve() == 2", file: "pkg/api.py",
      category: "tests"}},
    {{type: RESOLUTION, failure: "f1", title: "helper() back to 1", outcome: "success",
      files: ["pkg/api.py"]}},
    {{type: FILE_MODIFIED, paths: ["pkg/core.py"]}}]) {{
    __typename ... on RecordedBatch {{ records {{ kind id key displayId at }} }} }}
}}"""

CHECKS = f"""query($helper: String!, $since: Int, $t: DateTime!) {{
  {BRIEF_FIELD}
  impact(targets: [$helper]) {{ entries {{ displayId relation current status }} }}
  helper: provenance(node: $helper) {{ entries {{ displayId relation status current }} }}
  api: provenance(node: "file:r/pkg/api.py") {{ entries {{ displayId relation }} }}
  cli: provenance(node: "file:r/pkg/cli.py") {{ entries {{ displayId relation }} }}
  apiEntries: file(repo: "r", path: "pkg/api.py") {{
    entries {{ edges {{ relation node {{ displayId }} }} }} }}
  cliEntries: file(repo: "r", path: "pkg/cli.py") {{ entries {{ totalCount }} }}
  supersession(node: "DEC-3") {{ current edges {{ newer older reason }} }}
  decisions(category: "api", current: false) {{ edges {{ node {{ displayId source }} }} }}
  found: search(query: "helper returns an int or raises", tables: ["Entry"]) {{ hits {{ id }} }}
  thenDecisions: decisions(asOf: $t, category: "api") {{
    edges {{ node {{ displayId status }} }} }}
  thenSupersession: supersession(node: "DEC-3", asOf: $t) {{
    at versions {{ displayId status validAt }} }}
  thenProvenance: provenance(node: "pkg/core.py#helper", asOf: $t) {{
    entries {{ displayId status current }} }}
}}"""


def _utc(text: str) -> datetime:
    assert text.endswith("Z"), text
    return datetime.fromisoformat(text.removesuffix("Z"))


def _decisions(briefing: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(i["id"], i["relation"], i["status"]) for s in briefing["sections"]
            if s["name"] == "decisions" for i in s["items"]]


def test_the_agent_scenario_takes_at_most_8_round_trips(server) -> None:
    url, token = server
    agent = CountedAgent(url, token)

    # 1. before touching helper (and pkg/api.py, which calls it): the briefing; no decision
    #    applies yet. Its graphVersion is what the agent polls with.
    before, ext = agent(f"query($helper: String!, $since: Int) {{ {BRIEF_FIELD} }}",
                        helper=HELPER, since=None)
    assert _decisions(before["briefing"]) == []
    version = ext["graphVersion"]

    # 2. every write, in one document: mutations run in order, each its own transaction, so a
    #    Conflict or a Rejected answers its own field and the rest go on. The superseding
    #    decision names the first by its session key ("d1"), known before it was written.
    wrote, _ = agent(WRITES, helper=HELPER)
    assert wrote["startSession"] == {"session": "m1"}
    first = wrote["first"]
    assert (first["__typename"], first["displayId"], first["key"].startswith("entry:")) == (
        "Recorded", "DEC-1", True)
    assert wrote["clash"] == {"__typename": "Conflict", "active": [
        {"id": first["id"], "key": first["key"], "displayId": "DEC-1",
         "title": "helper returns an int"}]}
    assert wrote["typo"] == {"__typename": "Rejected", "code": "NOT_FOUND",
                             "reference": "pkg/core.py#helpr", "closest": [HELPER],
                             "index": 0}
    assert wrote["rest"]["__typename"] == "RecordedBatch"
    scoped, newer = wrote["rest"]["records"][:2]
    assert [(r["kind"], r["displayId"]) for r in wrote["rest"]["records"]] == [
        ("decision", "DEC-2"), ("decision", "DEC-3"), ("failure", "FAIL-1"),
        ("resolution", "RES-1"), ("file_modified", None)]

    # 3. every check, in one query: the briefing again (changed since step 1), impact,
    #    provenance, the files' entries, supersession, the lists, search, and the as-of view
    #    at a time between the first decision and the one that replaced it
    t = _utc(first["at"]) + (_utc(newer["at"]) - _utc(first["at"])) / 2
    seen, ext = agent(CHECKS, helper=HELPER, since=version, t=t.isoformat() + "Z")
    assert "notModified" not in ext
    assert _decisions(seen["briefing"]) == [
        (newer["key"], "about", "active"), (scoped["key"], "in scope: pkg/api*.py", "active")]
    assert seen["impact"]["entries"] == IMPACT_ENTRIES
    assert seen["helper"]["entries"] == HELPER_ENTRIES
    assert seen["api"]["entries"] == API_ENTRIES
    assert seen["cli"]["entries"] == []
    assert seen["apiEntries"]["entries"]["edges"] == [
        {"relation": "about", "node": {"displayId": "RES-1"}},
        {"relation": "about", "node": {"displayId": "FAIL-1"}},
        {"relation": "in scope: pkg/api*.py", "node": {"displayId": "DEC-2"}}]
    assert seen["cliEntries"]["entries"] == {"totalCount": 0}
    assert seen["supersession"] == {"current": [newer["key"]], "edges": [
        {"newer": newer["key"], "older": first["key"], "reason": "raising is clearer"}]}
    assert seen["decisions"]["edges"] == [
        {"node": {"displayId": "DEC-3", "source": "session"}},
        {"node": {"displayId": "DEC-1", "source": "session"}}]
    assert seen["found"]["hits"][0]["id"] == newer["key"]
    assert seen["thenDecisions"]["edges"] == [
        {"node": {"displayId": "DEC-1", "status": "active"}}]
    assert seen["thenSupersession"] == {"at": [first["key"]], "versions": [
        {"displayId": "DEC-1", "status": "active", "validAt": True},
        {"displayId": "DEC-3", "status": "active", "validAt": False}]}
    assert seen["thenProvenance"]["entries"] == [
        {"displayId": "DEC-1", "status": "active", "current": True}]

    # 4. the agent polls before its next change: nothing changed, ~20 tokens
    again, ext = agent(f"query($helper: String!, $since: Int) {{ {BRIEF_FIELD} }}",
                       helper=HELPER, since=ext["graphVersion"])
    assert (again, ext["notModified"]) == ({"briefing": None}, ["briefing"])

    assert agent.requests == ["POST /graphql"] * 4
    assert len(agent.requests) <= 8
