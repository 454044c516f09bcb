"""``CITATION.cff`` (Citation File Format 1.2, YAML) -> records.

The software itself becomes a record when it has a DOI (a Zenodo deposit, say); its
``preferred-citation`` and every entry of ``references`` become records too, and the
software record cites them. Records are located by their YAML path (``references[2]``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

from ingest.academic.decode import decode_text
from ingest.academic.identity import normalize_arxiv, normalize_doi, normalize_rfc, rfc_doi
from ingest.academic.records import Issue, PaperRecord, ParseResult, RecordAuthor

__all__ = ["parse_cff"]

_KINDS = {"article": "paper", "conference-paper": "paper", "book": "book", "manual": "doc",
          "report": "paper", "standard": "standard", "software": "software",
          "software-code": "software", "website": "doc", "blog": "blog", "thesis": "paper",
          "pamphlet": "doc", "proceedings": "paper"}


def parse_cff(data: bytes | str, *, path: str = "CITATION.cff") -> ParseResult:
    text, issues = decode_text(data, path=path) if isinstance(data, bytes) else (data, [])
    result = ParseResult(issues=issues)
    if text is None:
        return result
    try:
        doc = yaml.safe_load(text)
    except RecursionError:  # PyYAML recurses per level of nesting
        result.issues.append(Issue(path, 1, "invalid YAML: nested too deeply"))
        return result
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        result.issues.append(Issue(path, line, f"invalid YAML: {getattr(exc, 'problem', exc)}"))
        return result
    if not isinstance(doc, dict):
        result.issues.append(Issue(path, 1, "CITATION.cff is not a YAML mapping"))
        return result
    cited: list[str] = []
    parts: list[tuple[str, Any]] = []
    if doc.get("preferred-citation") is not None:
        parts.append(("preferred-citation", doc["preferred-citation"]))
    parts += [(f"references[{i}]", r) for i, r in enumerate(doc.get("references") or ())]
    for where, item in parts:
        record = _record(item, f"cff:{path}:{where}", path, where, result.issues)
        if record is not None:
            result.records.append(record)
            cited.append((record.doi and f"doi:{record.doi}") or (record.arxiv and
                         f"arxiv:{record.arxiv}") or "")
    own = _record(doc, f"cff:{path}:software", path, "software", [], software=True)
    if own is not None and own.doi:
        refs = tuple(c for c in cited if c) + tuple(
            (r.title, r.year) for r in result.records if not r.doi and not r.arxiv)
        result.records.insert(0, PaperRecord(**{**_fields(own), "references": refs}))
    return result


def _fields(record: PaperRecord) -> dict[str, Any]:
    return {name: getattr(record, name) for name in record.__slots__}


def _authors(items: Any) -> tuple[RecordAuthor, ...]:
    out = []
    for a in items or ():
        if not isinstance(a, Mapping):
            continue
        name = " ".join(str(a.get(k)) for k in ("given-names", "name-particle", "family-names",
                                                  "name-suffix") if a.get(k))
        name = name or str(a.get("name") or "")
        affiliation = a.get("affiliation") or ""
        orcid = str(a.get("orcid") or "").rsplit("/", 1)[-1]
        if name:
            out.append(RecordAuthor(" ".join(name.split()), orcid, str(affiliation)))
    return tuple(out)


def _record(item: Any, source: str, path: str, where: str, issues: list[Issue], *,
            software: bool = False) -> PaperRecord | None:
    if not isinstance(item, Mapping):
        issues.append(Issue(path, 1, f"{where}: not a mapping; skipped"))
        return None
    doi = normalize_doi(str(item.get("doi") or ""))
    for ident in item.get("identifiers") or ():
        if isinstance(ident, Mapping) and ident.get("type") == "doi" and not doi:
            doi = normalize_doi(str(ident.get("value") or ""))
    url = str(item.get("url") or item.get("repository-code") or "")
    arxiv = normalize_arxiv(url) if "arxiv" in url.lower() else ""
    kind = "software" if software else _KINDS.get(str(item.get("type") or ""), "paper")
    title = " ".join(str(item.get("title") or "").split())
    if kind == "standard" or title.upper().startswith("RFC "):
        number = normalize_rfc(title.split(":", 1)[0])
        if number is not None:
            kind, doi = "rfc", doi or rfc_doi(number)
    year = item.get("year")
    if year is None and (item.get("date-released") or item.get("date-published")):
        year = str(item.get("date-published") or item.get("date-released"))[:4]
    try:
        year = int(year) if year not in (None, "") else None
    except (TypeError, ValueError):
        issues.append(Issue(path, 1, f"{where}: year {year!r} is not a number; ignored",
                            "warning"))
        year = None
    if not (title or doi or arxiv):
        if not software:
            issues.append(Issue(path, 1, f"{where}: no title, DOI or arXiv id; skipped"))
        return None
    venue = item.get("journal") or item.get("conference") or item.get("publisher") or ""
    if isinstance(venue, Mapping):
        venue = venue.get("name") or ""
    return PaperRecord(
        format="cff", source=source, kind=kind, doi=doi, arxiv=arxiv, title=title, year=year,
        venue=str(venue), abstract=" ".join(str(item.get("abstract") or "").split()), url=url,
        authors=_authors(item.get("authors")))
