"""A real ``vgdb serve --writable`` keeps its in-memory impact adjacency across agent-memory
writes (no rebuild: a rebuild after every recorded note held the GIL ~1 s on the demo graph
and reads queued behind it, benchmarks/serve_writes.py), rebuilds it after a code write, and
answers impact exactly as :func:`queries.impact` does on the store in both cases."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx

from graphdb import Store
from graphdb.tokens import TokenStore
from ingest.pipeline import IngestOptions, ingest_repository
from queries.impact import impact
from tests.api.graphql_fuzz import vgdb_serve
from tests.api.test_graphql import FILES, REPO
from tests.helpers import VGDB, write_tree

IMPACT = """query($t: [String!]!) { impact(targets: $t, depth: 3) {
  targets symbols { id distance score via { src kind dst } } tests { nodeId reason } } }"""
OTHER = {"lib/__init__.py": "",
         "lib/m.py": "def f():\n    return 1\n\n\ndef g():\n    return f()\n"}


def post(url: str, query: str, variables: dict[str, Any] | None = None,
         token: str | None = None) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    body = httpx.post(f"{url}/graphql", json={"query": query, "variables": variables or {}},
                      headers=headers, timeout=60).json()
    assert "errors" not in body, body["errors"]
    return body["data"]


def settled(url: str) -> dict[str, Any]:
    """The server's adjacency status once no build is running and one is built."""
    end = time.monotonic() + 60
    while True:
        state = httpx.get(f"{url}/healthz", timeout=10).json()["impact_adjacency"]
        if state["version"] is not None and not state["building"]:
            return state
        assert time.monotonic() < end, f"the adjacency was not built: {state}"
        time.sleep(0.05)


def direct(db: Path, target: str) -> dict[str, Any]:
    """What queries.impact answers on the store, in the API's shape."""
    with Store.open(db, read_only=True) as store:
        result = impact(store, [target], depth=3, limit=100)
    return {"targets": list(result.targets),
            "symbols": [{"id": s.id, "distance": s.distance, "score": s.score,
                         "via": [{"src": e.src, "kind": e.kind, "dst": e.dst} for e in s.via]}
                        for s in result.symbols],
            "tests": [{"nodeId": t.node_id, "reason": t.reason} for t in result.tests]}


def test_memory_writes_keep_the_adjacency_and_code_writes_rebuild_it(tmp_path: Path) -> None:
    root, other, db = tmp_path / "src", tmp_path / "other", tmp_path / "db"
    write_tree(root, FILES)
    write_tree(other, OTHER)
    with Store.open(db) as store:
        ingest_repository(store, root, options=IngestOptions(name=REPO))
    tokens = TokenStore(db)
    write = tokens.create("writer", scope="write")[1]
    admin = tokens.create("admin", scope="admin")[1]
    served: dict[str, Any] = {}
    with vgdb_serve(db, timeout=30, vgdb=VGDB, extra=("--writable",)) as url:
        first = settled(url)
        assert first["builds"] == 1
        served["before"] = post(url, IMPACT, {"t": ["pkg/core.py#helper"]}, write)["impact"]
        post(url, 'mutation { startSession(session: "s", title: "t") { session } }',
             token=write)
        for i in range(3):  # notes about the target itself: ABOUT edges into a Symbol
            note = post(url, 'mutation($t: String!) { recordNote(session: "s", title: $t, '
                             'symbols: ["pkg/core.py#helper"]) { __typename } }',
                        {"t": f"note {i}"}, write)
            assert note == {"recordNote": {"__typename": "Recorded"}}
            served[f"note {i}"] = post(url, IMPACT, {"t": ["pkg/core.py#helper"]},
                                       write)["impact"]
        # no rebuild started or done: the same adjacency, built once, answers after writes
        assert httpx.get(f"{url}/healthz", timeout=10).json()["impact_adjacency"] == first
        # a code write: an admin ingest of another repository
        job = post(url, 'mutation($p: String!) { ingest(path: $p, name: "other", '
                        'history: false) { id } }', {"p": str(other)}, admin)["ingest"]
        end = time.monotonic() + 120
        while (state := post(url, "query($id: String!) { ingestJob(id: $id) { status } }",
                             {"id": job["id"]}, admin)["ingestJob"])["status"] not in (
                "done", "failed"):
            assert time.monotonic() < end
            time.sleep(0.1)
        assert state["status"] == "done"
        served["other"] = post(url, IMPACT, {"t": ["lib/m.py#f"]}, write)["impact"]
        rebuilt = settled(url)
        assert rebuilt["builds"] == 2 and rebuilt["version"] > first["version"]
        served["other, rebuilt"] = post(url, IMPACT, {"t": ["lib/m.py#f"]}, write)["impact"]
        served["after"] = post(url, IMPACT, {"t": ["pkg/core.py#helper"]}, write)["impact"]
    helper = direct(db, "pkg/core.py#helper")
    assert {f"sym:{REPO}/pkg/api.py#serve", f"sym:{REPO}/pkg/api.py#ping",
            f"sym:{REPO}/pkg/core.py#Base.run"} <= {s["id"] for s in helper["symbols"]}
    for key in ("before", "note 0", "note 1", "note 2", "after"):
        assert served[key] == helper, key
    f = direct(db, "lib/m.py#f")
    assert [s["id"] for s in f["symbols"]] == ["sym:other/lib/m.py#f", "sym:other/lib/m.py#g"]
    assert served["other"] == served["other, rebuilt"] == f
