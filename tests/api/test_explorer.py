"""The web explorer at ``/`` driven in Debian's headless Chromium through Playwright (its
Python package only: ``executable_path=/usr/bin/chromium``, no browser download), over a real
uvicorn server on a real ingested git repository that needs a token. Each view loads, clicks
navigate, the impact view of a known symbol lists the exact tests, and no request leaves the
machine. Screenshots are kept in test-artifacts/explorer-*.png."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import datetime

import httpx
import pytest
from playwright.sync_api import Browser

from api.graphql import Settings
from api.web import STATIC
from graphdb import Store, embed_graph
from graphdb.tokens import TokenStore
from ingest.pipeline import IngestOptions, ingest_repository
from ingest.sessions.record import Recorder
from queries.communities import detect_communities
from queries.impact import ImpactResult, impact
from tests.api.explorer_tab import TESTS_LISTED, Explorer, open_tab
from tests.api.serving import serving_app
from tests.api.test_graphql import FILES, REPO
from tests.gitrepo import GitRepo

FIRST, SECOND = datetime(2024, 1, 1), datetime(2025, 1, 1)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory,
         ) -> Iterator[tuple[str, str, ImpactResult, str]]:
    """(url, token, uncut impact of helper at depth 2 read from the queries layer, id of the
    newer decision) of a server that refuses anonymous reads, over a two-commit repository
    with a decision superseded by another (the newer one is about helper and a commit)."""
    base = tmp_path_factory.mktemp("explorer")
    repo = GitRepo(base / "src")
    first = repo.commit("first cut", FILES)
    repo.commit("helper returns one", {"pkg/core.py": FILES["pkg/core.py"].replace(
        "return 1\n", "return 1  # one\n")})
    with Store.open(base / "db") as store:
        ingest_repository(store, repo.root, options=IngestOptions(name=REPO))
        detect_communities(store, REPO)
        embed_graph(store)
        me = Recorder(store, session="s1", agent="claude", repo=REPO)
        old = me.record_decision("helper returns an int", category="api", at=FIRST,
                                 symbols=["pkg/core.py#helper"])
        newer = me.record_decision("helper returns one", category="api", supersedes=[old.id],
                                   reason="narrower", at=SECOND, symbols=["pkg/core.py#helper"],
                                   commits=[first])
        secret = TokenStore(base / "db").create("viewer")[1]
        uncut = impact(store, ["pkg/core.py#helper"], depth=2)
    with (Store.open(base / "db", read_only=True) as store,
          serving_app(store, Settings(allow_anonymous=False)) as url):
        yield url, secret, uncut, newer.id


@pytest.fixture
def tab(site: tuple[str, str], browser: Browser) -> Iterator[Explorer]:
    """A fresh tab whose session already holds the token (as the token field leaves it)."""
    url, secret, *_ = site
    with open_tab(browser, url, secret) as explorer:
        yield explorer


def test_the_vendored_library_is_the_checksummed_one_and_served_without_a_token(site) -> None:
    url, *_ = site
    vendor = STATIC / "vendor"
    for line in (vendor / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split()
        data = (vendor / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == digest
        served = httpx.get(f"{url}/explorer/vendor/{name}")
        assert served.status_code == 200 and served.content == data
        assert served.headers["content-type"].startswith("text/javascript")
    page = httpx.get(f"{url}/")
    assert page.status_code == 200 and '<script type="module" src="/explorer/app.js">' in page.text


def test_the_page_asks_for_a_token_and_sends_it_as_a_bearer_header(site, browser) -> None:
    url, secret, *_ = site
    with open_tab(browser, url) as tab:
        refused = tab.open("")
        assert refused["error"] == "this server needs an API token to read"
        assert tab.page.inner_text("#status").startswith("this server needs an API token to read")
        assert tab.page.is_visible("#token-input")
        tab.page.fill("#token-input", secret)
        shown = tab.after(lambda: tab.page.click("#token-save"))
        assert shown["view"] == "map" and "error" not in shown
        assert tab.page.evaluate("sessionStorage.getItem('vgdb-token')") == secret
        posts = [headers for u, headers in tab.requests if u == f"{url}/graphql"]
        assert posts[0].get("authorization") is None
        assert posts[-1]["authorization"] == f"Bearer {secret}"


def test_map_shows_communities_and_drills_down_to_a_file(tab: Explorer) -> None:
    shown = tab.open("#/map")
    communities = tab.graph_ids()
    assert shown["view"] == "map" and shown["shown"] == len(communities) > 0
    assert shown["leftOut"] == 0 and all(c.startswith("community:r/file/0/") for c in communities)
    tab.shoot("map")
    biggest = tab.page.evaluate(
        "window.__explorer.graph.nodes().max((n) => n.width()).ele.id()")
    tab.tap(biggest)
    tab.page.wait_for_selector("#map-members li a")
    members = tab.page.eval_on_selector_all("#map-members li a",
                                            "(a) => a.map((x) => x.dataset.node)")
    assert members and all(m.startswith("file:r/") for m in members)
    shown = tab.after(lambda: tab.page.click("#drill-down"))
    assert shown["view"] == "map" and "error" not in shown
    assert tab.page.url.endswith("community=" + biggest.replace("/", "%2F").replace(":", "%3A"))
    # too small to split again: the drill-down shows the community's files
    assert tab.graph_ids() == set(members)
    first = sorted(members)[0]
    shown = tab.after(lambda: tab.tap(first))
    assert shown["view"] == "node"
    assert tab.page.inner_text("#node-title") == first.split("/", 1)[1]


def test_node_page_neighbourhood_filters_provenance_and_span(tab: Explorer) -> None:
    shown = tab.open("#/node?id=sym:r/pkg/core.py%23helper")
    assert tab.graph_ids() == {"sym:r/pkg/core.py#helper", "sym:r/pkg/core.py#Base.run",
                               "sym:r/pkg/api.py#serve", "sym:r/pkg/api.py#ping",
                               "file:r/pkg/api.py"}
    assert shown["leftOut"] == 0
    assert tab.page.inner_text("#node-span") == "source span: pkg/core.py, lines 13\N{EN DASH}14"
    assert tab.page.inner_text("#node-source pre") == (
        "   13  def helper():\n   14      return 1  # one")
    timeline = tab.page.inner_text("#node-timeline")
    assert "DEC-2 helper returns one" in timeline
    assert "decision · superseded" in timeline and "(no longer in force)" in timeline
    assert "first cut — " in timeline
    tab.shoot("node")
    # filters: without IMPORTS the file goes; depth 2 through CALLS reaches main and the tests
    tab.after(lambda: tab.page.uncheck("#node-filters input[name=IMPORTS]"))
    assert "file:r/pkg/api.py" not in tab.graph_ids()
    tab.after(lambda: tab.page.select_option("#node-depth", "2"))
    assert "kinds=CALLS%2CINHERITS%2CTESTS" in tab.page.url and "depth=2" in tab.page.url
    assert {"sym:r/pkg/cli.py#main", "sym:r/tests/test_api.py#test_serve",
            "sym:r/tests/test_api.py#test_ping"} <= tab.graph_ids()
    # a click on a neighbour opens its page
    shown = tab.after(lambda: tab.tap("sym:r/pkg/cli.py#main"))
    assert shown["view"] == "node" and tab.page.inner_text("#node-title") == "main"


def test_node_page_counts_neighbours_of_kinds_it_does_not_draw(site, tab: Explorer) -> None:
    """The newer decision is about helper (drawn) and a commit (the page draws no commits):
    the commit is counted as left out, not silently dropped."""
    newer = site[3]
    shown = tab.open(f"#/node?id={newer}")
    ids = tab.graph_ids()
    # the decision, what it is about that the page draws, and the decision it superseded
    assert {newer, "sym:r/pkg/core.py#helper"} < ids and len(ids) == 3
    assert [i for i in ids - {newer} if i.startswith("entry:")] != []
    assert shown["leftOut"] == 1
    assert tab.page.inner_text("#left-out") == "1 left out"


def test_impact_view_lists_the_exact_tests_and_highlights_why(tab: Explorer) -> None:
    tab.open("#/impact")
    tab.page.fill("#impact-form input[name=targets]", "pkg/core.py#helper")
    tab.page.fill("#impact-form input[name=depth]", "2")
    shown = tab.after(lambda: tab.page.click("#impact-form button"))
    assert shown["view"] == "impact" and "error" not in shown and shown["leftOut"] == 0
    shared = tab.page.url
    assert "targets=pkg%2Fcore.py%23helper" in shared and "depth=2" in shared
    tests = tab.page.eval_on_selector_all("#impact-tests li", TESTS_LISTED)
    assert sorted(tests) == ["tests/test_api.py::test_ping", "tests/test_api.py::test_serve"]
    assert "DEC-2 helper returns one" in tab.page.inner_text("#impact-entries")
    tab.page.click("#impact-tests li[data-test='tests/test_api.py::test_ping'] a")
    lit = tab.page.evaluate("window.__explorer.graph.elements('.path').map((e) => e.id())")
    assert set(lit) >= {"sym:r/tests/test_api.py#test_ping", "sym:r/pkg/api.py#ping",
                        "sym:r/pkg/core.py#helper"}
    assert "sym:r/pkg/cli.py#main" not in lit
    tab.shoot("impact")
    # the URL is the view: opened afresh, it shows the same tests
    tab.page.goto("about:blank")
    tab.page.goto(shared)
    tab.rendered()
    again = tab.page.eval_on_selector_all("#impact-tests li", TESTS_LISTED)
    assert again == tests


def test_impact_view_counts_what_its_limit_left_out(site, tab: Explorer) -> None:
    """With limit=1 the page keeps the best symbol and file and says exactly how many of the
    others (counted by the queries layer without a limit) it left out."""
    uncut = site[2]
    symbols, files = len(uncut.symbols), len(uncut.files)
    assert symbols > 1 and files > 1 and not uncut.truncated
    shown = tab.open("#/impact?targets=pkg%2Fcore.py%23helper&depth=2&limit=1")
    assert shown["leftOut"] == (symbols - 1) + (files - 1)
    assert tab.page.inner_text("#left-out") == f"{(symbols - 1) + (files - 1)} left out"
    assert f"{symbols - 1} symbols and {files - 1} files left out" in tab.page.inner_text("#status")
    headings = tab.page.eval_on_selector_all("#impact-panel h3",
                                             "(h) => h.map((x) => x.textContent)")
    assert f"Impacted symbols (1 of {symbols})" in headings
    assert f"Impacted files (1 of {files})" in headings
    assert len(tab.page.query_selector_all("#impact-files li")) == 1
    tests = tab.page.eval_on_selector_all("#impact-tests li", TESTS_LISTED)
    assert sorted(tests) == sorted(t.node_id for t in uncut.tests)  # tests are never cut


def test_impact_of_a_git_range_from_the_url(tab: Explorer) -> None:
    """The last commit changed helper: the range HEAD~1..working tree impacts its tests."""
    shown = tab.open("#/impact?repo=r&base=HEAD~1&depth=2")
    assert shown["view"] == "impact" and "error" not in shown
    assert tab.page.input_value("#impact-form input[name=base]") == "HEAD~1"
    tests = tab.page.eval_on_selector_all("#impact-tests li", TESTS_LISTED)
    assert sorted(tests) == ["tests/test_api.py::test_ping", "tests/test_api.py::test_serve"]
    assert "sym:r/pkg/core.py#helper" in tab.graph_ids()


def test_search_box_shows_hits_with_their_signals(tab: Explorer) -> None:
    tab.open("#/map")
    tab.page.fill("#search-input", "helper")
    shown = tab.after(lambda: tab.page.press("#search-input", "Enter"))
    assert shown["view"] == "search" and shown["shown"] > 0
    first = tab.page.eval_on_selector("#search-hits tr[data-hit]", "(tr) => tr.dataset.hit")
    assert first == "sym:r/pkg/core.py#helper"
    cells = tab.page.eval_on_selector("#search-hits tr[data-hit]",
                                      "(tr) => [...tr.cells].map((c) => c.textContent)")
    assert cells[5].startswith("#1 (")  # its BM25 rank and score
    tab.shoot("search")
    shown = tab.after(lambda: tab.page.click("#search-hits tr[data-hit] a"))
    assert shown["view"] == "node" and tab.page.inner_text("#node-title") == "helper"


def test_history_shows_supersession_and_the_as_of_slider(tab: Explorer) -> None:
    shown = tab.open("#/history")
    assert shown["shown"] == 2 and shown["leftOut"] == 0
    edges = tab.page.evaluate("window.__explorer.graph.edges().map((e) => e.data('label'))")
    assert edges == ["supersedes"]
    newer, older = tab.page.evaluate("""() => { const e = window.__explorer.graph.edges()[0];
        return [e.source().position().x, e.target().position().x]; }""")
    assert newer > older  # time runs left to right
    now = tab.page.inner_text("#history-timeline")
    assert "decision · superseded · not in force then" in now
    tab.shoot("history")
    tab.open("#/history?asOf=2024-06-01T00:00:00.000Z")
    then = tab.page.eval_on_selector_all(
        "#history-timeline li", "(li) => li.map((x) => x.textContent)")
    assert [t for t in then if "not in force then" in t] == [
        t for t in then if "helper returns one" in t]
    faded = tab.page.evaluate("window.__explorer.graph.nodes('.dim').map((n) => n.id())")
    newer, older = tab.page.evaluate("""() => { const e = window.__explorer.graph.edges()[0];
        return [e.source().id(), e.target().id()]; }""")
    assert faded == [newer]
    # a tap on the newer decision opens its page: what it is about and what it superseded
    shown = tab.after(lambda: tab.tap(newer))
    assert shown["view"] == "node"
    assert tab.page.inner_text("#node-title") == "DEC-2 helper returns one"
    assert tab.graph_ids() == {newer, older, "sym:r/pkg/core.py#helper"}


@pytest.fixture(scope="module")
def crowded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server over more decisions (and failures) than the history view reads (100 a kind)."""
    db = tmp_path_factory.mktemp("explorer-crowded") / "db"
    with Store.open(db) as store:
        me = Recorder(store, session="s1", agent="claude", repo=REPO)
        for n in range(103):
            me.record_decision(f"choice {n}", category=f"c{n}", at=datetime(2024, 1, 1 + n % 28,
                                                                             n // 28))
        me.record_failure("boom", title="one failure", at=SECOND)
    with (Store.open(db, read_only=True) as store,
          serving_app(store, Settings(allow_anonymous=True)) as url):
        yield url


def test_history_counts_the_records_it_left_out(crowded: str, browser: Browser) -> None:
    with open_tab(browser, crowded) as tab:
        shown = tab.open("#/history")
        assert (shown["shown"], shown["leftOut"]) == (101, 3)  # 100 of 103 decisions, 1 failure
        assert tab.page.inner_text("#left-out") == "3 left out"
        assert len(tab.graph_ids()) == 101
