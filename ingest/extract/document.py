"""Non-code files that matter to history and references (Markdown, reStructuredText, TOML and
YAML configs): a ``File`` node with its line count and no symbols, so commits, papers and
search can point at them. Nothing is parsed: only the lines are counted."""

from __future__ import annotations

from ingest.extract.common import count_lines
from ingest.extract.rows import FileExtract, SymbolRow

__all__ = ["DOCUMENT_EXTENSIONS", "definitions", "extract"]

#: File extension -> language (schema.Language value) of the documents kept as files.
DOCUMENT_EXTENSIONS: dict[str, str] = {
    ".md": "markdown", ".markdown": "markdown",
    ".rst": "restructuredtext",
    ".toml": "toml",
    ".yaml": "yaml", ".yml": "yaml",
}


def extract(data: bytes, path: str, *, language: str) -> FileExtract:
    return FileExtract(language=language, loc=count_lines(data))


def definitions(data: bytes, path: str, *, language: str) -> list[SymbolRow]:
    return []
