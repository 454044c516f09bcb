"""One extraction engine for every language declared as data: a query file and a spec.

A language is a :class:`~ingest.extract.languages.LanguageSpec` (grammar, comment node types,
test-name rules) and a query file ``queries/<language>.scm`` written in tree-sitter's own query
language. The engine runs the query once per file with ``QueryCursor.matches`` (the tree is
walked in C) and turns each match into rows, so the Python work per file is proportional to the
captures, not to the nodes of the tree.

Capture names the query files use (each pattern is one match):

``@definition.<kind>`` + ``@name``
    a definition (kind: function, method, class, interface, struct, enum, trait, module,
    constant, variable, test). ``@name`` may be qualified (``Foo::bar``, ``M.f``, ``M:f``): the
    prefix becomes the owner, as for a Go method. A function directly inside a type is a method;
    ``test`` is a function marked as a test. Several ``@name`` nodes are joined with ``_``
    (GoogleTest's ``TEST(Suite, Name)``).
``@definition.extension`` + ``@name``
    a container that only prefixes its members' qualnames (Swift ``extension``, an ``impl``).
``@test``
    marks the definition node it captures as a test (an annotation, an attribute).
``@call`` + ``@callee`` (or ``@callee.receiver`` and ``@callee.method``)
    a call site; ``@callee`` is the called expression, normalised to a dotted name.
``@import`` + ``@import.module`` [+ ``@import.name``, ``@import.alias``, ``@import.wildcard``]
    (or ``@import.segment``: one segment of a path the grammar splits, joined with ``.``)
    an import as written (quotes and ``<>`` stripped); ``@import.relative`` marks a path
    relative to the importing file (written with a leading ``./``).
``@inherit.base`` / ``@implements.base``
    a base type, attributed to the innermost type definition that contains it.
``@package``
    the file's package or namespace.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from pathlib import Path

import tree_sitter as ts

from ingest.extract.common import (
    Definition,
    build_symbols,
    clean_comment,
    count_lines,
    enclosing_scopes,
    error_lines,
    parser_for,
    preceding_comments,
    strip_generics,
)
from ingest.extract.rows import CallRow, FileExtract, ImportRow, InheritRow
from schema import SymbolKind

__all__ = ["QUERY_DIR", "compiled_query", "dotted", "run"]

#: Where the ``<language>.scm`` query files live.
QUERY_DIR = Path(__file__).with_name("queries")

_KINDS: dict[str, str] = {
    "function": SymbolKind.FUNCTION, "method": SymbolKind.METHOD, "test": SymbolKind.FUNCTION,
    "class": SymbolKind.CLASS, "interface": SymbolKind.INTERFACE, "struct": SymbolKind.STRUCT,
    "enum": SymbolKind.ENUM, "trait": SymbolKind.TRAIT, "module": SymbolKind.MODULE,
    "constant": SymbolKind.CONSTANT, "variable": SymbolKind.VARIABLE,
    "extension": SymbolKind.CLASS,
}
_TYPE_KINDS = frozenset({SymbolKind.CLASS, SymbolKind.INTERFACE, SymbolKind.STRUCT,
                         SymbolKind.ENUM, SymbolKind.TRAIT, SymbolKind.MODULE})
#: Member separators of the languages (``::``, ``->``, ``?.``, ``.``, ``:``, ``\\``) -> ``.``.
_SEPARATORS = re.compile(r"\s*(?:::|->|\?\.|\.|:|\\)\s*")
_DOTTED = re.compile(r"^[A-Za-z_$@][\w$@]*(?:\.[A-Za-z_$@][\w$@]*)*$")
_COMMENT_MARK = re.compile(r"^\s*(?:/\*\*?|\*/|\*(?!/)|///?|//!|#+|--+(?:\[\[)?|\]\])?\s?")


@cache
def compiled_query(language: str, grammar: Callable[[], object]) -> ts.Query:
    """The language's query file, compiled once per process."""
    source = (QUERY_DIR / f"{language}.scm").read_text(encoding="utf-8")
    return ts.Query(ts.Language(grammar()), source)


def dotted(text: str) -> str:
    """A called expression as a dotted name (``a::b``, ``$this->m``, ``o:m``, ``A\\B`` ->
    ``a.b``, ``this.m``, ``o.m``, ``A.B``), or '' when it is not a plain name chain."""
    if text.isidentifier():  # the common case, without the regular expressions
        return text
    text = text.replace("$", "")
    if "<" in text or "[" in text:
        text = strip_generics(text)
    text = text.strip().lstrip("\\")
    text = _SEPARATORS.sub(".", text)
    return text if _DOTTED.match(text) else ""


def _text(data: bytes, node: ts.Node) -> str:
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _unquote(text: str) -> str:
    return text.strip().strip("\"'`<>")


def _signature(data: bytes, node: ts.Node) -> str:
    end = data.find(b"\n", node.start_byte, node.end_byte)
    stop = node.end_byte if end < 0 else end
    return data[node.start_byte:min(stop, node.start_byte + 300)].decode(
        "utf-8", "replace").strip()


def run(spec: object, data: bytes, path: str) -> FileExtract:
    """Rows of one file of ``spec``'s language (a ``LanguageSpec``)."""
    from ingest.extract.languages import LanguageSpec  # the registry imports this module

    assert isinstance(spec, LanguageSpec)
    grammar = spec.grammar()
    root = parser_for(grammar).parse(data).root_node
    matches = ts.QueryCursor(compiled_query(spec.name, grammar)).matches(root)
    fx = FileExtract(language=spec.name, error_lines=error_lines(root), loc=count_lines(data))
    defs: dict[tuple[int, int], Definition] = {}
    tests: set[tuple[int, int]] = set()
    calls: list[tuple[int, int, str]] = []
    bases: list[tuple[ts.Node, str]] = []
    imports: dict[int, list[ImportRow]] = {}
    segments: dict[int, dict[int, str]] = {}  # import start -> path segments by position
    in_test_file = spec.test_file is None or bool(spec.test_file.search(path))
    for _, caps in matches:
        for cap, nodes in caps.items():
            if cap.startswith("definition."):
                _definition(spec, data, cap[11:], nodes[0], caps.get("name", []), defs,
                            in_test_file)
            elif cap == "test":
                tests.update((n.start_byte, n.end_byte) for n in nodes)
            elif cap == "call":
                text = _callee(data, caps)
                calls.append((nodes[0].start_byte, nodes[0].start_point[0] + 1,
                              spec.callee(text) if text else ""))
            elif cap == "import":
                _merge_import(imports, nodes[0].start_byte, _import(data, nodes[0], caps))
            elif cap == "import.segment":
                segments.setdefault(caps["import"][0].start_byte, {}).update(
                    (n.start_byte, _text(data, n)) for n in nodes)
            elif cap in ("inherit.base", "implements.base"):
                kind = "extends" if cap == "inherit.base" else "implements"
                bases.extend((n, kind) for n in nodes)
            elif cap == "package" and not fx.package:
                fx.package = dotted(_text(data, nodes[0])) or _text(data, nodes[0]).strip()
    for key in tests:
        if key in defs:
            defs[key].is_test = True
    _methods_in_types(defs)
    fx.symbols, spans = build_symbols(defs.values())
    calls.sort()
    scopes = enclosing_scopes(spans, [c[0] for c in calls])
    fx.calls = [CallRow(scope, callee, line)
                for (_, line, callee), scope in zip(calls, scopes, strict=True)]
    for start, parts in segments.items():  # a path written as separate nodes (Scala)
        module = ".".join(parts[k] for k in sorted(parts))
        for row in imports.get(start, []):
            row.module = row.module or module
    fx.imports = [row for k in sorted(imports) for row in imports[k]]
    fx.inherits = _inherits(data, defs, bases)
    return fx


def _definition(spec: object, data: bytes, kind_word: str, node: ts.Node,
                names: list[ts.Node], defs: dict[tuple[int, int], Definition],
                in_test_file: bool) -> None:
    if not names or kind_word not in _KINDS:
        return
    name = "_".join(_unquote(_text(data, n)) for n in names)
    owner = None
    qualified = dotted(name)
    if "." in qualified:  # Foo::bar, M.f, M:f
        owner, name = qualified.rsplit(".", 1)
    kind = _KINDS[kind_word]
    if owner is not None and kind == SymbolKind.FUNCTION:
        kind = SymbolKind.METHOD
    is_test = kind_word == "test" or (
        in_test_file and spec.test_name is not None  # type: ignore[attr-defined]
        and kind in (SymbolKind.FUNCTION, SymbolKind.METHOD)
        and bool(spec.test_name.search(name)))  # type: ignore[attr-defined]
    comments = preceding_comments(node, spec.comment_types)  # type: ignore[attr-defined]
    key = (node.start_byte, node.end_byte)
    if key in defs and kind_word != "test":  # a second pattern on the same node: a test
        defs[key].is_test = defs[key].is_test or is_test  # pattern (GoogleTest's TEST) wins
        return
    defs[key] = Definition(
        node=node, name=name, kind=kind, signature=_signature(data, node),
        docstring=clean_comment([_text(data, c) for c in comments], _COMMENT_MARK), is_test=is_test,
        owner=owner, emit=kind_word != "extension")


def _methods_in_types(defs: dict[tuple[int, int], Definition]) -> None:
    """A function whose innermost enclosing definition is a type is a method."""
    stack: list[Definition] = []
    for key in sorted(defs, key=lambda k: (k[0], -k[1])):
        d = defs[key]
        while stack and stack[-1].node.end_byte <= key[0]:
            stack.pop()
        if d.kind == SymbolKind.FUNCTION and stack and stack[-1].kind in _TYPE_KINDS:
            d.kind = SymbolKind.METHOD
        stack.append(d)


def _callee(data: bytes, caps: dict[str, list[ts.Node]]) -> str:
    """``@callee``, or ``@callee.receiver`` + ``.`` + ``@callee.method`` (Ruby's ``call``)."""
    callee = caps.get("callee")
    if callee:
        return dotted(_text(data, callee[0]))
    method = caps.get("callee.method")
    if not method:
        return ""
    receiver = caps.get("callee.receiver")
    head = dotted(_text(data, receiver[0])) if receiver else ""
    name = _text(data, method[0])
    return dotted(f"{head}.{name}") if head else "" if receiver else dotted(name)


def _merge_import(imports: dict[int, list[ImportRow]], start: int, row: ImportRow) -> None:
    """Patterns for the same import statement (plain, aliased, wildcard, each selector) make one
    row per imported name: a plain row gives way to a more specific one of the same module."""
    rows = imports.setdefault(start, [])
    if row.name or row.alias:
        rows[:] = [r for r in rows if r.module != row.module or r.name or r.alias]
    elif any(r.module == row.module for r in rows):
        return
    if row not in rows:
        rows.append(row)


def _import(data: bytes, node: ts.Node, caps: dict[str, list[ts.Node]]) -> ImportRow:
    def first(cap: str) -> str:
        found = caps.get(cap)
        return _unquote(_text(data, found[0])) if found else ""

    name = "*" if "import.wildcard" in caps else first("import.name")
    module = first("import.module")
    if "import.relative" in caps and not module.startswith("."):
        module = f"./{module.lstrip('/')}"  # relative to the importing file's directory
    return ImportRow(module, name, first("import.alias"),
                     line=node.start_point[0] + 1)


def _inherits(data: bytes, defs: dict[tuple[int, int], Definition],
              bases: list[tuple[ts.Node, str]]) -> list[InheritRow]:
    types = sorted((d for d in defs.values() if d.kind in _TYPE_KINDS),
                   key=lambda d: d.node.start_byte)
    rows: list[InheritRow] = []
    for node, kind in sorted(bases, key=lambda b: b[0].start_byte):
        owner = None
        for d in types:  # innermost type containing the base (types are few per file)
            if d.node.start_byte <= node.start_byte and node.end_byte <= d.node.end_byte:
                owner = d
        base = dotted(_text(data, node))
        if owner is not None and base:
            cls = owner.row.qualname if owner.row is not None else owner.qualname
            rows.append(InheritRow(cls, base, node.start_point[0] + 1, kind))
    return rows
