"""Rows of a query-engine extract as plain tuples, for the golden tests (test_lang_*)."""

from __future__ import annotations

from ingest.extract import extract
from ingest.extract.rows import FileExtract


def parse(language: str, source: str, path: str) -> FileExtract:
    return extract(language, source.encode(), path)


def symbols(fx: FileExtract) -> list[tuple[str, str, int, int, str, bool]]:
    """(qualname, kind, start line, end line, parent, is_test) in source order."""
    return [(s.qualname, str(s.kind), s.start_line, s.end_line, s.parent, s.is_test)
            for s in fx.symbols]


def imports(fx: FileExtract) -> list[tuple[str, str, str, int]]:
    """(module, name, alias, line)."""
    return [(i.module, i.name, i.alias, i.line) for i in fx.imports]


def calls(fx: FileExtract) -> list[tuple[str, str, int]]:
    """(scope, callee, line)."""
    return [tuple(c) for c in fx.calls]


def inherits(fx: FileExtract) -> list[tuple[str, str, int, str]]:
    """(class, base, line, kind)."""
    return [tuple(i) for i in fx.inherits]
