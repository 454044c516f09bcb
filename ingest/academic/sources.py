"""Which parser reads which file: by name and extension, then by content for JSON."""

from __future__ import annotations

from dataclasses import replace
from pathlib import PurePath

from ingest.academic.records import Issue, ParseResult
from ingest.secrets import redact_text

__all__ = ["is_bibliography", "parse_bibliography"]


def is_bibliography(path: str) -> bool:
    """Files ``vgdb ingest`` reads as bibliographies when it meets them in a repository."""
    name = PurePath(path).name.lower()
    return name.endswith(".bib") or name in ("citation.cff", "codemeta.json")


def parse_bibliography(data: bytes, *, path: str) -> ParseResult:
    """Parse one bibliographic file; never raises for bad content (issues say why). Secrets in
    its free text (title, abstract, venue) are redacted, with a warning per redaction."""
    result = _parse(data, path=path)
    for index, record in enumerate(result.records):
        changed = {}
        for name in ("title", "abstract", "venue"):
            text, redactions = redact_text(getattr(record, name), where=f"{record.source} {name}")
            if redactions:
                changed[name] = text
                result.issues.extend(Issue(path, 0, f"{r.where}: redacted a secret ({r.detector})",
                                           severity="warning") for r in redactions)
        if changed:
            result.records[index] = replace(record, **changed)
    return result


def _parse(data: bytes, *, path: str) -> ParseResult:
    # each parser is imported when a file of its format is met: bibtexparser and yaml cost
    # ~50 ms, which an update of a tree without bibliographies does not pay
    name = PurePath(path).name.lower()
    if name.endswith(".bib") or name.endswith(".bibtex"):
        from ingest.academic.bibtex import parse_bibtex

        return parse_bibtex(data, path=path)
    if name.endswith(".cff"):
        from ingest.academic.cff import parse_cff

        return parse_cff(data, path=path)
    if name == "codemeta.json":
        from ingest.academic.codemeta import parse_codemeta

        return parse_codemeta(data, path=path)
    if name.endswith((".json", ".jsonl", ".ndjson")):
        from ingest.academic.jsonrecords import parse_json_records

        return parse_json_records(data, path=path)
    result = ParseResult()
    result.issues.append(Issue(path, 0, "unknown bibliography format (expected .bib, "
                                        "CITATION.cff, codemeta.json, .json or .jsonl)"))
    return result
