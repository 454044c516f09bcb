"""JavaScript / TypeScript / TSX extractor, declared in ``queries/ecmascript.scm`` (shared),
``queries/javascript.scm`` and ``queries/typescript.scm`` (with the hooks of
:mod:`ingest.extract.ecmascript_hooks`) and run by the query engine."""

from __future__ import annotations

from ingest.extract.languages import extract as _extract_language
from ingest.extract.rows import FileExtract

__all__ = ["extract"]


def extract(data: bytes, path: str, *, language: str) -> FileExtract:
    """Symbols, imports, calls and heritage of one JavaScript/TypeScript file."""
    return _extract_language(data, path, language=language)
