"""Rust extractor: items (fns, structs, enums, unions, traits, consts, statics), impl methods as
``Type.method``, ``use`` leaves and ``mod x;`` as imports, calls (macros are skipped), and
``impl Trait for Type`` / supertraits as heritage, declared in ``queries/rust.scm`` (with the
hooks of :mod:`ingest.extract.rust_paths`) and run by the query engine."""

from __future__ import annotations

from ingest.extract.languages import extract as _extract_language
from ingest.extract.rows import FileExtract

__all__ = ["extract"]


def extract(data: bytes, path: str, *, language: str = "rust") -> FileExtract:
    """Symbols, imports, calls and trait relations of one Rust file."""
    return _extract_language(data, path, language=language)
