"""OpenAlex works (``doi``, ``ids``, ``display_name``, ``publication_year``,
``authorships``, ``primary_location``, ``referenced_works``, ``topics``,
``abstract_inverted_index``, ``is_retracted``) -> records."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ingest.academic.catalogue import kind_from_ids, replaces, text, year
from ingest.academic.identity import normalize_arxiv, normalize_doi
from ingest.academic.records import PaperRecord, RecordAuthor

__all__ = ["abstract_from_inverted_index", "openalex_record"]

_OPENALEX_KINDS = {"book": "book", "book-chapter": "book", "monograph": "book",
                   "standard": "standard", "report": "paper", "dataset": "doc"}


def abstract_from_inverted_index(index: Mapping[str, list[int]] | None) -> str:
    """OpenAlex ships abstracts as {word: [positions]}; put the words back in order."""
    if not index:
        return ""
    slots: dict[int, str] = {}
    for word, positions in index.items():
        for pos in positions or ():
            slots[pos] = word
    return " ".join([slots[i] for i in sorted(slots) if isinstance(i, int)])


def openalex_record(obj: Mapping[str, Any], source: str) -> PaperRecord:
    ids = obj.get("ids") or {}
    doi = normalize_doi(text(obj.get("doi") or ids.get("doi") or ""))
    arxiv = ""
    if doi.startswith("10.48550/arxiv."):
        arxiv, doi = normalize_arxiv(doi), ""
    location = obj.get("primary_location") or {}
    venue_source = location.get("source") or {}
    landing = text(location.get("landing_page_url") or "")
    if not arxiv and "arxiv.org" in landing:
        arxiv = normalize_arxiv(landing)
    openalex = text(obj.get("id") or ids.get("openalex") or "").rsplit("/", 1)[-1]
    authors = []
    for a in obj.get("authorships") or ():
        person = a.get("author") or {}
        name = text(person.get("display_name") or a.get("raw_author_name") or "")
        if not name:
            continue
        orcid = text(person.get("orcid") or "").rsplit("/", 1)[-1]
        insts = [text(i.get("display_name")) for i in a.get("institutions") or ()
                 if i.get("display_name")]
        authors.append(RecordAuthor(name, orcid, "; ".join(insts)))
    topics = tuple((text(t.get("display_name")), float(t.get("score") or 0.0))
                   for t in obj.get("topics") or () if t.get("display_name"))
    kind = kind_from_ids(doi, _OPENALEX_KINDS.get(text(obj.get("type") or ""), "paper"))
    abstract = abstract_from_inverted_index(obj.get("abstract_inverted_index"))
    refs = tuple(f"openalex:{text(w).rsplit('/', 1)[-1]}"
                 for w in obj.get("referenced_works") or () if w)
    return PaperRecord(
        format="openalex", source=source, kind=kind, doi=doi, arxiv=arxiv,
        title=text(obj.get("display_name") or obj.get("title") or ""),
        year=year(obj.get("publication_year")), venue=text(venue_source.get("display_name")
                                                              or ""),
        abstract=abstract, url=landing, ext_ids=(f"openalex:{openalex}",) if openalex else (),
        authors=tuple(authors), topics=topics, references=refs,
        supersedes=replaces(obj, kind, abstract),
        status="retracted" if obj.get("is_retracted") else "active")
