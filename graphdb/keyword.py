"""BM25 keyword search over Symbol, Entry and Paper: a tantivy index beside the graph.

Why not the engine's own full-text index: Kuzu's FTS extension left with Kuzu, and LadybugDB's
extensions are downloaded by ``INSTALL`` (never at run time here). tantivy is embedded, keeps
its index in plain files, and commits atomically.

Layout of ``<db>/keyword/``::

    Symbol/, Entry/, Paper/   one tantivy index per table (BM25 statistics stay per table)
    state.json                per table: synced to the graph or not, and its document count

A document is one node: ``id`` (raw), ``text`` (the indexed fields, see :data:`KEYWORD_FIELDS`,
with camelCase identifiers also split into words) and ``digest`` (a 63-bit hash of those
fields, a fast field). Tokenisation, as Kuzu's FTS did: runs of letters and digits (so ``_``
and ``.`` split), lower-cased, English stop words dropped, English-stemmed. The query goes
through the same analyzer after :func:`keyword_terms` and becomes term queries built in code,
so no query text is a syntax error.

Staying current: every write path indexes what it wrote (:func:`index_nodes`, cost in the ids);
bulk writers (code and history loads) :func:`mark_stale` first and the ingest ends with
:func:`sync`, which diffs the digests against the graph and upserts only differences.
Crash safety: the table is marked not synced (``state.json``, temp file then rename) before the
graph write and marked synced again only after the tantivy commit, so a kill anywhere leaves a
table that the next :func:`ensure_keyword` syncs. An index whose files fail their checksums
(tantivy's own per-file CRC footers), whose ``meta.json`` is unreadable or whose document count
differs from the record is never used: rebuilt from the graph read-write, reported read-only.
"""

from __future__ import annotations

import json
import re
import shutil
import threading
import weakref
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
import tantivy

from graphdb.keyword_docs import (
    ANALYZER,
    SCHEMA,
    analyzer,
    checksums_ok,
    digest,
    open_index,
    write_documents,
)
from graphdb.store import Store
from schema import ENTRY, PAPER, SYMBOL, StoreError

__all__ = [
    "KEYWORD_FIELDS",
    "KeywordHit",
    "KeywordPlan",
    "KeywordState",
    "KeywordUnavailableError",
    "bm25",
    "differences",
    "ensure_keyword",
    "finish_sync",
    "index_nodes",
    "keyword_terms",
    "mark_stale",
    "pending",
    "plan_sync",
    "rebuild",
    "sync",
    "sync_lock",
    "sync_nodes",
    "unmark_stale",
    "unsynced",
    "write_plan",
]

#: Indexed properties per table.
KEYWORD_FIELDS: dict[str, tuple[str, ...]] = {
    SYMBOL.name: ("name", "qualname", "signature", "docstring"),
    ENTRY.name: ("title", "content"),
    PAPER.name: ("title", "abstract"),
}
KEYWORD_DIR = "keyword"
_STATE = "state.json"
_FORMAT = 1
#: Bump when what is indexed or how it is tokenised changes: every index is then rebuilt.
_RECIPE = "1"
#: bm25 under a condition widens its look at the index up to this many hits, no further
_TOP_MAX = 20_000
_CURRENT = "n.valid_to IS NULL AND n.expired_at IS NULL"
_BELIEVED = ("n.expired_at IS NULL AND (n.valid_to IS NULL OR "
             "EXISTS { MATCH (n)<-[:SUPERSEDES]-() })")
_WORD = re.compile(r"[A-Za-z0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


class KeywordUnavailableError(StoreError):
    """A keyword index is missing, damaged or stale on a read-only store."""


@dataclass(frozen=True, slots=True)
class KeywordHit:
    """A BM25 hit: node id, its table and tantivy's BM25 score (higher is better)."""

    id: str
    table: str
    score: float


@dataclass(frozen=True, slots=True)
class KeywordState:
    """Per table what :func:`ensure_keyword` found or did: ``"ok"``, ``"built"``, ``"synced"``,
    ``"rebuilt (damaged)"``, or read-only ``"missing"``, ``"stale"``, ``"damaged"``."""

    tables: tuple[tuple[str, str], ...]

    def of(self, table: str) -> str:
        return dict(self.tables).get(table, "missing")


_QUERY_ANALYZER = analyzer()


def keyword_terms(query: str) -> str:
    """The words BM25 looks for: alphanumeric words as written plus identifiers split into
    words (``getHeaderLine`` -> ``getheaderline get header line``); anything else (operators,
    quotes, brackets) is dropped."""
    words: list[str] = []
    for raw in _WORD.findall(query):
        words.append(raw.lower())
        parts = [p.lower() for p in _CAMEL.findall(raw)]
        if len(parts) > 1:
            words.extend(parts)
    return " ".join(dict.fromkeys(words))


# ------------------------------------------------------------------------------ on disk
class _Keyword:
    """The keyword indexes of one open store; one writer at a time (``lock``)."""

    def __init__(self, store: Store) -> None:
        self.root = store.path / KEYWORD_DIR
        self.read_only = store.read_only
        self.lock = threading.RLock()
        self.indexes: dict[str, tantivy.Index] = {}
        self.status: dict[str, str] = {}  # per table, as last checked in this process

    def state(self) -> dict[str, Any]:
        try:
            data = json.loads((self.root / _STATE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        ok = data.get("format") == _FORMAT and data.get("recipe") == _RECIPE
        return data if ok else {}

    def write_state(self, tables: dict[str, dict[str, Any]]) -> None:
        data = self.state() or {"format": _FORMAT, "recipe": _RECIPE, "tables": {}}
        data["tables"].update(tables)
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = self.root / f".{_STATE}.tmp"
        tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        tmp.replace(self.root / _STATE)

    def check(self, table: str) -> str:
        """``ok``, ``missing``, ``damaged`` or ``stale``; opens the index when usable."""
        path = self.root / table
        if not (path / "meta.json").exists():
            return "missing"
        record = self.state().get("tables", {}).get(table)
        if not checksums_ok(path):
            return "damaged"
        try:
            index = open_index(path)
            index.reload()
            docs = index.searcher().num_docs
        except (ValueError, OSError, RuntimeError):
            return "damaged"
        self.indexes[table] = index
        if record is None or not record.get("synced") or record.get("docs") != docs:
            return "stale"
        return "ok"

    def create(self, table: str) -> tantivy.Index:
        path = self.root / table
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(parents=True)
        index = tantivy.Index(SCHEMA, path=str(path), reuse=False)
        index.register_tokenizer(ANALYZER, analyzer())
        self.indexes[table] = index
        return index


_OPEN: weakref.WeakKeyDictionary[Store, _Keyword] = weakref.WeakKeyDictionary()
_OPEN_LOCK = threading.Lock()


def _keyword(store: Store) -> _Keyword:
    with _OPEN_LOCK:
        found = _OPEN.get(store)
        if found is None:
            found = _OPEN[store] = _Keyword(store)
        return found


def _tables(tables: Iterable[str] | None) -> list[str]:
    names = list(KEYWORD_FIELDS) if tables is None else list(dict.fromkeys(tables))
    unknown = [t for t in names if t not in KEYWORD_FIELDS]
    if unknown:
        raise StoreError(f"no keyword index for node table(s) {', '.join(unknown)}",
                         suggestion="indexed tables: " + ", ".join(KEYWORD_FIELDS))
    return names


# ------------------------------------------------------------------------------ writing
def _graph_rows(store: Store, table: str, ids: list[str] | None) -> pl.DataFrame:
    """``ids`` (distinct) are looked up through the primary-key index (``UNWIND``): the
    engine answers ``n.id IN $ids`` by comparing every row of the table with the list
    (queries/batch.py), which made a batch's sync grow with the graph (5 -> 35 s/group)."""
    fields = KEYWORD_FIELDS[table]
    match = f"MATCH (n:{table}) " if ids is None else \
        f"UNWIND $ids AS i MATCH (n:{table} {{id: i}}) "
    return store.cypher(match + "RETURN n.id AS id, " + ", ".join(f"n.{f} AS {f}" for f in fields),
                        None if ids is None else {"ids": ids})


def _apply(kw: _Keyword, table: str, rows: pl.DataFrame, delete: Iterable[str]) -> int:
    """Delete ``delete`` and upsert ``rows`` (id + fields, and their digest when known) in
    one tantivy commit; the index's document count after it."""
    index = kw.indexes.get(table) or kw.create(table)
    return write_documents(index, _row_tuples(table, rows), delete)


def _row_tuples(table: str, rows: pl.DataFrame) -> list[tuple[Any, ...]]:
    """``(id, digest or None, *fields)`` per row, as :func:`write_documents` takes them."""
    return list(zip(*_row_columns(table, rows), strict=True))


def _row_columns(table: str, rows: pl.DataFrame) -> list[list[Any]]:
    """The columns of :func:`_row_tuples` (lists: cheap to take, no tuple per row)."""
    known = pl.col("digest") if "digest" in rows.columns else pl.lit(None, pl.Int64)
    frame = rows.select("id", known.alias("digest"), *KEYWORD_FIELDS[table])
    return list(frame.to_dict(as_series=False).values())


def mark_stale(store: Store, tables: Iterable[str] = (SYMBOL.name,)) -> None:
    """Record that ``tables`` may differ from the graph, before a write that changes their
    rows without indexing them (code and history loads); :func:`sync` clears it."""
    _mark(store, tables)
    kw = _keyword(store)
    for t in _tables(tables):
        kw.status[t] = "stale"


def unmark_stale(store: Store, tables: Iterable[str]) -> None:
    """Take back :func:`mark_stale` when the writes it announced did not happen (the caller
    saw the graph version unchanged): the indexes are as synced as they were before."""
    if store.read_only:
        return
    kw = _keyword(store)
    with kw.lock:
        record = kw.state().get("tables", {})
        todo = {t: {**record[t], "synced": True} for t in _tables(tables)
                if t in record and not record[t].get("synced", True)}
        if todo:
            kw.write_state(todo)
    for t in _tables(tables):
        if kw.status.get(t) == "stale":
            del kw.status[t]  # checked again on the next search


def _mark(store: Store, tables: Iterable[str]) -> None:
    if store.read_only:
        return
    kw = _keyword(store)
    with kw.lock:
        record = kw.state().get("tables", {})
        todo = {t: {**record.get(t, {}), "synced": False} for t in _tables(tables)
                if record.get(t, {}).get("synced", True) or t not in record}
        if todo:
            kw.write_state(todo)


@dataclass
class Pending:
    """Set ``graph_unchanged`` when the write failed before committing anything."""

    graph_unchanged: bool = False


@contextmanager
def pending(store: Store, tables: Iterable[str]) -> Iterator[Pending]:
    """Around a graph write and the :func:`index_nodes` calls that follow it: the tables are
    marked not synced until the indexes hold the write, so a kill in between is caught. On an
    exception they stay marked, unless ``graph_unchanged`` was set (a rolled-back write)."""
    kw = _keyword(store)
    names = _tables(tables)
    with kw.lock:
        before = {t: dict(kw.state().get("tables", {}).get(t, {})) for t in names}
        _mark(store, names)  # on disk only: in this process the indexing follows
        token = Pending()
        try:
            yield token
        except BaseException:
            if token.graph_unchanged and not store.read_only and before:
                kw.write_state({t: r for t, r in before.items() if r})
            raise
        back = {t: {**r, "synced": True, **({"docs": kw.indexes[t].searcher().num_docs}
                                            if t in kw.indexes else {})}
                for t, r in before.items() if r.get("synced")}
        if back and not store.read_only:
            kw.write_state(back)
            kw.status.update(dict.fromkeys((t for t in back if t in kw.indexes), "ok"))


def unsynced(store: Store, tables: Iterable[str] | None = None) -> list[str]:
    """Tables whose index an earlier write left marked not synced (killed between its graph
    commit and its index commit): the next write syncs them first (graphdb.findable)."""
    record = _keyword(store).state().get("tables", {})
    return [t for t in _tables(tables) if t in record and not record[t].get("synced", True)]


def index_nodes(store: Store, table: str, ids: Iterable[str]) -> int:
    """Make the index of ``table`` hold exactly the graph's texts of ``ids``: upserted when in
    the graph, deleted when not; one commit. Returns how many documents were written. Cost
    grows with ``len(ids)``, not with the graph."""
    wanted = list(dict.fromkeys(ids))
    if not wanted or store.read_only:
        return 0
    kw = _keyword(store)
    with kw.lock:
        if table not in kw.indexes and kw.check(table) in ("missing", "damaged"):
            sync(store, [table])  # (re)built from the graph: the ids are in it
            return len(wanted)
        rows = _graph_rows(store, _tables([table])[0], wanted)
        gone = set(wanted) - set(rows["id"].to_list())
        _apply(kw, table, rows, gone)
    return len(wanted)


def sync(store: Store, tables: Iterable[str] | None = None) -> dict[str, dict[str, int]]:
    """Bring the indexes of ``tables`` (default all) to the graph: rebuild a missing or
    damaged one, else upsert the nodes whose digest differs and delete those gone. Per
    table: ``added``, ``updated``, ``deleted`` and ``docs``."""
    kw = _keyword(store)
    with kw.lock:
        plans = plan_sync(store, tables)
        for plan in plans:
            if plan.work:
                write_documents(kw.indexes[plan.table], plan.rows(), plan.gone,
                                empty=plan.empty)
        return finish_sync(store, plans)


@dataclass
class KeywordPlan:
    """One table's sync as :func:`plan_sync` read it from the graph: what to upsert and
    delete. :func:`write_plan` writes it (in a forked child too: plain data, the index
    found by its path), :func:`finish_sync` records the table synced."""

    table: str
    path: Path
    #: columns id, digest (None: computed when written) and the fields, of the nodes to
    #: upsert
    columns: list[list[Any]]
    gone: list[str]
    added: int
    #: the index held no document when read (a new one): nothing to replace
    empty: bool = False

    @property
    def upserts(self) -> int:
        return len(self.columns[0])

    @property
    def work(self) -> int:
        return self.upserts + len(self.gone)

    def rows(self) -> list[tuple[Any, ...]]:
        """``(id, digest or None, *fields)`` per node to upsert."""
        return list(zip(*self.columns, strict=True))


def sync_lock(store: Store) -> threading.RLock:
    """The lock every writer of ``store``'s keyword indexes holds: held from
    :func:`plan_sync` to :func:`finish_sync` by a caller that writes in between."""
    return _keyword(store).lock


def plan_sync(store: Store, tables: Iterable[str] | None = None) -> list[KeywordPlan]:
    """What :func:`sync` of ``tables`` writes, read from the graph and the indexes (a
    missing or damaged index is created empty now, its table still marked not synced)."""
    if store.read_only:
        raise StoreError(f"database {store.path} is open read-only",
                         suggestion="open it read-write to index")
    kw = _keyword(store)
    plans = []
    with kw.lock:
        for table in _tables(tables):
            if kw.check(table) in ("missing", "damaged"):
                kw.create(table)
            index = kw.indexes[table]
            changed, gone = _drift(store, index, table)
            plans.append(KeywordPlan(table, kw.root / table, _row_columns(table, changed),
                                     sorted(gone), int(changed["digest_old"].is_null().sum()),
                                     not index.searcher().num_docs))
    return plans


def write_plan(plan: KeywordPlan, *, again: bool = False) -> int:
    """Write ``plan`` to its index (one commit); the document count after it. Touches
    neither the graph nor the state file: safe in a forked child. ``again``: a child may
    have committed it already before failing: each document replaces any copy."""
    return write_documents(open_index(plan.path), plan.rows(), plan.gone,
                           empty=plan.empty and not again)


def finish_sync(store: Store, plans: list[KeywordPlan]) -> dict[str, dict[str, int]]:
    """Record the tables of ``plans`` synced, once their writes are committed: the counts
    of :func:`sync` per table."""
    kw = _keyword(store)
    out: dict[str, dict[str, int]] = {}
    with kw.lock:
        for plan in plans:
            index = kw.indexes[plan.table]
            index.reload()  # written by this process or by a child
            docs = index.searcher().num_docs
            kw.write_state({plan.table: {"synced": True, "docs": docs}})
            kw.status[plan.table] = "ok"
            out[plan.table] = {"added": plan.added, "updated": plan.upserts - plan.added,
                               "deleted": len(plan.gone), "docs": docs}
    return out


def rebuild(store: Store, tables: Iterable[str]) -> dict[str, dict[str, int]]:
    """Build the indexes of ``tables`` anew from the graph: a deleted or replaced document's
    text stays in tantivy's segment files until a merge, so ``vgdb redact`` rebuilds the
    tables it changed to leave no copy of the old text on disk."""
    kw = _keyword(store)
    with kw.lock:
        for table in _tables(tables):
            kw.create(table)
            kw.write_state({table: {"synced": False, "docs": 0}})
        return sync(store, tables)


def differences(store: Store, tables: Iterable[str] | None = None) -> dict[str, str]:
    """Per table, how the index differs from the graph, without writing: ``ok``, ``N to
    update`` (nodes missing, changed or gone), or the index's own state (``missing``,
    ``damaged``, ``stale``) when it cannot be compared (``vgdb check``)."""
    kw = _keyword(store)
    out: dict[str, str] = {}
    with kw.lock:
        for table in _tables(tables):
            status = kw.check(table)
            if status in ("missing", "damaged") or table not in kw.indexes:
                out[table] = status
                continue
            changed, gone = _drift(store, kw.indexes[table], table)
            n = changed.height + len(gone)
            out[table] = "ok" if n == 0 else f"{n} to update"
    return out


def sync_nodes(store: Store, table: str, ids: Iterable[str]) -> dict[str, int]:
    """:func:`sync` of ``table`` for the nodes ``ids`` alone, for a caller that knows no
    other node of the table changed since the index was last synced (an ingest: the symbols
    of the files it changed). Cost grows with ``len(ids)``, not with the table; a missing
    or damaged index is rebuilt whole. The same counts as :func:`sync`."""
    kw = _keyword(store)
    with kw.lock:
        if kw.check(table) not in ("missing", "damaged"):
            index = kw.indexes[table]
            wanted = sorted(set(ids))
            fields = KEYWORD_FIELDS[table]
            graph = _graph_rows(store, table, wanted)
            graph = graph.with_columns(pl.Series(
                "digest", [digest(r) for r in graph.select(fields).iter_rows()], pl.Int64))
            stored = _stored_of(index, wanted)
            joined = graph.join(stored, on="id", how="left", suffix="_old")
            changed = joined.filter(pl.col("digest_old").is_null()
                                    | (pl.col("digest_old") != pl.col("digest"))
                                    | (pl.col("copies") > 1))
            gone = set(stored["id"].to_list()) - set(graph["id"].to_list())
            docs = _apply(kw, table, changed, gone) if changed.height or gone else \
                index.searcher().num_docs
            kw.write_state({table: {"synced": True, "docs": docs}})
            kw.status[table] = "ok"
            new = int(changed["digest_old"].is_null().sum())
            return {"added": new, "updated": changed.height - new, "deleted": len(gone),
                    "docs": docs}
    return sync(store, [table])[table]


def _stored_of(index: tantivy.Index, ids: list[str]) -> pl.DataFrame:
    """id, digest and number of copies of the documents of ``ids`` (one term query each)."""
    searcher = index.searcher()
    rows: list[tuple[str, int]] = []
    for node in ids:
        hits = searcher.search(tantivy.Query.term_query(SCHEMA, "id", node), limit=4,
                               count=False).hits
        addrs = [a for _, a in hits]
        if addrs:
            rows.extend((node, d) for d in searcher.fast_field_values("digest", addrs))
    frame = pl.DataFrame(rows, schema={"id": pl.Utf8, "digest": pl.Int64}, orient="row")
    return frame.group_by("id").agg(pl.col("digest").first(), pl.len().alias("copies"))


def _drift(store: Store, index: tantivy.Index, table: str) -> tuple[pl.DataFrame, set[str]]:
    """Graph nodes whose text the index lacks or holds another version of, and indexed ids
    the graph no longer has."""
    graph = _graph_rows(store, table, None)
    fields = KEYWORD_FIELDS[table]
    if not index.searcher().num_docs:  # a new index: every node, digests taken as written
        return graph.with_columns(pl.lit(None, pl.Int64).alias("digest_old")), set()
    graph = graph.with_columns(pl.Series(
        "digest", [digest(r) for r in graph.select(fields).iter_rows()], pl.Int64))
    stored = _stored(index)
    joined = graph.join(stored, on="id", how="left", suffix="_old")
    changed = joined.filter(pl.col("digest_old").is_null()
                            | (pl.col("digest_old") != pl.col("digest"))
                            | (pl.col("copies") > 1))
    return changed, set(stored["id"].to_list()) - set(graph["id"].to_list())


def _stored(index: tantivy.Index) -> pl.DataFrame:
    """id, digest and number of copies of every document of ``index``."""
    searcher = index.searcher()
    hits = searcher.search(tantivy.Query.all_query(), limit=max(searcher.num_docs, 1),
                           count=False).hits if searcher.num_docs else []
    addrs = [a for _, a in hits]
    frame = pl.DataFrame({"id": [searcher.doc(a)["id"][0] for a in addrs],
                          "digest": searcher.fast_field_values("digest", addrs) if addrs else []},
                         schema={"id": pl.Utf8, "digest": pl.Int64})
    return frame.group_by("id").agg(pl.col("digest").first(), pl.len().alias("copies"))


# ------------------------------------------------------------------------------ reading
def ensure_keyword(store: Store, *, tables: Iterable[str] | None = None) -> KeywordState:
    """Check (once per process, then whenever a table was marked stale) that the indexes of
    ``tables`` are intact and synced; read-write, sync or rebuild them; read-only, report."""
    kw = _keyword(store)
    out = []
    for table in _tables(tables):
        if kw.status.get(table) == "ok" and table in kw.indexes:
            out.append((table, "ok"))
            continue
        with kw.lock:
            status = kw.check(table)
            if status == "ok" or store.read_only:
                kw.status[table] = status
            else:
                sync(store, [table])
                status = {"missing": "built", "stale": "synced"}.get(
                    status, f"rebuilt ({status})")
        out.append((table, status))
    return KeywordState(tuple(out))


def bm25(store: Store, query: str, *, table: str, k: int = 10, where: str | None = None,
         params: dict[str, Any] | None = None, status: str = "current") -> list[KeywordHit]:
    """The ``k`` best nodes of ``table`` for ``query`` by BM25, best first (ties by id).

    ``where`` is a Cypher condition on node ``n``; the hits are checked in one statement on
    their ids and the index asked for more until ``k`` pass or it has no more. ``status``:
    ``"current"`` nodes only; ``"believed"`` also those ended because something SUPERSEDES
    them; ``"any"``: no check (for a caller with its own catalog of current nodes).

    Raises
    ------
    KeywordUnavailableError : the index cannot be used (see :func:`ensure_keyword`)
    """
    _tables([table])
    conds = {"current": _CURRENT, "believed": _BELIEVED, "any": ""}
    if status not in conds:
        raise StoreError(f"bm25 status must be one of {', '.join(conds)}, not {status!r}")
    terms = list(dict.fromkeys(_QUERY_ANALYZER.analyze(keyword_terms(query))))
    if not terms or k <= 0:
        return []
    state = ensure_keyword(store, tables=[table]).of(table)
    index = _keyword(store).indexes.get(table)
    if index is None or state in ("missing", "damaged", "stale"):
        raise KeywordUnavailableError(
            f"the keyword index of {table} is {state} on this read-only database",
            suggestion="open it read-write once (`vgdb ingest`, `vgdb embed`) to "
                       + ("sync" if state == "stale" else "build") + " it")
    q = tantivy.Query.boolean_query(
        [(tantivy.Occur.Should, tantivy.Query.term_query(SCHEMA, "text", t)) for t in terms])
    searcher = index.searcher()
    cond = " AND ".join(c for c in (conds[status], f"({where})" if where else "") if c)
    top = k if not cond else max(4 * k, 50)
    while True:
        found = searcher.search(q, limit=top, count=False).hits
        ranked = sorted(((float(s), searcher.doc(a)["id"][0]) for s, a in found),
                        key=lambda h: (-h[0], h[1]))
        if not cond:
            return [KeywordHit(i, table, s) for s, i in ranked[:k]]
        ok = set(store.cypher(f"UNWIND $ids AS i MATCH (n:{table} {{id: i}}) WHERE {cond} "
                              "RETURN n.id AS id", {**(params or {}), "ids": list(dict.fromkeys(
                                  i for _, i in ranked))})["id"])  # by primary key
        passing = [KeywordHit(i, table, s) for s, i in ranked if i in ok]
        if len(passing) >= k or len(found) < top or top >= _TOP_MAX:
            return passing[:k]
        top *= 4
