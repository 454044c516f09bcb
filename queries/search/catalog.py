"""The in-process catalog of every Symbol's display fields and state, which search checks its
hits against instead of asking the database (see :class:`SymbolCatalog`)."""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass, field

from graphdb import Store
from schema import SYMBOL

__all__ = ["SymbolCatalog", "symbol_catalog"]


@dataclass(frozen=True, slots=True)
class SymbolCatalog:
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


_CATALOGS: weakref.WeakKeyDictionary[Store, SymbolCatalog] = weakref.WeakKeyDictionary()
_CATALOG_LOCK = threading.Lock()


def _stamp(store: Store) -> tuple[int, int] | None:
    try:
        st = (store.path / "manifest.json").stat()
    except FileNotFoundError:
        return None
    return (st.st_mtime_ns, st.st_size)


def symbol_catalog(store: Store) -> SymbolCatalog:
    """The catalog of ``store``, read again when its manifest stamp changed."""
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
        found = SymbolCatalog(stamp, rows, newer)
        _CATALOGS[store] = found
        return found
