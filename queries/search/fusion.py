"""Fusing the signals' candidate lists into one score per node (z-score or reciprocal rank
fusion), and re-ranking for diversity by maximal marginal relevance."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from graphdb import Store, deadline
from queries.search.model import DEFAULT_WEIGHTS, SearchHit, SearchWeights

__all__ = ["fuse", "mmr_rerank"]


def fuse(ranked: Mapping[str, Sequence[tuple[str, float]]],
         weights: SearchWeights = DEFAULT_WEIGHTS, *, depth: int = 0) -> dict[str, float]:
    """Fused score per node from each signal's candidates (``signal -> [(node, raw score)]``,
    best first; signals ``bm25``, ``vector``, ``graph``). Higher is better, never negative.

    ``zscore``: ``sum_s weight_s * (score_s - min_s) / std_s`` over the signals that list the
    node (min and std over that signal's list; a list whose scores are all equal gives each of
    its nodes 1). ``depth`` is how many candidates each signal was asked for: a BM25 or graph
    list shorter than that holds every node that signal scores above 0 (no other node has a
    query word, or is within reach), so its statistics count the missing ones as zeros — a
    lone BM25 match then stands far out, as it should. (A short vector list is a small
    table: there are no others.) Unlike RRF, which trusts every list's top ranks equally, this
    lets a signal count as much as its hit stands out: on the docstring benchmark, BM25's top
    hit is far more often right when it stands far above the rest of its list than when it is
    one of many near-equal matches (benchmarks/RESULTS.md, "Search: fusion" gives the calibration).
    ``rrf``: ``sum_s weight_s / (rrf_k + rank_s)``.
    """
    weight_of = {"bm25": weights.bm25, "vector": weights.vector, "graph": weights.graph}
    fused: dict[str, float] = {}
    for name, hits in ranked.items():
        w = weight_of[name]
        if not hits or w <= 0:
            continue
        if weights.fusion == "rrf":
            for rank, (node, _) in enumerate(hits, start=1):
                fused[node] = fused.get(node, 0.0) + w / (weights.rrf_k + rank)
            continue
        raw = np.array([score for _, score in hits], dtype=np.float64)
        if name != "vector" and len(hits) < depth:
            raw = np.concatenate([raw, np.zeros(depth - len(hits))])
        spread = float(raw.std())
        norm = (raw - raw.min()) / spread if spread > 1e-12 else np.ones(len(raw))
        for (node, _), value in zip(hits, norm.tolist()[:len(hits)], strict=True):
            fused[node] = fused.get(node, 0.0) + w * value
    return fused


def mmr_rerank(store: Store, hits: list[SearchHit], k: int, lam: float) -> list[SearchHit]:
    """Maximal marginal relevance (Carbonell & Goldstein 1998) over the stored vectors: pick
    the hit maximising ``lam * relevance - (1 - lam) * max similarity to those picked``.
    Relevance is the score scaled to [0, 1]; a hit without a vector is similar to nothing."""
    from graphdb import stored_vectors

    vecs = stored_vectors(store, [h.id for h in hits])
    top = hits[0].score or 1.0
    rel = np.array([h.score / top for h in hits])
    dim = next(iter(vecs.values())).shape[0] if vecs else 1
    mat = np.stack([vecs.get(h.id, np.zeros(dim, dtype=np.float32)) for h in hits])
    sims = mat @ mat.T
    chosen: list[int] = []
    left = list(range(len(hits)))
    while left and len(chosen) < k:
        deadline.check()
        penalty = sims[np.ix_(left, chosen)].max(axis=1) if chosen else np.zeros(len(left))
        values = lam * rel[left] - (1 - lam) * penalty
        pick = left[int(np.argmax(values))]
        chosen.append(pick)
        left.remove(pick)
    return [hits[i] for i in chosen]
