"""Web explorer render times in the browser, on a real database (the demo graph: this
repository and the standard library, ``make demo``).

Each view is opened in Debian's headless Chromium (Playwright, ``/usr/bin/chromium``) over a
real ``vgdb serve`` app on loopback; the page measures ``performance.now()`` from the start of
a view to its graph drawn (``window.__explorer.ms``, the figure its status line shows), and
the time its GraphQL requests took (Resource Timing). Baseline, interleaved in the same
rounds: the empty search view (the shell and its one repositories query, no graph drawn).
Each figure is the median of ``--rounds`` (a fresh tab each time, so nothing is cached).

    .venv/bin/python -m benchmarks.explorer [--db .vgdb] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import threading
import time
from pathlib import Path

import uvicorn
from playwright.sync_api import sync_playwright

from api.graphql import Settings, create_app
from graphdb import Store

VIEWS = {
    "baseline: empty search view": "#/search",
    "map (vectorgraphdb, top level)": "#/map?repo=vectorgraphdb",
    "map (stdlib, top level)": "#/map?repo=stdlib",
    "map drill-down (largest vectorgraphdb community)": "#/map?repo=vectorgraphdb&community={c}",
    "node (load_code, depth 1)": "#/node?id=sym:vectorgraphdb/graphdb/loader.py%23load_code",
    "node (load_code, depth 2)":
        "#/node?id=sym:vectorgraphdb/graphdb/loader.py%23load_code&depth=2",
    "node (json.loads, depth 2)": "#/node?id=sym:stdlib/json/__init__.py%23loads&depth=2",
    "impact (load_code, depth 3)":
        "#/impact?targets=sym:vectorgraphdb/graphdb/loader.py%23load_code&depth=3",
    "search ('load the code graph')": "#/search?q=load+the+code+graph",
    "history (all decisions, failures, patterns)": "#/history",
}
GRAPHQL_MS = """() => performance.getEntriesByType("resource")
    .filter((e) => e.name.endsWith("/graphql")).reduce((s, e) => s + e.duration, 0)"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=Path(".vgdb"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--screenshots", type=Path, help="save each view's first render here")
    args = parser.parse_args()
    with Store.open(args.db, read_only=True) as store:
        [biggest] = store.cypher(
            "MATCH (c:Community) WHERE c.repo = 'vectorgraphdb' AND c.scope = 'file' AND "
            "c.level = 0 RETURN c.id AS id ORDER BY c.size DESC LIMIT 1")["id"].to_list()
        server = uvicorn.Server(uvicorn.Config(create_app(store, Settings(allow_anonymous=True)),
                                               host="127.0.0.1", port=0, log_config=None,
                                               access_log=False))
        threading.Thread(target=server.run, daemon=True).start()
        while not server.started:
            time.sleep(0.05)
        url = f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
        figures = measure(url, {k: v.format(c=biggest.replace("/", "%2F"))
                                for k, v in VIEWS.items()}, args.rounds, args.screenshots)
        server.should_exit = True
    print(f"load average {os.getloadavg()}; {args.rounds} rounds, medians (ms)")
    print(f"{'view':52} {'render':>8} {'graphql':>8} {'shown':>6} {'left out':>9}")
    for name, rows in figures.items():
        print(f"{name:52} {statistics.median(r['ms'] for r in rows):8.0f} "
              f"{statistics.median(r['graphql'] for r in rows):8.0f} "
              f"{rows[0]['shown']:6} {rows[0]['leftOut']:9}")


def measure(url: str, views: dict[str, str], rounds: int,
            screenshots: Path | None) -> dict[str, list[dict]]:
    figures: dict[str, list[dict]] = {name: [] for name in views}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                             args=["--no-sandbox", "--disable-gpu"])
        for _ in range(rounds):
            for name, fragment in views.items():  # interleaved with the baseline
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                page.goto(f"{url}/{fragment}")
                page.wait_for_function("document.body.dataset.rendered", timeout=60_000)
                result = page.evaluate("({...window.__explorer, graph: undefined})")
                if "error" in result:
                    raise SystemExit(f"{name}: {result['error']}")
                figures[name].append({**result, "graphql": page.evaluate(GRAPHQL_MS)})
                if screenshots and len(figures[name]) == 1:
                    screenshots.mkdir(parents=True, exist_ok=True)
                    slug = "-".join(name.split(" (")[0].replace(":", "").split())
                    page.screenshot(path=str(screenshots / f"explorer-{slug}.png"))
                page.close()
        browser.close()
    return figures


if __name__ == "__main__":
    main()
