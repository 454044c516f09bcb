"""OpenAlex works and Semantic Scholar papers (JSON, a JSON list, or JSON lines) -> records.

Offline copies of both catalogues' records: OpenAlex's work schema (``doi``, ``ids``,
``display_name``, ``publication_year``, ``authorships``, ``primary_location``,
``referenced_works``, ``topics``, ``abstract_inverted_index``) and Semantic Scholar's paper
schema (``paperId``, ``externalIds``, ``title``, ``year``, ``venue``, ``authors``,
``references``). A broken JSON line is reported with its number and the rest is read; a
record without a title is kept when it has an identifier, otherwise reported.

Two optional fields, beyond the catalogues' schemas, say what a work replaces:
``obsoletes`` (identifiers, e.g. ``["RFC 2616"]``) and ``retracts`` (for a retraction notice).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from ingest.academic.decode import decode_text
from ingest.academic.openalex import abstract_from_inverted_index, openalex_record
from ingest.academic.records import Issue, ParseResult
from ingest.academic.semantic_scholar import semantic_scholar_record

__all__ = ["abstract_from_inverted_index", "parse_json_records", "record_format"]


def record_format(obj: Mapping[str, Any]) -> str:
    """'openalex', 's2' or '' from the keys a record carries."""
    if "paperId" in obj or "externalIds" in obj:
        return "s2"
    if any(k in obj for k in ("display_name", "publication_year", "authorships",
                              "referenced_works", "abstract_inverted_index")) or \
            str(obj.get("id", "")).startswith("https://openalex.org/"):
        return "openalex"
    return ""


def _objects(text: str, path: str, issues: list[Issue]) -> Iterator[tuple[int, Any]]:
    """(line, object) for a JSON document (an object, a list, or ``{"results": [...]}``)
    or, when that does not parse, for each JSON line."""
    stripped = text.lstrip()
    if stripped.startswith(("[", "{")):
        try:
            doc = json.loads(text)
        except (ValueError, RecursionError):  # read line by line below, each reported
            doc = None
        if doc is not None:
            items = doc.get("results", [doc]) if isinstance(doc, dict) else doc
            if isinstance(items, list):
                yield from ((n, item) for n, item in enumerate(items, start=1))
                return
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except RecursionError:  # json recurses per level of nesting
            issues.append(Issue(path, number, "broken JSON line skipped: nested too deeply"))
        except ValueError as exc:
            issues.append(Issue(path, number, f"broken JSON line skipped: {exc}"))


def parse_json_records(data: bytes | str, *, path: str = "",
                       default_format: str = "") -> ParseResult:
    """Records of an OpenAlex or Semantic Scholar export (per record, by its keys)."""
    text, issues = decode_text(data, path=path) if isinstance(data, bytes) else (data, [])
    result = ParseResult(issues=issues)
    if text is None:
        return result
    for line, obj in _objects(text, path, result.issues):
        if not isinstance(obj, dict):
            result.issues.append(Issue(path, line, "record is not a JSON object; skipped"))
            continue
        fmt = record_format(obj) or default_format
        if not fmt:
            result.issues.append(Issue(path, line, "neither an OpenAlex work nor a Semantic "
                                                   "Scholar paper; skipped"))
            continue
        try:
            record = (openalex_record if fmt == "openalex" else semantic_scholar_record)(
                obj, f"{fmt}:{path}:{line}")
        except (TypeError, ValueError, AttributeError, RecursionError) as exc:
            result.issues.append(Issue(path, line, f"malformed {fmt} record skipped: {exc}"))
            continue
        if not (record.title or record.doi or record.arxiv):
            result.issues.append(Issue(path, line, "record has no title, DOI or arXiv id; "
                                                   "skipped"))
            continue
        if not record.title:
            result.issues.append(Issue(path, line, "record has no title; kept by its "
                                                   "identifier", "warning"))
        result.records.append(record)
    return result
