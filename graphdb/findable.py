"""Written facts become findable: the keyword and vector indexes follow every graph write.

Two shapes of write, two steps:

- one at a time (a recorded decision, a session file, a bibliography): :func:`findable`
  wraps the graph transaction; the ids it collects are indexed by keyword and embedded right
  after the commit, before the write returns, at a cost that grows with the ids (keyword) or
  the Entry/Paper table (vectors), never with the whole graph;
- bulk (``vgdb ingest``): :func:`make_searchable` at its end syncs the keyword index against
  the graph's digests and embeds the new or changed texts (both incremental).

Crash safety: :func:`findable` marks the tables not synced in the keyword index's state, and
as awaiting embedding in ``<db>/embed-pending.json``, before the graph write; a kill between
the graph commit and the index commits leaves them marked, and the next write through
:func:`findable` (or a read-write search, or an ingest) catches up first: a keyword sync, an
incremental ``embed_graph`` of the marked tables.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from graphdb.derived_steps import fork_steps, start_embedding, start_keyword
from graphdb.faults import failpoint
from graphdb.keyword import (
    KEYWORD_FIELDS,
    index_nodes,
    pending,
    sync,
    sync_lock,
    unsynced,
)
from graphdb.store import Store
from schema import ENTRY, PAPER, SYMBOL

__all__ = ["Findable", "findable", "make_searchable"]


@dataclass
class Findable:
    """The node ids a write made or changed, per table, to index after its commit."""

    ids: dict[str, set[str]] = field(default_factory=dict)

    def add(self, table: str, ids: Iterable[str]) -> None:
        if table in KEYWORD_FIELDS:
            self.ids.setdefault(table, set()).update(ids)


@contextmanager
def findable(store: Store, tables: Iterable[str] = (ENTRY.name, PAPER.name),
             *, embed: bool = True) -> Iterator[Findable]:
    """Wrap a graph write of ``tables``: ``with findable(store) as found: <write>;
    found.add(table, ids)``. After the block the ids are in the keyword index and (with
    ``embed``) the vector index. An exception in the block (its transaction rolled back)
    indexes nothing; one while indexing leaves the tables marked for a sync."""
    tables = [t for t in tables if t in KEYWORD_FIELDS]
    _catch_up(store, tables)
    if embed:
        _mark_embedding(store, tables)
    with pending(store, tables) as token:
        found = Findable()
        try:
            yield found
        except BaseException:
            token.graph_unchanged = True  # the block's transaction rolled back
            if embed:
                _mark_embedding(store, [])
            raise
        failpoint("findable-before-index")
        for table, ids in sorted(found.ids.items()):
            index_nodes(store, table, sorted(ids))
        if embed:
            from graphdb.vectors import embed_nodes

            for table, ids in sorted(found.ids.items()):
                embed_nodes(store, table, sorted(ids))
            _mark_embedding(store, [])


_EMBED_PENDING = "embed-pending.json"
#: past this many changed symbols one scan of the whole index is cheaper than a lookup each
_FEW_SYMBOLS = 2000


def _mark_embedding(store: Store, tables: list[str]) -> None:
    """Record (atomically) which tables a write in progress will embed; [] clears it."""
    path = store.path / _EMBED_PENDING
    if not tables:
        path.unlink(missing_ok=True)
        return
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(sorted(tables)), encoding="utf-8")
    os.replace(tmp, path)


def _catch_up(store: Store, tables: list[str]) -> None:
    """Finish what a killed write left: its keyword sync, its embedding (both incremental)."""
    lagging = unsynced(store, tables)
    if lagging:
        sync(store, lagging)
    path = store.path / _EMBED_PENDING
    if path.exists():
        try:
            marked = [t for t in json.loads(path.read_text(encoding="utf-8"))
                      if t in KEYWORD_FIELDS]
        except (OSError, ValueError):
            marked = list(KEYWORD_FIELDS)
        if marked:
            from graphdb.vectors import embed_graph

            embed_graph(store, tables=marked)
        path.unlink(missing_ok=True)


def make_searchable(store: Store, *, embed: bool = True, progress: Any = None,
                    symbols: list[str] | None = None,
                    alongside: Callable[[], Any] | None = None) -> dict[str, Any]:
    """The last steps of an ingest: sync the keyword index, then embed what is new or changed.
    Returns what each did (``keyword`` per table, ``embed`` as ``EmbedSummary.to_dict``).

    ``symbols``: the caller wrote no other searchable node than these Symbols since the
    indexes were last synced (an ingest of a few changed files): only they are compared
    with the keyword index, and the other tables' marks are taken back.

    ``alongside``: other work of the caller (the communities step), run in this process
    while forked children write the keyword documents and compute the vectors, read from
    the graph first (:mod:`graphdb.derived_steps`); this process then writes their results.
    The indexes' marks are taken back only after their own commits, as without a fork.

    ``seconds`` holds, per step, the time this process spent on it (reading, waiting for
    its child, writing), so the steps and ``alongside`` add up to the wall time; ``forked``
    the seconds each forked child computed, beside it."""
    out: dict[str, Any] = {"seconds": {}}
    with sync_lock(store):
        t0 = time.perf_counter()
        keyword = start_keyword(store, symbols, _FEW_SYMBOLS)
        spent = {"keyword": time.perf_counter() - t0}
        steps: list[Any] = [keyword]
        embedding = None
        if embed:
            t0 = time.perf_counter()
            few = symbols is not None and len(symbols) <= _FEW_SYMBOLS and \
                not (store.path / _EMBED_PENDING).exists()
            if few:  # only these symbols can have changed: the tables are not scanned whole
                _mark_embedding(store, [SYMBOL.name])  # a kill below: the next run embeds all
            embedding = start_embedding(store, {SYMBOL.name: symbols} if few else None)
            steps.append(embedding)
            spent["embed"] = time.perf_counter() - t0
        children = fork_steps(steps, together=alongside is not None)

        def finish(step: Any) -> None:
            t0 = time.perf_counter()
            computed = children.result(step.name)
            if step is keyword:
                out["keyword"] = keyword.finish(store, computed,
                                                forked=children.forked(keyword.name))
            else:
                out["embed"] = step.finish(computed, progress)
                _mark_embedding(store, [])  # whatever a killed write left is embedded now
            out["seconds"][step.name] = spent[step.name] + time.perf_counter() - t0

        try:
            # the steps computed here first (as without ``alongside``), then the caller's
            # work while the children compute, then their results
            for step in steps:
                if not children.forked(step.name):
                    finish(step)
            if alongside is not None:
                alongside()
            for step in steps:
                if children.forked(step.name):
                    finish(step)
        finally:
            children.close()
    if children.seconds:
        out["forked"] = children.seconds
    return out
