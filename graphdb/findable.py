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

from graphdb.faults import failpoint
from graphdb.forked import Forked, ForkedError, can_fork, start_forked
from graphdb.keyword import (
    KEYWORD_FIELDS,
    KeywordPlan,
    ensure_keyword,
    finish_sync,
    index_nodes,
    pending,
    plan_sync,
    sync,
    sync_lock,
    sync_nodes,
    unmark_stale,
    unsynced,
    write_plan,
)
from graphdb.store import Store
from schema import ENTRY, PAPER, SYMBOL

__all__ = ["FORK_MIN", "Findable", "findable", "make_searchable"]


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
    while forked children write the keyword documents and compute the vectors, each read
    from the graph first (:mod:`graphdb.forked`); this process then writes their results.
    Only steps with at least :data:`FORK_MIN` documents or texts are forked (a one-file
    update runs here, a fork would cost more than it saves). The indexes' marks are taken
    back only after their own commits, as without a fork.

    ``seconds`` holds, per step, the time this process spent on it (reading, waiting for
    its child, writing), so the steps and ``alongside`` add up to the wall time; ``forked``
    the seconds each forked child computed, beside it."""
    out: dict[str, Any] = {"seconds": {}}
    with sync_lock(store):
        t0 = time.perf_counter()
        keyword = _start_keyword(store, symbols)
        spent = {"keyword": time.perf_counter() - t0}
        embedding = None
        if embed:
            t0 = time.perf_counter()
            embedding = _start_embedding(store, symbols)
            spent["embed"] = time.perf_counter() - t0
        try:
            if alongside is not None:
                alongside()
            t0 = time.perf_counter()
            out["keyword"] = keyword.finish(store, out)
            out["seconds"]["keyword"] = spent["keyword"] + time.perf_counter() - t0
            if embedding is not None:
                t0 = time.perf_counter()
                out["embed"] = embedding.finish(progress, out)
                out["seconds"]["embed"] = spent["embed"] + time.perf_counter() - t0
                _mark_embedding(store, [])  # whatever a killed write left is embedded now
        finally:
            keyword.close()
            if embedding is not None:
                embedding.close()
    return out


#: a derived step with fewer documents or texts than this runs in process (no fork)
FORK_MIN = 2000


def _fork(name: str, work: int, fn: Callable[..., Any], *args: Any) -> Forked | None:
    return start_forked(name, _timed, fn, *args) if work >= FORK_MIN and can_fork() else None


def _timed(fn: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    t0 = time.perf_counter()
    return fn(*args), time.perf_counter() - t0


def _forked_result(child: Forked | None, out: dict[str, Any], step: str) -> Any:
    """The child's result, or None (no child, or it failed: the step is done here)."""
    if child is None:
        return None
    try:
        value, took = child.result()
    except ForkedError:
        return None
    out.setdefault("forked", {})[step] = round(took, 3)
    return value


@dataclass
class _KeywordStep:
    """The keyword sync, read; its writing forked or to do here."""

    plans: list[KeywordPlan] | None = None
    done: dict[str, Any] | None = None  # the few-symbols path, done at once
    child: Forked | None = None

    def finish(self, store: Store, out: dict[str, Any]) -> dict[str, Any]:
        if self.done is not None:
            return self.done
        assert self.plans is not None
        written = _forked_result(self.child, out, "keyword")
        self.child = None
        if written is None:
            for plan in self.plans:
                if plan.work:
                    write_plan(plan)
        return finish_sync(store, self.plans)

    def close(self) -> None:
        if self.child is not None:
            self.child.close()


def _start_keyword(store: Store, symbols: list[str] | None) -> _KeywordStep:
    if symbols is not None and len(symbols) <= _FEW_SYMBOLS:
        done = {SYMBOL.name: sync_nodes(store, SYMBOL.name, symbols)}
        others = [t for t in KEYWORD_FIELDS if t != SYMBOL.name]
        unmark_stale(store, others)
        ensure_keyword(store, tables=others)  # an index never built yet is built now
        return _KeywordStep(done=done)
    plans = plan_sync(store)
    todo = [p for p in plans if p.work]
    return _KeywordStep(plans, child=_fork("keyword", sum(p.work for p in todo),
                                           _write_plans, todo))


def _write_plans(plans: list[KeywordPlan]) -> list[int]:
    return [write_plan(p) for p in plans]


@dataclass
class _EmbedStep:
    """The embedding, read; its vectors computed by a forked child or to compute here."""

    plan: Any  # graphdb.vectors.EmbedPlan, or its EmbedSummary when nothing can change
    child: Forked | None = None

    def finish(self, progress: Any, out: dict[str, Any]) -> dict[str, Any]:
        from graphdb.vectors import EmbedSummary, commit_embedding, compute_embedding

        if isinstance(self.plan, EmbedSummary):
            return self.plan.to_dict()
        vectors = _forked_result(self.child, out, "embed")
        self.child = None
        if vectors is None:
            vectors = compute_embedding(self.plan, progress)
        return commit_embedding(self.plan, vectors).to_dict()

    def close(self) -> None:
        if self.child is not None:
            self.child.close()


def _start_embedding(store: Store, symbols: list[str] | None) -> _EmbedStep:
    from graphdb.vectors import EmbedSummary, compute_embedding, plan_embedding

    few = symbols is not None and len(symbols) <= _FEW_SYMBOLS and \
        not (store.path / _EMBED_PENDING).exists()
    if few:  # only these symbols can have changed: the tables are not scanned whole
        _mark_embedding(store, [SYMBOL.name])  # a kill below: the next run embeds all
    plan = plan_embedding(store, ids={SYMBOL.name: symbols} if few else None)
    if isinstance(plan, EmbedSummary):
        return _EmbedStep(plan)
    return _EmbedStep(plan, _fork("embed", plan.work, compute_embedding, plan))
