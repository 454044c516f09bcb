"""BM25 full-text indexes (Kuzu's FTS extension) over Symbol, Entry and Paper.

One index per table (``<table>_fts``) over the text a reader would search:

- Symbol: name, qualname, signature, docstring (Kuzu's tokenizer splits on ``_`` and ``.``, so
  ``parse_header_line`` is found by ``header``; camelCase is not split in the index, which is why
  :func:`bm25` also sends the query's identifiers split into words *and* as written);
- Entry: title, content;  Paper: title, abstract.

When indexes are (re)built: Kuzu keeps an FTS index up to date on inserts and deletes, but not
on ``SET`` of an indexed property (measured on 0.11.3: the old words stay indexed). So
:func:`ensure_fts` keeps ``<db>/fts.json`` with, per table, a digest of the indexed fields of
every node, and the database manifest's stamp at that time. A search calls it: while the
manifest is unchanged (no ingest since) that is one ``stat``; after an ingest the fields are
hashed again (~0.1 s per 25K symbols) and the index is rebuilt only if they differ (~1 s per
25K symbols). ``embed_graph`` calls it too, so ``vgdb embed`` after an ingest leaves both the
vectors and the BM25 indexes current. A read-only store cannot build: a missing index is
reported as such (search then runs without BM25 and says so), a stale one is used as it is.

The extension ships inside the kuzu 0.11.3 wheel; ``LOAD EXTENSION fts`` needs no network.
"""

from __future__ import annotations

import hashlib
import json
import re
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import polars as pl

from graphdb.store import Store, _run
from schema import ENTRY, PAPER, SYMBOL, QueryError, StoreError

__all__ = ["FTS_FIELDS", "FtsHit", "FtsState", "FtsUnavailableError", "bm25", "ensure_fts",
           "fts_terms", "suspend_fts"]

#: Indexed properties per table (the order is the index definition).
FTS_FIELDS: dict[str, tuple[str, ...]] = {
    SYMBOL.name: ("name", "qualname", "signature", "docstring"),
    ENTRY.name: ("title", "content"),
    PAPER.name: ("title", "abstract"),
}
_STATE = "fts.json"
#: bm25 under a condition widens its look at the index up to this many hits, no further
#: (each widening re-scores; the caller fills up from other signals)
_TOP_MAX = 20_000
_FORMAT = 1
_CURRENT = "n.valid_to IS NULL AND n.expired_at IS NULL"
_BELIEVED = ("n.expired_at IS NULL AND (n.valid_to IS NULL OR "
             "EXISTS { MATCH (n)<-[:SUPERSEDES]-() })")
_WORD = re.compile(r"[A-Za-z0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
# per store: the manifest stamp at the last check, and what was found then
_CHECKED: weakref.WeakKeyDictionary[Store, tuple[list[int] | None, FtsState]] = \
    weakref.WeakKeyDictionary()


class FtsUnavailableError(StoreError):
    """The FTS extension could not be loaded, or an index is missing on a read-only store."""


@dataclass(frozen=True, slots=True)
class FtsHit:
    """A BM25 hit: node id, its table and Kuzu's BM25 score (higher is better)."""

    id: str
    table: str
    score: float


@dataclass(frozen=True, slots=True)
class FtsState:
    """What :func:`ensure_fts` found or did per table: ``"ok"``, ``"built"``, ``"rebuilt"``,
    ``"missing"`` or ``"stale"`` (the last two only on a read-only store)."""

    tables: tuple[tuple[str, str], ...]

    def of(self, table: str) -> str:
        return dict(self.tables).get(table, "missing")


def _index_name(table: str) -> str:
    return f"{table.lower()}_fts"


def _load_extension(store: Store) -> None:
    if getattr(store, "_fts_loaded", False):  # Store.open loads it when fts.json exists
        return
    try:
        _run(store._conn, "LOAD EXTENSION fts")
    except QueryError as exc:
        if "already loaded" not in exc.message.lower():
            raise FtsUnavailableError(
                f"Kuzu's FTS extension could not be loaded: {exc.message}",
                suggestion="BM25 search needs kuzu 0.11.3 with its bundled fts extension "
                           "(pip install kuzu==0.11.3)") from exc
    store._fts_loaded = True  # type: ignore[attr-defined]


def _existing(store: Store) -> set[str]:
    rows = _run(store._conn, "CALL SHOW_INDEXES() RETURN table_name, index_name, index_type")
    return {t for t, i, kind in rows.iter_rows() if kind == "FTS" and i == _index_name(t)}


def _digest(store: Store, table: str) -> str:
    fields = FTS_FIELDS[table]
    frame = _run(store._conn, f"MATCH (n:{table}) RETURN n.id AS id, "
                 + ", ".join(f"n.{f} AS {f}" for f in fields) + " ORDER BY id")
    h = hashlib.blake2b(digest_size=16)
    for row in frame.iter_rows():
        h.update("\x1f".join("" if v is None else str(v) for v in row).encode("utf-8"))
        h.update(b"\x1e")
    return h.hexdigest()


def _manifest_stamp(store: Store) -> list[int] | None:
    try:
        st = (store.path / "manifest.json").stat()
    except FileNotFoundError:
        return None
    return [st.st_mtime_ns, st.st_size]


def _read_state(store: Store) -> dict[str, Any]:
    try:
        data = json.loads((store.path / _STATE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if data.get("format") == _FORMAT else {}


def _write_state(store: Store, state: dict[str, Any]) -> None:
    tmp = store.path / f".{_STATE}.tmp"
    tmp.write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")
    tmp.replace(store.path / _STATE)


def ensure_fts(store: Store, *, tables: Iterable[str] | None = None,
               force: bool = False) -> FtsState:
    """Make the BM25 indexes of ``tables`` (default: Symbol, Entry, Paper) exist and match the
    graph; idempotent and cheap when nothing changed (see the module docstring).

    Raises
    ------
    FtsUnavailableError : the extension cannot be loaded
    """
    names = list(FTS_FIELDS) if tables is None else [t for t in tables if t in FTS_FIELDS]
    _load_extension(store)
    stamp = _manifest_stamp(store)
    seen = _CHECKED.get(store)
    if not force and seen is not None and seen[0] == stamp \
            and all(seen[1].of(t) == "ok" for t in names):
        return FtsState(tuple((t, "ok") for t in names))  # checked since the last ingest
    existing = _existing(store)
    state = _read_state(store)
    recorded: dict[str, Any] = state.get("tables", {})
    out: list[tuple[str, str]] = []
    changed = False
    for name in names:
        rec = recorded.get(name)
        if name in existing and not force and rec and rec.get("stamp") == stamp:
            out.append((name, "ok"))
            continue
        digest = _digest(store, name)
        if name in existing and not force and rec and rec.get("digest") == digest:
            if not store.read_only:
                rec["stamp"] = stamp
                changed = True
            out.append((name, "ok"))
            continue
        if store.read_only:
            out.append((name, "stale" if name in existing else "missing"))
            continue
        if not (store.path / _STATE).exists():
            # the marker first: every later Store.open loads the extension (see Store.open)
            _write_state(store, {"format": _FORMAT, "tables": {}})
        index = _index_name(name)
        if name in existing:
            _run(store._conn, f"CALL DROP_FTS_INDEX('{name}', '{index}')")
        fields = ", ".join(f"'{f}'" for f in FTS_FIELDS[name])
        _run(store._conn, f"CALL CREATE_FTS_INDEX('{name}', '{index}', [{fields}])")
        recorded[name] = {"digest": digest, "stamp": stamp}
        changed = True
        out.append((name, "rebuilt" if name in existing else "built"))
    if changed:
        _write_state(store, {"format": _FORMAT, "tables": recorded})
    result = FtsState(tuple(out))
    if seen is not None and seen[0] == stamp:  # keep what other tables were found to be
        result = FtsState(tuple({**dict(seen[1].tables), **dict(out)}.items()))
    _CHECKED[store] = (stamp, result)
    return FtsState(tuple(out))


def suspend_fts(store: Store, tables: Iterable[str] = (SYMBOL.name,)) -> None:
    """Drop the BM25 indexes of ``tables`` before a write transaction that rewrites their
    rows; :func:`ensure_fts` builds them again (at the next search or ``embed_graph``).

    Why: Kuzu 0.11.3 crashes the process (SIGSEGV) in an incremental code ingest's transaction
    (rel deletions, a tombstone ``SET``, then ``LOAD FROM ... SET`` of Symbols) when the Symbol
    table has an FTS index, extension loaded or not (tests/graphdb/test_vectors.py found it);
    and an index does not follow ``SET`` of its properties anyway, so it must be rebuilt after
    such a write in any case. Cheap when no index exists (no ``fts.json``: one ``stat``).
    """
    if store.read_only or not (store.path / _STATE).exists():
        return
    _load_extension(store)
    existing = _existing(store)
    state = _read_state(store)
    recorded: dict[str, Any] = state.get("tables", {})
    for name in tables:
        if name in existing:
            _run(store._conn, f"CALL DROP_FTS_INDEX('{name}', '{_index_name(name)}')")
        recorded.pop(name, None)
    _write_state(store, {"format": _FORMAT, "tables": recorded})
    _CHECKED.pop(store, None)


def fts_terms(query: str) -> str:
    """The words BM25 looks for: the query's alphanumeric words as written, plus identifiers
    split into words (``getHeaderLine`` -> ``getheaderline get header line``). Everything else
    (FTS operators, quotes, brackets) is dropped, so no query text can be a syntax error."""
    words: list[str] = []
    for raw in _WORD.findall(query):
        words.append(raw.lower())
        parts = [p.lower() for p in _CAMEL.findall(raw)]
        if len(parts) > 1:
            words.extend(parts)
    return " ".join(dict.fromkeys(words))


def bm25(store: Store, query: str, *, table: str, k: int = 10, where: str | None = None,
         params: dict[str, Any] | None = None, status: str = "current") -> list[FtsHit]:
    """The ``k`` best current nodes of ``table`` for ``query`` by BM25, best first.

    ``where`` is a Cypher condition on node ``n`` (as in :func:`graphdb.nearest`); the index is
    asked for more until ``k`` pass it or it has no more. The index must exist
    (:func:`ensure_fts`); an empty term list gives no hits. ``status``: ``"current"`` nodes
    only; ``"believed"`` also those ended because something SUPERSEDES them (hybrid search
    returns them demoted); ``"any"``: no check at all (a caller with its own catalog of
    current nodes; saves the condition's cost).
    """
    if table not in FTS_FIELDS:
        raise StoreError(f"no BM25 index for node table {table}",
                         suggestion="indexed tables: " + ", ".join(FTS_FIELDS))
    terms = fts_terms(query)
    if not terms or k <= 0:
        return []
    _load_extension(store)
    conds = {"current": _CURRENT, "believed": _BELIEVED, "any": ""}
    if status not in conds:
        raise StoreError(f"bm25 status must be one of {', '.join(conds)}, not {status!r}")
    cond = " AND ".join(c for c in (conds[status], f"({where})" if where else "") if c)
    call = f"CALL QUERY_FTS_INDEX('{table}', '{_index_name(table)}', $q, top := "
    if not cond:  # nothing to drop: the index's own top k is the answer
        frame = _run(store._conn, call + f"{k}) RETURN node.id AS id, score "
                     "ORDER BY score DESC, id", {"q": terms})
        return [FtsHit(i, table, float(s)) for i, s in frame.select("id", "score").iter_rows()]
    # One statement returns the index's top hits with the condition as a column: both what
    # passes and whether the index had more to give (a WHERE would hide the latter).
    top = max(4 * k, 50)
    while True:
        frame = _run(store._conn, call + f"{top}) WITH node AS n, score RETURN n.id AS id, "
                     f"score, ({cond}) AS ok ORDER BY score DESC, id",
                     {**(params or {}), "q": terms})
        passing = frame.filter(pl.col("ok").fill_null(False))
        if passing.height >= k or frame.height < top or top >= _TOP_MAX:
            break
        top *= 4
    return [FtsHit(i, table, float(s))
            for i, s in passing.head(k).select("id", "score").iter_rows()]
