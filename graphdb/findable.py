"""Written facts become findable: the keyword and vector indexes follow every graph write.

Two shapes of write, two steps:

- one at a time (a recorded decision, a session file, a bibliography): :func:`findable`
  wraps the graph transaction; the ids it collects are indexed by keyword and embedded right
  after the commit, before the write returns, at a cost that grows with the ids (keyword) or
  the Entry/Paper table (vectors), never with the whole graph;
- bulk (``vgdb ingest``): :func:`make_searchable` at its end syncs the keyword index against
  the graph's digests and embeds the new or changed texts (both incremental).

Crash safety: :func:`findable` marks the tables not synced in the keyword index's state before
the graph write; a kill between the graph commit and the index commit leaves them marked, and
the next search (read-write) or ingest syncs them. Vectors are re-checked by ``embed_graph``.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from graphdb.faults import failpoint
from graphdb.keyword import KEYWORD_FIELDS, index_nodes, pending, sync
from graphdb.store import Store
from schema import ENTRY, PAPER

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
    with pending(store, tables) as token:
        found = Findable()
        try:
            yield found
        except BaseException:
            token.graph_unchanged = True  # the block's transaction rolled back
            raise
        failpoint("findable-before-index")
        for table, ids in sorted(found.ids.items()):
            index_nodes(store, table, sorted(ids))
        if embed:
            from graphdb.vectors import embed_nodes

            for table, ids in sorted(found.ids.items()):
                embed_nodes(store, table, sorted(ids))


def make_searchable(store: Store, *, embed: bool = True,
                    progress: Any = None) -> dict[str, Any]:
    """The last steps of an ingest: sync the keyword index, then embed what is new or changed.
    Returns what each did (``keyword`` per table, ``embed`` as ``EmbedSummary.to_dict``)."""
    out: dict[str, Any] = {}
    t0 = time.perf_counter()
    out["keyword"] = sync(store)
    out["seconds"] = {"keyword": time.perf_counter() - t0}
    if embed:
        from graphdb.vectors import embed_graph

        t0 = time.perf_counter()
        out["embed"] = embed_graph(store, progress=progress).to_dict()
        out["seconds"]["embed"] = time.perf_counter() - t0
    return out
