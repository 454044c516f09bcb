"""Agents' memories join the graph (issue 19), over a real uvicorn server on loopback (as
`vgdb serve --writable` runs it) with a real GraphQL client (gql over httpx): a decision about
a symbol shows in its impact and provenance, a scoped one in the code inside its glob, a
conflict is a Conflict, supersession keeps the chain, a failure and its resolution show in the
file's provenance, an as-of query shows the past; every DateTime argument takes Z, offsets
and naive times. The scenario counts its HTTP round trips."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from gql import Client, gql
from gql.transport.exceptions import TransportQueryError
from gql.transport.httpx import HTTPXTransport
from graphql import GraphQLList, GraphQLNamedType, GraphQLNonNull

from api.graphql import Settings, build_schema
from graphdb import Store
from graphdb.tokens import TokenStore
from ingest.pipeline import IngestOptions, ingest_repository
from tests.api.serving import serving_app
from tests.api.test_graphql import FILES, REPO
from tests.helpers import write_tree

HELPER = f"sym:{REPO}/pkg/core.py#helper"

#: what the scenario's checks answer, whichever way an agent asks (this test's 9 requests or
#: tests/api/test_graphql_agent_scenario.py's 4)
IMPACT_ENTRIES = [
    {"displayId": "DEC-3", "relation": "about", "current": True, "status": "active"},
    {"displayId": "DEC-2", "relation": "in scope: pkg/api*.py", "current": True,
     "status": "active"},
    {"displayId": "FAIL-1", "relation": "about", "current": True, "status": "active"},
    {"displayId": "RES-1", "relation": "about", "current": True, "status": "active"},
    {"displayId": "DEC-1", "relation": "about", "current": False, "status": "superseded"}]
HELPER_ENTRIES = [
    {"displayId": "DEC-1", "relation": "about", "status": "superseded", "current": False},
    {"displayId": "DEC-3", "relation": "about", "status": "active", "current": True}]
API_ENTRIES = [
    {"displayId": "FAIL-1", "relation": "about"}, {"displayId": "RES-1", "relation": "about"},
    {"displayId": "DEC-2", "relation": "in scope: pkg/api*.py"}]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    base = tmp_path_factory.mktemp("graphql-memory")
    root = base / "src"
    root.mkdir()
    write_tree(root, FILES)
    with Store.open(base / "db", serving=True) as store:  # as `vgdb serve --writable`
        ingest_repository(store, root, options=IngestOptions(name=REPO))
        secret = TokenStore(base / "db").create("agent", scope="write")[1]
        with serving_app(store, Settings()) as url:
            yield url, secret


class Agent:
    """A GraphQL client that counts its HTTP round trips (one per execute)."""

    def __init__(self, url: str, token: str) -> None:
        self.client = Client(transport=HTTPXTransport(
            url=f"{url}/graphql", timeout=30, headers={"Authorization": f"Bearer {token}"}))
        self.trips = 0

    def __call__(self, query: str, **variables: Any) -> dict[str, Any]:
        self.trips += 1
        request = gql(query)
        request.variable_values = variables or None
        with self.client as session:
            return session.execute(request)


DECIDE = """mutation($title: String!, $category: String!, $symbols: [String!],
                     $scope: [String!], $supersedes: [String!]) {
  recordDecision(session: "m1", title: $title, category: $category, symbols: $symbols,
                 scope: $scope, supersedes: $supersedes, reason: "raising is clearer") {
    __typename
    ... on Recorded { id key displayId at warnings }
    ... on Conflict { message active { id key displayId title } index }
    ... on Rejected { code reference closest index }
  }
}"""


def _utc(text: str) -> datetime:
    assert text.endswith("Z"), text
    return datetime.fromisoformat(text.removesuffix("Z"))


def test_an_agent_records_decisions_about_code_and_finds_them_everywhere(server) -> None:
    url, token = server
    agent = Agent(url, token)
    assert agent('mutation { startSession(session: "m1", title: "helper semantics", '
                 'agent: "claude") { session } }') == {"startSession": {"session": "m1"}}

    first = agent(DECIDE, title="helper returns an int", category="api",
                  symbols=["pkg/core.py#helper"])["recordDecision"]
    assert (first["__typename"], first["displayId"], first["key"].startswith("entry:"),
            first["warnings"]) == ("Recorded", "DEC-1", True, [])
    clash = agent(DECIDE, title="helper may return None", category="api",
                  symbols=[HELPER])["recordDecision"]
    assert clash["__typename"] == "Conflict"
    assert clash["active"] == [{"id": first["id"], "key": first["key"], "displayId": "DEC-1",
                                "title": "helper returns an int"}]
    scoped = agent(DECIDE, title="the api module stays thin", category="layout",
                   scope=["pkg/api*.py"])["recordDecision"]
    assert (scoped["__typename"], scoped["displayId"]) == ("Recorded", "DEC-2")
    # supersede by Relay id (the display id and the key are accepted as well)
    newer = agent(DECIDE, title="helper returns an int or raises", category="api",
                  symbols=["helper"], supersedes=[first["id"]])["recordDecision"]
    assert (newer["__typename"], newer["displayId"]) == ("Recorded", "DEC-3")
    typo = agent(DECIDE, title="helper is pure", category="purity",
                 symbols=["pkg/core.py#helpr"])["recordDecision"]
    assert typo == {"__typename": "Rejected", "code": "NOT_FOUND",
                    "reference": "pkg/core.py#helpr", "closest": [HELPER], "index": 0}

    batch = agent("""mutation { record(session: "m1", records: [
        {type: FAILURE, key: "f1", error: "AssertionError: serve() == 2",
         file: "pkg/api.py", category: "tests"},
        {type: RESOLUTION, failure: "f1", title: "helper() back to 1", outcome: "success",
         files: ["pkg/api.py"]},
        {type: FILE_MODIFIED, paths: ["pkg/core.py"]}]) {
      __typename ... on RecordedBatch { records { kind displayId } } } }""")["record"]
    assert batch == {"__typename": "RecordedBatch", "records": [
        {"kind": "failure", "displayId": "FAIL-1"},
        {"kind": "resolution", "displayId": "RES-1"},
        {"kind": "file_modified", "displayId": None}]}

    seen = agent("""query($helper: String!) {
      impact(targets: [$helper]) { entries { displayId relation current status } }
      helper: provenance(node: $helper) { entries { displayId relation status current } }
      api: provenance(node: "file:r/pkg/api.py") { entries { displayId relation } }
      cli: provenance(node: "file:r/pkg/cli.py") { entries { displayId relation } }
      supersession(node: "DEC-3") { current edges { newer older reason } }
      decisions(category: "api", current: false) { edges { node { displayId source } } }
    }""", helper=HELPER)
    assert seen["impact"]["entries"] == IMPACT_ENTRIES
    assert seen["helper"]["entries"] == HELPER_ENTRIES
    assert seen["api"]["entries"] == API_ENTRIES
    assert seen["cli"]["entries"] == []
    assert seen["supersession"] == {"current": [newer["key"]], "edges": [
        {"newer": newer["key"], "older": first["key"], "reason": "raising is clearer"}]}
    assert seen["decisions"]["edges"] == [
        {"node": {"displayId": "DEC-3", "source": "session"}},
        {"node": {"displayId": "DEC-1", "source": "session"}}]

    # as of a Z time between the first decision and the one that replaced it
    before = _utc(first["at"]) + (_utc(newer["at"]) - _utc(first["at"])) / 2
    then = agent("""query($t: DateTime!) {
      decisions(asOf: $t, category: "api") { edges { node { displayId status } } }
      supersession(node: "DEC-3", asOf: $t) { at versions { displayId status validAt } }
      provenance(node: "pkg/core.py#helper", asOf: $t) { entries { displayId status current } }
    }""", t=before.isoformat() + "Z")
    assert then["decisions"]["edges"] == [{"node": {"displayId": "DEC-1", "status": "active"}}]
    assert then["supersession"] == {"at": [first["key"]], "versions": [
        {"displayId": "DEC-1", "status": "active", "validAt": True},
        {"displayId": "DEC-3", "status": "active", "validAt": False}]}
    assert then["provenance"]["entries"] == [
        {"displayId": "DEC-1", "status": "active", "current": True}]
    assert agent.trips == 9  # reported in the closing note of issue 19


def test_intents_of_other_sessions_are_named_when_work_falls_inside_them(server) -> None:
    url, token = server
    agent = Agent(url, token)
    theirs = agent("""mutation { recordIntent(session: "other", title: "rewrite the cli",
        scope: ["pkg/cli.py"]) { ... on Recorded { displayId key intents { key } } } }""")
    intent = theirs["recordIntent"]
    assert intent["intents"] == []
    mine = agent("""mutation { recordIntent(session: "mine", title: "touch the package",
        scope: ["pkg/**"]) { ... on Recorded { intents { key displayId session } } } }""")
    assert mine["recordIntent"]["intents"] == [
        {"key": intent["key"], "displayId": intent["displayId"], "session": "other"}]
    change = agent("""mutation { recordFilesModified(session: "mine", paths: ["pkg/cli.py"]) {
        ... on Recorded { kind intents { displayId } warnings } } }""")["recordFilesModified"]
    assert change == {"kind": "file_modified", "intents": [{"displayId": intent["displayId"]}],
                      "warnings": [f"inside {intent['displayId']} 'rewrite the cli', an active "
                                   "intent of session other"]}
    elsewhere = agent("""mutation { recordFilesModified(session: "mine", paths:
        ["pkg/api.py"]) { ... on Recorded { intents { displayId } } } }""")
    assert elsewhere["recordFilesModified"]["intents"] == []


def test_a_batch_is_all_or_nothing(server) -> None:
    url, token = server
    agent = Agent(url, token)
    refused = agent("""mutation { record(session: "batch", records: [
        {type: NOTE, title: "kept only if all are"},
        {type: INSIGHT, title: "about a file that is not there", files: ["pkg/nope.py"]}]) {
      __typename ... on Rejected { code reference index } } }""")["record"]
    assert refused == {"__typename": "Rejected", "code": "NOT_FOUND",
                       "reference": "pkg/nope.py", "index": 1}
    notes = agent('{ notes(text: "kept only if") { totalCount } sessions { totalCount } }')
    assert notes["notes"]["totalCount"] == 0
    # a batch past the cap is refused before anything is written
    many = ", ".join(f'{{type: NOTE, title: "n{i}"}}' for i in range(501))
    refused = agent(f"""mutation {{ record(session: "batch", records: [{many}]) {{
      __typename ... on Rejected {{ code message }} }} }}""")["record"]
    assert refused == {"__typename": "Rejected", "code": "SESSION_FORMAT",
                       "message": "a batch holds at most 500 records; this one holds 501"}


def test_search_ranks_the_new_decision_first(server) -> None:
    """Right after the mutation returns, a search for its exact title ranks it first among
    entries: every write path indexes what it wrote (keyword and vector) after its commit."""
    url, token = server
    agent = Agent(url, token)
    made = agent("""mutation { recordDecision(session: "s9", title: "quokka batching for deltas",
        category: "search-check") { ... on Recorded { key } } }""")["recordDecision"]
    found = agent('{ search(query: "quokka batching for deltas", tables: ["Entry"]) '
                  "{ hits { id } } }")
    assert found["search"]["hits"][0]["id"] == made["key"]


# ---------------------------------------------------------------------------- DateTime sweep
FORMS = ("2026-11-02T09:04:10Z", "2026-11-02T11:04:10+02:00", "2026-11-02T09:04:10")

#: required arguments of the root fields that take a DateTime (a new one must be added here)
ROOT_ARGS: dict[str, str] = {
    "Query.decisions": "", "Query.failures": "", "Query.patterns": "", "Query.entries": "",
    "Query.insights": "", "Query.intents": "", "Query.notes": "", "Query.commits": "",
    "Query.sessions": "", "Query.impact": f'targets: ["{HELPER}"]',
    "Query.supersession": 'node: "pkg/core.py#helper"',
    "Query.provenance": f'node: "{HELPER}"', "Query.search": 'query: "helper"',
    "Query.briefing": 'files: ["pkg/core.py"]',
}
_SELECT = {"impact": "{ targets }", "supersession": "{ node }", "provenance": "{ id }",
           "search": "{ __typename }", "briefing": "{ tokens }"}
_MUTATION_ARGS = {"recordDecision": 'title: "t"', "recordPattern": 'title: "t"',
                  "recordFailure": 'error: "E"', "recordInsight": 'title: "t"',
                  "recordNote": 'title: "t"', "recordIntent": 'title: "t"',
                  "recordFilesRead": 'paths: ["pkg/api.py"]',
                  "recordFilesModified": 'paths: ["pkg/api.py"]',
                  "recordResolution": 'failure: "FAIL-1", title: "t"',
                  "recordOutcome": 'resolution: "RES-1", outcome: "success"',
                  "recordCommit": 'sha: "0000000"'}


def _named(t: Any) -> GraphQLNamedType:
    while isinstance(t, (GraphQLNonNull, GraphQLList)):
        t = t.of_type
    return t


def _datetime_args() -> list[tuple[str, str, str]]:
    """(type, field, argument) of every argument and input field typed DateTime."""
    schema = build_schema()._schema
    out = []
    for name, t in sorted(schema.type_map.items()):
        if name.startswith("__") or not hasattr(t, "fields"):
            continue
        for fname, field in t.fields.items():
            if _named(field.type).name == "DateTime" and not hasattr(field, "args"):
                out.append((name, "", fname))  # an input object's field
            for aname, arg in getattr(field, "args", {}).items():
                if _named(arg.type).name == "DateTime":
                    out.append((name, fname, aname))
    return out


def test_every_datetime_argument_takes_z_offsets_and_naive_times(server) -> None:
    url, token = server
    agent = Agent(url, token)
    agent('mutation { startSession(session: "sweep", agent: "bot") { session } }')
    found = _datetime_args()
    assert len(found) > 100  # connections of every node type, roots, mutations, inputs
    nested = {t for t, f, _ in found if t not in ("Query", "Mutation", "RecordInput")}
    assert {"Symbol", "File", "Entry", "Session"} <= nested
    for type_name, field, arg in found:
        answers = []
        for form in FORMS:
            if type_name == "Query":
                args = ", ".join(a for a in (ROOT_ARGS[f"Query.{field}"], f'{arg}: "{form}"')
                                 if a)
                query = f"{{ {field}({args}) {_SELECT.get(field, '{ totalCount }')} }}"
            elif type_name == "Mutation":
                args = _MUTATION_ARGS.get(field, "")
                query = (f'mutation {{ {field}(session: "sweep", {args}, {arg}: "{form}") '
                         "{ __typename } }")
            elif type_name == "RecordInput":
                query = (f'mutation {{ record(session: "sweep", records: [{{type: INTENT, '
                         f'title: "sweep {form}", {arg}: "{form}"}}]) {{ __typename }} }}')
            else:  # a connection of a node type: validated (parsed) even without a node
                query = (f'{{ node(id: "{_gid(type_name)}") {{ ... on {type_name} {{ '
                         f'{field}({arg}: "{form}") {{ totalCount }} }} }} }}')
            try:
                answers.append(agent(query))
            except TransportQueryError as exc:  # an answer too (nothing known then), but
                [error] = exc.errors or [{}]     # never a time it could not read
                code = error.get("extensions", {}).get("code")
                assert code not in ("INTERNAL", "BAD_REQUEST"), (type_name, field, arg, error)
                answers.append({"error": error["message"], "code": code})
        if type_name == "Query":
            assert answers[0] == answers[1] == answers[2], (field, arg, answers)


def _gid(type_name: str) -> str:
    import base64

    key = {"Symbol": HELPER, "File": "file:r/pkg/api.py", "Session": "session:sweep"}.get(
        type_name, "none")
    return base64.b64encode(f"{type_name}:{key}".encode()).decode()


def test_times_come_back_in_utc_with_z(server) -> None:
    url, token = server
    agent = Agent(url, token)
    made = agent("""mutation { recordNote(session: "tz", title: "at noon in Paris",
        at: "2026-11-02T12:00:00+01:00") { ... on Recorded { at key } } }""")["recordNote"]
    assert made["at"] == "2026-11-02T11:00:00Z"
    listed = agent('{ notes(text: "noon in Paris") { edges { node { validFrom recordedAt } } } }')
    node = listed["notes"]["edges"][0]["node"]
    assert node["validFrom"] == "2026-11-02T11:00:00Z" and node["recordedAt"].endswith("Z")


def test_a_reference_that_looks_like_base64_but_is_not_ascii_is_rejected_not_internal(
        server) -> None:
    """Found by the fuzzer with a write token: eight non-ASCII characters (a length a Relay
    id may have) made base64 decoding raise where only ASCII was expected: an INTERNAL error."""
    url, token = server
    answer = Agent(url, token)(DECIDE, title="naming stays short", category="naming",
                               supersedes=["ääääääää"])["recordDecision"]
    assert answer == {"__typename": "Rejected", "code": "NOT_FOUND", "reference": "ääääääää",
                      "closest": [], "index": 0}


CITE = """mutation($papers: [String!]) {
  recordDecision(session: "m1", title: "cite a superscript", category: "naming",
                 papers: $papers) {
    __typename
    ... on Rejected { code reference closest index }
  }
}"""


def test_a_paper_reference_of_superscript_digits_is_rejected_not_internal(server) -> None:
    """Found by the fuzzer with a write token: ``"³."``, stripped to ``"³"``, passes
    ``str.isdigit()``, then ``int()`` raised ValueError reading it as an RFC number."""
    url, token = server
    answer = Agent(url, token)(CITE, papers=["³."])["recordDecision"]
    assert answer == {"__typename": "Rejected", "code": "NOT_FOUND", "reference": "³.",
                      "closest": [], "index": 0}
