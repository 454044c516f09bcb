"""The record every bibliographic parser returns, and the authority order of sources.

Parsers are pure (bytes in, records and issues out) so they can run anywhere; identity and
merging happen afterwards, over records from every source at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

__all__ = ["AUTHORITY", "Authority", "Issue", "PaperRecord", "ParseResult", "RecordAuthor"]


class Authority(IntEnum):
    """How much a source is trusted for a paper's metadata; the higher value wins a conflict.

    Curated bibliographic databases know a work best; a project's own citation files were
    written by its authors; BibTeX files are copied around by hand; a reference found in
    text only tells an identifier and maybe a title.
    """

    REFERENCE = 5  # a work listed among another record's references (a stub)
    TEXT = 10  # a reference found in code, docs, a commit message or a decision
    BIBTEX = 20
    CODEMETA = 30
    CFF = 30
    SEMANTIC_SCHOLAR = 40
    OPENALEX = 40


#: format name -> authority (the ``format`` of :class:`PaperRecord`)
AUTHORITY: dict[str, int] = {
    "reference": Authority.REFERENCE, "text": Authority.TEXT, "bibtex": Authority.BIBTEX,
    "codemeta": Authority.CODEMETA,
    "cff": Authority.CFF, "s2": Authority.SEMANTIC_SCHOLAR, "openalex": Authority.OPENALEX,
}


@dataclass(frozen=True, slots=True)
class RecordAuthor:
    name: str
    orcid: str = ""
    affiliation: str = ""


@dataclass(frozen=True, slots=True)
class PaperRecord:
    """One bibliographic record as a source gave it (identifiers not yet normalized).

    ``references`` are identifiers of cited works as the source wrote them (DOI, arXiv id,
    OpenAlex/S2 ids are kept only when they can be turned into a DOI or arXiv id) or
    ``(title, year)`` pairs; ``source`` is ``<format>:<file>:<line or record>``.
    """

    format: str
    source: str
    kind: str = "paper"
    doi: str = ""
    arxiv: str = ""
    title: str = ""
    year: int | None = None
    venue: str = ""
    abstract: str = ""
    url: str = ""
    #: ids in other catalogues (``openalex:W2100837269``, ``s2:<paperId>``)
    ext_ids: tuple[str, ...] = ()
    authors: tuple[RecordAuthor, ...] = ()
    topics: tuple[tuple[str, float], ...] = ()
    references: tuple[str | tuple[str, int | None], ...] = ()
    #: ids of works this one replaces (RFC "obsoletes", a retraction notice's target)
    supersedes: tuple[str, ...] = ()
    #: active | retracted
    status: str = "active"
    #: a record known only from a reference (stub), not from a bibliographic source
    stub: bool = False

    @property
    def authority(self) -> int:
        return AUTHORITY.get(self.format, Authority.TEXT)


@dataclass(frozen=True, slots=True)
class Issue:
    """A problem with one record or line; the rest of the file is still ingested."""

    file: str
    line: int
    message: str
    severity: str = "error"

    def to_dict(self) -> dict[str, object]:
        return {"file": self.file, "line": self.line, "severity": self.severity,
                "message": self.message}


@dataclass
class ParseResult:
    records: list[PaperRecord] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)
