"""Papers and code: what a symbol, file, commit, entry or community references, the code
implementing a paper, the decisions based on it, and its citation neighbourhood.

Every result carries its evidence: the edge's ``source``, ``confidence``, where it was found
(``location``) and the matched text (``evidence``).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from graphdb import Store
from queries.provenance import resolve_node
from schema import (
    BASED_ON,
    CITES,
    COMMIT,
    COMMUNITY,
    ENTRY,
    FILE,
    IN_COMMUNITY,
    PAPER,
    REFERENCES,
    SYMBOL,
    NodeNotFoundError,
)

__all__ = ["CitationNeighbour", "CodeLink", "PaperLink", "citations", "decisions_based_on",
           "paper_code", "referenced_papers", "resolve_paper"]

_RFC = re.compile(r"^rfc\s*-?\s*(\d{1,5})$", re.IGNORECASE)
_PREFIXES = {"sym:": SYMBOL, "file:": FILE, "commit:": COMMIT, "entry:": ENTRY}
_PAPER_COLS = ("p.id AS paper, p.title AS title, p.kind AS kind, p.year AS year, "
               "p.doi AS doi, p.arxiv AS arxiv, p.resolved AS resolved, p.status AS status")
_EDGE_COLS = ("e.kind AS relation, e.location AS location, e.evidence AS evidence, "
              "e.source AS source, e.confidence AS confidence")


@dataclass(frozen=True, slots=True)
class PaperLink:
    """A paper that ``via`` (a symbol, file, commit or entry) cites, implements, documents
    or is based on, with the evidence of that edge."""

    paper: str
    title: str
    kind: str
    year: int | None
    doi: str
    arxiv: str
    resolved: bool
    status: str
    relation: str  # cites | implements | documents | based_on
    via: str
    location: str
    evidence: str
    source: str
    confidence: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class CodeLink:
    """A symbol, file, commit or entry that references a paper (``table`` says which)."""

    node: str
    table: str
    name: str
    relation: str
    location: str
    evidence: str
    source: str
    confidence: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class CitationNeighbour:
    """A paper ``depth`` CITES hops away: ``direction`` cites (it is cited by the paper, or
    by a paper it cites) or cited_by; ``evidence`` is the source that listed the first hop."""

    paper: str
    title: str
    year: int | None
    resolved: bool
    direction: str
    depth: int
    evidence: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def resolve_paper(store: Store, ref: str) -> str:
    """The id of the paper ``ref`` names: an id (``paper:...``), a DOI (any case, as a URL or
    ``doi:``), an arXiv id (``arXiv:1603.09320``) or ``RFC 9110``."""
    text = ref.strip()
    candidates = [text] if text.startswith("paper:") else []
    low = re.sub(r"^(doi:\s*|https?://(dx\.)?doi\.org/|arxiv:\s*)", "", text, flags=re.I)
    if m := _RFC.match(text):
        candidates.append(f"paper:doi:10.17487/rfc{int(m.group(1))}")
    arxiv = re.sub(r"v\d+$", "", low)
    candidates += [f"paper:doi:{low.lower()}", f"paper:arxiv:{arxiv}"]
    found = store.cypher(f"UNWIND $ids AS i MATCH (p:{PAPER.name} {{id: i}}) RETURN p.id AS id",
                         {"ids": candidates})
    if found.is_empty():
        found = store.cypher(f"MATCH (p:{PAPER.name}) WHERE p.doi = $d OR p.arxiv = $a "
                             "RETURN p.id AS id", {"d": low.lower(), "a": low})
    if found.is_empty():
        raise NodeNotFoundError(f"no paper {ref!r} in the graph", node_id=ref,
                                suggestion="pass a paper id, a DOI, an arXiv id or RFC <n>")
    return str(found["id"][0])


def _members(store: Store, node: str) -> list[str]:
    """The nodes whose references count for ``node``: itself; a file's symbols; a
    community's files and symbols (and the symbols of its files)."""
    if node.startswith("community:"):
        rows = store.cypher(f"MATCH (m)-[:{IN_COMMUNITY.name}]->(c:{COMMUNITY.name}) "
                            "WHERE c.id = $id RETURN m.id AS id", {"id": node})
        if rows.is_empty() and store.cypher(
                f"MATCH (c:{COMMUNITY.name}) WHERE c.id = $id RETURN count(*)",
                {"id": node}).item() == 0:
            raise NodeNotFoundError(f"no community {node!r}", node_id=node)
        files = [i for i in rows["id"].to_list() if i.startswith("file:")]
        return sorted(set(rows["id"].to_list()) | set(_file_symbols(store, files)))
    if node.startswith("file:"):
        return [node, *_file_symbols(store, [node])]
    return [node]


def _file_symbols(store: Store, files: list[str]) -> list[str]:
    if not files:
        return []
    rows = store.cypher(f"MATCH (s:{SYMBOL.name}) WHERE s.file IN $f AND s.valid_to IS NULL "
                        "RETURN s.id AS id", {"f": files})
    return rows["id"].to_list()


def referenced_papers(store: Store, node: str, *, relation: str | None = None,
                      limit: int = 500) -> list[PaperLink]:
    """Papers that ``node`` references: a symbol, a file (with its symbols), a commit, an
    entry (with BASED_ON for decisions), or a community (its member files and symbols).

    ``relation`` keeps one kind (cites, implements, documents, based_on). Ordered by paper,
    then by where it is referenced; at most ``limit`` links.
    """
    node_id = node if node.startswith(("community:", "commit:")) else resolve_node(store, node)
    table = next((t for p, t in _PREFIXES.items() if node_id.startswith(p)), None)
    if table is not None and store.cypher(
            f"MATCH (n:{table.name}) WHERE n.id = $id RETURN count(*)", {"id": node_id}
    ).item() == 0:
        raise NodeNotFoundError(f"no {table.name.lower()} {node_id!r} in the graph",
                                node_id=node_id)
    members = _members(store, node_id)
    links: list[PaperLink] = []
    for prefix, table in _PREFIXES.items():
        ids = [m for m in members if m.startswith(prefix)]
        if not ids:
            continue
        rels = [(REFERENCES, _EDGE_COLS)]
        if table is ENTRY:
            rels.append((BASED_ON, "'based_on' AS relation, e.location AS location, "
                                   "e.evidence AS evidence, e.source AS source, "
                                   "e.confidence AS confidence"))
        for rel, cols in rels:
            rows = store.cypher(
                f"UNWIND $ids AS i MATCH (n:{table.name} {{id: i}})-[e:{rel.name}]->"
                f"(p:{PAPER.name}) RETURN n.id AS via, {_PAPER_COLS}, {cols}", {"ids": ids})
            links += [_paper_link(r) for r in rows.to_dicts()]
    if relation:
        links = [link for link in links if link.relation == relation]
    links.sort(key=lambda x: (x.paper, x.via, x.location))
    return links[:limit]


def _paper_link(r: dict[str, Any]) -> PaperLink:
    return PaperLink(
        paper=r["paper"], title=_text(r["title"]), kind=_text(r["kind"]) or "paper",
        year=r["year"], doi=_text(r["doi"]), arxiv=_text(r["arxiv"]),
        resolved=bool(r["resolved"]), status=_text(r["status"]) or "active",
        relation=_text(r["relation"]) or "cites", via=r["via"], location=_text(r["location"]),
        evidence=_text(r["evidence"]), source=_text(r["source"]),
        confidence=1.0 if r["confidence"] is None else float(r["confidence"]))


def paper_code(store: Store, paper: str, *, relation: str | None = None,
               limit: int = 500) -> list[CodeLink]:
    """The symbols, files, commits and entries that reference ``paper`` (the code
    implementing it: ``relation="implements"``)."""
    pid = resolve_paper(store, paper)
    links: list[CodeLink] = []
    names = {SYMBOL: "n.qualname", FILE: "n.path", COMMIT: "n.summary", ENTRY: "n.title"}
    for table, name in names.items():
        rows = store.cypher(
            f"MATCH (n:{table.name})-[e:{REFERENCES.name}]->(p:{PAPER.name}) WHERE p.id = $id "
            f"RETURN n.id AS node, {name} AS name, {_EDGE_COLS}", {"id": pid})
        for r in rows.to_dicts():
            links.append(CodeLink(
                node=r["node"], table=table.name, name=_text(r["name"]),
                relation=_text(r["relation"]) or "cites", location=_text(r["location"]),
                evidence=_text(r["evidence"]), source=_text(r["source"]),
                confidence=1.0 if r["confidence"] is None else float(r["confidence"])))
    if relation:
        links = [link for link in links if link.relation == relation]
    links.sort(key=lambda x: (x.table, x.node, x.location))
    return links[:limit]


def decisions_based_on(store: Store, paper: str) -> list[CodeLink]:
    """Decision entries based on ``paper`` (BASED_ON), current ones first."""
    pid = resolve_paper(store, paper)
    rows = store.cypher(
        f"MATCH (n:{ENTRY.name})-[e:{BASED_ON.name}]->(p:{PAPER.name}) WHERE p.id = $id "
        "RETURN n.id AS node, coalesce(n.display_id, '') + ' ' + coalesce(n.title, '') AS name,"
        " e.location AS location, e.evidence AS evidence, e.source AS source, "
        "e.confidence AS confidence, n.valid_to IS NULL AS current "
        "ORDER BY current DESC, node", {"id": pid})
    return [CodeLink(node=r["node"], table=ENTRY.name, name=_text(r["name"]).strip(),
                     relation="based_on", location=_text(r["location"]),
                     evidence=_text(r["evidence"]), source=_text(r["source"]),
                     confidence=1.0 if r["confidence"] is None else float(r["confidence"]))
            for r in rows.to_dicts()]


def citations(store: Store, paper: str, *, depth: int = 1, direction: str = "both",
              limit: int = 200) -> list[CitationNeighbour]:
    """Papers within ``depth`` CITES hops of ``paper`` (``direction``: cites, cited_by or
    both), nearest first, at most ``limit`` (depth is capped at 5)."""
    if direction not in ("cites", "cited_by", "both"):
        raise ValueError(f"direction must be cites, cited_by or both, not {direction!r}")
    pid = resolve_paper(store, paper)
    depth = max(1, min(depth, 5))
    out: list[CitationNeighbour] = []
    for name, arrow in (("cites", f"-[:{CITES.name}*1..{depth}]->"),
                        ("cited_by", f"<-[:{CITES.name}*1..{depth}]-")):
        if direction not in (name, "both"):
            continue
        rows = store.cypher(
            f"MATCH path = (a:{PAPER.name}){arrow}(p:{PAPER.name}) WHERE a.id = $id "
            "AND p.id <> $id WITH p, min(length(path)) AS depth "
            "RETURN p.id AS paper, p.title AS title, p.year AS year, p.resolved AS resolved, "
            f"depth ORDER BY depth, paper LIMIT {int(limit)}", {"id": pid})
        first = store.cypher(
            f"MATCH (a:{PAPER.name})" + (f"-[e:{CITES.name}]->" if name == "cites" else
                                         f"<-[e:{CITES.name}]-") +
            f"(p:{PAPER.name}) WHERE a.id = $id RETURN p.id AS paper, e.evidence AS evidence",
            {"id": pid})
        evidence = dict(zip(first["paper"].to_list(), first["evidence"].to_list(),
                            strict=True)) if not first.is_empty() else {}
        out += [CitationNeighbour(
            paper=r["paper"], title=_text(r["title"]), year=r["year"],
            resolved=bool(r["resolved"]), direction=name, depth=int(r["depth"]),
            evidence=_text(evidence.get(r["paper"]))) for r in rows.to_dicts()]
    out.sort(key=lambda x: (x.depth, x.direction, x.paper))
    return out[:limit]
