"""One file's extract as columns, made in the parse worker: what the load's frames need.

The Symbol and CodeRef frames of an ingest (:mod:`ingest.frames`) were built in the ingest
process row by row: an attribute read per symbol and column, and the JSON packing of every
file's declarations and call sites, on one core after the workers had finished (the
standard library's load: 0.21-0.23 s CPU then, 0.11-0.12 s now). A worker now turns its
file's rows into lists per column and the packed JSON once, on every core, and the ingest
process only extends lists and builds the ids with polars. No polars here: the workers
never import it.
"""

from __future__ import annotations

import json
from operator import attrgetter
from typing import NamedTuple

from ingest.extract.rows import FileExtract, SymbolRow
from schema import MODULE_QUALNAME, RefKind, SymbolKind

__all__ = ["EXTRACTED_SYMBOL_COLUMNS", "FileColumns", "file_columns", "module_short_name",
           "module_symbol", "pack_refs"]

#: The Symbol frame's columns that come from extraction (attributes of
#: :class:`~ingest.extract.rows.SymbolRow`, with the same names), plus ``parent`` for
#: CONTAINS. A new extracted column of the Symbol table is a new name here.
EXTRACTED_SYMBOL_COLUMNS = ("qualname", "name", "kind", "signature", "docstring",
                            "start_line", "end_line", "visibility", "is_test", "parent")

_SYMBOL_VALUES = attrgetter(*EXTRACTED_SYMBOL_COLUMNS)


class FileColumns(NamedTuple):
    """A file's symbols (the module symbol first) as one list per
    :data:`EXTRACTED_SYMBOL_COLUMNS`, and its CodeRef row: packed declarations, packed
    call sites, and how many of both."""

    symbols: tuple[list, ...]
    decls: str
    calls: str
    count: int


def module_short_name(path: str) -> str:
    """``pkg/__init__.py`` -> ``pkg``; ``pkg/mod.py`` -> ``mod`` (independent of other files,
    so a module symbol never changes because a sibling appeared)."""
    parts = path.split("/")
    stem = parts[-1].split(".", 1)[0]
    if stem in ("__init__", "index", "mod") and len(parts) > 1:
        return parts[-2]
    return stem


def module_symbol(path: str, fx: FileExtract) -> SymbolRow:
    """The file's module symbol (qualname ``<module>``)."""
    return SymbolRow(MODULE_QUALNAME, module_short_name(path), SymbolKind.MODULE.value, 1,
                     max(fx.loc, 1), docstring=fx.module_doc)


def pack_refs(fx: FileExtract) -> tuple[str, str, int]:
    """A file's declarations and call sites as written, packed as JSON (the CodeRef row;
    unpacked by :func:`ingest.frames.build_extract`), and how many there are."""
    rows: list[list] = [[_IMPORT, i.scope, i.module, i.name, i.alias, i.level, i.line]
                        for i in fx.imports]
    rows += [[_INHERIT, h.cls, h.base, "", h.kind, 0, h.line] for h in fx.inherits]
    rows += [[_ASSIGN, a.scope, a.value, a.target, a.kind, 0, a.line] for a in fx.assigns]
    return (json.dumps(rows, separators=(",", ":"), ensure_ascii=False),
            json.dumps(fx.calls, separators=(",", ":"), ensure_ascii=False),
            len(rows) + len(fx.calls))


#: the kinds as plain strings, read once (an enum member's ``value`` is a Python-level
#: property, read per row otherwise)
_IMPORT, _INHERIT, _ASSIGN = RefKind.IMPORT.value, RefKind.INHERIT.value, RefKind.ASSIGN.value


def file_columns(path: str, fx: FileExtract) -> FileColumns:
    """The columns of one file's extract (in the worker that extracted it)."""
    values = [_SYMBOL_VALUES(s) for s in (module_symbol(path, fx), *fx.symbols)]
    symbols = tuple(map(list, zip(*values, strict=True)))
    return FileColumns(symbols, *pack_refs(fx))
