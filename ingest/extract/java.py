"""Java extractor: types (nested as ``Outer.Inner``), methods, constructors, fields, imports,
method invocations and ``new`` expressions, extends/implements, all declared in
``queries/java.scm`` and run by the query engine (:mod:`ingest.extract.engine`)."""

from __future__ import annotations

from ingest.extract.languages import extract as _extract_language
from ingest.extract.rows import FileExtract

__all__ = ["extract"]


def extract(data: bytes, path: str, *, language: str = "java") -> FileExtract:
    """Symbols, imports, calls and heritage of one Java file."""
    return _extract_language(data, path, language=language)
