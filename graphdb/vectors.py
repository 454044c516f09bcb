"""Vectors and hnswlib indexes, kept beside the Kuzu graph in the database directory.

Layout of ``<db>/vectors/`` (one set of files per embedded node table, DESIGN §2)::

    manifest.json                  model id, dimension, HNSW parameters, and per table the
                                   current generation, row counts and the index file's size,
                                   digest and element count; the commit point of every update
    Symbol.<gen>.npy               float32 vectors, row i = hnswlib label i
    Symbol.<gen>.rows.parquet      per row: node id, content hash, live (current) or dead
    Symbol.<gen>.hnsw              the hnswlib index (cosine) over the live rows

An update writes a new generation's files (each to a temporary name, then renamed: hnswlib's
``save_index`` is not atomic), then the manifest, then removes the old generation, so a process
killed at any point leaves the previous state readable. Rows are keyed by node id *and* content
hash: a node whose embedded text is unchanged is never embedded again, and a text seen before
(even under another id, or an earlier version of the node) reuses its stored vector. A changed or
no longer current node's old row is marked dead (``mark_deleted`` in the index). An index file
that is missing, stale (does not match the manifest's record) or corrupt (digest mismatch, or
hnswlib cannot load it) is rebuilt from the stored vectors; it is never trusted unchecked.

An update that only adds vectors (and marks rows dead) does not write the table's ``.npy``
again: the new rows are appended to the previous generation's file, which is then linked
under the new generation's name (:func:`graphdb.vector_files.append_vectors`); a reader maps
the manifest's row count, so a tail an update killed before its manifest left is never read,
and the next update cuts it.

Search (:mod:`graphdb.vector_search`, re-exported here): hits are checked against Kuzu
before they are returned: an id the graph does not hold as current is dropped and the search
widened, so ``nearest`` returns k hits whenever k exist.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import polars as pl

from graphdb.embed import (
    Embedder,
    EmbeddingModelError,
    default_embedder,
    entry_text,
    paper_text,
    symbol_text,
)
from graphdb.store import Store
from graphdb.vector_files import (
    FORMAT,
    HNSW,
    VECTOR_DIR,
    HnswParams,
    VectorDir,
    VectorTable,
    build_index,
    vector_dir,
    wants_index,
)
from graphdb.vector_search import (
    CURRENT,
    EMBEDDED_TABLES,
    VectorHit,
    missing_vectors,
    nearest,
    stored_vectors,
    table_names,
)
from schema import ENTRY, PAPER, SYMBOL, NodeTable, StoreError

__all__ = [
    "EMBEDDED_TABLES",
    "HNSW",
    "VECTOR_DIR",
    "EmbedPlan",
    "EmbedSummary",
    "HnswParams",
    "TableEmbed",
    "TableVectors",
    "VectorHit",
    "commit_embedding",
    "compute_embedding",
    "embed_graph",
    "embed_nodes",
    "forget_vectors",
    "missing_vectors",
    "nearest",
    "plan_embedding",
    "stored_vectors",
    "vector_status",
]

_BY_NAME = {t.name: t for t in EMBEDDED_TABLES}
_BATCH = 8192
#: what :class:`TableEmbed` says of a table kept without an HNSW index (searched exactly)
EXACT = "exact (no index)"

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True, slots=True)
class TableEmbed:
    """What :func:`embed_graph` did for one node table. ``current``: current nodes with a text
    to embed; ``reused``: vectors taken from the content-hash cache instead of embedded."""

    table: str
    current: int
    unchanged: int
    embedded: int
    reused: int
    removed: int
    index: str  # "updated", "rebuilt (missing)", ..., or EXACT: small, no index kept


@dataclass(frozen=True, slots=True)
class EmbedSummary:
    """The result of :func:`embed_graph`: per table counts, the model, and the time taken."""

    model_id: str
    dim: int
    tables: tuple[TableEmbed, ...]
    seconds: float
    texts_per_second: float

    @property
    def embedded(self) -> int:
        return sum(t.embedded for t in self.tables)

    def to_dict(self) -> dict[str, Any]:
        return {"model_id": self.model_id, "dim": self.dim, "embedded": self.embedded,
                "seconds": self.seconds, "texts_per_second": self.texts_per_second,
                "tables": [asdict(t) for t in self.tables]}


# --------------------------------------------------------------------------------- embedding
#: Bump when :mod:`graphdb.embed.text` changes what is embedded: every text is then re-made.
_RECIPE = "1"
_FIELDS = {
    SYMBOL.name: ("kind", "qualname", "signature", "docstring", "repo", "file"),
    ENTRY.name: ("kind", "title", "content", "error", "approach"),
    PAPER.name: ("title", "abstract"),
}


def _current_nodes(store: Store, table: NodeTable, ids: list[str] | None = None, *,
                   hashed: bool = True) -> pl.DataFrame:
    """id, content hash (unless not ``hashed``) and the fields the text is made of, for
    every current node (of ``ids`` only, when given).

    The hash is taken over the fields (and the recipe version), not the composed text, so an
    unchanged node costs one hash: the text is composed only for what must be embedded.
    """
    fields = _FIELDS[table.name]
    # ids by primary key: ``n.id IN $ids`` compares every row with the list (queries/batch.py)
    match = f"MATCH (n:{table.name}) " if ids is None else \
        f"UNWIND $ids AS i MATCH (n:{table.name} {{id: i}}) "
    frame = store.cypher(f"{match}WHERE {CURRENT} RETURN n.id AS id, "
                         + ", ".join(f"n.{f} AS {f}" for f in fields),
                         None if ids is None else {"ids": list(dict.fromkeys(ids))})
    frame = frame.with_columns(pl.col(f).cast(pl.Utf8).fill_null("") for f in fields)
    if not hashed:
        return frame
    hashes = _content_hashes(frame.select(fields).iter_rows())
    return frame.with_columns(pl.Series("hash", hashes, dtype=pl.Utf8))


def _content_hashes(rows: Iterable[Iterable[str]]) -> list[str]:
    """The content hash of each node's fields (as :func:`_current_nodes` reads them)."""
    return [_hash("\x1f".join((_RECIPE, *row))) for row in rows]


def _text(table: str, r: dict[str, str]) -> str:
    """The embedded text of one node (fields as :func:`_current_nodes` returns them)."""
    if table == SYMBOL.name:
        return symbol_text(kind=r["kind"], qualname=r["qualname"], signature=r["signature"],
                           docstring=r["docstring"], path=_file_path(r["file"], r["repo"]))
    if table == ENTRY.name:
        return entry_text(kind=r["kind"], title=r["title"], content=r["content"],
                          error=r["error"], approach=r["approach"])
    return paper_text(title=r["title"], abstract=r["abstract"])


def _file_path(file_id: str, repo: str) -> str:
    prefix = f"file:{repo}/"
    return file_id[len(prefix):] if file_id.startswith(prefix) else file_id


def _hash(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def embed_graph(store: Store, *, embedder: Embedder | None = None,
                tables: Iterable[str] | None = None, reembed: bool = False,
                hnsw: HnswParams = HNSW, progress: Progress | None = None,
                ids: dict[str, list[str]] | None = None) -> EmbedSummary:
    """Embed the current Symbols, Entries and Papers whose text is new or changed, and update
    the hnswlib indexes (adds, ``mark_deleted``, or a rebuild when an index file is missing,
    stale or corrupt).

    Parameters
    ----------
    store : an open, read-write Store
    embedder : default :func:`graphdb.embed.default_embedder` (the shipped static model)
    tables : node table names (default: all of :data:`EMBEDDED_TABLES`)
    reembed : when the stored vectors come from another model, drop them and embed everything
        with ``embedder`` (otherwise :class:`EmbeddingModelError`)
    hnsw : index settings for indexes built from now on (a new database, or ``reembed``)
    progress : called as ``progress(phase, done, total)``
    ids : only these nodes of these tables (an update of a few files: the rest of each
        table is neither read from the graph nor compared); the other tables are untouched

    Returns
    -------
    EmbedSummary, with per table: current nodes, unchanged, embedded, reused from the
    content-hash cache, removed (marked deleted), and what happened to the index.
    """
    planned = plan_embedding(store, embedder=embedder, tables=tables, reembed=reembed,
                             hnsw=hnsw, ids=ids)
    if isinstance(planned, EmbedSummary):
        return planned
    return commit_embedding(planned, compute_embedding(planned, progress))


@dataclass
class _TablePlan:
    """One table's update as read from the graph and the stored rows."""

    name: str
    table: VectorTable
    live: pl.DataFrame  # the table's live rows (of the ids, when given), with their label
    unchanged: pl.DataFrame
    todo: pl.DataFrame  # current nodes whose text is new or changed (no text yet)
    #: todo's columns as lists (what the texts are made of); no ``hash`` when the table
    #: had no stored row (a cold ingest): the hashes are then taken with the texts
    columns: dict[str, list[Any]]
    known: dict[str, int]  # content hash -> stored row (live or dead): the cache
    current_ids: pl.Series

    @property
    def size(self) -> int:
        return self.todo.height


@dataclass
class EmbedPlan:
    """What :func:`embed_graph` embeds and where it writes it, read in this process:
    :func:`compute_embedding` makes the vectors (in a forked child too: no graph, no
    polars), :func:`commit_embedding` writes each table's next generation."""

    store: Store
    vdir: VectorDir
    embedder: Embedder
    params: HnswParams
    tables: list[_TablePlan]
    started: float

    @property
    def work(self) -> int:
        """Texts to compose and maybe embed."""
        return sum(t.size for t in self.tables)


@dataclass
class TableVectors:
    """A table's computed vectors: which todo rows have a text, the content hashes that
    were embedded (in order) and their vectors, and the seconds spent embedding."""

    keep: list[bool]
    missing: list[str]
    vectors: np.ndarray
    seconds: float
    #: the todo rows' content hashes, when the plan had none
    hashes: list[str] | None = None


def plan_embedding(store: Store, *, embedder: Embedder | None = None,
                   tables: Iterable[str] | None = None, reembed: bool = False,
                   hnsw: HnswParams = HNSW,
                   ids: dict[str, list[str]] | None = None) -> EmbedPlan | EmbedSummary:
    """The reading half of :func:`embed_graph` (same parameters): its plan, or its summary
    when nothing can have changed (``ids`` whose texts are all stored)."""
    if store.read_only:
        raise StoreError(f"database {store.path} is open read-only",
                         suggestion="open it read-write to embed")
    started = time.perf_counter()
    names = table_names(tables if ids is None else ids)
    vdir = vector_dir(store)
    if ids is not None and embedder is None and vdir.model_id is not None:
        # an update whose few nodes kept their texts (an edited function body) needs
        # neither the model nor the index: their stored rows say so
        same = [_unchanged(store, vdir, name, list(dict.fromkeys(ids[name])))
                for name in names]
        if all(t is not None for t in same):
            return EmbedSummary(vdir.model_id, int(vdir.dim or 0), tuple(same),
                                round(time.perf_counter() - started, 3), 0.0)
    embedder = embedder or default_embedder()
    if vdir.model_id is not None and vdir.model_id != embedder.model_id:
        if not reembed:
            raise EmbeddingModelError(
                f"the vectors in {vdir.root} were made by model {vdir.model_id}, not "
                f"{embedder.model_id}", found=vdir.model_id, expected=embedder.model_id)
        vdir.manifest = {}
        vdir.tables = {}
        for old in vdir.root.glob("*.*.*"):  # every table's files of the old model
            old.unlink(missing_ok=True)
    if not vdir.manifest:
        vdir.manifest = {"format": FORMAT, "model_id": embedder.model_id,
                         "dim": embedder.dim, "hnsw": asdict(hnsw), "tables": {}}
    plans = [_plan_table(store, vdir, name,
                         None if ids is None else list(dict.fromkeys(ids[name])))
             for name in names]
    return EmbedPlan(store, vdir, embedder, vdir.hnsw(), plans, started)


def compute_embedding(plan: EmbedPlan, progress: Progress | None = None
                      ) -> list[TableVectors]:
    """The vectors of every table of ``plan`` (the texts composed, the new ones embedded).
    Reads nothing but ``plan``: safe in a forked child (``progress`` None there)."""
    return [_table_vectors(t, plan.embedder, progress) for t in plan.tables]


def commit_embedding(plan: EmbedPlan, vectors: list[TableVectors]) -> EmbedSummary:
    """Write each table's next generation from ``vectors`` (:func:`compute_embedding`'s)."""
    results = [_commit_table(plan.vdir, t, v, plan.embedder, plan.params)
               for t, v in zip(plan.tables, vectors, strict=True)]
    embed_seconds = sum(v.seconds for v in vectors)
    embedded_total = sum(r.embedded for r in results)
    seconds = time.perf_counter() - plan.started
    rate = embedded_total / embed_seconds if embed_seconds > 0 else 0.0
    vdir, embedder = plan.vdir, plan.embedder
    return EmbedSummary(vdir.model_id or embedder.model_id, int(vdir.dim or embedder.dim),
                        tuple(results), round(seconds, 3), round(rate, 1))


def _unchanged(store: Store, vdir: VectorDir, name: str,
               ids: list[str]) -> TableEmbed | None:
    """What :func:`_embed_table` would report for the nodes ``ids`` of table ``name`` when
    each current one has a live row of the same content hash and no other of them has one
    (nothing to embed, nothing to mark dead); None otherwise. Reads the stored rows only."""
    rows = vdir.stored_rows(name)
    if rows is None:
        return None
    current = _current_nodes(store, _BY_NAME[name], ids)
    live = rows.filter(pl.col("live") & pl.col("id").is_in(
        pl.Series(ids, dtype=pl.Utf8).implode()))
    if dict(zip(live["id"], live["hash"], strict=True)) != \
            dict(zip(current["id"], current["hash"], strict=True)) or \
            live.height != current.height:
        return None
    return TableEmbed(name, current.height, current.height, 0, 0, 0, "up to date")


def _embed_table(store: Store, vdir: VectorDir, name: str, embedder: Embedder,
                 params: HnswParams, progress: Progress | None,
                 ids: list[str] | None = None) -> TableEmbed:
    """Embed the new or changed texts of table ``name`` (of the nodes ``ids`` only, when
    given) and commit its next generation."""
    plan = _plan_table(store, vdir, name, ids)
    return _commit_table(vdir, plan, _table_vectors(plan, embedder, progress), embedder,
                         params)


def _plan_table(store: Store, vdir: VectorDir, name: str,
                ids: list[str] | None) -> _TablePlan:
    table = vdir.table(name, writable=True)
    if not table.rows.height:  # nothing stored: every current node is to embed
        current = _current_nodes(store, _BY_NAME[name], ids, hashed=False)
        return _TablePlan(name, table, table.rows.with_row_index("label"), current.head(0),
                          current, current.to_dict(as_series=False), {}, current["id"])
    current = _current_nodes(store, _BY_NAME[name], ids)
    live = table.rows.with_row_index("label").filter(pl.col("live"))
    if ids is not None:  # only these nodes' rows may change
        live = live.filter(pl.col("id").is_in(pl.Series(ids, dtype=pl.Utf8).implode()))
    joined = current.join(live.select("id", "label", pl.col("hash").alias("old")),
                          on="id", how="left")
    unchanged = joined.filter(pl.col("old") == pl.col("hash"))
    todo = joined.filter(pl.col("old").is_null() | (pl.col("old") != pl.col("hash")))
    known = {h: i for i, h in enumerate(table.rows["hash"].to_list())}
    return _TablePlan(name, table, live, unchanged, todo,
                      todo.select("id", "hash", *_FIELDS[name]).to_dict(as_series=False),
                      known, current["id"])


def _table_vectors(plan: _TablePlan, embedder: Embedder,
                   progress: Progress | None) -> TableVectors:
    """Texts of the plan's rows, and vectors of those whose content hash is not stored."""
    name, columns, fields = plan.name, plan.columns, _FIELDS[plan.name]
    taken = "hash" not in columns
    values = list(zip(*(columns[f] for f in fields), strict=True))
    every = _content_hashes(values) if taken else columns["hash"]
    texts = [_text(name, dict(zip(fields, v, strict=True))) for v in values]
    # a node with no text (a paper stub known by id only) has nothing to be near
    keep = [t != "" for t in texts]
    hashes = [h for h, k in zip(every, keep, strict=True) if k]
    missing = list(dict.fromkeys(h for h in hashes if h not in plan.known))
    text_of = {h: t for h, t, k in zip(every, texts, keep, strict=True) if k}
    parts = []
    t0 = time.perf_counter()
    for start in range(0, len(missing), _BATCH):
        chunk = missing[start:start + _BATCH]
        parts.append(np.asarray(embedder.embed([text_of[h] for h in chunk]),
                                dtype=np.float32))
        if progress:
            progress(f"embedding {name}", min(start + _BATCH, len(missing)), len(missing))
    vectors = np.concatenate(parts) if parts else np.zeros((0, embedder.dim), np.float32)
    return TableVectors(keep, missing, vectors, time.perf_counter() - t0,
                        every if taken else None)


def _commit_table(vdir: VectorDir, plan: _TablePlan, computed: TableVectors,
                  embedder: Embedder, params: HnswParams) -> TableEmbed:
    """Commit the plan's table as its next generation with the computed vectors."""
    name, table, live, unchanged = plan.name, plan.table, plan.live, plan.unchanged
    old_gen = table.generation
    todo = plan.todo if computed.hashes is None else \
        plan.todo.with_columns(pl.Series("hash", computed.hashes, dtype=pl.Utf8))
    if todo.height:
        todo = todo.filter(pl.Series(computed.keep, dtype=pl.Boolean))
    indexed = unchanged.height + todo.height
    still = set(unchanged["id"].to_list())
    dead = [int(x) for x, i in zip(live["label"], live["id"], strict=True) if i not in still]
    removed = live.filter(~pl.col("id").is_in(plan.current_ids.implode())).height
    known = plan.known
    hashes = todo["hash"].to_list()
    missing = computed.missing
    fresh = dict(zip(missing, computed.vectors, strict=True))
    state = table.index_state  # not "ok": table() rebuilt the index and saved it
    if not todo.height and not dead:
        how = ("empty" if not table.rows.height else
               "up to date" if state == "ok" else f"rebuilt ({state})")
        return TableEmbed(name, indexed, unchanged.height, 0, 0, 0, how)
    if hashes == missing:  # every text new and distinct (a cold ingest): as computed
        new_vectors = computed.vectors
    else:
        new_vectors = np.stack([fresh[h] if h in fresh else table.vectors[known[h]]
                                for h in hashes]).astype(np.float32) if hashes else \
            np.zeros((0, embedder.dim), dtype=np.float32)
    live_flags = table.rows["live"].to_numpy().copy() if table.rows.height else \
        np.zeros(0, dtype=bool)
    live_flags[dead] = False
    rows = pl.concat([
        table.rows.with_columns(pl.Series("live", live_flags, dtype=pl.Boolean)),
        pl.DataFrame({"id": todo["id"], "hash": todo["hash"],
                      "live": [True] * todo.height},
                     schema={"id": pl.Utf8, "hash": pl.Utf8, "live": pl.Boolean}),
    ])
    n_live = int(rows["live"].sum())
    compact = rows.height - n_live > max(n_live, 1000)
    # the stored vectors stay as they are and the new ones go at their end (the file is not
    # written again), unless the table is compacted or gets its first index
    appending = table.rows.height > 0 and not compact and not (
        wants_index(rows) and table.index is None)
    new = VectorTable(name, old_gen + 1, rows, table.vectors if appending else np.concatenate(
        [np.asarray(table.vectors, dtype=np.float32), new_vectors]))
    if compact:  # more dead rows than live: drop them, relabel, rebuild
        keep = np.flatnonzero(rows["live"].to_numpy())
        new.rows, new.vectors = rows[keep], new.vectors[keep]
    if not wants_index(new.rows):  # small enough to search exactly: no index to keep
        new.index = None
        how = EXACT if state == "ok" else f"rebuilt ({state}), {EXACT}"
    elif compact or table.index is None:
        new.index = build_index(new, params)
        how = "rebuilt (compacted)" if compact else (
            "built" if state == "ok" else f"rebuilt ({state})")
    else:
        index = table.index
        if index.get_max_elements() < rows.height:
            index.resize_index(max(rows.height, 2 * index.get_max_elements()))
        if new_vectors.shape[0]:
            index.add_items(new_vectors, np.arange(table.rows.height, rows.height),
                            num_threads=params.threads)
        for label in dead:
            index.mark_deleted(label)
        new.index = index
        how = "updated" if state == "ok" else f"rebuilt ({state}), updated"
    vdir.commit(new, old_gen, appended=new_vectors if appending else None)
    return TableEmbed(name, indexed, unchanged.height, len(missing),
                      len(hashes) - len(missing), removed, how)


def embed_nodes(store: Store, table: str, ids: Iterable[str], *,
                embedder: Embedder | None = None) -> TableEmbed | None:
    """Embed the nodes ``ids`` of ``table`` whose text is new or changed, and drop the rows
    of those no longer current: the write path's step (a recorded entry is findable by
    vector before the write returns). Reads only those nodes from the graph; the table's
    files are rewritten as its next generation (cost grows with the table, not the graph).
    None when nothing can be done here: no ids, a read-only store, or vectors made by a
    model other than ``embedder`` (``vgdb embed`` with that model then catches up).
    """
    wanted = list(dict.fromkeys(ids))
    if not wanted or store.read_only or table not in _BY_NAME:
        return None
    embedder = embedder or default_embedder()
    vdir = vector_dir(store)
    if vdir.model_id is not None and vdir.model_id != embedder.model_id:
        return None
    with vdir.lock:
        if not vdir.manifest:
            vdir.manifest = {"format": FORMAT, "model_id": embedder.model_id,
                             "dim": embedder.dim, "hnsw": asdict(HNSW), "tables": {}}
        result = _embed_table(store, vdir, table, embedder, vdir.hnsw(), None, wanted)
    return result


def forget_vectors(store: Store, table: str, ids: Iterable[str]) -> int:
    """Drop every stored row of the nodes ``ids`` of ``table``, live or dead (a dead row keeps
    an old text's vector for reuse), and rebuild the table's index without them: for
    ``vgdb redact``, after which :func:`embed_nodes` embeds the redacted text. Returns how
    many rows were dropped."""
    wanted = pl.Series(list(dict.fromkeys(ids)), dtype=pl.Utf8)
    if not len(wanted) or store.read_only or table not in _BY_NAME:
        return 0
    vdir = vector_dir(store)
    if vdir.model_id is None:
        return 0
    with vdir.lock:
        old = vdir.table(table, writable=True)
        keep = np.flatnonzero(~old.rows["id"].is_in(wanted.implode()).to_numpy())
        dropped = old.rows.height - keep.size
        if not dropped:
            return 0
        new = VectorTable(table, old.generation + 1, old.rows[keep],
                          np.asarray(old.vectors, dtype=np.float32)[keep])
        new.index = build_index(new, vdir.hnsw()) if wants_index(new.rows) else None
        vdir.commit(new, old.generation)
    return dropped


def vector_status(store: Store) -> dict[str, Any]:
    """The vector manifest: model id, dimension, HNSW settings, per-table counts."""
    vdir = vector_dir(store)
    return json.loads(json.dumps(vdir.manifest))
