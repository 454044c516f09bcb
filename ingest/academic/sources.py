"""Which parser reads which file: by name and extension, then by content for JSON."""

from __future__ import annotations

from pathlib import PurePath

from ingest.academic.bibtex import parse_bibtex
from ingest.academic.cff import parse_cff
from ingest.academic.codemeta import parse_codemeta
from ingest.academic.jsonrecords import parse_json_records
from ingest.academic.records import Issue, ParseResult

__all__ = ["is_bibliography", "parse_bibliography"]


def is_bibliography(path: str) -> bool:
    """Files ``vgdb ingest`` reads as bibliographies when it meets them in a repository."""
    name = PurePath(path).name.lower()
    return name.endswith(".bib") or name in ("citation.cff", "codemeta.json")


def parse_bibliography(data: bytes, *, path: str) -> ParseResult:
    """Parse one bibliographic file; never raises for bad content (issues say why)."""
    name = PurePath(path).name.lower()
    if name.endswith(".bib") or name.endswith(".bibtex"):
        return parse_bibtex(data, path=path)
    if name.endswith(".cff"):
        return parse_cff(data, path=path)
    if name == "codemeta.json":
        return parse_codemeta(data, path=path)
    if name.endswith((".json", ".jsonl", ".ndjson")):
        return parse_json_records(data, path=path)
    result = ParseResult()
    result.issues.append(Issue(path, 0, "unknown bibliography format (expected .bib, "
                                        "CITATION.cff, codemeta.json, .json or .jsonl)"))
    return result
