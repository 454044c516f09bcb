"""Search filters (domains, tables, language, path, as-of time, community) turned into the
tables to search, a Cypher condition per table and, for code filters, the candidate ids."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from graphdb import Store
from graphdb.sessions import glob_pattern
from queries.search.catalog import symbol_catalog
from queries.search.model import DOMAIN_OF, DOMAIN_TABLES, SEARCH_TABLES
from schema import COMMUNITY, CONTAINS, IN_COMMUNITY, SUBCOMMUNITY_OF, SYMBOL, QueryError

__all__ = ["Filters", "build_filters", "naive_utc"]


def naive_utc(t: datetime) -> datetime:
    """Kuzu TIMESTAMPs are naive UTC."""
    return t.astimezone(UTC).replace(tzinfo=None) if t.tzinfo else t


@dataclass(frozen=True, slots=True)
class Filters:
    """The tables a search covers, a Cypher condition on ``n`` per table (with its
    parameters) and, when a code filter or a community narrows it, the candidate ids."""

    tables: tuple[str, ...]
    where: dict[str, str]  # table -> Cypher condition on n ('' = none)
    params: dict[str, Any]
    candidates: frozenset[str] | None


def build_filters(store: Store, *, domains: Iterable[str] | None, tables: Iterable[str] | None,
                  language: str | None, path: str | None, as_of: datetime | None,
                  community: str | None) -> Filters:
    """The :class:`Filters` of a search's options; unknown domains, tables or communities
    raise :class:`QueryError`."""
    chosen = list(SEARCH_TABLES)
    if domains is not None:
        doms = list(domains)
        bad = [d for d in doms if d not in DOMAIN_TABLES]
        if bad:
            raise QueryError(f"unknown domain(s) {', '.join(bad)}",
                             suggestion="domains: " + ", ".join(DOMAIN_TABLES))
        chosen = [t for t in chosen if DOMAIN_OF[t] in doms]
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
        cat = symbol_catalog(store)
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
        params["f_as_of"] = naive_utc(as_of)
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
    return Filters(tuple(chosen), {t: where for t in chosen}, params, candidates)
