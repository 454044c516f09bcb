"""A browser tab on the web explorer for the explorer tests: Debian's headless Chromium driven
through Playwright's Python package (``executable_path=/usr/bin/chromium``, no browser
download). The tab records every request, and its context aborts (and records) any request
to a host other than the server under test, so nothing can leave the machine."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

from playwright.sync_api import Browser, Page, Route

from tests.helpers import ROOT

ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
TESTS_LISTED = "(li) => li.map((x) => x.dataset.test)"


class Explorer:
    """One browser tab on the explorer, with every request it made."""

    def __init__(self, page: Page, url: str) -> None:
        self.page, self.url = page, url
        self.requests: list[tuple[str, dict[str, str]]] = []
        page.on("request", lambda r: self.requests.append((r.url, r.headers)))
        self.errors: list[str] = []
        self.refused: list[str] = []  # requests the context aborted: not to the server
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    def open(self, fragment: str) -> dict:
        self.page.goto(f"{self.url}/{fragment}")
        return self.rendered()

    def rendered(self) -> dict:
        """Wait until the current view says it has rendered; its figures (window.__explorer)."""
        self.page.wait_for_function("document.body.dataset.rendered", timeout=30_000)
        return self.page.evaluate("({...window.__explorer, graph: undefined})")

    def after(self, action) -> dict:
        """Run ``action`` (which changes the view) and wait for the new view."""
        self.page.evaluate("document.body.dataset.rendered = ''")
        action()
        return self.rendered()

    def graph_ids(self) -> set[str]:
        return set(self.page.evaluate("window.__explorer.graph.nodes().map((n) => n.id())"))

    def tap(self, node_id: str) -> None:
        """A real mouse click on a node of the view's graph."""
        box = self.page.evaluate("""(id) => {
            const cy = window.__explorer.graph, p = cy.getElementById(id).renderedPosition();
            const r = cy.container().getBoundingClientRect();
            return { x: r.left + p.x, y: r.top + p.y }; }""", node_id)
        self.page.mouse.click(box["x"], box["y"])

    def shoot(self, name: str) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        shot = ARTIFACTS / f"explorer-{name}.png"
        self.page.screenshot(path=str(shot))
        assert shot.stat().st_size > 10_000

    def assert_stayed_local(self) -> None:
        """Every request went to the server under test (nothing to a CDN or elsewhere)."""
        here = urlsplit(self.url).netloc
        assert self.requests
        outside = [u for u, _ in self.requests
                   if urlsplit(u).scheme != "data" and urlsplit(u).netloc != here]
        assert outside == [] and self.refused == []
        assert self.errors == []



@contextmanager
def open_tab(browser: Browser, url: str, token: str | None = None) -> Iterator[Explorer]:
    """A fresh tab on ``url`` whose session already holds ``token`` (as the token field leaves
    it); requests to any other host are aborted. Checks on leaving that all stayed local."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    if token:
        context.add_init_script(f"if (location.protocol === 'http:') "
                                f"sessionStorage.setItem('vgdb-token', {token!r})")
    explorer = Explorer(context.new_page(), url)
    here = urlsplit(url).netloc

    def only_here(route: Route) -> None:
        if urlsplit(route.request.url).netloc == here:
            route.continue_()
        else:
            explorer.refused.append(route.request.url)
            route.abort("blockedbyclient")

    context.route("**/*", only_here)
    try:
        yield explorer
        explorer.assert_stayed_local()
    finally:
        context.close()
