"""Hybrid search over the three domains: BM25 (tantivy), vector similarity (hnswlib) and
graph proximity to given nodes, fused (by default on scores normalised per signal; reciprocal
rank fusion on request), then weighed by trust and freshness; optional MMR diversity. And
"similar across domains with context".

Scoring (docs/search.md, "Hybrid search"):

- each signal ranks its candidates (best first) with a raw score; the default fusion
  (``weights.fusion = "zscore"``) adds, over the signals that found a hit,
  ``weight_s * (score - min_s) / std_s`` (the signal's candidate list's minimum and standard
  deviation): a signal counts as much as its hit stands out of its own list, so a BM25 list of
  near-equal weak matches barely moves the ranking while a clear BM25 winner does.
  ``fusion = "rrf"`` is reciprocal rank fusion, ``sum(weight_s / (rrf_k + rank_s))`` (k=60);
- trust (0-100) and freshness (0-1) scale it: ``fused * (1 - a + a*trust/100) *
  (1 - b + b*freshness)`` with ``a = weights.trust``, ``b = weights.freshness``;
- a superseded fact (an incoming SUPERSEDES edge) has freshness 0.1 and carries the ids of
  what replaced it.

The default fusion and BM25 weight (:data:`DEFAULT_WEIGHTS`) were chosen on the DEV half of
the docstring and identifier benchmarks (benchmarks/search.py, split by top-level stdlib module)
and are reported on the other, held-out half (benchmarks/RESULTS.md, "Search: fusion").

Modules, one concern each: :mod:`~queries.search.model` (weights, result types),
:mod:`~queries.search.filters`, :mod:`~queries.search.catalog` (the in-process symbol
catalog), :mod:`~queries.search.text` (BM25 and vector signals),
:mod:`~queries.search.proximity` (the graph signal of ``near``),
:mod:`~queries.search.fusion` (fusion, MMR), :mod:`~queries.search.trust` (trust and
freshness), :mod:`~queries.search.metadata`, :mod:`~queries.search.hybrid` (``search``) and
:mod:`~queries.search.similar`.
"""

from __future__ import annotations

from queries.search.fusion import fuse
from queries.search.hybrid import search
from queries.search.model import (
    DEFAULT_WEIGHTS,
    DOMAIN_TABLES,
    FUSIONS,
    SEARCH_TABLES,
    SearchHit,
    SearchResult,
    SearchWeights,
    SignalScore,
)
from queries.search.similar import LinkedNode, SimilarHit, SimilarResult, similar
from queries.search.trust import freshness_of, trust_of

__all__ = [
    "DEFAULT_WEIGHTS",
    "DOMAIN_TABLES",
    "FUSIONS",
    "SEARCH_TABLES",
    "LinkedNode",
    "SearchHit",
    "SearchResult",
    "SearchWeights",
    "SignalScore",
    "SimilarHit",
    "SimilarResult",
    "freshness_of",
    "fuse",
    "search",
    "similar",
    "trust_of",
]

# the names these tables had before search.py became a package (tests/queries/test_search.py)
_trust = trust_of
_freshness = freshness_of
