"""Similar across domains with context: the nearest code, history and academic nodes to a node
or a text, each with its direct links into the other two domains."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import polars as pl

from graphdb import Store, deadline
from queries.batch import by_ids, lookup_template
from queries.search.metadata import node_metadata
from queries.search.model import DOMAIN_OF, SEARCH_TABLES
from schema import ENTRY, PAPER, SYMBOL, QueryError

__all__ = ["LinkedNode", "SimilarHit", "SimilarResult", "similar"]


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
        names = node_metadata(store, {table: ids})
        hits.extend(SimilarHit(h.id, table, DOMAIN_OF[table], names.get(h.id, {}).get("name") or "",
                               round(h.similarity, 6), tuple(links.get(h.id, ())))
                    for h in found)
    return SimilarResult(node_or_query, tuple(hits))
