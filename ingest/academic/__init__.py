"""The academic domain: bibliographic files and catalogue records -> papers, authors,
topics and citations, merged into one node per identity (docs/academic.md).

- :mod:`~ingest.academic.identity` — DOI / arXiv / RFC / title normalization and paper ids;
- :mod:`~ingest.academic.bibtex`, :mod:`~ingest.academic.cff`,
  :mod:`~ingest.academic.codemeta`, :mod:`~ingest.academic.openalex`,
  :mod:`~ingest.academic.semantic_scholar` (read by :mod:`~ingest.academic.jsonrecords`
  from JSON or JSON lines) — pure parsers, bytes in, :class:`PaperRecord` out;
- :mod:`~ingest.academic.merge` — identity and authority merge, planned against the graph;
- :mod:`~ingest.academic.load` — ``vgdb ingest-papers``;
- :mod:`~ingest.academic.links` — references found in a repository's code and text.
"""

from __future__ import annotations

from typing import Any

from ingest.academic.identity import (
    normalize_arxiv,
    normalize_doi,
    normalize_rfc,
    paper_id,
    parse_identifier,
    title_key,
)
from ingest.academic.records import AUTHORITY, Authority, Issue, PaperRecord, RecordAuthor
from ingest.academic.sources import is_bibliography, parse_bibliography

__all__ = [
    "AUTHORITY", "Authority", "Issue", "PaperIngestSummary", "PaperRecord", "RecordAuthor",
    "apply_records", "ingest_papers", "is_bibliography", "normalize_arxiv", "normalize_doi",
    "normalize_rfc", "paper_id", "parse_bibliography", "parse_identifier", "title_key",
]


def __getattr__(name: str) -> Any:
    """The loader (``vgdb ingest-papers``) on first use: it imports the database layer,
    which the parse workers scanning texts for references (:mod:`ingest.academic.scan`)
    must not pay for (PEP 562)."""
    if name in ("PaperIngestSummary", "apply_records", "ingest_papers"):
        from ingest.academic import load

        return getattr(load, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
