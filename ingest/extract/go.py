"""Go extractor: functions, methods (``Type.Method``), named types, package-level var/const,
imports, calls and struct/interface embedding (recorded as ``extends``), all declared in
``queries/go.scm`` and run by the query engine (:mod:`ingest.extract.engine`)."""

from __future__ import annotations

from ingest.extract.languages import extract as _extract_language
from ingest.extract.rows import FileExtract

__all__ = ["extract"]


def extract(data: bytes, path: str, *, language: str = "go") -> FileExtract:
    """Symbols, imports, calls and embeddings of one Go file."""
    return _extract_language(data, path, language=language)
