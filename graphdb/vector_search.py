"""Vector search over the stored vectors and hnswlib indexes of :mod:`graphdb.vectors`
(kept apart from the embedding and its writes): nearest nodes to a text or a vector, checked
against the graph, and the stored vectors of given nodes."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import polars as pl

from graphdb.embed import Embedder, EmbeddingModelError, default_embedder, split_identifiers
from graphdb.store import Store
from graphdb.vector_files import VectorDir, VectorTable, vector_dir
from schema import ENTRY, PAPER, SYMBOL, NodeTable, QueryError, StoreError

__all__ = ["CURRENT", "EMBEDDED_TABLES", "VectorHit", "missing_vectors", "nearest",
           "stored_vectors", "table_names"]

#: Node tables that get vectors, one hnswlib index each (per table, not per domain: a node-type
#: filter then picks indexes, and a domain is the union of its tables' hits).
EMBEDDED_TABLES: tuple[NodeTable, ...] = (SYMBOL, ENTRY, PAPER)
_BY_NAME = {t.name: t for t in EMBEDDED_TABLES}
#: the condition on node ``n`` of a current (not ended, not expired) node
CURRENT = "n.valid_to IS NULL AND n.expired_at IS NULL"
#: Filtered searches over at most this many candidates are exact (numpy over their stored
#: vectors: ~1 ms per 20K rows here) instead of a filtered HNSW walk, which can come back short.
_BRUTE_FORCE_MAX = 20_000


@dataclass(frozen=True, slots=True)
class VectorHit:
    """A node near the query: ``distance`` is cosine distance (1 - cosine similarity)."""

    id: str
    table: str
    distance: float
    exact: bool = field(default=False)  # found by exact search rather than HNSW

    @property
    def similarity(self) -> float:
        return 1.0 - self.distance

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "table": self.table, "distance": self.distance,
                "similarity": self.similarity, "exact": self.exact}



def table_names(tables: Iterable[str] | None) -> list[str]:
    """The embedded tables named (all when None); StoreError for any other name."""
    if tables is None:
        return [t.name for t in EMBEDDED_TABLES]
    names = list(dict.fromkeys(tables))
    unknown = [n for n in names if n not in _BY_NAME]
    if unknown:
        raise StoreError(f"no vectors for node table(s) {', '.join(unknown)}",
                         suggestion="embedded tables: "
                                    + ", ".join(t.name for t in EMBEDDED_TABLES))
    return names


def nearest(store: Store, query: str | np.ndarray, *, k: int = 10,
            tables: Iterable[str] | None = None, where: str | None = None,
            params: dict[str, Any] | None = None, candidates: Collection[str] | None = None,
            embedder: Embedder | None = None, ef: int | None = None,
            exact: bool = False,
            current: Callable[[str, list[str]], set[str]] | None = None) -> list[VectorHit]:
    """The ``k`` current nodes nearest to ``query`` (a text, or a vector from the same model),
    nearest first.

    Parameters
    ----------
    store : an open Store (read-only is fine; a damaged index is then rebuilt in memory only)
    query : text (embedded with ``embedder``) or a float vector of the stored dimension
    k : number of hits; fewer only when fewer current nodes pass the filters
    tables : node tables to search (default: every embedded table)
    where, params : a Cypher condition on node ``n`` (e.g. ``"n.language = $lang"``) that
        candidates must satisfy; evaluated in Kuzu per table (a table whose properties it does
        not bind, such as Paper for ``n.file``, is skipped; if none binds, the QueryError rises)
    candidates : node ids the hits must come from (e.g. from a graph query or BM25)
    embedder : must be the model the vectors were made with (default: the shipped one)
    ef : HNSW search beam (default from the manifest, at least k)
    exact : brute force over the stored vectors instead of HNSW
    current : ``(table, ids) -> the current ones``, replacing the Kuzu check of each hit (for
        a caller that holds its own catalog of current nodes, e.g. hybrid search)

    Raises
    ------
    EmbeddingModelError : the vectors were made by another model, or a dimension differs
    """
    if k <= 0:
        return []
    vdir = vector_dir(store)
    if vdir.model_id is None:
        return []
    vector = _query_vector(vdir, query, embedder)
    names = [n for n in table_names(tables) if n in vdir.manifest.get("tables", {})]
    allowed_ids = None if candidates is None else set(candidates)
    hits: list[VectorHit] = []
    unbound: list[QueryError] = []
    searched = 0
    for name in names:
        table = vdir.table(name, writable=not store.read_only)
        if not table.rows.height:
            continue
        searched += 1
        try:
            allowed = _allowed_labels(store, table, where, params, allowed_ids)
        except QueryError as exc:  # e.g. `where` names a property this table lacks
            unbound.append(exc)
            continue
        hits.extend(_search_table(store, table, vector, k, allowed, ef or vdir.hnsw().ef_search,
                                  exact=exact, current=current))
    if unbound and len(unbound) == searched:
        raise unbound[0]
    hits.sort(key=lambda h: (h.distance, h.id))
    return hits[:k]


def _query_vector(vdir: VectorDir, query: str | np.ndarray,
                  embedder: Embedder | None) -> np.ndarray:
    if isinstance(query, str):
        embedder = embedder or default_embedder()
        if embedder.model_id != vdir.model_id:
            raise EmbeddingModelError(
                f"the index in {vdir.root} was built by model {vdir.model_id}; the query "
                f"would be embedded by {embedder.model_id}", found=str(vdir.model_id),
                expected=embedder.model_id)
        return embedder.embed([split_identifiers(query)])[0]
    vector = np.asarray(query, dtype=np.float32).reshape(-1)
    if embedder is not None and embedder.model_id != vdir.model_id:
        raise EmbeddingModelError(
            f"the index in {vdir.root} was built by model {vdir.model_id}, not "
            f"{embedder.model_id}", found=str(vdir.model_id), expected=embedder.model_id)
    if vector.shape[0] != vdir.dim:
        raise EmbeddingModelError(
            f"query vector has {vector.shape[0]} dimensions; the index in {vdir.root} holds "
            f"{vdir.dim} ({vdir.model_id})", found=f"dim {vector.shape[0]}",
            expected=f"dim {vdir.dim}")
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm else vector


def _allowed_labels(store: Store, table: VectorTable, where: str | None,
                    params: dict[str, Any] | None,
                    allowed_ids: set[str] | None) -> np.ndarray | None:
    """Live labels passing the filters, or None when there is no filter."""
    if where is None and allowed_ids is None:
        return None
    ids = allowed_ids
    if where is not None:
        found = store.cypher(f"MATCH (n:{table.name}) WHERE {CURRENT} AND ({where}) "
                             "RETURN n.id AS id", params)
        passing = set(found["id"].to_list())
        ids = passing if ids is None else ids & passing
    assert ids is not None
    labelled = table.rows.with_row_index("label").filter(
        pl.col("live") & pl.col("id").is_in(pl.Series(list(ids), dtype=pl.Utf8).implode()))
    return labelled["label"].to_numpy().astype(np.int64)


def _current_ids(store: Store, table: str, ids: list[str]) -> set[str]:
    if not ids:
        return set()
    found = store.cypher(  # by primary key: ``n.id IN $ids`` compares every row with the list
        f"UNWIND $ids AS i MATCH (n:{table} {{id: i}}) WHERE {CURRENT} RETURN n.id AS id",
        {"ids": list(dict.fromkeys(ids))})
    return set(found["id"].to_list())


def _search_table(store: Store, table: VectorTable, vector: np.ndarray, k: int,
                  allowed: np.ndarray | None, ef: int, *, exact: bool,
                  current: Callable[[str, list[str]], set[str]] | None = None,
                  ) -> list[VectorHit]:
    """k hits from one table, each checked to be current in Kuzu; widened until k or all."""
    live_count = int(table.rows["live"].sum())
    pool = live_count if allowed is None else int(allowed.size)
    if pool == 0:
        return []
    ids = table.rows["id"]
    if exact or table.index is None or (allowed is not None and pool <= _BRUTE_FORCE_MAX):
        labels = (np.flatnonzero(table.rows["live"].to_numpy()) if allowed is None
                  else allowed)
        return _exact(store, table, vector, k, labels, current)
    allowed_set = None if allowed is None else set(allowed.tolist())
    fetch = min(pool, k + max(10, k // 2))
    while True:
        index = table.index
        index.set_ef(max(ef, fetch))
        filt = None if allowed_set is None else allowed_set.__contains__
        try:
            labels, distances = index.knn_query(vector, k=fetch, filter=filt)
        except RuntimeError:  # hnswlib found fewer than `fetch`: go exact
            break
        found = [(ids[int(lab)], float(d)) for lab, d in zip(labels[0], distances[0],
                                                             strict=True)]
        alive = (current or partial(_current_ids, store))(table.name, [i for i, _ in found])
        hits = [VectorHit(i, table.name, d) for i, d in found if i in alive]
        if len(hits) >= k or fetch >= pool:
            return hits[:k]
        fetch = min(pool, fetch * 2)
        if fetch > 4 * k + 1000:  # many stale rows: exact is cheaper than widening further
            break
    labels_all = (np.flatnonzero(table.rows["live"].to_numpy()) if allowed is None
                  else allowed)
    return _exact(store, table, vector, k, labels_all, current)


def _exact(store: Store, table: VectorTable, vector: np.ndarray, k: int, labels: np.ndarray,
           current: Callable[[str, list[str]], set[str]] | None = None) -> list[VectorHit]:
    """The k current rows of ``labels`` nearest to ``vector``, by brute force: in order of
    distance, then label (a stable sort's order), checked against Kuzu a chunk at a time."""
    ids = table.rows["id"]
    stored = np.asarray(table.vectors)
    # labels are ascending and unique: all of them is every row, read without a gathered copy
    rows = stored if labels.size == stored.shape[0] else stored[labels]
    distances = 1.0 - rows @ vector
    hits: list[VectorHit] = []
    # as many as an HNSW search fetches first, then four times more per round: each round
    # is one check against the graph, whose cost grows with the ids it is given
    start, need = 0, k + max(10, k // 2)
    while len(hits) < k and start < distances.size:
        order = _smallest(distances, need)
        pairs = [(ids[int(labels[i])], float(distances[i])) for i in order[start:]]
        alive = (current or partial(_current_ids, store))(table.name, [i for i, _ in pairs])
        hits.extend(VectorHit(i, table.name, d, exact=True) for i, d in pairs if i in alive)
        start, need = order.size, need * 4
    return hits[:k]


def _smallest(distances: np.ndarray, n: int) -> np.ndarray:
    """Positions of the ``n`` smallest distances in ``np.argsort(kind="stable")``'s order
    (ties by position), without sorting the whole array: a partition, then a sort of the
    few that reach its boundary value (all of them, so ties cut nothing)."""
    if n >= distances.size:
        return np.argsort(distances, kind="stable")
    bound = np.partition(distances, n - 1)[n - 1]
    near = np.flatnonzero(distances <= bound)
    return near[np.argsort(distances[near], kind="stable")][:n]


def stored_vectors(store: Store, ids: Collection[str]) -> dict[str, np.ndarray]:
    """The stored (live) vectors of the nodes ``ids`` that have one, by id; for MMR diversity
    and "similar to this node" searches, which must not re-embed."""
    vdir = vector_dir(store)
    wanted = pl.Series(list(dict.fromkeys(ids)), dtype=pl.Utf8)
    out: dict[str, np.ndarray] = {}
    if vdir.model_id is None or not len(wanted):
        return out
    for name in vdir.manifest.get("tables", {}):
        table = vdir.table(name, writable=not store.read_only)
        if not table.rows.height:
            continue
        found = table.rows.with_row_index("label").filter(
            pl.col("live") & pl.col("id").is_in(wanted.implode()))
        for node, label in zip(found["id"], found["label"], strict=True):
            out[node] = np.asarray(table.vectors[int(label)], dtype=np.float32)
    return out


def missing_vectors(store: Store) -> list[str]:
    """Tables whose manifest records vectors whose files are gone (deleted, a damaged disk):
    their vector hits would silently be missing, so search says so (``vgdb repair``
    re-embeds them). Two ``stat`` calls per table."""
    vdir = vector_dir(store)
    return sorted(name for name, rec in vdir.manifest.get("tables", {}).items()
                  if rec.get("rows") and not all(
                      (vdir.root / f"{name}.{rec['generation']}.{ext}").exists()
                      for ext in ("npy", "rows.parquet")))
