"""The text signals of search: BM25 (tantivy) and vector similarity (hnswlib) candidates for a
query, run in three lanes at once (see :func:`text_signals`)."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from graphdb import Store, deadline
from queries.search.catalog import symbol_catalog
from queries.search.filters import Filters
from queries.search.metadata import node_metadata
from queries.search.model import SearchWeights
from schema import SYMBOL

__all__ = ["text_signals"]

#: A filtered BM25 looks at most at the index's best this many hits; vectors (exact over the
#: filter's candidates) fill the rest, so a filtered search still returns k when k exist.
_BM25_MAX = 5_000
_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="vgdb-search")


def text_signals(store: Store, text: str, f: Filters, n: int, w: SearchWeights,
                 notes: list[str]) -> tuple[dict[str, list[tuple[str, str, float]]],
                                             dict[str, dict[str, Any]]]:
    """BM25 and vector candidates for ``text``, and the metadata of the entry and paper ones.

    Three lanes run at once (Kuzu executes without the GIL, each thread on its own
    connection): a worker asks the Symbol BM25 index (the slowest step, ~10-15 ms on 100K
    symbols); another does everything for entries and papers (:func:`_side_signals`); this
    thread searches the Symbol vectors (no Kuzu statement: checked against the catalog).
    """
    from graphdb import missing_vectors, vector_status
    from graphdb.embed import default_embedder, split_identifiers

    sym = [t for t in f.tables if t == SYMBOL.name]
    others = [t for t in f.tables if t != SYMBOL.name]
    if sym:
        symbol_catalog(store)  # load it once here, not in two threads at the same time
    vector = embedder = None
    vec_tables: list[str] = []
    if w.vector > 0:
        status = vector_status(store)
        if not status.get("model_id"):
            notes.append("vector off: nothing embedded (run `vgdb embed`)")
        else:
            live = status.get("tables", {})
            vec_tables = [t for t in f.tables if live.get(t, {}).get("live")]
            for lost in sorted(set(missing_vectors(store)) & set(vec_tables)):
                vec_tables.remove(lost)
                notes.append(f"vector off for {lost}: its stored vectors are missing (run "
                             "`vgdb repair`, which embeds them again)")
            embedder = default_embedder()
            vector = embedder.embed([split_identifiers(text)])[0]
    sym_notes: list[str] = []
    side_notes: list[str] = []
    pending = None
    if w.bm25 > 0:
        _keyword_ready(store, f.tables)  # syncs or rebuilds here, alone, before the threads
        if sym:
            pending = _POOL.submit(_bm25_signal, store, text, f, n, sym_notes, sym)
    side_vec = [t for t in others if t in vec_tables]
    side = None
    if (w.bm25 > 0 and others) or side_vec:
        side = _POOL.submit(_side_signals, store, text, vector if side_vec else None, embedder,
                            f, n, side_notes, others, w.bm25 > 0)
    vec_hits: list[tuple[str, str, float]] = []
    if vector is not None and SYMBOL.name in vec_tables:
        vec_hits = _vector_signal(store, vector, embedder, f, n, [SYMBOL.name])
    bm_hits = pending.result() if pending is not None else []
    meta: dict[str, dict[str, Any]] = {}
    if side is not None:
        side_bm, side_v, meta = side.result()
        bm_hits += side_bm
        vec_hits += side_v
    notes.extend(sym_notes + side_notes)
    ranked: dict[str, list[tuple[str, str, float]]] = {}
    if vector is not None:
        vec_hits.sort(key=lambda h: (-h[2], h[0]))
        ranked["vector"] = vec_hits[:n]
    if w.bm25 > 0:
        bm_hits.sort(key=lambda h: (-h[2], h[0]))
        ranked["bm25"] = bm_hits[:n]
    return ranked, meta


def _bm25_signal(store: Store, query: str, f: Filters, n: int, notes: list[str],
                 tables: Sequence[str]) -> list[tuple[str, str, float]]:
    from graphdb.keyword import bm25, ensure_keyword

    state = ensure_keyword(store, tables=tables)
    hits: list[tuple[str, str, float]] = []
    for table in tables:
        deadline.check()
        status = state.of(table)
        if status in ("missing", "damaged", "stale"):  # only on a read-only store
            why = {"missing": "no index", "damaged": "its index is damaged (checksums)",
                   "stale": "its index is not synced to the graph (an interrupted write)"}
            notes.append(f"bm25 off for {table}: {why[status]} on this read-only database "
                         "(open it read-write once: `vgdb ingest` or `vgdb embed`)")
            continue
        where = f.where[table] or None
        params = dict(f.params)
        if f.candidates is not None:
            where = ("n.id IN $f_ids" if where is None else f"{where} AND n.id IN $f_ids")
            params["f_ids"] = sorted(f.candidates)
        if table == SYMBOL.name and not f.where[table]:
            # ask the index alone (a condition costs ~30%, an id list a scan) and check the
            # catalog and the candidates here; widen while too few pass, up to _BM25_MAX
            cat = symbol_catalog(store)
            top = n  # stale rows are rare: widened below if the catalog drops some
            while True:
                deadline.check()
                found = bm25(store, query, table=table, k=top, status="any")
                ok = [(h.id, h.table, h.score) for h in found if cat.believed(h.id)
                      and (f.candidates is None or h.id in f.candidates)]
                if len(ok) >= n or len(found) < top or top >= _BM25_MAX:
                    break
                top *= 4
            hits.extend(ok[:n])
            continue
        hits.extend((h.id, h.table, h.score) for h in bm25(
            store, query, table=table, k=n, where=where, params=params or None,
            status="believed"))
    hits.sort(key=lambda h: (-h[2], h[0]))
    return hits[:n]


def _keyword_ready(store: Store, tables: Sequence[str]) -> None:
    from graphdb.keyword import ensure_keyword

    ensure_keyword(store, tables=tables)  # _bm25_signal reports what is not usable


def _vector_signal(store: Store, vector: np.ndarray, embedder: Any, f: Filters, n: int,
                   tables: Sequence[str]) -> list[tuple[str, str, float]]:
    """The ``n`` nearest nodes of ``tables`` to the query vector. Symbols are checked against
    the in-process catalog; entries and papers are not checked here (no Kuzu statement): the
    caller drops those :func:`node_metadata` finds no longer current."""
    from graphdb import nearest

    cat = symbol_catalog(store) if SYMBOL.name in tables else None

    def current(table: str, ids: list[str]) -> set[str]:
        return cat.current(table, ids) if cat is not None and table == SYMBOL.name \
            else set(ids)

    hits = []
    for table in tables:
        deadline.check()
        for h in nearest(store, vector, k=n, tables=[table], where=f.where[table] or None,
                         params=f.params or None, candidates=f.candidates, current=current,
                         embedder=embedder):
            hits.append((h.id, h.table, h.similarity))
    hits.sort(key=lambda h: (-h[2], h[0]))
    return hits[:n]


def _side_signals(store: Store, text: str, vector: np.ndarray | None, embedder: Any,
                  f: Filters, n: int, notes: list[str], tables: Sequence[str], bm25_on: bool,
                  ) -> tuple[list[tuple[str, str, float]], list[tuple[str, str, float]],
                             dict[str, dict[str, Any]]]:
    """Entries and papers, in one worker thread while the Symbol signals run: their BM25 and
    vector hits, and the metadata of all of them (which also says which vector hits are still
    current). Two Kuzu statements per table (BM25; metadata), instead of four on the main
    thread (BM25, currency check, metadata)."""
    bm = _bm25_signal(store, text, f, n, notes, tables) if bm25_on and tables else []
    vec = _vector_signal(store, vector, embedder, f, n, tables) if vector is not None else []
    by_table: dict[str, list[str]] = {}
    for node, table, _ in bm + vec:
        by_table.setdefault(table, []).append(node)
    meta = node_metadata(store, {t: list(dict.fromkeys(v)) for t, v in by_table.items()})
    vec = [h for h in vec if meta.get(h[0], {}).get("current")]
    return bm, vec, meta
