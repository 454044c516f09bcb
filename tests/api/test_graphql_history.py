"""The rest of the GraphQL write API and the history lists, over a real uvicorn server with
gql: every record mutation, failures/patterns, time travel (asOf/knownAt) on root lists and
connections; and the per-request time limit, masked internal errors and the JSON log."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator

import pytest

from api.graphql import Context, Settings, build_schema
from api.graphql.server import configure_logging
from graphdb import Store
from graphdb.tokens import TokenStore
from ingest.pipeline import IngestOptions, ingest_repository
from tests.api.serving import serving_app
from tests.api.test_graphql import FILES, REPO, errors, run
from tests.helpers import write_tree

RECORD = """mutation($s: String!, $title: String!, $supersedes: [String!]) {
  recordPattern(session: $s, title: $title, category: "tests", scope: ["tests/**"],
                supersedes: $supersedes, reason: "faster") {
    __typename ... on Recorded { id displayId } ... on Conflict { message } } }"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, Store]]:
    base = tmp_path_factory.mktemp("graphql-history")
    root = base / "src"
    root.mkdir()
    write_tree(root, FILES)
    with Store.open(base / "db", serving=True) as store:
        ingest_repository(store, root, options=IngestOptions(name=REPO))
        secret = TokenStore(base / "db").create("agent", scope="write")[1]
        with serving_app(store, Settings()) as url:
            yield url, secret, store


def test_every_record_mutation_and_the_history_lists(server) -> None:
    url, token, _ = server
    started = run(url, 'mutation { startSession(session: "w1", title: "fix flaky tests", '
                       'agent: "bot", repo: "r") { session } }', token=token)
    assert started == {"startSession": {"session": "w1"}}
    failure = run(url, """mutation { recordFailure(session: "w1", error: "TimeoutError: 5 s",
        title: "test_serve times out", approach: "sleep less", file: "tests/test_api.py") {
        __typename ... on Recorded { displayId } } }""", token=token)["recordFailure"]
    assert failure == {"__typename": "Recorded", "displayId": "FAIL-1"}
    resolution = run(url, """mutation { recordResolution(session: "w1", failure: "FAIL-1",
        title: "mock the clock", outcome: "pending") {
        __typename ... on Recorded { displayId } } }""", token=token)["recordResolution"]
    assert resolution == {"__typename": "Recorded", "displayId": "RES-1"}
    outcome = run(url, """mutation { recordOutcome(session: "w1", resolution: "RES-1",
        outcome: "success") { __typename } }""", token=token)["recordOutcome"]
    assert outcome == {"__typename": "Recorded"}
    intent = run(url, """mutation { recordIntent(session: "w1", title: "rewrite the test",
        scope: ["tests/**"]) { __typename ... on Recorded { displayId } } }""",
                 token=token)["recordIntent"]
    assert intent["__typename"] == "Recorded"
    first = run(url, RECORD, {"s": "w1", "title": "fixtures per module"}, token=token)
    assert first["recordPattern"]["__typename"] == "Recorded"
    second = run(url, RECORD, {"s": "w1", "title": "fixtures per session",
                               "supersedes": [first["recordPattern"]["displayId"]]},
                 token=token)["recordPattern"]
    assert second["__typename"] == "Recorded"
    ended = run(url, 'mutation { endSession(session: "w1", summary: "fixed", '
                     'outcome: "success") { session } }', token=token)
    assert ended == {"endSession": {"session": "w1"}}

    lists = run(url, """{
      failures { edges { node { displayId title error status } } }
      patterns { totalCount edges { node { title validFrom recordedAt } } }
      allPatterns: patterns(current: false) { edges { node {
        title validFrom validTo recordedAt } } }
      sessions { edges { node { title summary outcome endedAt } } }
    }""", token=token)
    assert [e["node"]["displayId"] for e in lists["failures"]["edges"]] == ["FAIL-1"]
    assert lists["failures"]["edges"][0]["node"]["error"] == "TimeoutError: 5 s"
    assert [e["node"]["title"] for e in lists["patterns"]["edges"]] == ["fixtures per session"]
    old, new = (lists["allPatterns"]["edges"][1]["node"],
                lists["allPatterns"]["edges"][0]["node"])
    assert (old["title"], new["title"]) == ("fixtures per module", "fixtures per session")
    assert old["validTo"] == new["validFrom"]  # superseded when the new one came
    [session] = lists["sessions"]["edges"]
    assert (session["node"]["title"], session["node"]["summary"],
            session["node"]["outcome"]) == ("fix flaky tests", "fixed", "success")
    assert session["node"]["endedAt"] is not None

    # time travel: at the old pattern's time only it was true (and known)
    travel = run(url, """query($t: DateTime!, $k: DateTime!) {
      asOf: patterns(asOf: $t) { edges { node { title } } }
      knownAt: patterns(knownAt: $k) { edges { node { title } } }
      sessions { edges { node {
        sessionItems(asOf: $t, kind: "pattern") { edges { node { ... on Entry { title } } } }
        now: sessionItems(kind: "pattern") { edges { node { ... on Entry { title } } } } } } }
    }""", {"t": old["validFrom"], "k": old["recordedAt"]}, token=token)
    assert [e["node"]["title"] for e in travel["asOf"]["edges"]] == ["fixtures per module"]
    assert [e["node"]["title"] for e in travel["knownAt"]["edges"]] == ["fixtures per module"]
    items = travel["sessions"]["edges"][0]["node"]
    assert [e["node"]["title"] for e in items["sessionItems"]["edges"]] == [
        "fixtures per module"]
    assert [e["node"]["title"] for e in items["now"]["edges"]] == ["fixtures per session"]


def test_a_request_over_its_time_limit_is_an_error(server) -> None:
    _, _, store = server
    context = Context(store, Settings(allow_anonymous=True, timeout=1e-9))
    result = asyncio.run(build_schema().execute("{ repositories { name } }",
                                                context_value=context))
    [error] = result.errors
    assert error.message == "request took longer than 1e-09 s"
    assert error.extensions["code"] == "DEADLINE_EXCEEDED"
    assert error.extensions["suggestion"].startswith("ask for less")


def test_unexpected_errors_are_masked_and_logged_with_the_request_id(
        server, caplog: pytest.LogCaptureFixture) -> None:
    """An admin field over a server whose job registry is broken: the client learns only
    the request id; the log has the traceback under it."""
    _, _, store = server
    token = TokenStore(store.path).create("root", scope="admin")[0]
    context = Context(store, Settings(), token=token, jobs=object())
    with caplog.at_level(logging.ERROR, logger="vgdb.api"):
        result = asyncio.run(build_schema().execute('{ ingestJob(id: "x") { id } }',
                                                    context_value=context))
    [error] = result.errors
    assert error.message == f"internal error (request id {context.request_id})"
    assert error.extensions == {"code": "INTERNAL", "request_id": context.request_id}
    assert "object" not in error.message and "jobs" not in error.message
    [record] = [r for r in caplog.records if getattr(r, "request_id", None)]
    assert record.request_id == context.request_id
    assert record.exc_info and record.exc_info[0] is AttributeError


def test_one_json_log_line_per_request(server, capsys: pytest.CaptureFixture) -> None:
    _, token, store = server
    logger = logging.getLogger("vgdb")
    saved = (logger.handlers[:], logger.level, logger.propagate)
    try:
        configure_logging()  # on the captured stderr
        with serving_app(store, Settings()) as url:
            run(url, "{ repositories { name } }", token=token)
            [bad] = errors(url, "{ repositories { name } }", token="vgdb_x_y")
        assert bad["extensions"]["code"] == "UNAUTHENTICATED"
    finally:
        logger.handlers[:], logger.level, logger.propagate = saved
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()
             if line.startswith("{")]
    requests = [line for line in lines if line.get("path") == "/graphql"]
    assert [(r["method"], r["status"]) for r in requests] == [("POST", 200), ("POST", 401)]
    assert all(len(r["request_id"]) == 12 and r["ms"] > 0 for r in requests)
    assert requests[0]["queries"] == 2 and requests[1]["queries"] == 0  # refused before

