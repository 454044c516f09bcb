"""``codemeta.json`` (CodeMeta 2/3, JSON-LD) -> records.

The software itself is a record when it has a DOI; ``referencePublication`` and
``citation`` items become records, cited by the software record.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ingest.academic.decode import decode_text
from ingest.academic.identity import normalize_arxiv, normalize_doi
from ingest.academic.records import Issue, PaperRecord, ParseResult, RecordAuthor

__all__ = ["parse_codemeta"]

_KINDS = {"ScholarlyArticle": "paper", "Book": "book", "SoftwareSourceCode": "software",
          "SoftwareApplication": "software", "WebPage": "doc", "BlogPosting": "blog",
          "Report": "paper", "Thesis": "paper"}


def parse_codemeta(data: bytes | str, *, path: str = "codemeta.json") -> ParseResult:
    text, issues = decode_text(data, path=path) if isinstance(data, bytes) else (data, [])
    result = ParseResult(issues=issues)
    if text is None:
        return result
    try:
        doc = json.loads(text)
    except RecursionError:  # json recurses per level of nesting
        result.issues.append(Issue(path, 1, "invalid JSON: nested too deeply"))
        return result
    except ValueError as exc:
        result.issues.append(Issue(path, getattr(exc, "lineno", 1), f"invalid JSON: {exc}"))
        return result
    if not isinstance(doc, dict):
        result.issues.append(Issue(path, 1, "codemeta.json is not a JSON object"))
        return result
    parts: list[tuple[str, Any]] = []
    for key in ("referencePublication", "citation"):
        value = doc.get(key)
        items = value if isinstance(value, list) else [value] if value else []
        parts += [(f"{key}[{i}]", item) for i, item in enumerate(items)]
    for where, item in parts:
        record = _record(item, f"codemeta:{path}:{where}", path, where, result.issues)
        if record is not None:
            result.records.append(record)
    own = _record(doc, f"codemeta:{path}:software", path, "software", [], kind="software")
    if own is not None and own.doi:
        refs = tuple(f"doi:{r.doi}" if r.doi else f"arxiv:{r.arxiv}" if r.arxiv
                     else (r.title, r.year) for r in result.records)
        result.records.insert(0, PaperRecord(**{
            **{n: getattr(own, n) for n in own.__slots__}, "references": refs}))
    return result


def _ident(item: Mapping[str, Any]) -> tuple[str, str]:
    values = []
    for key in ("identifier", "@id", "sameAs", "url"):
        value = item.get(key)
        values += value if isinstance(value, list) else [value]
    doi = arxiv = ""
    for value in values:
        if isinstance(value, Mapping):
            value = value.get("value") or value.get("@id") or value.get("propertyID")
        text = str(value or "")
        doi = doi or normalize_doi(text)
        arxiv = arxiv or (normalize_arxiv(text) if "arxiv" in text.lower() else "")
    return doi, arxiv


def _authors(items: Any) -> tuple[RecordAuthor, ...]:
    items = items if isinstance(items, list) else [items] if items else []
    out = []
    for a in items:
        if isinstance(a, str):
            out.append(RecordAuthor(a))
            continue
        if not isinstance(a, Mapping):
            continue
        name = " ".join(str(a.get(k)) for k in ("givenName", "familyName") if a.get(k))
        name = name or str(a.get("name") or "")
        orcid = str(a.get("@id") or "")
        affiliation = a.get("affiliation") or ""
        if isinstance(affiliation, Mapping):
            affiliation = affiliation.get("name") or ""
        if name:
            out.append(RecordAuthor(" ".join(name.split()),
                                    orcid.rsplit("/", 1)[-1] if "orcid.org" in orcid else "",
                                    str(affiliation)))
    return tuple(out)


def _record(item: Any, source: str, path: str, where: str, issues: list[Issue], *,
            kind: str = "") -> PaperRecord | None:
    if isinstance(item, str):
        item = {"identifier": item}
    if not isinstance(item, Mapping):
        issues.append(Issue(path, 1, f"{where}: not an object; skipped"))
        return None
    doi, arxiv = _ident(item)
    title = " ".join(str(item.get("name") or item.get("headline") or "").split())
    date = str(item.get("datePublished") or item.get("dateCreated") or "")
    year = int(date[:4]) if date[:4].isdigit() else None
    if not (title or doi or arxiv):
        if not kind:
            issues.append(Issue(path, 1, f"{where}: no title, DOI or arXiv id; skipped"))
        return None
    venue = item.get("isPartOf") or item.get("publisher") or ""
    if isinstance(venue, Mapping):
        venue = venue.get("name") or ""
    return PaperRecord(
        format="codemeta", source=source,
        kind=kind or _KINDS.get(str(item.get("@type") or ""), "paper"), doi=doi, arxiv=arxiv,
        title=title, year=year, venue=str(venue),
        abstract=" ".join(str(item.get("description") or "").split()),
        url=str(item.get("url") or item.get("codeRepository") or ""),
        authors=_authors(item.get("author")))
