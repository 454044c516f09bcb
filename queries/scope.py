"""Scope globs as relations: which entries apply to a file or symbol because their scope
covers its path, not because an ABOUT edge names it (DESIGN §5).

A decision scoped ``graphdb/**`` applies to every file under ``graphdb/`` and every symbol
defined there, in every query that returns entries for code (impact, provenance, the
``entries`` field of files and symbols); those queries mark it ``in scope: <glob>`` beside
``about``. The globs are the conflict rule's (:func:`graphdb.sessions.scope_matches`). An
entry without a scope is not matched here: it is about what it links to, if anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graphdb import Store
from graphdb.sessions import scope_matches
from schema import ENTRY, FILE, SYMBOL

__all__ = ["ScopeMatch", "code_paths", "in_scope", "relation_of"]

_COLUMNS = ("x.id AS id, x.display_id AS display_id, x.kind AS kind, x.title AS title, "
            "x.status AS status, x.valid_from AS at, x.valid_to AS valid_to, "
            "x.expired_at AS expired_at, x.repo AS repo, x.scope AS scope, "
            "x.source AS source, x.confidence AS confidence, x.expires_at AS expires_at")


@dataclass(frozen=True, slots=True)
class ScopeMatch:
    """Entry ``row`` (id, display_id, kind, title, status, at, valid_to, expired_at, repo,
    scope, source, confidence, expires_at) applies to a node because ``glob`` covers its
    path."""

    row: Mapping[str, Any]
    glob: str

    @property
    def relation(self) -> str:
        return relation_of(self.glob)


def relation_of(glob: str) -> str:
    """How an entry relates to code through its scope: ``in scope: <glob>``."""
    return f"in scope: {glob}"


def code_paths(store: Store, ids: list[str]) -> dict[str, tuple[str, str]]:
    """File and symbol ids -> (repository, path of the file)."""
    out: dict[str, tuple[str, str]] = {}
    files = [i for i in ids if i.startswith("file:")]
    symbols = [i for i in ids if i.startswith("sym:")]
    if files:  # by primary key (queries/batch.py: ``IN $ids`` compares every row)
        rows = store.cypher(f"UNWIND $ids AS i MATCH (n:{FILE.name} {{id: i}}) "
                            "RETURN n.id, n.repo, n.path", {"ids": list(dict.fromkeys(files))})
        out.update({i: (r or "", p or "") for i, r, p in rows.rows()})
    if symbols:
        rows = store.cypher(f"UNWIND $ids AS i MATCH (n:{SYMBOL.name} {{id: i}}) "
                            "RETURN n.id, n.repo, n.file", {"ids": list(dict.fromkeys(symbols))})
        out.update({i: (r or "", (f or "").removeprefix(f"file:{r}/")) for i, r, f in rows.rows()})
    return out


def in_scope(store: Store, paths: Mapping[str, tuple[str, str]], *,
             as_of: datetime | None = None, known_at: datetime | None = None,
             current: bool = False) -> dict[str, list[ScopeMatch]]:
    """Node id -> the entries whose scope covers its path (``paths``: id -> (repo, path)),
    one match per entry (its first covering glob). ``as_of``/``known_at`` keep the entries
    begun / recorded by then; ``current`` only those in force now."""
    if not paths:
        return {}
    where = ["size(x.scope) > 0"]
    params: dict[str, Any] = {}
    if as_of is not None:
        where.append("(x.valid_from IS NULL OR x.valid_from <= $as_of)")
        params["as_of"] = as_of
    if known_at is not None:
        where.append("(x.recorded_at IS NULL OR x.recorded_at <= $known_at) AND "
                     "(x.expired_at IS NULL OR x.expired_at > $known_at)")
        params["known_at"] = known_at
    if current:
        where.append("x.valid_to IS NULL AND x.expired_at IS NULL")
    rows = store.cypher(f"MATCH (x:{ENTRY.name}) WHERE {' AND '.join(where)} "
                        f"RETURN {_COLUMNS} ORDER BY at, id", params).to_dicts()
    out: dict[str, list[ScopeMatch]] = {}
    for node, (repo, path) in paths.items():
        if not path:
            continue
        for row in rows:
            if row["repo"] and repo and row["repo"] != repo:
                continue
            glob = next((g for g in row["scope"] or () if scope_matches(g, path)), None)
            if glob is not None:
                out.setdefault(node, []).append(ScopeMatch(row, glob))
    return out
