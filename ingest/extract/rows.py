"""What an extractor returns for one file: plain rows, no database, no cross-file knowledge.

Call sites, bases and bindings are NamedTuples: they are the bulk of what parse workers send
back, and tuples pickle about ten times faster than slotted dataclasses (measured on the
standard library). Symbols and imports stay dataclasses because extractors refine them after
creation (ordinal suffixes, re-export specifiers).

Extractors are pure (bytes in, rows out) so they run in a process pool today and on a
distributed engine tomorrow. Resolution of names to other files happens later, in
``ingest.resolve``, from these rows alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import NamedTuple

__all__ = ["AssignRow", "CallRow", "FileExtract", "ImportRow", "InheritRow", "SymbolRow"]


@dataclass(slots=True)
class SymbolRow:
    """A definition. ``qualname`` is dotted inside the file (``Outer.method``); ``parent`` is the
    enclosing definition's qualname, or '' at module level. Repeated qualnames in one file get
    an ordinal suffix (``f~2``) from :func:`ingest.extract.common.dedupe_qualnames`."""

    qualname: str
    name: str
    kind: str  # schema.SymbolKind value
    start_line: int  # 1-based
    end_line: int  # 1-based, inclusive
    parent: str = ""
    signature: str = ""
    docstring: str = ""
    visibility: str = "public"
    is_test: bool = False

    def __reduce__(self) -> tuple:
        # positional rebuild: much cheaper to pickle than the default slots state
        return (SymbolRow, (self.qualname, self.name, self.kind, self.start_line, self.end_line,
                            self.parent, self.signature, self.docstring, self.visibility,
                            self.is_test))


@dataclass(slots=True)
class ImportRow:
    """An import as written.

    ``module`` is the module spec (Python dotted name without leading dots, JS/TS specifier
    such as ``./util`` or ``react``, Go import path, Java ``a.b.C`` or ``a.b``, Rust path
    ``crate::a::b``); ``name`` the imported member ('' for a whole-module import, '*' for a
    wildcard); ``alias`` the local name it is bound to ('' = the default local name);
    ``level`` the number of leading dots of a Python relative import.
    """

    module: str
    name: str = ""
    alias: str = ""
    level: int = 0
    line: int = 0
    scope: str = ""  # qualname of the enclosing definition; '' at module level

    def __reduce__(self) -> tuple:
        return (ImportRow, (self.module, self.name, self.alias, self.level, self.line,
                            self.scope))


class CallRow(NamedTuple):
    """A call site. ``callee`` is the called expression as a dotted name of identifiers
    (``foo``, ``self.bar``, ``os.path.join``, ``this.x.y``) or '' when it is not one (a call of
    a call result, a subscript, a lambda): such calls are unresolvable dynamic calls."""

    scope: str  # qualname of the enclosing definition; '' at module level
    callee: str
    line: int


class InheritRow(NamedTuple):
    """``cls`` (a class/struct/interface qualname) extends or implements ``base`` (dotted name
    as written, generic arguments stripped)."""

    cls: str
    base: str
    line: int
    kind: str = "extends"  # extends | implements


class AssignRow(NamedTuple):
    """A name bound to something a resolver can follow: ``x = Foo()`` / ``x: Foo`` (kind
    'instance': x is an instance of Foo), ``x = os.path.join`` (kind 'alias'). ``target`` is a
    plain name or ``self.attr``; ``value`` a dotted name as written."""

    scope: str
    target: str
    value: str
    line: int
    kind: str = "instance"  # instance | alias


@dataclass(slots=True)
class FileExtract:
    """Everything one file yields. ``error_lines`` are 1-based lines of syntax errors (a partial
    tree still yields rows); ``package`` is the declared package/namespace where the language
    has one (Go ``package x``, Java ``package a.b;``), else ''."""

    language: str
    symbols: list[SymbolRow] = field(default_factory=list)
    imports: list[ImportRow] = field(default_factory=list)
    calls: list[CallRow] = field(default_factory=list)
    inherits: list[InheritRow] = field(default_factory=list)
    assigns: list[AssignRow] = field(default_factory=list)
    package: str = ""
    module_doc: str = ""
    error_lines: list[int] = field(default_factory=list)
    loc: int = 0

    def __reduce__(self) -> tuple:
        # call sites, bases and bindings travel as plain tuples and are made rows again by
        # ``tuple.__new__`` in C: a NamedTuple pickles through Python-level ``__getnewargs__``
        # and ``__new__`` per row (the standard library's 80K call sites: 0.20 s to pickle
        # in the workers and 0.26 s to unpickle in the ingest process, 0.05 and 0.03 so)
        return (_rebuild_extract, (
            self.language, self.symbols, self.imports, list(map(tuple, self.calls)),
            list(map(tuple, self.inherits)), list(map(tuple, self.assigns)), self.package,
            self.module_doc, self.error_lines, self.loc))


def _rebuild_extract(language: str, symbols: list[SymbolRow], imports: list[ImportRow],
                     calls: list[tuple], inherits: list[tuple], assigns: list[tuple],
                     package: str, module_doc: str, error_lines: list[int],
                     loc: int) -> FileExtract:
    return FileExtract(language, symbols, imports,
                       list(map(partial(tuple.__new__, CallRow), calls)),
                       list(map(partial(tuple.__new__, InheritRow), inherits)),
                       list(map(partial(tuple.__new__, AssignRow), assigns)),
                       package, module_doc, error_lines, loc)
