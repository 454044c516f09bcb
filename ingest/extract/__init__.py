"""Per-language extractors: ``extract(data, path) -> FileExtract``, pure functions.

:func:`language_for` picks the grammar from the file name; :func:`extract` dispatches.
"""

from __future__ import annotations

import importlib
from pathlib import PurePosixPath

from ingest.extract.document import DOCUMENT_EXTENSIONS
from ingest.extract.languages import SPECS
from ingest.extract.rows import AssignRow, CallRow, FileExtract, ImportRow, InheritRow, SymbolRow

__all__ = [
    "EXTENSIONS", "AssignRow", "CallRow", "FileExtract", "ImportRow", "InheritRow", "SymbolRow",
    "code_language_for", "definitions", "extract", "language_for",
]

#: File extension -> language (schema.Language value).
EXTENSIONS: dict[str, str] = {
    ".py": "python", ".pyi": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".java": "java",
    ".rs": "rust",
    ".ipynb": "jupyter",
    **DOCUMENT_EXTENSIONS,
    **{ext: spec.name for spec in SPECS.values() for ext in spec.extensions},
}

#: Language -> module implementing ``extract(data: bytes, path: str) -> FileExtract``.
_MODULES: dict[str, str] = {
    "python": "ingest.extract.python",
    "javascript": "ingest.extract.javascript",
    "typescript": "ingest.extract.javascript",
    "tsx": "ingest.extract.javascript",
    "go": "ingest.extract.go",
    "java": "ingest.extract.java",
    "rust": "ingest.extract.rust",
    "jupyter": "ingest.extract.notebook",
    **{name: "ingest.extract.document" for name in DOCUMENT_EXTENSIONS.values()},
    **{name: "ingest.extract.languages" for name in SPECS},
}


def language_for(path: str) -> str | None:
    """The language of ``path`` by extension, or None when no grammar handles it."""
    return EXTENSIONS.get(PurePosixPath(path).suffix.lower())


def code_language_for(path: str) -> str | None:
    """:func:`language_for`, but None for documents (Markdown, TOML, ...): files with no
    symbols, which a diff treats as not code (they start no impact analysis)."""
    language = language_for(path)
    return None if language in _DOCUMENTS else language


_DOCUMENTS = frozenset(DOCUMENT_EXTENSIONS.values())


def extract(language: str, data: bytes, path: str) -> FileExtract:
    """Parse ``data`` (the bytes of ``path``) with the grammar for ``language``."""
    module = importlib.import_module(_MODULES[language])
    result: FileExtract = module.extract(data, path, language=language)
    return result


def definitions(language: str, data: bytes, path: str) -> list[SymbolRow]:
    """The symbols :func:`extract` would find, by the cheapest route the language offers."""
    module = importlib.import_module(_MODULES[language])
    if hasattr(module, "definitions"):
        rows: list[SymbolRow] = module.definitions(data, path, language=language)
        return rows
    return extract(language, data, path).symbols
