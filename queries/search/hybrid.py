"""Hybrid search: the text and graph signals fused, weighed by trust and freshness, optionally
re-ranked by MMR (scoring: the package docstring, docs/search.md "Hybrid search")."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from graphdb import Store
from queries.search.filters import build_filters, naive_utc
from queries.search.fusion import fuse, mmr_rerank
from queries.search.metadata import node_metadata, node_tables
from queries.search.model import (
    DEFAULT_WEIGHTS,
    DOMAIN_OF,
    FUSIONS,
    SearchHit,
    SearchResult,
    SearchWeights,
    SignalScore,
)
from queries.search.proximity import graph_signal
from queries.search.text import text_signals
from queries.search.trust import age_days, freshness_of, trust_of
from schema import QueryError

__all__ = ["search"]


def search(store: Store, query: str, *, k: int = 10, domains: Iterable[str] | None = None,
           tables: Iterable[str] | None = None, language: str | None = None,
           path: str | None = None, as_of: datetime | None = None,
           community: str | None = None, near: Iterable[str] | None = None,
           weights: SearchWeights | None = None, mmr: bool | float | None = None,
           ) -> SearchResult:
    """The ``k`` best Symbols, Entries and Papers for ``query``, fusing BM25, vector
    similarity and (with ``near``) graph proximity (z-score fusion by default, RRF on
    request: :func:`~queries.search.fusion.fuse`), weighed by trust and freshness.

    Parameters
    ----------
    query : free text (identifiers are split into words; operators and quotes are plain text)
    k : number of hits; fewer only when fewer nodes pass the filters
    domains : any of ``code``, ``history``, ``academic``; tables : Symbol, Entry, Paper
    language, path (a glob on the file path, ``**`` for any depth), community (a Community
        id, its sub-communities included) : code filters (they leave only Symbols)
    as_of : only what had begun by then (``valid_from``); ages (trust, freshness) count to it
    near : node ids; graph proximity (BFS over CALLS/IMPORTS/INHERITS/CONTAINS/ABOUT/REFERENCES
        and scope globs, up to ``weights.hops``) becomes a third signal
    weights : a :class:`SearchWeights` (default :data:`DEFAULT_WEIGHTS`)
    mmr : re-rank for diversity by MMR over the stored vectors (True, or the lambda in [0, 1])

    Raises
    ------
    QueryError : empty query without ``near``, k < 1, unknown domain/table/community
    """
    w = weights or DEFAULT_WEIGHTS
    if w.fusion not in FUSIONS:
        raise QueryError(f"unknown fusion {w.fusion!r}", suggestion="fusion: " + ", ".join(FUSIONS))
    text = (query or "").strip()
    near_ids = list(dict.fromkeys(near or ()))
    if not text and not near_ids:
        raise QueryError("empty search query",
                         suggestion="give some words to look for, or --near NODE")
    if k < 1:
        raise QueryError(f"k must be at least 1, not {k}")
    f = build_filters(store, domains=domains, tables=tables, language=language, path=path,
                      as_of=as_of, community=community)
    notes: list[str] = []
    n = max(w.pool, 3 * k)
    ranked: dict[str, list[tuple[str, str, float]]] = {}
    meta: dict[str, dict[str, Any]] = {}
    if text:
        ranked, meta = text_signals(store, text, f, n, w, notes)
    if near_ids and w.graph > 0:
        missing = set(near_ids) - set(node_tables(store, near_ids))
        if missing:
            raise QueryError(f"--near: no node {', '.join(sorted(missing))}",
                             suggestion="give node ids (sym:..., file:..., entry:..., paper:...)")
        ranked["graph"] = graph_signal(store, near_ids, f, w.hops, n)
    fused = fuse({name: [(node, raw) for node, _, raw in hits]
                  for name, hits in ranked.items()}, w, depth=n)
    table_of: dict[str, str] = {}
    signal: dict[str, dict[str, SignalScore]] = {}
    for name, hits in ranked.items():
        for rank, (node, table, raw) in enumerate(hits, start=1):
            table_of[node] = table
            signal.setdefault(node, {})[name] = SignalScore(rank, round(raw, 6))
    by_table: dict[str, list[str]] = {}
    for node, table in table_of.items():
        if node not in meta:  # symbols (from the catalog) and graph-only candidates
            by_table.setdefault(table, []).append(node)
    meta.update(node_metadata(store, by_table))
    now = naive_utc(as_of or datetime.now(UTC))
    hits: list[SearchHit] = []
    for node, base in fused.items():
        table = table_of[node]
        m = meta.get(node, {})
        age = age_days(table, m, now)
        trust = trust_of(table, m, age)
        newer = tuple(sorted(x for x in (m.get("newer") or []) if x))
        fresh = 0.1 if newer else freshness_of(table, age)
        score = base * (1 - w.trust + w.trust * trust / 100) * (1 - w.freshness
                                                                 + w.freshness * fresh)
        sig = signal[node]
        hits.append(SearchHit(node, table, DOMAIN_OF[table], m.get("name") or "",
                              m.get("kind") or "", m.get("location") or "", round(score, 8),
                              round(base, 8), sig.get("bm25"), sig.get("vector"),
                              sig.get("graph"), trust, fresh, newer))
    hits.sort(key=lambda h: (-h.score, h.id))
    if mmr not in (None, False) and len(hits) > 1:
        lam = w.mmr_lambda if mmr is True else float(mmr)
        hits = mmr_rerank(store, hits, k, lam)
    used = tuple(s for s in ("bm25", "vector", "graph") if ranked.get(s))
    return SearchResult(text, k, tuple(hits[:k]), used, w, tuple(notes))
