"""Semantic Scholar papers (``paperId``, ``externalIds``, ``title``, ``year``, ``venue``,
``authors``, ``references``, ``abstract``, ``fieldsOfStudy``) -> records."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ingest.academic.catalogue import kind_from_ids, replaces, text, year
from ingest.academic.identity import (
    normalize_arxiv,
    normalize_doi,
    normalize_rfc,
    parse_identifier,
    rfc_doi,
)
from ingest.academic.records import PaperRecord, RecordAuthor

__all__ = ["semantic_scholar_record"]


def _s2_ids(external: Mapping[str, Any] | None) -> tuple[str, str]:
    external = external or {}
    doi = normalize_doi(text(external.get("DOI") or ""))
    arxiv = normalize_arxiv(text(external.get("ArXiv") or ""))
    if doi.startswith("10.48550/arxiv."):
        arxiv, doi = arxiv or normalize_arxiv(doi), ""
    return doi, arxiv


def _s2_reference(ref: Any) -> str | tuple[str, int | None] | None:
    if isinstance(ref, str):
        found = parse_identifier(ref)
        return f"{found[0]}:{found[1]}" if found else f"s2:{ref}"
    if not isinstance(ref, dict):
        return None
    doi, arxiv = _s2_ids(ref.get("externalIds"))
    if doi:
        return f"doi:{doi}"
    if arxiv:
        return f"arxiv:{arxiv}"
    if ref.get("paperId"):
        return f"s2:{ref['paperId']}"
    if ref.get("title"):
        return (text(ref["title"]), year(ref.get("year")))
    return None


def semantic_scholar_record(obj: Mapping[str, Any], source: str) -> PaperRecord:
    doi, arxiv = _s2_ids(obj.get("externalIds"))
    number = normalize_rfc(text((obj.get("externalIds") or {}).get("RFC") or "")) \
        if (obj.get("externalIds") or {}).get("RFC") else None
    if number is not None and not doi:
        doi = rfc_doi(number)
    authors = tuple(RecordAuthor(text(a.get("name"))) for a in obj.get("authors") or ()
                    if isinstance(a, dict) and a.get("name"))
    refs = tuple(r for r in map(_s2_reference, obj.get("references") or ()) if r)
    kind = kind_from_ids(doi, "book" if "Book" in (obj.get("publicationTypes") or ())
                          else "paper")
    abstract = text(obj.get("abstract") or "")
    return PaperRecord(
        format="s2", source=source, kind=kind, doi=doi, arxiv=arxiv,
        title=text(obj.get("title") or ""), year=year(obj.get("year")),
        venue=text(obj.get("venue") or ""), abstract=abstract, url=text(obj.get("url") or ""),
        ext_ids=(f"s2:{obj['paperId']}",) if obj.get("paperId") else (), authors=authors,
        topics=tuple((text(f), 1.0) for f in obj.get("fieldsOfStudy") or () if f),
        references=refs, supersedes=replaces(obj, kind, abstract),
        status="retracted" if obj.get("isRetracted") else "active")
