"""BibTeX files -> paper records, with bibtexparser 2.x.

LaTeX escapes become Unicode (bibtexparser's ``LatexDecodingMiddleware``), names are split
into parts. A malformed entry is reported with its line and skipped; a duplicate key is
reported as a warning and its entry still read (identity comes from DOI/arXiv/title, not
from the citation key).
"""

from __future__ import annotations

import logging
import re

import bibtexparser
from bibtexparser import middlewares as mw
from bibtexparser.model import DuplicateBlockKeyBlock, Entry

from ingest.academic.decode import decode_text
from ingest.academic.identity import (
    normalize_arxiv,
    normalize_doi,
    normalize_rfc,
    obsoleted_rfcs,
    rfc_doi,
)
from ingest.academic.records import Issue, PaperRecord, ParseResult, RecordAuthor

__all__ = ["parse_bibtex"]

_KINDS = {"book": "book", "inbook": "book", "booklet": "book", "manual": "doc",
          "online": "doc", "webpage": "doc", "electronic": "doc", "standard": "standard",
          "software": "software", "misc": "paper"}
# the splitter logs each failed block; those are returned as issues instead
logging.getLogger("bibtexparser").addHandler(logging.NullHandler())
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")


class _LatexWhereNeeded(mw.LatexDecodingMiddleware):
    """bibtexparser's LaTeX decoding, for the values that hold LaTeX. It runs pylatexenc on
    every value, ~1 ms each: 30x the cost of parsing on generated entries, while most values
    hold no backslash or tilde (braces are dropped by :func:`_value` anyway)."""

    def _transform_python_value_string(self, python_string: str) -> tuple[str, str]:
        if "\\" not in python_string and "~" not in python_string:
            return python_string, ""
        return super()._transform_python_value_string(python_string)


def _middleware() -> list:
    return [mw.NormalizeFieldKeys(), _LatexWhereNeeded(allow_inplace_modification=True),
            mw.SeparateCoAuthors(), mw.SplitNameParts()]


def parse_bibtex(data: bytes | str, *, path: str = "") -> ParseResult:
    """Every well-formed entry of a BibTeX file as a record; bad ones as issues."""
    text, issues = decode_text(data, path=path) if isinstance(data, bytes) else (data, [])
    result = ParseResult(issues=issues)
    if text is None:
        return result
    try:
        library = bibtexparser.parse_string(text, append_middleware=_middleware())
    except Exception as exc:  # bibtexparser raises on states it calls its own bugs
        result.issues.append(Issue(path, 1, f"BibTeX parser failed: {exc}"))
        return result
    entries = [(e.start_line, e) for e in library.entries]
    for block in library.failed_blocks:
        line = block.start_line + 1
        if isinstance(block, DuplicateBlockKeyBlock):
            result.issues.append(Issue(path, line, f"duplicate key {block.key!r}; entry read "
                                                   "anyway", "warning"))
            again = bibtexparser.parse_string(block.raw, append_middleware=_middleware())
            entries.extend((block.start_line, e) for e in again.entries)
            continue
        error = getattr(block, "error", None)
        message = " ".join(str(getattr(error, "abort_reason", error) or "").split())
        result.issues.append(Issue(path, line, f"malformed BibTeX entry skipped: "
                                               f"{message or 'syntax error'}"))
    for start, entry in sorted(entries, key=lambda e: e[0]):
        record = _record(entry, path, start + 1)
        if isinstance(record, Issue):
            result.issues.append(record)
        else:
            result.records.append(record)
    return result


def _value(entry: Entry, name: str) -> str:
    field = entry.fields_dict.get(name)
    if field is None or not isinstance(field.value, str):
        return ""
    return " ".join(field.value.replace("{", "").replace("}", "").split())


def _authors(entry: Entry) -> tuple[RecordAuthor, ...]:
    field = entry.fields_dict.get("author")
    if field is None:
        return ()
    out = []
    for name in field.value if isinstance(field.value, list) else [field.value]:
        if isinstance(name, mw.NameParts):
            full = " ".join([*name.first, *name.von, *name.last, *name.jr])
        else:
            full = str(name)
        full = " ".join(full.replace("{", "").replace("}", "").split())
        if full and full.lower() != "others":
            out.append(RecordAuthor(full))
    return tuple(out)


def _record(entry: Entry, path: str, line: int) -> PaperRecord | Issue:
    source = f"bibtex:{path}:{line}"
    doi = normalize_doi(_value(entry, "doi"))
    url = _value(entry, "url")
    arxiv = ""
    if _value(entry, "archiveprefix").lower() == "arxiv" or \
            _value(entry, "eprinttype").lower() == "arxiv":
        arxiv = normalize_arxiv(_value(entry, "eprint"))
    if not arxiv and url:
        arxiv = normalize_arxiv(url)
    if not doi and url:
        doi = normalize_doi(url)
    kind = _KINDS.get(entry.entry_type.lower(), "paper")
    series = _value(entry, "series").lower()
    rfc = None
    if "request for comments" in series or entry.key.lower().startswith("rfc"):
        rfc = normalize_rfc(_value(entry, "number") or entry.key)
    if rfc is not None:
        kind, doi = "rfc", doi or rfc_doi(rfc)
    title = _value(entry, "title")
    year_text = _value(entry, "year") or _value(entry, "date")
    year_match = _YEAR.search(year_text)
    if year_text and not year_match:
        return Issue(path, line, f"entry {entry.key!r}: year {year_text!r} is not a year; "
                                 "entry skipped")
    year = int(year_match.group(1)) if year_match else None
    if not title and not doi and not arxiv:
        return Issue(path, line, f"entry {entry.key!r} has no title, DOI or arXiv id; skipped")
    abstract = _value(entry, "abstract")
    replaces = [x.strip() for name in ("obsoletes", "retracts")
                for x in _value(entry, name).split(",") if x.strip()]
    if kind == "rfc":
        replaces += obsoleted_rfcs(abstract)
    venue = (_value(entry, "journal") or _value(entry, "booktitle")
             or _value(entry, "publisher") or _value(entry, "howpublished"))
    return PaperRecord(
        format="bibtex", source=source, kind=kind, doi=doi, arxiv=arxiv, title=title,
        year=year, venue=venue, abstract=abstract, url=url, authors=_authors(entry),
        supersedes=tuple(dict.fromkeys(replaces)),
        status="retracted" if _value(entry, "retracted").lower() in ("true", "yes") else "active")
