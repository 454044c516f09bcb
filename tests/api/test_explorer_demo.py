"""The web explorer on the demo graph: this repository (its git history included) ingested as
``vectorgraphdb`` with the session log and the papers of ``datasets/``, by the same ``vgdb``
commands ``make demo`` runs (the standard library, which ``make demo`` adds too, is left out:
it takes minutes and no view below reads it). Served as ``make demo`` serves it (anonymous
reads) by a real uvicorn server, driven in headless Chromium. Each view loads, a click
navigates, the impact view of ``Store.cypher`` lists exactly the tests the queries layer
selects, every view's left-out count is the exact number counted in the database, and no
request leaves the machine (the tab aborts any other). Screenshots are kept in
test-artifacts/explorer-demo-*.png. Render times on this graph are measured by
benchmarks/explorer.py, not here."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from playwright.sync_api import Browser

from api.graphql import Settings
from graphdb import Store
from queries.impact import impact
from tests.api.explorer_tab import TESTS_LISTED, Explorer, open_tab
from tests.api.serving import serving_app
from tests.helpers import ROOT, run_vgdb

REPO = "vectorgraphdb"
CYPHER = "sym:vectorgraphdb/graphdb/store.py#Store.cypher"
PER_EDGE, CAP = 40, 300  # api/web/static/views/node.js and graph.js
# a test that calls Store.cypher itself: known from the code, whatever else the graph holds
KNOWN_TEST = "tests/graphdb/test_store.py::test_cypher_passes_parameters"


@dataclass(frozen=True)
class Demo:
    url: str
    tests: list[str]  # impact of Store.cypher at depth 2, from the queries layer
    impact_left_out: int
    node_left_out: int  # Store.cypher's depth-1 neighbourhood, counted with Cypher
    map_left_out: int
    history_left_out: int
    communities: int


def _vgdb(*args: str) -> None:
    done = run_vgdb(*args, timeout=900)
    assert done.returncode == 0, done.stderr


def _count(store: Store, query: str) -> int:
    return int(store.cypher(query)["n"][0])


def _neighbourhood_left_out(store: Store) -> int:
    """What the node page leaves out of CYPHER's depth-1 neighbourhood with its default edge
    kinds: each connection beyond its first PER_EDGE edges."""
    counts = [_count(store, f"MATCH (a {{id: '{CYPHER}'}}){pattern}(b) RETURN count(*) AS n")
              for pattern in ("-[:CALLS]->", "<-[:CALLS]-", "-[:INHERITS]->", "<-[:INHERITS]-",
                              "-[:TESTS]->", "<-[:TESTS]-", "<-[:IMPORTS]-")]
    return sum(max(0, c - PER_EDGE) for c in counts)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Demo]:
    db = str(tmp_path_factory.mktemp("demo") / "db")
    _vgdb("ingest", str(ROOT), "--db", db, "--name", REPO)
    _vgdb("ingest-session", "datasets/sessions/example-session.jsonl", "--db", db)
    _vgdb("ingest-papers", "datasets/academic/papers.jsonl", "--db", db)
    with Store.open(db, read_only=True) as store:
        cut = impact(store, [CYPHER], depth=2, limit=CAP)
        top = _count(store, f"MATCH (c:Community) WHERE c.repo = '{REPO}' AND c.scope = 'file' "
                            "AND c.level = 0 RETURN count(*) AS n")
        kinds = [_count(store, f"MATCH (e:Entry) WHERE e.kind = '{kind}' RETURN count(*) AS n")
                 for kind in ("decision", "failure", "pattern")]
        facts = Demo(tests=sorted(cut.test_ids()),
                     impact_left_out=cut.symbols_omitted + cut.files_omitted,
                     node_left_out=_neighbourhood_left_out(store),
                     map_left_out=max(0, top - CAP), communities=min(top, CAP),
                     history_left_out=sum(max(0, k - CAP // 3) for k in kinds), url="")
        with serving_app(store, Settings(allow_anonymous=True)) as url:
            yield Demo(**{**facts.__dict__, "url": url})


@pytest.fixture
def tab(demo: Demo, browser: Browser) -> Iterator[Explorer]:
    with open_tab(browser, demo.url) as explorer:
        yield explorer


def _shoot(tab: Explorer, name: str) -> None:
    tab.shoot(f"demo-{name}")


def test_map_of_the_demo_repository_counts_and_clicks_through(demo: Demo, tab: Explorer) -> None:
    shown = tab.open(f"#/map?repo={REPO}")
    assert shown["view"] == "map" and "error" not in shown
    assert shown["shown"] == demo.communities == len(tab.graph_ids()) > 1
    assert shown["leftOut"] == demo.map_left_out
    assert tab.page.inner_text("#left-out") == f"{demo.map_left_out} left out"
    _shoot(tab, "map")
    biggest = tab.page.evaluate(
        "window.__explorer.graph.nodes().max((n) => n.width()).ele.id()")
    tab.tap(biggest)
    tab.page.wait_for_selector("#map-members li a")
    shown = tab.after(lambda: tab.page.click("#drill-down"))
    assert shown["view"] == "map" and "error" not in shown and shown["shown"] > 0


def test_node_page_of_store_cypher_counts_what_it_left_out(demo: Demo, tab: Explorer) -> None:
    shown = tab.open("#/node?id=sym:vectorgraphdb/graphdb/store.py%23Store.cypher")
    assert shown["view"] == "node" and tab.page.inner_text("#node-title") == "cypher"
    assert demo.node_left_out > 0  # it has more callers than the page draws
    assert shown["leftOut"] == demo.node_left_out
    assert tab.page.inner_text("#node-span").startswith("source span: graphdb/store.py, lines ")
    _shoot(tab, "node")
    caller = sorted(i for i in tab.graph_ids() if i.startswith("sym:") and i != CYPHER)[0]
    shown = tab.after(lambda: tab.tap(caller))
    assert shown["view"] == "node" and CYPHER in tab.graph_ids()


def test_impact_of_store_cypher_lists_exactly_the_selected_tests(demo: Demo,
                                                                 tab: Explorer) -> None:
    assert KNOWN_TEST in demo.tests
    shown = tab.open("#/impact?targets=graphdb%2Fstore.py%23Store.cypher&depth=2")
    assert shown["view"] == "impact" and "error" not in shown
    assert sorted(tab.page.eval_on_selector_all("#impact-tests li", TESTS_LISTED)) == demo.tests
    assert shown["leftOut"] == demo.impact_left_out
    _shoot(tab, "impact")
    tab.page.click(f"#impact-tests li[data-test='{KNOWN_TEST}'] a")
    lit = tab.page.evaluate("window.__explorer.graph.elements('.path').map((e) => e.id())")
    assert CYPHER in lit


def test_search_on_the_demo_graph_opens_a_hit(tab: Explorer) -> None:
    tab.open("#/search")
    tab.page.fill("#search-input", "Store.cypher")
    shown = tab.after(lambda: tab.page.press("#search-input", "Enter"))
    assert shown["view"] == "search" and shown["shown"] == 20 and shown["leftOut"] == 0
    hits = tab.page.eval_on_selector_all("#search-hits tr[data-hit]",
                                         "(tr) => tr.map((x) => x.dataset.hit)")
    assert CYPHER in hits
    _shoot(tab, "search")
    shown = tab.after(lambda: tab.page.click(f"#search-hits tr[data-hit='{CYPHER}'] a"))
    assert shown["view"] == "node" and tab.page.inner_text("#node-title") == "cypher"


def test_history_of_the_demo_session(demo: Demo, tab: Explorer) -> None:
    shown = tab.open("#/history")
    assert shown["view"] == "history" and shown["shown"] > 0
    assert shown["leftOut"] == demo.history_left_out
    _shoot(tab, "history")
    first = sorted(tab.graph_ids())[0]
    shown = tab.after(lambda: tab.tap(first))
    assert shown["view"] == "node" and first in tab.graph_ids()
