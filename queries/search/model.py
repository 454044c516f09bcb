"""What search returns and how it weighs: the searched tables and their domains, the fusion
weights (:class:`SearchWeights`, :data:`DEFAULT_WEIGHTS`), and the result types."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import polars as pl

from schema import ENTRY, PAPER, SYMBOL

__all__ = [
    "DEFAULT_WEIGHTS", "DOMAIN_OF", "DOMAIN_TABLES", "FUSIONS", "SEARCH_TABLES", "SearchHit",
    "SearchResult", "SearchWeights", "SignalScore",
]

#: Node tables search returns, and the domain of each.
SEARCH_TABLES: tuple[str, ...] = (SYMBOL.name, ENTRY.name, PAPER.name)
DOMAIN_TABLES: dict[str, tuple[str, ...]] = {
    "code": (SYMBOL.name,), "history": (ENTRY.name,), "academic": (PAPER.name,)}
#: The domain of each searched table.
DOMAIN_OF: dict[str, str] = {t: d for d, ts in DOMAIN_TABLES.items() for t in ts}


#: Fusion methods :class:`SearchWeights` accepts.
FUSIONS = ("zscore", "rrf")


@dataclass(frozen=True, slots=True)
class SearchWeights:
    """How signals are fused. ``fusion`` and ``bm25`` were chosen on the DEV split of the
    benchmarks and reported on the held-out split (benchmarks/RESULTS.md, "Search: fusion");
    the rest were fixed by hand.

    bm25, vector, graph : weight of each signal (0 switches it off)
    fusion : ``"zscore"`` (each signal's score minus its list's minimum, over its list's
        standard deviation, weighted and summed) or ``"rrf"`` (reciprocal rank fusion)
    rrf_k : the RRF constant (60, as in Cormack et al. 2009), for ``fusion="rrf"``
    trust, freshness : share of the score that trust / freshness scale (0 = ignored)
    pool : candidates each signal contributes at least (more when k is larger: 3k)
    hops : graph proximity radius from ``near``
    mmr_lambda : relevance vs diversity when ``mmr=True`` (1 = relevance only)
    """

    bm25: float = 0.33
    vector: float = 1.0
    graph: float = 1.0
    fusion: str = "zscore"
    rrf_k: int = 60
    trust: float = 0.3
    freshness: float = 0.3
    pool: int = 50
    hops: int = 2
    mmr_lambda: float = 0.7


DEFAULT_WEIGHTS = SearchWeights()


@dataclass(frozen=True, slots=True)
class SignalScore:
    """One signal's view of a hit: 1-based rank among that signal's candidates, raw score
    (BM25 score; cosine similarity; graph 1/distance)."""

    rank: int
    score: float


@dataclass(frozen=True, slots=True)
class SearchHit:
    """A search result with its score per signal, trust and freshness."""

    id: str
    table: str
    domain: str
    name: str  # symbol qualname, entry or paper title
    kind: str
    location: str  # symbol's file id, entry's display id, paper's DOI/arXiv id/url
    score: float  # final: fused x trust x freshness (after MMR order when asked)
    fused: float  # the fused signals alone (before trust and freshness)
    bm25: SignalScore | None
    vector: SignalScore | None
    graph: SignalScore | None
    trust: int
    freshness: float
    superseded_by: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class SearchResult:
    """Hits best first; ``signals`` used; ``notes`` say what was unavailable or widened."""

    query: str
    k: int
    hits: tuple[SearchHit, ...]
    signals: tuple[str, ...]
    weights: SearchWeights
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"query": self.query, "k": self.k, "signals": list(self.signals),
                "weights": asdict(self.weights), "notes": list(self.notes),
                "hits": [h.to_dict() for h in self.hits]}

    def to_polars(self) -> pl.DataFrame:
        rows = []
        for h in self.hits:
            row: dict[str, Any] = {
                "id": h.id, "table": h.table, "domain": h.domain, "name": h.name,
                "kind": h.kind, "location": h.location, "score": h.score, "fused": h.fused}
            for s in ("bm25", "vector", "graph"):
                sig = getattr(h, s)
                row[f"{s}_rank"] = sig.rank if sig else None
                row[f"{s}_score"] = sig.score if sig else None
            row.update(trust=h.trust, freshness=h.freshness,
                       superseded_by=list(h.superseded_by))
            rows.append(row)
        schema = {"id": pl.Utf8, "table": pl.Utf8, "domain": pl.Utf8, "name": pl.Utf8,
                  "kind": pl.Utf8, "location": pl.Utf8, "score": pl.Float64,
                  "fused": pl.Float64, "bm25_rank": pl.Int64, "bm25_score": pl.Float64,
                  "vector_rank": pl.Int64, "vector_score": pl.Float64, "graph_rank": pl.Int64,
                  "graph_score": pl.Float64, "trust": pl.Int64, "freshness": pl.Float64,
                  "superseded_by": pl.List(pl.Utf8)}
        return pl.DataFrame(rows, schema=schema)
