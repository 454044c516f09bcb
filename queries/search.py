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
"""

from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np
import polars as pl

from graphdb import Store, deadline
from graphdb.sessions import glob_pattern
from queries.batch import by_ids, lookup_template
from queries.scope import code_paths, in_scope
from schema import (
    ABOUT,
    CALLS,
    COMMUNITY,
    CONTAINS,
    ENTRY,
    IMPORTS,
    IN_COMMUNITY,
    INHERITS,
    NODE_TABLES,
    PAPER,
    REFERENCES,
    SUBCOMMUNITY_OF,
    SYMBOL,
    QueryError,
)

__all__ = [
    "DEFAULT_WEIGHTS", "DOMAIN_TABLES", "FUSIONS", "SEARCH_TABLES", "LinkedNode", "SearchHit",
    "SearchResult", "SearchWeights", "SignalScore", "SimilarHit", "SimilarResult", "fuse",
    "search", "similar",
]

#: Node tables search returns, and the domain of each.
SEARCH_TABLES: tuple[str, ...] = (SYMBOL.name, ENTRY.name, PAPER.name)
DOMAIN_TABLES: dict[str, tuple[str, ...]] = {
    "code": (SYMBOL.name,), "history": (ENTRY.name,), "academic": (PAPER.name,)}
_DOMAIN = {t: d for d, ts in DOMAIN_TABLES.items() for t in ts}
#: Edges graph proximity walks (either direction).
PROXIMITY_RELS = tuple(r.name for r in (CALLS, IMPORTS, INHERITS, CONTAINS, ABOUT, REFERENCES))
#: A filtered BM25 looks at most at the index's best this many hits; vectors (exact over the
#: filter's candidates) fill the rest, so a filtered search still returns k when k exist.
_BM25_MAX = 5_000
_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="vgdb-search")
_MAX_FRONTIER = 5_000  # nodes expanded per hop: a hub (a big file, a builtin) stops there
#: Current, or ended because something superseded it (returned, demoted, with a pointer).
_BELIEVED = ("n.expired_at IS NULL AND (n.valid_to IS NULL OR "
             "EXISTS { MATCH (n)<-[:SUPERSEDES]-() })")


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


# ------------------------------------------------------------------------------ filters
def _naive_utc(t: datetime) -> datetime:
    """Kuzu TIMESTAMPs are naive UTC."""
    return t.astimezone(UTC).replace(tzinfo=None) if t.tzinfo else t



@dataclass(frozen=True, slots=True)
class _Filters:
    tables: tuple[str, ...]
    where: dict[str, str]  # table -> Cypher condition on n ('' = none)
    params: dict[str, Any]
    candidates: frozenset[str] | None


def _filters(store: Store, *, domains: Iterable[str] | None, tables: Iterable[str] | None,
             language: str | None, path: str | None, as_of: datetime | None,
             community: str | None) -> _Filters:
    chosen = list(SEARCH_TABLES)
    if domains is not None:
        doms = list(domains)
        bad = [d for d in doms if d not in DOMAIN_TABLES]
        if bad:
            raise QueryError(f"unknown domain(s) {', '.join(bad)}",
                             suggestion="domains: " + ", ".join(DOMAIN_TABLES))
        chosen = [t for t in chosen if _DOMAIN[t] in doms]
    if tables is not None:
        wanted = list(tables)
        bad = [t for t in wanted if t not in SEARCH_TABLES]
        if bad:
            raise QueryError(f"search covers no table {', '.join(bad)}",
                             suggestion="tables: " + ", ".join(SEARCH_TABLES))
        chosen = [t for t in chosen if t in wanted]
    conds: list[str] = []
    params: dict[str, Any] = {}
    if language is not None or path is not None or community is not None:
        chosen = [t for t in chosen if t == SYMBOL.name]  # only code has these
    code_ids: frozenset[str] | None = None
    if language is not None or path is not None:
        # from the in-process catalog: a Kuzu scan with a regex costs ~0.1-1 s on 100K symbols
        cat = _catalog(store)
        key = (language, path)
        code_ids = cat.filtered.get(key)
        if code_ids is None:
            pattern = re.compile("file:[^/]+/" + glob_pattern(path)) if path is not None else None
            code_ids = frozenset(node for node, row in cat.rows.items()
                                 if row[4] and (language is None or row[5] == language)
                                 and (pattern is None or pattern.fullmatch(row[2])))
            if len(cat.filtered) > 64:
                cat.filtered.clear()
            cat.filtered[key] = code_ids
    if as_of is not None:
        conds.append("(n.valid_from IS NULL OR n.valid_from <= $f_as_of)")
        params["f_as_of"] = _naive_utc(as_of)
    candidates = None
    if community is not None:
        com = COMMUNITY.name
        # (Kuzu 0.11.3 refused the earlier `collect(s.id) + [c.id]` form: "Cannot evaluate
        # expression with type PROPERTY"; a 0..5-hop pattern says the same in one MATCH)
        found = store.cypher(
            f"MATCH (x:{com})-[:{SUBCOMMUNITY_OF.name}*0..5]->(c:{com} {{id: $c}}) "
            f"MATCH (m)-[:{IN_COMMUNITY.name}]->(x) "
            f"OPTIONAL MATCH (m)-[:{CONTAINS.name}*0..1]->(y:{SYMBOL.name}) "
            "RETURN DISTINCT coalesce(y.id, m.id) AS id", {"c": community})
        if found.is_empty() and store.cypher(f"MATCH (c:{com} {{id: $c}}) RETURN c.id",
                                             {"c": community}).is_empty():
            raise QueryError(f"no community {community}",
                             suggestion="`vgdb communities REPO` lists them")
        candidates = frozenset(found["id"].to_list())
    if code_ids is not None:
        candidates = frozenset(code_ids if candidates is None else code_ids & candidates)
    where = " AND ".join(conds)
    return _Filters(tuple(chosen), {t: where for t in chosen}, params, candidates)


# ------------------------------------------------------------------------------- signals
def _bm25_signal(store: Store, query: str, f: _Filters, n: int, notes: list[str],
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
            cat = _catalog(store)
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


def _vector_signal(store: Store, vector: np.ndarray, embedder: Any, f: _Filters, n: int,
                   tables: Sequence[str]) -> list[tuple[str, str, float]]:
    """The ``n`` nearest nodes of ``tables`` to the query vector. Symbols are checked against
    the in-process catalog; entries and papers are not checked here (no Kuzu statement): the
    caller drops those :func:`_meta` finds no longer current."""
    from graphdb import nearest

    cat = _catalog(store) if SYMBOL.name in tables else None

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
                  f: _Filters, n: int, notes: list[str], tables: Sequence[str], bm25_on: bool,
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
    meta = _meta(store, {t: list(dict.fromkeys(v)) for t, v in by_table.items()})
    vec = [h for h in vec if meta.get(h[0], {}).get("current")]
    return bm, vec, meta


def _labels(store: Store, ids: Sequence[str]) -> dict[str, str]:
    """The table of each of ``ids`` the graph holds, looked up by primary key table by
    table, the searched ones first (an unlabelled ``MATCH (n {id: ...})`` scans them all)."""
    wanted = list(dict.fromkeys(ids))
    found: dict[str, str] = {}
    for table in dict.fromkeys((*SEARCH_TABLES, *(t.name for t in NODE_TABLES))):
        left = [i for i in wanted if i not in found]
        if not left:
            break
        rows = store.cypher(f"UNWIND $ids AS i MATCH (n:{table} {{id: i}}) RETURN n.id AS id",
                            {"ids": left})
        found.update((i, table) for i in rows["id"].to_list())
    return {i: found[i] for i in wanted if i in found}


def _graph_signal(store: Store, near: Sequence[str], f: _Filters, hops: int,
                  n: int) -> list[tuple[str, str, float]]:
    """Nodes within ``hops`` of ``near`` (any direction over :data:`PROXIMITY_RELS`), nearest
    first, then by the number of paths reaching them; scored 1/distance. An entry whose
    scope covers a file or symbol reached is one hop from it, as an ABOUT edge would make it
    (:mod:`queries.scope`)."""
    rels = "|".join(PROXIMITY_RELS)
    dist: dict[str, int] = {i: 0 for i in near}
    paths: dict[str, int] = {}
    label: dict[str, str] = {}
    frontier = list(_labels(store, near).items())
    scoped = ENTRY.name in f.tables and _scoped_entries(store)
    for hop in range(1, hops + 1):
        deadline.check()
        if not frontier:
            break
        reached: list[tuple[str, str, int]] = []
        expanded = frontier[:_MAX_FRONTIER]
        for table in sorted({t for _, t in expanded}):
            rows = by_ids(store, [i for i, t in expanded if t == table], lookup_template(
                f"MATCH (a:{table}{{B}})-[:{rels}]-(b) WHERE {{IN}} "
                "RETURN b.id AS id, label(b) AS t, count(*) AS c", "a"))
            reached += rows.iter_rows()
        if scoped:
            reached += _in_scope_of(store, [i for i, _ in expanded])
        nxt = []
        for node, table, count in reached:
            if node in dist and dist[node] < hop:
                continue
            if node not in dist:
                dist[node] = hop
                nxt.append((node, table))
            paths[node] = paths.get(node, 0) + int(count)
            label[node] = table
        frontier = nxt
    found = [(i, label[i]) for i, d in dist.items() if d > 0 and label.get(i) in f.tables]
    if f.candidates is not None:
        found = [(i, t) for i, t in found if i in f.candidates]
    allowed: set[str] = set()
    for table in f.tables:
        deadline.check()
        ids = [i for i, t in found if t == table]
        if not ids:
            continue
        cond = f.where[table]
        rows = by_ids(store, ids, lookup_template(
            f"MATCH (n:{table}{{B}}) WHERE {{IN}} AND {_BELIEVED}"
            + (f" AND {cond}" if cond else "") + " RETURN n.id AS id", "n"), f.params)
        allowed.update(rows["id"].to_list())
    ranked = sorted(((i, t) for i, t in found if i in allowed),
                    key=lambda x: (dist[x[0]], -paths[x[0]], x[0]))
    return [(i, t, 1.0 / dist[i]) for i, t in ranked[:n]]


def _scoped_entries(store: Store) -> bool:
    """Whether any entry has a scope (else the scope step of the graph signal is skipped)."""
    rows = store.cypher(f"MATCH (x:{ENTRY.name}) WHERE size(x.scope) > 0 RETURN count(x) AS n")
    return bool(rows["n"][0])


def _in_scope_of(store: Store, ids: list[str]) -> list[tuple[str, str, int]]:
    """(entry id, table, number of nodes) for the entries whose scope covers the files and
    symbols among ``ids``."""
    code = [i for i in ids if i.startswith(("file:", "sym:"))]
    count: dict[str, int] = {}
    for matches in in_scope(store, code_paths(store, code)).values():
        for m in matches:
            count[m.row["id"]] = count.get(m.row["id"], 0) + 1
    return [(eid, ENTRY.name, n) for eid, n in count.items()]


# ------------------------------------------------------------------------ symbol catalog
@dataclass(frozen=True, slots=True)
class _Catalog:
    """Every Symbol's display fields and state, read once per database change.

    Why: checking hits against an in-process copy costs microseconds, below even a lookup by
    primary key (~0.5 ms per statement, queries/batch.py; ``WHERE n.id IN $ids`` scans the
    table: 14-50 ms on 88K symbols). The copy is keyed by the database manifest's stamp,
    which every code or history ingest rewrites (``Store.touch_manifest``); loading it costs
    ~0.3 s per 90K symbols, once after each ingest. Entries and papers are few: they are
    read live.
    """

    stamp: tuple[int, int] | None
    rows: dict[str, tuple[str, str, str, str, bool, str]]  # id -> name, kind, file, source,
    #                                                        current, language
    newer: dict[str, tuple[str, ...]]  # older symbol -> the symbols superseding it
    #: (language, path glob) -> the current symbols passing it, for repeated filters
    filtered: dict[tuple[str | None, str | None], frozenset[str]] = field(default_factory=dict)

    def believed(self, node: str) -> bool:
        row = self.rows.get(node)
        return row is not None and (row[4] or node in self.newer)

    def current(self, _table: str, ids: list[str]) -> set[str]:
        return {i for i in ids if (r := self.rows.get(i)) is not None and r[4]}


_CATALOGS: weakref.WeakKeyDictionary[Store, _Catalog] = weakref.WeakKeyDictionary()
_CATALOG_LOCK = threading.Lock()


def _stamp(store: Store) -> tuple[int, int] | None:
    try:
        st = (store.path / "manifest.json").stat()
    except FileNotFoundError:
        return None
    return (st.st_mtime_ns, st.st_size)


def _catalog(store: Store) -> _Catalog:
    stamp = _stamp(store)
    with _CATALOG_LOCK:
        found = _CATALOGS.get(store)
        if found is not None and found.stamp == stamp:
            return found
        frame = store.cypher(
            f"MATCH (n:{SYMBOL.name}) WHERE n.expired_at IS NULL RETURN n.id AS id, "
            "n.qualname AS name, n.kind AS kind, n.file AS file, n.source AS source, "
            "n.valid_to IS NULL AS current, n.language AS language")
        rows = {r[0]: (r[1] or "", r[2] or "", r[3] or "", r[4] or "", bool(r[5]), r[6] or "")
                for r in frame.iter_rows()}
        sup = store.cypher(f"MATCH (w:{SYMBOL.name})-[:SUPERSEDES]->(o:{SYMBOL.name}) "
                           "RETURN o.id AS old, w.id AS new ORDER BY old, new")
        newer: dict[str, tuple[str, ...]] = {}
        for old, new in sup.iter_rows():
            newer[old] = (*newer.get(old, ()), new)
        found = _Catalog(stamp, rows, newer)
        _CATALOGS[store] = found
        return found


# --------------------------------------------------------------------- trust, freshness
def _meta(store: Store, ids_by_table: dict[str, list[str]]) -> dict[str, dict[str, Any]]:
    """Per hit id: name, kind, location, source, dates, status, superseding ids."""
    out: dict[str, dict[str, Any]] = {}
    if ids_by_table.get(SYMBOL.name):
        cat = _catalog(store)
        for node in ids_by_table[SYMBOL.name]:
            if (row := cat.rows.get(node)) is not None:
                out[node] = {"id": node, "name": row[0], "kind": row[1], "location": row[2],
                             "source": row[3], "resolved": True,
                             "newer": list(cat.newer.get(node, ()))}
        ids_by_table = {t: v for t, v in ids_by_table.items() if t != SYMBOL.name}
    cols = {
        SYMBOL.name: "n.qualname AS name, n.kind AS kind, n.file AS location, "
                     "NULL AS year, true AS resolved",
        ENTRY.name: "n.title AS name, n.kind AS kind, n.display_id AS location, "
                    "NULL AS year, true AS resolved",
        PAPER.name: "n.title AS name, n.kind AS kind, "
                    "CASE WHEN n.doi <> '' THEN n.doi WHEN n.arxiv <> '' THEN n.arxiv "
                    "ELSE n.url END AS location, "
                    "n.year AS year, n.resolved AS resolved",
    }
    for table, ids in ids_by_table.items():
        if not ids:
            continue
        rows = store.cypher(  # by primary key, then the optional edges (queries/batch.py)
            f"UNWIND $ids AS i MATCH (n:{table} {{id: i}}) "
            f"OPTIONAL MATCH (w:{table})-[:SUPERSEDES]->(n) "
            f"RETURN n.id AS id, {cols[table]}, n.source AS source, n.valid_from AS valid_from, "
            "n.recorded_at AS recorded_at, collect(w.id) AS newer, "
            "(n.valid_to IS NULL AND n.expired_at IS NULL) AS current",
            {"ids": list(dict.fromkeys(ids))})
        for r in rows.iter_rows(named=True):
            out[r["id"]] = r
    return out


def _trust(table: str, m: dict[str, Any], age_days: float | None) -> int:
    """Code 100; RFCs, standards, official docs 70; papers and books 60; history entries
    80/60/40 by age (< 7 d, < 30 d, older); blogs 30; unverified (inferred facts, paper
    stubs known only from a reference) 20."""
    if m.get("source") == "inferred" or not m.get("resolved", True):
        return 20
    if table == SYMBOL.name:
        return 100
    if table == ENTRY.name:
        if age_days is None or age_days >= 30:
            return 40
        return 80 if age_days < 7 else 60
    kind = (m.get("kind") or "").lower()
    if kind in ("rfc", "standard", "doc", "software"):
        return 70
    if kind == "blog":
        return 30
    return 60


def _freshness(table: str, age_days: float | None) -> float:
    """Code 1; history from 1 down linearly to 0.2 at 180 days; papers to 0.3 at a year."""
    if table == SYMBOL.name:
        return 1.0
    if age_days is None:
        return 0.2 if table == ENTRY.name else 0.3
    if table == ENTRY.name:
        return round(max(0.2, 1.0 - 0.8 * age_days / 180.0), 4)
    return round(max(0.3, 1.0 - 0.7 * age_days / 365.0), 4)


def _age_days(table: str, m: dict[str, Any], now: datetime) -> float | None:
    if table == PAPER.name:
        year = m.get("year")
        if not year:
            return None
        born = datetime(int(year), 7, 1)  # a year only: count from its middle
    else:
        born = m.get("valid_from") or m.get("recorded_at")
        if born is None:
            return None
        if born.tzinfo is not None:
            born = born.astimezone(UTC).replace(tzinfo=None)
    return max(0.0, (now - born).total_seconds() / 86400.0)


def _text_signals(store: Store, text: str, f: _Filters, n: int, w: SearchWeights,
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
        _catalog(store)  # load it once here, not in two threads at the same time
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


# ---------------------------------------------------------------------------- fusion
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


# ---------------------------------------------------------------------------- search
def search(store: Store, query: str, *, k: int = 10, domains: Iterable[str] | None = None,
           tables: Iterable[str] | None = None, language: str | None = None,
           path: str | None = None, as_of: datetime | None = None,
           community: str | None = None, near: Iterable[str] | None = None,
           weights: SearchWeights | None = None, mmr: bool | float | None = None,
           ) -> SearchResult:
    """The ``k`` best Symbols, Entries and Papers for ``query``, fusing BM25, vector
    similarity and (with ``near``) graph proximity by RRF, weighed by trust and freshness.

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
    f = _filters(store, domains=domains, tables=tables, language=language, path=path,
                 as_of=as_of, community=community)
    notes: list[str] = []
    n = max(w.pool, 3 * k)
    ranked: dict[str, list[tuple[str, str, float]]] = {}
    meta: dict[str, dict[str, Any]] = {}
    if text:
        ranked, meta = _text_signals(store, text, f, n, w, notes)
    if near_ids and w.graph > 0:
        missing = set(near_ids) - set(_labels(store, near_ids))
        if missing:
            raise QueryError(f"--near: no node {', '.join(sorted(missing))}",
                             suggestion="give node ids (sym:..., file:..., entry:..., paper:...)")
        ranked["graph"] = _graph_signal(store, near_ids, f, w.hops, n)
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
    meta.update(_meta(store, by_table))
    now = _naive_utc(as_of or datetime.now(UTC))
    hits: list[SearchHit] = []
    for node, base in fused.items():
        table = table_of[node]
        m = meta.get(node, {})
        age = _age_days(table, m, now)
        trust = _trust(table, m, age)
        newer = tuple(sorted(x for x in (m.get("newer") or []) if x))
        fresh = 0.1 if newer else _freshness(table, age)
        score = base * (1 - w.trust + w.trust * trust / 100) * (1 - w.freshness
                                                                 + w.freshness * fresh)
        sig = signal[node]
        hits.append(SearchHit(node, table, _DOMAIN[table], m.get("name") or "",
                              m.get("kind") or "", m.get("location") or "", round(score, 8),
                              round(base, 8), sig.get("bm25"), sig.get("vector"),
                              sig.get("graph"), trust, fresh, newer))
    hits.sort(key=lambda h: (-h.score, h.id))
    if mmr not in (None, False) and len(hits) > 1:
        lam = w.mmr_lambda if mmr is True else float(mmr)
        hits = _mmr(store, hits, k, lam)
    used = tuple(s for s in ("bm25", "vector", "graph") if ranked.get(s))
    return SearchResult(text, k, tuple(hits[:k]), used, w, tuple(notes))


def _mmr(store: Store, hits: list[SearchHit], k: int, lam: float) -> list[SearchHit]:
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


# --------------------------------------------------------------------------- similar
@dataclass(frozen=True, slots=True)
class LinkedNode:
    """A node of another domain directly linked to a similar hit, and the edge linking it."""

    id: str
    table: str
    domain: str
    rel: str
    name: str


@dataclass(frozen=True, slots=True)
class SimilarHit:
    """A node near the query in its domain, with its links into the other two domains."""

    id: str
    table: str
    domain: str
    name: str
    similarity: float
    links: tuple[LinkedNode, ...] = field(default=())


@dataclass(frozen=True, slots=True)
class SimilarResult:
    """Per domain (code, history, academic) the nearest nodes, each with context."""

    query: str
    hits: tuple[SimilarHit, ...]

    def domain(self, name: str) -> tuple[SimilarHit, ...]:
        return tuple(h for h in self.hits if h.domain == name)

    def to_dict(self) -> dict[str, Any]:
        return {"query": self.query, "hits": [asdict(h) for h in self.hits]}

    def to_polars(self) -> pl.DataFrame:
        return pl.DataFrame(
            [{"id": h.id, "table": h.table, "domain": h.domain, "name": h.name,
              "similarity": h.similarity, "links": [x.id for x in h.links]} for h in self.hits],
            schema={"id": pl.Utf8, "table": pl.Utf8, "domain": pl.Utf8, "name": pl.Utf8,
                    "similarity": pl.Float64, "links": pl.List(pl.Utf8)})


#: Edges from each domain's hits into the other two domains: (edge, node label, name field).
#: Spelled out per label, not ``label(m) IN [...]``: Kuzu 0.11.3 returned wrong rows for that
#: form combined with properties of several labels (a Commit reported as a Symbol).
_LINKS: dict[str, tuple[tuple[str, str, str], ...]] = {
    SYMBOL.name: (("ABOUT", "Entry", "title"), ("ABOUT", "Session", "title"),
                  ("TOUCHED", "Commit", "summary"), ("REFERENCES", "Paper", "title")),
    ENTRY.name: (("ABOUT", "Symbol", "qualname"), ("ABOUT", "File", "path"),
                 ("ABOUT", "Commit", "summary"), ("REFERENCES", "Paper", "title"),
                 ("BASED_ON", "Paper", "title")),
    PAPER.name: (("REFERENCES", "Symbol", "qualname"), ("REFERENCES", "File", "path"),
                 ("REFERENCES", "Commit", "summary"), ("REFERENCES", "Entry", "title"),
                 ("BASED_ON", "Entry", "title")),
}
_LABEL_DOMAIN = {"Symbol": "code", "File": "code", "Entry": "history", "Commit": "history",
                 "Session": "history", "Paper": "academic"}


def similar(store: Store, node_or_query: str, *, k_per_domain: int = 5) -> SimilarResult:
    """The ``k_per_domain`` nearest code, history and academic nodes to a node (its stored
    vector; the node itself left out) or a text, each with the nodes of the other two domains
    it is directly linked to (one batched query per domain)."""
    from graphdb import nearest, stored_vectors

    probe: str | np.ndarray = node_or_query
    own = stored_vectors(store, [node_or_query])
    if node_or_query in own:
        probe = own[node_or_query]
    elif not node_or_query.strip():
        raise QueryError("empty query", suggestion="give a node id or some words")
    hits: list[SimilarHit] = []
    for table in SEARCH_TABLES:
        deadline.check()
        found = [h for h in nearest(store, probe, k=k_per_domain + 1, tables=[table])
                 if h.id != node_or_query][:k_per_domain]
        if not found:
            continue
        ids = [h.id for h in found]
        rows = pl.concat([by_ids(store, ids, lookup_template(
            f"MATCH (n:{table}{{B}})-[:{rel}]-(m:{label}) WHERE {{IN}} RETURN n.id AS id, "
            f"'{rel}' AS rel, '{label}' AS t, m.id AS mid, m.{name} AS name", "n"))
            for rel, label, name in _LINKS[table]], how="vertical_relaxed").sort("id", "t", "mid")
        links: dict[str, list[LinkedNode]] = {}
        for i, rel, t, mid, name in rows.iter_rows():
            group = links.setdefault(i, [])
            if all(x.id != mid for x in group):
                group.append(LinkedNode(mid, t, _LABEL_DOMAIN[t], rel, name or ""))
        names = _meta(store, {table: ids})
        hits.extend(SimilarHit(h.id, table, _DOMAIN[table], names.get(h.id, {}).get("name") or "",
                               round(h.similarity, 6), tuple(links.get(h.id, ())))
                    for h in found)
    return SimilarResult(node_or_query, tuple(hits))
