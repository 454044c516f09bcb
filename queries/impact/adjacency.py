"""An in-memory reverse adjacency of the code graph, so a server answers impact without a
query per hop (issue 26: hub functions took p50 56 / p95 162 ms at depth 3 on the standard
library, three quarters of it in the per-hop statements).

The adjacency holds, for every frontier node, the rows the per-hop statements
(:func:`queries.impact.hops.hop_statements`) would return for it: it is built by running the
same statements once over the whole graph, so a hop from memory returns the same edges and
source descriptions as the queries. It stands for one graph version
(:meth:`graphdb.Store.graph_version`) and only for the current graph: an as-of question
(bi-temporal filter) always uses the queries.

It stands for one *code* version (:meth:`graphdb.Store.code_version`), not the global graph
version: a write of agent memory only (a recorded decision, failure, session: what
:meth:`graphdb.store.Transaction.leaves_code` marks) leaves the symbols, files and the edges
impact follows as they were, so the adjacency stays current and nothing is rebuilt. Measured
(RESULTS.md "Serving writes"): a rebuild after every recorded decision held the GIL ~1 s on
the demo graph, and reads queued behind it.

When it is used (measured, RESULTS.md "Impact from memory"): building it costs ~1 s on the
standard library graph, about twenty hub impacts by queries, so a one-shot CLI process never
builds it. A serving store (``vgdb serve``) builds it in a background thread after opening and
again after each write (:func:`current` starts the rebuild and answers from the queries
meanwhile); :func:`build` makes one now (tests, benchmarks, a long-lived script).
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

from graphdb import Store
from queries.impact.columnar import ColumnarRows, Index, Vocabulary, coded_rows, join_rows
from queries.impact.hops import (
    FILE_COLUMNS,
    NODE_COLUMNS,
    SYMBOL_KINDS,
    Reached,
    hop_statements,
)
from queries.impact.model import ImpactEdge
from queries.impact_context import TimeFilter
from schema import FILE, IMPORTS, SYMBOL

__all__ = ["Adjacency", "build", "current", "forget", "install", "settle",
           "status", "warm", "warm_in_background"]

class Adjacency:
    """Rows into each frontier node, by the node's table (see the module docstring), held
    in columns (:mod:`queries.impact.columnar`)."""

    def __init__(self, version: int, rows: ColumnarRows) -> None:
        self.version = version
        self._rows = rows

    def hop(self, frontier: dict[str, list[str]], kinds: set[str],
            nodes: dict[str, Reached]) -> list[tuple[str, ImpactEdge, bool]]:
        """What :func:`queries.impact.traverse` gets from one hop's statements."""
        return self._rows.hop(frontier, kinds, nodes)

    @property
    def edges(self) -> int:
        return self._rows.edges


def build(store: Store) -> Adjacency:
    """Read the whole reverse adjacency of the current graph into columns: each node's
    description once, then the per-hop statements without their id lookup, one edge kind
    at a time (the largest result held at once is one kind's edges)."""
    version = store.code_version()
    index = Index({table: store.cypher(text) for table, text in _DESCRIBE})
    vocabularies = {c: Vocabulary() for c in ("kind", "res", "source")}
    parts: dict[str, list[dict[str, np.ndarray]]] = {SYMBOL.name: [], FILE.name: []}
    for table, text in _edge_statements():
        parts[table].append(coded_rows(index, vocabularies, store.cypher(text)))
    rows = {table: join_rows(len(index), found) for table, found in parts.items()}
    return Adjacency(version, ColumnarRows(index, rows, vocabularies))


#: every Symbol's and File's engine offset and description (the columns of
#: ``describe_nodes``)
_DESCRIBE = (
    (SYMBOL.name, f"MATCH (a:{SYMBOL.name}) RETURN offset(id(a)) AS o, a.id AS src, "
     + NODE_COLUMNS.replace("a.path AS path", "'' AS path")),
    (FILE.name, f"MATCH (a:{FILE.name}) RETURN offset(id(a)) AS o, a.id AS src, "
     f"{FILE_COLUMNS}"))


def _edge_statements() -> list[tuple[str, str]]:
    """(frontier table, statement): the per-hop statements of every kind over the whole
    graph, one kind at a time, returning the edge's columns, with each node as its engine
    offset and table instead of its id (the description comes from :data:`_DESCRIBE`)."""
    flt = TimeFilter(None)
    out: list[tuple[str, str]] = []
    for kind in SYMBOL_KINDS:
        for table, text, alias in hop_statements((kind,), flt):
            if table == FILE.name and kind != IMPORTS.name:
                continue
            for columns in (NODE_COLUMNS, FILE_COLUMNS.replace("{ALIAS}", alias),
                            FILE_COLUMNS):
                text = text.replace(f", {columns}", "")
            text = text.replace("{ALIAS}", alias).replace("{B}", "").replace("{IN}", "true")
            for node, name in ((alias, "at"), ("a", "src"), ("b", "dst")):
                text = text.replace(f"{node}.id AS {name}",
                                    f"offset(id({node})) AS {name}, label({node}) AS {name}_tbl")
            out.append((table, text))
    return out


#: per store: the adjacency last built, and a rebuild running in the background
_BUILT: weakref.WeakKeyDictionary[Store, Adjacency] = weakref.WeakKeyDictionary()
_BUILDING: weakref.WeakKeyDictionary[Store, threading.Thread] = weakref.WeakKeyDictionary()
_BUILDS: weakref.WeakKeyDictionary[Store, int] = weakref.WeakKeyDictionary()
_GUARD = threading.Lock()


def warm(store: Store) -> Adjacency:
    """Build the adjacency for the store's current version now and keep it."""
    return install(store, build(store))


def install(store: Store, adjacency: Adjacency) -> Adjacency:
    """Keep ``adjacency`` for ``store`` (used while its version is the store's)."""
    with _GUARD:
        _BUILT[store] = adjacency
        _BUILDS[store] = _BUILDS.get(store, 0) + 1
    return adjacency


def forget(store: Store) -> None:
    """Drop the store's adjacency (impact goes back to the per-hop queries)."""
    with _GUARD:
        _BUILT.pop(store, None)


def current(store: Store, flt: TimeFilter) -> Adjacency | None:
    """The adjacency of the store's current graph version, if one is built; None for an
    as-of question or when none is current. A serving store that has none current starts a
    background rebuild (the caller answers from the queries meanwhile)."""
    if flt.as_of is not None:
        return None
    built = _BUILT.get(store)
    if built is not None and built.version == store.code_version():
        return built
    if store.serving:
        _rebuild_in_background(store)
    return None


def warm_in_background(store: Store) -> None:
    """Start building the adjacency in a background thread (a server, once it is open)."""
    _rebuild_in_background(store)


def settle(store: Store, timeout: float = 30.0) -> None:
    """Wait for a background build on ``store`` to end (before closing it: a query running
    while the engine closes is not safe)."""
    with _GUARD:
        thread = _BUILDING.get(store)
    if thread is not None:
        thread.join(timeout)


def _rebuild_in_background(store: Store) -> None:
    def run() -> None:
        try:
            warm(store)
        except Exception:
            pass
        finally:
            with _GUARD:
                _BUILDING.pop(store, None)

    with _GUARD:
        if store in _BUILDING:
            return
        thread = threading.Thread(target=run, name="vgdb-impact-adjacency", daemon=True)
        _BUILDING[store] = thread
        thread.start()


def status(store: Store) -> dict[str, object]:
    """What the server says of its adjacency (``/healthz``): the code version it stands
    for (None: none built), how many times one was built, whether a build is running."""
    with _GUARD:
        built = _BUILT.get(store)
        building = store in _BUILDING
        builds = _BUILDS.get(store, 0)
    return {"version": None if built is None else built.version, "builds": builds,
            "building": building}
