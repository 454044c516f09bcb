"""What impact adds from the other domains: the decisions, failures, patterns (by ABOUT
edge or by scope glob, :mod:`queries.scope`) and papers about the impacted code, and the
valid-time filter every impact statement shares. Split out of :mod:`queries.impact`, which
keeps the traversal and test selection.
"""

from __future__ import annotations

import weakref
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graphdb import Store
from queries.batch import PROBE_MAX, by_ids, lookup_template
from queries.scope import code_paths, in_scope
from schema import ABOUT, ENTRY, FILE, PAPER, REFERENCES, SUPERSEDES, SYMBOL

__all__ = ["EntryHit", "PaperHit", "TimeFilter", "by_code_ids", "entries_about",
           "has_nodes", "papers_about"]


@dataclass(frozen=True, slots=True)
class EntryHit:
    """A decision, failure, pattern, intent (or other entry) about impacted code."""

    id: str
    display_id: str
    kind: str
    title: str
    status: str
    current: bool
    superseded_by: tuple[str, ...]
    about: tuple[str, ...]
    score: float
    source: str
    confidence: float
    #: ``about`` (an ABOUT edge names the code) or ``in scope: <glob>`` (its scope covers it)
    relation: str = "about"


@dataclass(frozen=True, slots=True)
class PaperHit:
    id: str
    title: str
    relation: str  # cites | implements | documents
    about: tuple[str, ...]
    score: float
    source: str
    confidence: float


class TimeFilter:
    """Cypher conditions keeping nodes and edges valid at ``as_of`` (None: current)."""

    def __init__(self, as_of: datetime | None) -> None:
        self.as_of = as_of

    def valid(self, alias: str) -> str:
        if self.as_of is None:
            return f"{alias}.valid_to IS NULL"
        return (f"({alias}.valid_from IS NULL OR {alias}.valid_from <= $as_of) AND "
                f"({alias}.valid_to IS NULL OR {alias}.valid_to > $as_of)")

    def params(self, **extra: Any) -> dict[str, Any]:
        return {**extra, "as_of": self.as_of} if self.as_of is not None else dict(extra)


def by_code_ids(store: Store, ids: Sequence[str], template: str,
                 params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """:func:`_by_ids` over symbol and file ids; the template names the table ``{T}`` and
    the looked-up node ``n``."""
    rows: list[dict[str, Any]] = []
    for table, prefix in ((SYMBOL.name, "sym:"), (FILE.name, "file:")):
        some = [i for i in ids if i.startswith(prefix)]
        if some:
            rows += by_ids(store, some, lookup_template(template.replace("{T}", table), "n"),
                            params).to_dicts()
    return rows


#: per store: (graph version, table) -> node count (:func:`has_nodes`)
_COUNTS: weakref.WeakKeyDictionary[Store, dict[tuple[int, str], int]] = \
    weakref.WeakKeyDictionary()


def has_nodes(store: Store, table: str) -> int:
    """How many nodes ``table`` holds (a cheap check before a cross-domain lookup); kept
    per graph version, so repeated questions skip the count (~0.5 ms each, three per
    impact) until a write."""
    counts = _COUNTS.setdefault(store, {})
    key = (store.graph_version(), table)
    if key not in counts:
        if len(counts) > 64:
            counts.clear()
        counts[key] = int(store.cypher(f"MATCH (x:{table}) RETURN count(x) AS n")["n"][0])
    return counts[key]


#: With at most this many entries (papers), their ABOUT (REFERENCES) edges are read whole and
#: matched in Python: cheaper than looking up many impacted ids (see queries.batch.PROBE_MAX).
_READ_ALL = 5000


def _around(store: Store, ids: list[str], count: int, template: str,
            params: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows of ``template`` (code node ``n``, table ``{T}``) for the code ``ids``."""
    if len(ids) <= PROBE_MAX or count > _READ_ALL:
        return by_code_ids(store, ids, template, params)
    wanted = set(ids)
    rows: list[dict[str, Any]] = []
    for table in (SYMBOL.name, FILE.name):
        text = template.replace("{T}", table).replace("{B}", "").replace("{IN}", "true")
        rows += [r for r in store.cypher(text, params).to_dicts() if r["i"] in wanted]
    return rows


def entries_about(store: Store, ids: list[str], scores: dict[str, float],
             flt: TimeFilter) -> tuple[EntryHit, ...]:
    count = has_nodes(store, ENTRY.name) if ids else 0
    if not count:
        return ()
    cond = "" if flt.as_of is None else (
        " AND (x.valid_from IS NULL OR x.valid_from <= $as_of)")
    rows = _around(
        store, ids, count, f"MATCH (x:{ENTRY.name})-[a:{ABOUT.name}]->(n:{{T}}{{B}}) WHERE {{IN}}"
                    f"{cond} RETURN x.id AS x, x.display_id AS d, x.kind AS k, x.title AS t, "
                    "x.status AS s, x.valid_to AS vt, x.expired_at AS ea, a.source AS src, "
                    "a.confidence AS conf, n.id AS i", flt.params())
    found: dict[str, dict[str, Any]] = {}
    for eid, display, kind, title, status, valid_to, expired_at, source, conf, about in \
            (r.values() for r in rows):
        hit = found.setdefault(eid, {
            "display_id": display or "", "kind": kind or "", "title": title or "",
            "status": status or "", "valid_to": valid_to, "expired_at": expired_at,
            "source": source or "", "confidence": 1.0 if conf is None else float(conf),
            "about": set(), "relation": "about"})
        hit["about"].add(about)
    scoped = in_scope(store, code_paths(store, ids), as_of=flt.as_of)
    for node, matches in scoped.items():
        for match in matches:
            r = match.row
            hit = found.setdefault(r["id"], {
                "display_id": r["display_id"] or "", "kind": r["kind"] or "",
                "title": r["title"] or "", "status": r["status"] or "",
                "valid_to": r["valid_to"], "expired_at": r["expired_at"],
                "source": r["source"] or "",
                "confidence": 1.0 if r["confidence"] is None else float(r["confidence"]),
                "about": set(), "relation": match.relation})
            hit["about"].add(node)
    if not found:
        return ()
    newer = by_ids(store, sorted(found), lookup_template(  # ordered per entry
        f"MATCH (n:{ENTRY.name})-[:{SUPERSEDES.name}]->(x:{ENTRY.name}{{B}}) WHERE {{IN}} "
        "RETURN x.id, n.id ORDER BY n.id", "x"))
    by: dict[str, list[str]] = defaultdict(list)
    for old, new in newer.iter_rows():
        by[old].append(new)
    hits = []
    for eid, h in found.items():
        if flt.as_of is None:
            current = h["valid_to"] is None and h["expired_at"] is None
        else:
            current = h["valid_to"] is None or h["valid_to"] > flt.as_of
        hits.append(EntryHit(
            id=eid, display_id=h["display_id"], kind=h["kind"], title=h["title"],
            status=h["status"] if current or h["status"] != "active" else "superseded",
            current=current, superseded_by=tuple(by.get(eid, ())),
            about=tuple(sorted(h["about"])), score=max(scores[a] for a in h["about"]),
            source=h["source"], confidence=h["confidence"], relation=h["relation"]))
    return tuple(sorted(hits, key=lambda h: (not h.current, -h.score, h.kind, h.id)))


def papers_about(store: Store, ids: list[str], scores: dict[str, float],
            flt: TimeFilter) -> tuple[PaperHit, ...]:
    count = has_nodes(store, PAPER.name) if ids else 0
    if not count:
        return ()
    rows = _around(
        store, ids, count, f"MATCH (n:{{T}}{{B}})-[r:{REFERENCES.name}]->(p:{PAPER.name}) "
                    f"WHERE {{IN}} AND {flt.valid('r')} RETURN p.id AS p, p.title AS t, "
                    "r.kind AS k, r.source AS s, r.confidence AS c, n.id AS i", flt.params())
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for pid, title, kind, source, conf, about in (r.values() for r in rows):
        hit = found.setdefault((pid, kind or "cites"), {
            "title": title or "", "source": source or "",
            "confidence": 1.0 if conf is None else float(conf), "about": set()})
        hit["about"].add(about)
    hits = [PaperHit(pid, h["title"], kind, tuple(sorted(h["about"])),
                     max(scores[a] for a in h["about"]), h["source"], h["confidence"])
            for (pid, kind), h in found.items()]
    return tuple(sorted(hits, key=lambda h: (-h.score, h.id, h.relation)))
