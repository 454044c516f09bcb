"""The GraphQL API over a real uvicorn server on loopback, queried with a real GraphQL client
(gql over httpx): node types and connections, pagination, filters, the root queries, the
limits and the error shape; batching is checked by counting database round trips."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from gql import Client, gql
from gql.transport.exceptions import TransportQueryError
from gql.transport.httpx import HTTPXTransport

from api.graphql import Context, Settings, build_schema
from graphdb import Store, embed_graph
from graphdb.tokens import TokenStore
from ingest.pipeline import IngestOptions, ingest_repository
from queries.communities import detect_communities
from tests.api.serving import serving_app
from tests.gitrepo import GitRepo
from tests.helpers import ROOT, run_vgdb, write_tree

REPO = "r"
FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": (
        '"""Core."""\n\n\nclass Base:\n    def run(self):\n        return helper()\n\n\n'
        "class Child(Base):\n    pass\n\n\ndef helper():\n    return 1\n"),
    "pkg/api.py": ("from pkg.core import Child, helper\n\n\ndef serve():\n"
                   "    return Child().run() + helper()\n\n\ndef ping():\n    return helper()\n"),
    "pkg/cli.py": "from pkg.api import serve\n\n\ndef main():\n    return serve()\n",
    "tests/test_api.py": ("from pkg.api import ping, serve\n\n\ndef test_serve():\n"
                          "    assert serve() == 2\n\n\ndef test_ping():\n"
                          "    assert ping() == 1\n"),
}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Store]]:
    base = tmp_path_factory.mktemp("graphql")
    root = base / "src"
    root.mkdir()
    write_tree(root, FILES)
    with Store.open(base / "db") as store:
        ingest_repository(store, root, options=IngestOptions(name=REPO))
        detect_communities(store, REPO)
        embed_graph(store)  # vectors and the BM25 indexes search reads
    with (Store.open(base / "db", read_only=True) as store,
          serving_app(store, Settings(allow_anonymous=True)) as url):
        yield url, store


@pytest.fixture(scope="module")
def writable(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    """A read-write server without anonymous access, and tokens of every kind."""
    base = tmp_path_factory.mktemp("graphql-rw")
    root = base / "src"
    root.mkdir()
    write_tree(root, FILES)
    tokens = TokenStore(base / "db")
    with Store.open(base / "db", serving=True) as store:  # as `vgdb serve --writable` does
        ingest_repository(store, root, options=IngestOptions(name=REPO))
        secrets = {scope: tokens.create(f"{scope} token", scope=scope)[1]
                   for scope in ("read", "write", "admin")}
        secrets["expired"] = tokens.create("old", scope="write",
                                           expires_in=timedelta(seconds=-1))[1]
        revoked, secrets["revoked"] = tokens.create("gone", scope="write")
        tokens.revoke(revoked.id)
        with serving_app(store, Settings()) as url:
            yield url, secrets


def _client(url: str, token: str | None = None) -> Client:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    return Client(transport=HTTPXTransport(url=f"{url}/graphql", timeout=30,
                                           headers=headers))


def _request(query: str, variables: dict[str, Any] | None) -> Any:
    request = gql(query)
    request.variable_values = variables
    return request


def run(url: str, query: str, variables: dict[str, Any] | None = None, *,
        token: str | None = None) -> dict[str, Any]:
    with _client(url, token) as session:
        return session.execute(_request(query, variables))


def errors(url: str, query: str, variables: dict[str, Any] | None = None, *,
           token: str | None = None) -> list[dict]:
    with pytest.raises(TransportQueryError) as caught, _client(url, token) as session:
        session.execute(_request(query, variables))
    return caught.value.errors or []


def raw(url: str, query: str) -> dict[str, Any]:
    """Without the client's own validation (it would refuse bad queries before sending)."""
    return httpx.post(f"{url}/graphql", json={"query": query}, timeout=30).json()


def test_symbol_with_nested_connections_and_edge_properties(served) -> None:
    url, _ = served
    data = run(url, """{
      symbol(ref: "pkg/core.py#helper") {
        key qualname kind startLine endLine
        calledBy { totalCount edges { line resolution node { ... on Symbol { key } } } }
        testedBy { totalCount edges { method node { ... on Symbol { key isTest } } } }
        containedIn { edges { node { ... on File { path language } } } }
      }
    }""")
    s = data["symbol"]
    assert (s["key"], s["qualname"], s["kind"], s["startLine"], s["endLine"]) == (
        "sym:r/pkg/core.py#helper", "helper", "function", 13, 14)
    callers = [(e["node"]["key"], e["line"], e["resolution"]) for e in s["calledBy"]["edges"]]
    assert callers == [("sym:r/pkg/api.py#ping", 9, "import"),
                       ("sym:r/pkg/api.py#serve", 5, "import"),
                       ("sym:r/pkg/core.py#Base.run", 6, "same_module")]
    assert s["calledBy"]["totalCount"] == 3
    assert s["containedIn"]["edges"] == [{"node": {"path": "pkg/core.py", "language": "python"}}]


def test_global_ids_round_trip_through_node_and_nodes(served) -> None:
    url, _ = served
    file = run(url, '{ file(repo: "r", path: "pkg/api.py") { id key loc } }')["file"]
    assert base64.b64decode(file["id"]).decode() == "File:file:r/pkg/api.py"
    again = run(url, "query($id: ID!) { node(id: $id) { id ... on File { key loc } } }",
                {"id": file["id"]})["node"]
    assert again == file
    many = run(url, "query($ids: [ID!]!) { nodes(ids: $ids) { ... on File { key } } }",
               {"ids": [file["id"], file["id"]]})["nodes"]
    assert many == [{"key": "file:r/pkg/api.py"}] * 2


def test_pagination_walks_forwards_and_backwards(served) -> None:
    url, _ = served
    query = """query($after: String, $before: String, $first: Int, $last: Int) {
      file(repo: "r", path: "pkg/core.py") {
        contains(first: $first, after: $after, last: $last, before: $before) {
          totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
          edges { cursor node { ... on Symbol { qualname } } }
        }
      }
    }"""
    seen, after = [], None
    while True:
        conn = run(url, query, {"first": 2, "after": after})["file"]["contains"]
        seen += [e["node"]["qualname"] for e in conn["edges"]]
        if not conn["pageInfo"]["hasNextPage"]:
            break
        after = conn["pageInfo"]["endCursor"]
    assert seen == ["<module>", "Base", "Child", "helper"]  # by key; methods hang off Base
    assert conn["totalCount"] == 4
    back = run(url, query, {"last": 2, "before": conn["edges"][-1]["cursor"]})
    assert [e["node"]["qualname"] for e in back["file"]["contains"]["edges"]] == [
        "Base", "Child"]
    assert back["file"]["contains"]["pageInfo"]["hasPreviousPage"] is True


def test_filters_on_the_other_end(served) -> None:
    url, _ = served
    data = run(url, """{
      repository(name: "r") {
        contains(path: "pkg/*.py", first: 100) { totalCount }
        tests: contains(path: "tests/**") { edges { node { ... on File { path } } } }
        none: contains(kind: "nonsense") { totalCount }
      }
    }""")["repository"]
    assert data["contains"]["totalCount"] == 4
    assert data["tests"]["edges"] == [{"node": {"path": "tests/test_api.py"}}]
    assert data["none"]["totalCount"] == 0
    functions = run(url, """{ file(repo: "r", path: "pkg/api.py") {
        contains(kind: "function") { edges { node { ... on Symbol { qualname } } } } } }""")
    assert [e["node"]["qualname"] for e in functions["file"]["contains"]["edges"]] == [
        "ping", "serve"]


def test_communities_and_their_members(served) -> None:
    url, _ = served
    data = run(url, """{ communities(repo: "r") {
        totalCount edges { node { key level size name
          members(first: 100) { totalCount edges { node { ... on File { path } } } } } } } }""")
    conn = data["communities"]
    sizes = [e["node"]["size"] for e in conn["edges"]]
    assert sizes == sorted(sizes, reverse=True) and sum(sizes) == len(FILES)
    for edge in conn["edges"]:
        node = edge["node"]
        assert node["key"].startswith("community:r/file/0/") and node["level"] == 0
        assert node["members"]["totalCount"] == node["size"]
    first = conn["edges"][0]["node"]
    inside = run(url, """query($c: String!) { repository(name: "r") {
        contains(community: $c, first: 100) { totalCount } } }""", {"c": first["key"]})
    assert inside["repository"]["contains"]["totalCount"] == first["size"]


def test_provenance_through_the_api(served) -> None:
    url, _ = served
    data = run(url, """{ provenance(node: "pkg/api.py#serve") {
        id table name current commits { sha } } }""")["provenance"]
    assert data == {"id": "sym:r/pkg/api.py#serve", "table": "Symbol", "name": "serve",
                    "current": True, "commits": []}  # not a git repository: no commits


def test_errors_have_a_code_and_say_what_to_do(served) -> None:
    url, _ = served
    [unknown] = raw(url, "{ repositories { nope } }")["errors"]
    assert unknown["extensions"]["code"] == "BAD_REQUEST"
    assert "Cannot query field 'nope' on type 'Repository'" in unknown["message"]
    [syntax] = raw(url, "{ repositories { name ")["errors"]
    assert syntax["message"].startswith("Syntax Error") and syntax["extensions"]["code"]
    [missing] = errors(url, '{ provenance(node: "nope.py#x") { id } }')
    assert missing["extensions"]["code"] == "NOT_FOUND"
    assert missing["message"] == "nothing in the graph is named 'nope.py#x'"
    assert "suggestion" in missing["extensions"]
    [big] = errors(url, '{ repository(name: "r") { contains(first: 500) { totalCount } } }')
    assert big["message"] == "first must be between 0 and 100, not 500"
    [cursor] = errors(url, '{ repository(name: "r") { contains(after: "zzz") { totalCount } } }')
    assert cursor["message"] == "invalid cursor 'zzz'"
    assert cursor["extensions"]["code"] == "QUERY_ERROR"


def test_limits_refuse_deep_wide_and_expensive_queries(served) -> None:
    url, _ = served
    nested = "{ node { ... on Symbol { calledBy(first: 1) { edges " * 6 + "{ cursor }"
    nested += " } } } }" * 6
    deep = raw(url, '{ symbol(ref: "pkg/core.py#helper") ' + nested + " }")
    assert "exceeds maximum operation depth" in deep["errors"][0]["message"]
    aliases = " ".join(f"a{i}: repositories {{ name }}" for i in range(40))
    assert "aliases" in raw(url, "{ " + aliases + " }")["errors"][0]["message"]
    tokens = "{ " + " ".join("repositories { name }" for _ in range(2000)) + " }"
    assert "token" in raw(url, tokens)["errors"][0]["message"].lower()
    costly = raw(url, """{ communities(repo: "r", first: 100) { edges { node {
        members(first: 100) { edges { node { ... on File {
          contains(first: 100) { edges { node { ... on Symbol {
            calledBy(first: 100) { edges { cursor } } } } } } } } } } } } } }""")
    [error] = costly["errors"]
    assert error["extensions"]["code"] == "TOO_EXPENSIVE" and costly["data"] is None


def test_oversized_requests_are_refused_before_they_are_read(served) -> None:
    url, _ = served
    big = {"query": "query($v: String) { repositories { name } }", "variables": {
        "v": "x" * 1_200_000}}
    response = httpx.post(f"{url}/graphql", json=big, timeout=30)
    assert response.status_code == 413
    assert response.json()["errors"][0]["extensions"]["code"] == "TOO_LARGE"


def test_health_and_get_requests(served) -> None:
    url, _ = served
    health = httpx.get(f"{url}/healthz", timeout=10).json()
    assert health["status"] == "ok" and health["read_only"] is True
    response = httpx.get(f"{url}/graphql", params={"query": "{ repositories { name } }"},
                         timeout=10)
    version = response.json()["extensions"]["graphVersion"]
    assert response.json() == {"data": {"repositories": [{"name": "r"}]},
                               "extensions": {"graphVersion": version}}
    assert response.headers["etag"].startswith(f'W/"{version}-')
    assert len(response.headers["x-request-id"]) == 12


def test_nested_lists_are_batched_not_one_query_per_node(served) -> None:
    _, store = served
    schema = build_schema()
    query = """{ repository(name: "r") { contains(first: 50) { edges { node {
        ... on File { contains(first: 50) { edges { node { ... on Symbol {
          calls { totalCount } calledBy { totalCount } } } } } } } } } } }"""
    context = Context(store, Settings(allow_anonymous=True))
    result = asyncio.run(schema.execute(query, context_value=context))
    assert result.errors is None
    files = result.data["repository"]["contains"]["edges"]
    symbols = sum(len(f["node"]["contains"]["edges"]) for f in files)
    assert (len(files), symbols) == (5, 13)
    # the repository; then one query per level: its files, their symbols, the calls and
    # the callers of all symbols. No properties of the listed nodes are selected, so none
    # are loaded (an edge never dangles).
    assert context.queries == 5
    with_properties = query.replace("... on File {", "... on File { path loc").replace(
        "... on Symbol {", "... on Symbol { qualname")
    context = Context(store, Settings(allow_anonymous=True))
    result = asyncio.run(schema.execute(with_properties, context_value=context))
    assert result.errors is None and result.data["repository"]["contains"]["edges"][0][
        "node"]["path"] == "pkg/__init__.py"
    # plus one batched load of the files' properties, one of the symbols'
    assert context.queries == 7


def test_committed_sdl_matches_the_code() -> None:
    committed = (ROOT / "api" / "schema.graphql").read_text(encoding="utf-8")
    assert committed == build_schema().as_str() + "\n", (
        "api/schema.graphql is stale: regenerate it with "
        "`python -m api.graphql > api/schema.graphql`")


def test_sdl_file_exists_next_to_docs() -> None:
    assert (ROOT / "docs" / "api.md").exists()
    assert Path(ROOT / "api" / "schema.graphql").stat().st_size > 10_000


# ----------------------------------------------------------------------- tokens and writes
def test_requests_need_a_valid_token_with_the_right_scope(writable) -> None:
    url, tokens = writable
    query = "{ repositories { name } }"
    [anonymous] = errors(url, query)
    assert anonymous["extensions"]["code"] == "UNAUTHENTICATED"
    assert anonymous["message"] == "this server needs an API token to read"
    assert run(url, query, token=tokens["read"]) == {"repositories": [{"name": "r"}]}
    [wrong] = errors(url, query, token="vgdb_0000_nope")
    assert wrong["message"] == "unknown API token"
    [expired] = errors(url, query, token=tokens["expired"])
    assert expired["message"].endswith("(old) is expired")
    [revoked] = errors(url, query, token=tokens["revoked"])
    assert revoked["message"].endswith("(gone) is revoked")
    [forbidden] = errors(url, 'mutation { startSession(title: "x") { session } }',
                         token=tokens["read"])
    assert forbidden["extensions"]["code"] == "FORBIDDEN"
    assert "has scope read; this needs write" in forbidden["message"]
    malformed = httpx.post(f"{url}/graphql", json={"query": query},
                           headers={"Authorization": "Basic abc"}, timeout=10).json()
    assert malformed["errors"][0]["message"] == (
        "the Authorization header must be `Bearer <token>`")


RECORD = """mutation($session: String!, $title: String!, $supersedes: [String!]) {
  recordDecision(session: $session, title: $title, category: "storage",
                 scope: ["graphdb/**"], supersedes: $supersedes,
                 content: "how bulk loads reach Kuzu") {
    __typename
    ... on Recorded { id displayId merged }
    ... on Conflict { message choices active { id displayId title } }
    ... on Rejected { code message }
  }
}"""


def test_mutations_record_decisions_and_answer_conflicts_with_a_union(writable) -> None:
    url, tokens = writable
    write = tokens["write"]
    started = run(url, 'mutation { startSession(session: "s1", title: "loads", agent: "bot")'
                       " { session } }", token=write)
    assert started == {"startSession": {"session": "s1"}}
    sessions = run(url, "{ sessions { edges { node { key title agent } } } }",
                   token=tokens["read"])["sessions"]["edges"]
    assert sessions == [{"node": {"key": "session:s1", "title": "loads", "agent": "bot"}}]
    first = run(url, RECORD, {"session": "s1", "title": "COPY for bulk loads"},
                token=write)["recordDecision"]
    assert (first["__typename"], first["displayId"], first["merged"]) == (
        "Recorded", "DEC-1", False)
    clash = run(url, RECORD, {"session": "s1", "title": "MERGE row by row"},
                token=write)["recordDecision"]
    assert clash["__typename"] == "Conflict"
    assert clash["active"] == [{"id": first["id"], "displayId": "DEC-1",
                                "title": "COPY for bulk loads"}]
    assert clash["choices"] == ["supersede", "narrow_scope", "abort"]
    second = run(url, RECORD, {"session": "s1", "title": "COPY, then UNWIND for deltas",
                               "supersedes": ["DEC-1"]}, token=write)["recordDecision"]
    assert (second["__typename"], second["displayId"]) == ("Recorded", "DEC-2")
    listed = run(url, """{ current: decisions { edges { node { displayId status } } }
                           all: decisions(current: false) { totalCount } }""",
                 token=tokens["read"])
    assert listed["current"]["edges"] == [{"node": {"displayId": "DEC-2", "status": "active"}}]
    assert listed["all"]["totalCount"] == 2
    outcome = ('mutation($o: String!) { recordOutcome(session: "s1", resolution: "RES-99", '
               "outcome: $o) { __typename ... on Rejected { code message } } }")
    missing = run(url, outcome, {"o": "success"}, token=write)["recordOutcome"]
    assert missing["__typename"] == "Rejected" and missing["code"] == "NOT_FOUND"
    invalid = run(url, outcome, {"o": "worked"}, token=write)["recordOutcome"]
    assert invalid == {"__typename": "Rejected", "code": "SESSION_FORMAT", "message": (
        "invalid outcome event: outcome must be one of success, partial, pending, failed, "
        "worsened, got 'worked'")}


def test_token_commands(tmp_path: Path) -> None:
    db = tmp_path / "db"
    db.mkdir()
    made = run_vgdb("token", "create", "ci", "--db", str(db), "--scope", "write", "--json")
    assert made.returncode == 0, made.stderr
    data = json.loads(made.stdout)
    assert data["token"].startswith(f"vgdb_{data['id']}_") and data["scope"] == "write"
    assert data["token"] not in (db / "tokens.json").read_text()  # only its hash is kept
    assert TokenStore(db).verify(data["token"]).name == "ci"
    listed = json.loads(run_vgdb("token", "list", "--db", str(db), "--json").stdout)
    assert [(t["name"], t["state"]) for t in listed] == [("ci", "active")]
    assert run_vgdb("token", "revoke", data["id"], "--db", str(db)).returncode == 0
    listed = json.loads(run_vgdb("token", "list", "--db", str(db), "--json").stdout)
    assert listed[0]["state"] == "revoked"
    bad = run_vgdb("token", "revoke", "nope", "--db", str(db))
    assert bad.returncode == 1 and "no token 'nope'" in bad.stderr


def test_graphiql_is_served_from_bundled_assets(served) -> None:
    url, _ = served
    page = httpx.get(f"{url}/graphql", headers={"Accept": "text/html"}, timeout=10)
    assert page.status_code == 200 and "GraphiQL" in page.text
    assets = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert sorted(assets) == ["/graphql/static/graphiql.min.css",
                              "/graphql/static/graphiql.min.js",
                              "/graphql/static/react-dom.production.min.js",
                              "/graphql/static/react.production.min.js"]
    assert not re.search(r'(?:src|href)="https?://', page.text)  # nothing from a CDN
    sums = dict(line.split()[::-1] for line in
                (ROOT / "api/graphql/static/SHA256SUMS").read_text().splitlines())
    for asset in assets:
        body = httpx.get(f"{url}{asset}", timeout=10)
        assert body.status_code == 200
        assert hashlib.sha256(body.content).hexdigest() == sums[asset.rsplit("/", 1)[1]]


CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--window-size=1400,900",
                  "--virtual-time-budget=10000")
ARTIFACTS = ROOT / "test-artifacts"


def test_graphiql_runs_a_query_in_headless_chromium(served, tmp_path: Path) -> None:
    """The page renders offline and its run button answers; the screenshot is kept in
    test-artifacts/graphiql.png."""
    url, _ = served
    chromium = shutil.which("chromium")
    assert chromium, "Debian's chromium is needed (make test installs it: apt-get install chromium)"
    page = f"{url}/graphql?" + urlencode({"query": '{ repository(name: "r") { name } }',
                                          "run": "1"})
    common = [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([*common, "--dump-dom", page], capture_output=True, text=True,
                         timeout=90, check=True).stdout
    assert '"repository": {' in dom.replace('":{', '": {') and '"name": "r"' in dom.replace(
        '":"', '": "')
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "graphiql.png"
    shot.unlink(missing_ok=True)
    subprocess.run([*common, f"--screenshot={shot}", page], capture_output=True, timeout=90,
                   check=True)
    assert shot.stat().st_size > 10_000


def test_impact_through_the_api_explains_each_impacted_node(served) -> None:
    url, _ = served
    data = run(url, """{ impact(targets: ["pkg/core.py#helper"], depth: 2) {
        targets depth notes
        symbols { id distance via { src kind dst } }
        tests { nodeId reason }
        communities { id }
      } }""")["impact"]
    assert data["targets"] == ["sym:r/pkg/core.py#helper"] and data["depth"] == 2
    by_id = {s["id"]: s for s in data["symbols"]}
    assert by_id["sym:r/pkg/api.py#serve"]["distance"] == 1
    assert by_id["sym:r/pkg/api.py#serve"]["via"] == [
        {"src": "sym:r/pkg/api.py#serve", "kind": "CALLS", "dst": "sym:r/pkg/core.py#helper"}]
    assert by_id["sym:r/pkg/cli.py#main"]["distance"] == 2
    assert sorted(t["nodeId"] for t in data["tests"]) == [
        "tests/test_api.py::test_ping", "tests/test_api.py::test_serve"]
    assert data["communities"]  # grouped by the stored communities
    [both] = errors(url, '{ impact(targets: ["x"], repo: "r", base: "HEAD") { depth } }')
    assert both["message"] == "pass targets, or repo and base (a git revision), not both"


def test_affected_tests_and_supersession_on_a_git_repository(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "proj")
    repo.commit("init", FILES)
    repo.move("pkg/cli.py", "pkg/command.py")
    repo.commit("move the command line")
    # an uncommitted change of helper: affected tests of the working tree against HEAD
    repo.write({"pkg/core.py": FILES["pkg/core.py"].replace("return 1", "return 2")})
    with Store.open(tmp_path / "db") as store:
        ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
        with serving_app(store, Settings(allow_anonymous=True)) as url:
            affected = run(url, """{ affectedTests(repo: "proj", base: "HEAD") {
                nodeIds notes tests { nodeId reason } } }""")["affectedTests"]
            chain = run(url, """{ supersession(node: "pkg/command.py#main") {
                current replaces edges { newer older reason } } }""")["supersession"]
            [missing] = errors(url, '{ affectedTests(repo: "nope", base: "HEAD") '
                                    "{ nodeIds } }")
            [mode] = errors(url, '{ affectedTests(repo: "proj", base: "HEAD", coverage: false, '
                                 'neverExecuted: "maybe") { nodeIds } }')
            [impact_mode] = errors(url, '{ impact(targets: ["pkg/core.py#helper"], '
                                        'neverExecuted: "never") { depth } }')
    assert affected["nodeIds"] == ["tests/test_api.py::test_ping",
                                   "tests/test_api.py::test_serve"]
    assert chain["current"] == ["sym:proj/pkg/command.py#main"]
    assert chain["replaces"] == ["sym:proj/pkg/cli.py#main"]
    assert [(e["newer"], e["older"]) for e in chain["edges"]] == [
        ("sym:proj/pkg/command.py#main", "sym:proj/pkg/cli.py#main")]
    assert missing["message"] == "no repository named 'nope'"
    assert mode["message"] == "never_executed must be one of unrecorded, static, skip, got " \
                              "'maybe'"
    assert impact_mode["message"].endswith("got 'never'")


def test_max_tokens_trims_a_result_and_says_what_it_left_out(served) -> None:
    url, _ = served
    query = ('{ impact(targets: ["pkg/core.py#helper"], depth: 3%s) { symbols { id } '
             "tests { nodeId } notes } }")
    full = raw(url, query % "")
    small = raw(url, query % ", maxTokens: 150")
    assert "errors" not in small and "trimmed" not in full.get("extensions", {})
    whole, cut = full["data"]["impact"], small["data"]["impact"]
    [trimmed] = small["extensions"]["trimmed"]
    assert trimmed["path"] == "impact" and trimmed["maxTokens"] == 150
    assert set(trimmed["dropped"]) & {"symbols", "tests"}
    for field, dropped in trimmed["dropped"].items():
        if field in cut:  # fields the query selected
            assert len(cut[field]) == len(whole[field]) - dropped
    assert cut["symbols"] == whole["symbols"][:len(cut["symbols"])]  # best first, tail cut
    assert cut["notes"][-1].startswith("trimmed to about 150 tokens (maxTokens): ")
    [low] = raw(url, query % ", maxTokens: 5")["errors"]
    assert low["message"] == "maxTokens must be at least 100, not 5"


def test_admin_ingest_runs_in_the_background_with_readable_progress(
        writable, tmp_path: Path) -> None:
    url, tokens = writable
    other = tmp_path / "other"
    other.mkdir()
    write_tree(other, {"lib/__init__.py": "", "lib/m.py": "def f():\n    return 1\n"})
    start = ('mutation($p: String!) { ingest(path: $p, name: "other", history: false) '
             "{ id status repo } }")
    [forbidden] = errors(url, start, {"p": str(other)}, token=tokens["write"])
    assert forbidden["extensions"]["code"] == "FORBIDDEN"
    assert "needs the admin scope" in forbidden["message"]
    [missing] = errors(url, start, {"p": str(tmp_path / "nope")}, token=tokens["admin"])
    assert "nope" in missing["message"]
    job = run(url, start, {"p": str(other)}, token=tokens["admin"])["ingest"]
    assert job["repo"] == "other" and job["status"] in ("queued", "running", "done")
    poll = "query($id: String!) { ingestJob(id: $id) { status phase error summary } }"
    seen = ('{ repository(name: "other") { contains { totalCount } } '
            'lib: file(repo: "other", path: "lib/m.py") { contains { totalCount } } }')
    observed = []
    deadline = time.monotonic() + 120
    while True:
        state = run(url, poll, {"id": job["id"]}, token=tokens["admin"])["ingestJob"]
        if state["status"] in ("done", "failed") or time.monotonic() > deadline:
            break
        # readers are served while the job writes, and see all of it or nothing
        observed.append(run(url, seen, token=tokens["read"]))
        time.sleep(0.05)
    assert (state["status"], state["error"]) == ("done", None)
    after = run(url, seen, token=tokens["read"])
    assert after == {"repository": {"contains": {"totalCount": 2}},
                     "lib": {"contains": {"totalCount": 2}}}  # <module> and f
    assert all(o in ({"repository": None, "lib": None}, after) for o in observed)
    assert state["summary"]["files"]["added"] == 2
    assert state["summary"]["communities"]["status"] == "detected"
    names = [r["name"] for r in run(url, "{ repositories { name } }",
                                    token=tokens["read"])["repositories"]]
    assert names == ["other", "r"]
    listed = run(url, "{ ingestJobs { id status } }", token=tokens["admin"])["ingestJobs"]
    assert listed[0] == {"id": job["id"], "status": "done"}


def test_search_through_the_api(served) -> None:
    url, _ = served
    data = run(url, """{ search(query: "helper", k: 3) {
        query signals notes hits { id table score bm25 { rank } trust freshness } } }""")
    result = data["search"]
    assert result["query"] == "helper" and "bm25" in result["signals"]
    assert result["hits"][0]["id"] == "sym:r/pkg/core.py#helper"
    assert result["hits"][0]["bm25"]["rank"] == 1 and result["hits"][0]["trust"] == 100
    [bad] = errors(url, '{ search(query: "x", k: 0) { k } }')
    assert bad["message"] == "k must be between 1 and 100, not 0"


def test_analyst_search_returns_a_frame(tmp_path: Path) -> None:
    import vectorgraphdb

    root = tmp_path / "src"
    root.mkdir()
    write_tree(root, FILES)
    with Store.open(tmp_path / "db") as store:
        ingest_repository(store, root, options=IngestOptions(name=REPO))
        embed_graph(store)
    with vectorgraphdb.open(tmp_path / "db") as g:
        frame = g.search("helper", k=3)
    assert frame["id"][0] == "sym:r/pkg/core.py#helper"
    assert {"bm25_rank", "vector_rank", "graph_rank", "trust", "freshness"} <= set(frame.columns)


def test_the_demo_example_queries_are_valid_against_the_schema() -> None:
    """make demo prints them for people to paste: they must not rot."""
    from graphql import parse, validate

    document = parse((ROOT / "api" / "graphql" / "examples.graphql").read_text())
    assert validate(build_schema()._schema, document) == []
    names = [d.name.value for d in document.definitions]
    assert names == ["Impact", "Provenance", "Supersession", "Search"]


def test_anonymous_access_reads_but_never_writes(served) -> None:
    url, _ = served
    assert run(url, "{ repositories { name } }") == {"repositories": [{"name": "r"}]}
    [write] = errors(url, 'mutation { startSession(title: "x") { session } }')
    assert write["extensions"]["code"] == "UNAUTHENTICATED"
    assert write["message"] == "this server needs an API token to write"
