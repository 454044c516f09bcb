"""The MCP server driven by the official MCP client: ``vgdb mcp`` over stdio (a real
subprocess) and ``/mcp`` on a real uvicorn server on loopback, as ``vgdb serve`` runs it.
Exact answers, GraphQL's scopes (a read token cannot write, anonymous only reads) and
GraphQL's error shape."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from api.graphql import Settings
from api.mcp import TOOLS
from graphdb import Store, embed_graph
from graphdb.tokens import TokenStore
from ingest.pipeline import IngestOptions, ingest_repository
from tests.api.serving import serving_app
from tests.api.test_graphql import FILES, REPO
from tests.helpers import run_vgdb, write_tree

READ_TOOLS = ["briefing", "search", "impact", "affected_tests", "provenance", "supersession",
              "node", "cypher"]
WRITE_TOOLS = ["start_session", "record", "end_session"]
HELPER = f"sym:{REPO}/pkg/core.py#helper"


def _db(base: Path) -> Path:
    root = base / "src"
    root.mkdir()
    write_tree(root, FILES)
    with Store.open(base / "db") as store:
        ingest_repository(store, root, options=IngestOptions(name=REPO))
        embed_graph(store)
    return base / "db"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _db(tmp_path_factory.mktemp("mcp"))


def _stdio(db: Path, *extra: str) -> Client:
    vgdb = str(Path(sys.executable).with_name("vgdb"))
    return Client(StdioServerParameters(command=vgdb, args=["mcp", "--db", str(db), *extra]))


@asynccontextmanager
async def _http(url: str, token: str | None = None) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (httpx2.AsyncClient(headers=headers, timeout=30) as http,
                Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client):
        yield client


async def _call(client: Client, tool: str, **arguments: Any) -> tuple[bool, dict[str, Any]]:
    result = await client.call_tool(tool, arguments)
    return result.is_error, json.loads(result.content[0].text)


async def _names(client: Client) -> list[str]:
    return [t.name for t in (await client.list_tools()).tools]


def _run(fn: Any) -> Any:
    return anyio.run(fn)


# ---------------------------------------------------------------------------------- stdio
def test_stdio_lists_read_tools_and_answers_search_impact_and_errors(db: Path) -> None:
    async def go() -> None:
        async with _stdio(db) as client:
            assert await _names(client) == READ_TOOLS
            error, found = await _call(client, "search", query="helper", k=3)
            assert not error
            assert found["hits"][0] == {"id": HELPER, "kind": "function", "name": "helper",
                                        "score": found["hits"][0]["score"],
                                        "at": f"file:{REPO}/pkg/core.py"}
            error, hit = await _call(client, "impact", targets=["pkg/core.py#helper"], depth=1)
            assert not error
            assert [(s["id"], s["d"], s.get("via")) for s in hit["symbols"]] == [
                (HELPER, 0, None),
                (f"sym:{REPO}/pkg/api.py#ping", 1, f"CALLS {HELPER}"),
                (f"sym:{REPO}/pkg/api.py#serve", 1, f"CALLS {HELPER}"),
                (f"sym:{REPO}/pkg/core.py#Base.run", 1, f"CALLS {HELPER}")]
            assert [t["test"] for t in hit["tests"]] == []  # tests are 2 hops away
            error, tests = await _call(client, "affected_tests", targets=["pkg/core.py#helper"])
            assert not error
            assert sorted(t["test"] for t in tests["tests"]) == [
                "tests/test_api.py::test_ping", "tests/test_api.py::test_serve"]
            # a read-only process refuses a write tool, GraphQL's error shape
            error, refused = await _call(client, "record", session="s", type="note", title="x")
            assert error
            assert refused == {"message": "this MCP server opened the database read-only",
                               "extensions": {"code": "QUERY_ERROR",
                                              "suggestion": "run `vgdb mcp --writable`"}}
            error, bad = await _call(client, "impact", targets=["pkg/nope.py#gone"])
            assert error and bad["extensions"]["code"] == "NOT_FOUND"
            error, bad = await _call(client, "cypher", query="MATCH (n) DETACH DELETE n")
            assert error and bad["extensions"]["code"] == "READ_ONLY"
            error, bad = await _call(client, "search", query="x", k=0)
            assert error and bad == {
                "message": "invalid k: 0 is less than the minimum of 1",
                "extensions": {"code": "QUERY_ERROR",
                               "suggestion": "see the input schema of search"}}

    _run(go)


def test_stdio_writable_records_a_decision_that_impact_then_returns(
        tmp_path: Path) -> None:
    db = _db(tmp_path)

    async def go() -> None:
        async with _stdio(db, "--writable") as client:
            assert await _names(client) == READ_TOOLS + WRITE_TOOLS
            assert await _call(client, "start_session", session="s1", agent="test") == (
                False, {"session": "s1"})
            error, made = await _call(client, "record", session="s1", type="decision",
                                      title="helper stays pure",
                                      symbols=["pkg/core.py#helper"])
            assert not error
            assert (made["display_id"], made["kind"]) == ("DEC-1", "decision")
            assert made["id"].startswith("entry:")
            error, hit = await _call(client, "impact", targets=[HELPER], depth=0)
            assert hit["entries"] == [{"id": "DEC-1", "kind": "decision",
                                       "title": "helper stays pure", "status": "active",
                                       "relation": "about"}]
            error, bad = await _call(client, "record", session="s1", type="note", title="n",
                                     symbols=["pkg/core.py#helpr"])
            assert error
            assert bad["extensions"]["code"] == "NOT_FOUND"
            assert bad["extensions"]["closest"] == [HELPER]
            assert await _call(client, "end_session", session="s1", outcome="success") == (
                False, {"session": "s1", "ended": True})

    _run(go)


def test_print_config_names_the_command_and_database(tmp_path: Path) -> None:
    out = run_vgdb("mcp", "--db", str(tmp_path / "db"), "--print-config", "--writable")
    server = json.loads(out.stdout)["mcpServers"]["vgdb"]
    assert server["type"] == "stdio"
    assert server["args"] == ["mcp", "--db", str((tmp_path / "db").resolve()), "--writable"]
    assert Path(server["command"]).name == "vgdb"
    out = run_vgdb("mcp", "--print-config", "--url", "http://127.0.0.1:8765/mcp")
    assert json.loads(out.stdout)["mcpServers"]["vgdb"] == {
        "type": "http", "url": "http://127.0.0.1:8765/mcp",
        "headers": {"Authorization": "Bearer ${VGDB_TOKEN}"}}


# ----------------------------------------------------------------------------------- HTTP
@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    db = _db(tmp_path_factory.mktemp("mcp-http"))
    tokens = TokenStore(db)
    secrets = {scope: tokens.create(f"{scope} token", scope=scope)[1]
               for scope in ("read", "write")}
    with Store.open(db, serving=True) as store, serving_app(store, Settings()) as url:
        yield url, secrets


def test_http_with_a_write_token_searches_and_records(served) -> None:
    url, secrets = served

    async def go() -> None:
        async with _http(url, secrets["write"]) as client:
            assert await _names(client) == READ_TOOLS + WRITE_TOOLS
            error, found = await _call(client, "search", query="helper", k=1)
            assert not error and found["hits"][0]["id"] == HELPER
            error, before = await _call(client, "briefing", files=["pkg/api.py"], tier="micro")
            assert not error and "call helper through serve" not in before["text"]
            error, same = await _call(client, "briefing", files=["pkg/api.py"], tier="micro",
                                      if_changed_since=before["graph_version"])
            assert (error, same) == (False, {"not_modified": True,
                                             "graph_version": before["graph_version"]})
            error, session = await _call(client, "start_session", agent="http-test")
            assert not error
            error, made = await _call(client, "record", session=session["session"],
                                      type="pattern", title="call helper through serve",
                                      files=["pkg/api.py"])
            assert not error and made["display_id"] == "PAT-1"
            error, after = await _call(client, "briefing", files=["pkg/api.py"],
                                       if_changed_since=before["graph_version"])
            assert not error and after["graph_version"] > before["graph_version"]
            assert "call helper through serve" in after["text"]
            error, node = await _call(client, "node", id="PAT-1")
            assert not error
            assert (node["table"], node["title"], node["kind"]) == (
                "Entry", "call helper through serve", "pattern")
            assert node["edges"]["out"]["ABOUT"] == 1

    _run(go)


def test_http_read_token_cannot_write_and_sees_only_read_tools(served) -> None:
    url, secrets = served

    async def go() -> None:
        async with _http(url, secrets["read"]) as client:
            assert await _names(client) == READ_TOOLS
            error, refused = await _call(client, "record", session="s", type="note",
                                         title="not allowed")
            assert error
            assert refused["extensions"] == {"code": "FORBIDDEN",
                                             "suggestion": "use a token with the write scope"}
            assert refused["message"].endswith("has scope read; this needs write")

    _run(go)


def test_http_without_token_is_401_unless_anonymous(served, tmp_path: Path) -> None:
    url, _ = served
    response = httpx.post(f"{url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert response.status_code == 401
    assert response.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    response = httpx.post(f"{url}/mcp", json={}, headers={"Authorization": "Bearer nope"})
    assert response.status_code == 401
    assert response.json()["errors"][0]["message"] == "unknown API token"

    db = _db(tmp_path)

    async def go(anonymous_url: str) -> None:
        async with _http(anonymous_url) as client:
            assert await _names(client) == READ_TOOLS
            error, refused = await _call(client, "start_session")
            assert error and refused["extensions"]["code"] == "UNAUTHENTICATED"
            error, found = await _call(client, "search", query="helper", k=1)
            assert not error and found["hits"][0]["id"] == HELPER

    with (Store.open(db, read_only=True) as store,
          serving_app(store, Settings(allow_anonymous=True)) as anonymous_url):
        anyio.run(go, anonymous_url)


def test_every_tool_has_a_short_description_and_a_closed_object_schema() -> None:
    for tool in TOOLS.values():
        # cypher names the node and edge tables, so that a query needs no schema lookup
        assert len(tool.description) <= (500 if tool.name == "cypher" else 300), tool.name
        assert tool.schema["type"] == "object"
        assert tool.schema["additionalProperties"] is False
        assert set(tool.schema["required"]) <= set(tool.schema["properties"])
