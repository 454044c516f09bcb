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
    (GoogleTest's ``TEST(Suite, Name)``). ``@owner`` (optional) names the type the definition
    belongs to, outside its body (a Go method's receiver type). ``@name.each`` instead of
    ``@name``: one definition per name when one node declares several (Go's ``var a, b = 1, 2``;
    each name's own node is then its span). When several patterns match the same node, the
    kind of the pattern written first wins (a test pattern always wins).
``@definition.extension`` + ``@name``
    a container that only prefixes its members' qualnames (Swift ``extension``, an ``impl``);
    its functions are methods.
``@definition.namespace`` + ``@name``
    a container that only prefixes its members' qualnames, whose functions stay functions
    (Rust's inline ``mod tests { }``).
``@test``
    marks the definition node it captures as a test (an annotation, an attribute).
``@call`` + ``@callee`` (or ``@callee.receiver`` and ``@callee.method``)
    a call site; ``@callee`` is the called expression, normalised to a dotted name.
``@not_call``
    a call that is no call site (``require('m')``, an import).
``@import.hook``
    an import statement whose rows the spec's ``import_rows`` hook builds (Rust's ``use``
    trees, whose leaves need their ancestors' paths).
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
    "extension": SymbolKind.CLASS, "namespace": SymbolKind.MODULE,
}
_CONTAINERS = frozenset({"extension", "namespace"})  # prefixes only, no symbol of their own
_TYPE_KINDS = frozenset({SymbolKind.CLASS, SymbolKind.INTERFACE, SymbolKind.STRUCT,
                         SymbolKind.ENUM, SymbolKind.TRAIT, SymbolKind.MODULE})
#: Member separators of the languages (``::``, ``->``, ``?.``, ``.``, ``:``, ``\\``) -> ``.``.
_SEPARATORS = re.compile(r"\s*(?:::|->|\?\.|\.|:|\\)\s*")
_DOTTED = re.compile(r"^[A-Za-z_$@][\w$@]*(?:\.[A-Za-z_$@][\w$@]*)*$")
_COMMENT_MARK = re.compile(r"^\s*(?:/\*\*?|\*/|\*(?!/)|///?|//!|#+|--+(?:\[\[)?|\]\])?\s?")


@cache
def compiled_query(files: tuple[str, ...], grammar: Callable[[], object]) -> ts.Query:
    """The language's query files (concatenated in order), compiled once per process."""
    source = "\n".join((QUERY_DIR / f"{stem}.scm").read_text(encoding="utf-8")
                       for stem in files)
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


def _signature(data: bytes, start: int, end: int) -> str:
    newline = data.find(b"\n", start, end)
    stop = end if newline < 0 else newline
    return data[start:min(stop, start + 300)].decode("utf-8", "replace").strip()


def run(spec: object, data: bytes, path: str) -> FileExtract:
    """Rows of one file of ``spec``'s language (a ``LanguageSpec``)."""
    from ingest.extract.languages import LanguageSpec  # the registry imports this module

    assert isinstance(spec, LanguageSpec)
    grammar = spec.grammar()
    root = parser_for(grammar).parse(data).root_node
    matches = ts.QueryCursor(compiled_query(spec.query_files or (spec.name,), grammar)) \
        .matches(root)
    fx = FileExtract(language=spec.name, error_lines=error_lines(root), loc=count_lines(data))
    defs: dict[tuple[int, int], Definition] = {}
    patterns: dict[tuple[int, int], int] = {}  # definition node -> index of its pattern
    #: @name.each: definition node -> [pattern index, kind word, node, names by position]
    each: dict[tuple[int, int], list] = {}  # type: ignore[type-arg]
    tests: set[tuple[int, int]] = set()
    calls: list[tuple[int, int, str, int]] = []  # start, line, callee, end
    not_calls: set[tuple[int, int]] = set()
    bases: list[tuple[ts.Node, str]] = []
    imports: dict[int, list[ImportRow]] = {}
    segments: dict[int, dict[int, str]] = {}  # import start -> path segments by position
    in_test_file = spec.test_file is None or bool(spec.test_file.search(path))
    for index, caps in matches:
        for cap, nodes in caps.items():
            if cap.startswith("definition.") and "name.each" in caps:
                _collect_each(each, index, cap[11:], nodes[0], caps["name.each"])
            elif cap.startswith("definition."):
                _definition(spec, data, cap[11:], nodes[0], caps.get("name", []), defs,
                            in_test_file, caps.get("owner"), index, patterns)
            elif cap == "test":
                tests.update((n.start_byte, n.end_byte) for n in nodes)
            elif cap == "call":
                text = _callee(data, caps, spec.name_of)
                calls.append((nodes[0].start_byte, nodes[0].start_point[0] + 1,
                              spec.callee(text) if text else "", nodes[0].end_byte))
            elif cap == "not_call":
                not_calls.add((nodes[0].start_byte, nodes[0].end_byte))
            elif cap == "import.hook":
                imports.setdefault(nodes[0].start_byte, []).extend(
                    spec.import_rows(data, nodes[0]))
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
    for index, kind_word, node, by_start in each.values():
        names = [by_start[k] for k in sorted(by_start)]
        for name in names:  # a node declaring several names: each name is its own span
            _definition(spec, data, kind_word, node if len(names) == 1 else name, [name], defs,
                        in_test_file, None, index, patterns, doc_from=node)
    namespaces = {k for k, d in defs.items() if d.kind == SymbolKind.MODULE and not d.emit}
    for key in tests:
        if key in defs:
            defs[key].is_test = True
    _methods_in_types(defs, namespaces)
    fx.symbols, spans = build_symbols(defs.values())
    if not_calls:
        calls = [c for c in calls if (c[0], c[3]) not in not_calls]
    calls.sort()
    scopes = enclosing_scopes(spans, [c[0] for c in calls])
    fx.calls = [CallRow(scope, callee, line)
                for (_, line, callee, _end), scope in zip(calls, scopes, strict=True)]
    for start, parts in segments.items():  # a path written as separate nodes (Scala)
        module = ".".join(parts[k] for k in sorted(parts))
        for row in imports.get(start, []):
            row.module = row.module or module
    fx.imports = [row for k in sorted(imports) for row in imports[k]]
    if spec.scoped_imports:  # an import inside a function is that function's
        starts = [k for k in sorted(imports) for _ in imports[k]]
        for row, scope in zip(fx.imports, enclosing_scopes(spans, starts), strict=True):
            row.scope = scope
    fx.inherits = _inherits(data, defs, bases, namespaces, spec.name_of)
    return fx


def _collect_each(each: dict[tuple[int, int], list], index: int,  # type: ignore[type-arg]
                  kind_word: str, node: ts.Node, names: list[ts.Node]) -> None:
    """Gather the names of one declaring node over its matches; the pattern written first
    gives the kind."""
    entry = each.setdefault((node.start_byte, node.end_byte), [index, kind_word, node, {}])
    if index < entry[0]:
        entry[0], entry[1] = index, kind_word
    entry[3].update((n.start_byte, n) for n in names)


def _definition(spec: object, data: bytes, kind_word: str, node: ts.Node,
                names: list[ts.Node], defs: dict[tuple[int, int], Definition],
                in_test_file: bool, owner_nodes: list[ts.Node] | None, pattern: int,
                patterns: dict[tuple[int, int], int], doc_from: ts.Node | None = None) -> None:
    if not names or kind_word not in _KINDS:
        return
    kind = _KINDS[kind_word]
    key = (node.start_byte, node.end_byte)
    name = "_".join(_unquote(_text(data, n)) for n in names)
    owner = dotted(_text(data, owner_nodes[0])) if owner_nodes else None
    qualified = dotted(name)
    if "." in qualified:  # Foo::bar, M.f, M:f
        owner, name = qualified.rsplit(".", 1)
    if owner is not None and kind == SymbolKind.FUNCTION:
        kind = SymbolKind.METHOD
    is_test = kind_word == "test" or (
        in_test_file and spec.test_name is not None  # type: ignore[attr-defined]
        and kind in spec.test_kinds  # type: ignore[attr-defined]
        and bool(spec.test_name.search(name)))  # type: ignore[attr-defined]
    if key in defs and kind_word != "test":  # a second pattern on the same node: a test
        defs[key].is_test = defs[key].is_test or is_test  # pattern (GoogleTest's TEST) wins
        if pattern < patterns[key]:  # otherwise the kind of the pattern written first wins
            defs[key].kind, patterns[key] = kind, pattern
        return
    declaring = doc_from or node
    anchor = spec.doc_node(declaring)  # type: ignore[attr-defined]
    above = preceding_comments(anchor, spec.comment_types, spec.doc_skip)  # type: ignore[attr-defined]
    comments = spec.doc_comments([_text(data, c) for c in above])  # type: ignore[attr-defined]
    patterns[key] = pattern
    defs[key] = Definition(
        node=node, name=name, kind=kind,
        signature=_signature(data, spec.signature_start(anchor), anchor.end_byte),  # type: ignore[attr-defined]
        docstring=clean_comment(comments, _COMMENT_MARK), is_test=is_test,
        visibility=spec.visibility(name, declaring),  # type: ignore[attr-defined]
        owner=owner, emit=kind_word not in _CONTAINERS)


def _methods_in_types(defs: dict[tuple[int, int], Definition],
                      namespaces: set[tuple[int, int]]) -> None:
    """A function whose innermost enclosing definition is a type is a method."""
    stack: list[tuple[tuple[int, int], Definition]] = []
    for key in sorted(defs, key=lambda k: (k[0], -k[1])):
        d = defs[key]
        while stack and stack[-1][1].node.end_byte <= key[0]:
            stack.pop()
        if d.kind == SymbolKind.FUNCTION and stack and stack[-1][1].kind in _TYPE_KINDS \
                and stack[-1][0] not in namespaces:
            d.kind = SymbolKind.METHOD
        stack.append((key, d))


def _callee(data: bytes, caps: dict[str, list[ts.Node]],
            name_of: Callable[[str], str]) -> str:
    """``@callee``, or ``@callee.receiver`` + ``.`` + ``@callee.method`` (Ruby's ``call``)."""
    callee = caps.get("callee")
    if callee:
        return name_of(_text(data, callee[0]))
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
              bases: list[tuple[ts.Node, str]], namespaces: set[tuple[int, int]],
              name_of: Callable[[str], str]) -> list[InheritRow]:
    types = sorted((d for k, d in defs.items() if d.kind in _TYPE_KINDS and k not in namespaces),
                   key=lambda d: d.node.start_byte)
    rows: list[InheritRow] = []
    for node, kind in sorted(bases, key=lambda b: b[0].start_byte):
        owner = None
        for d in types:  # innermost type containing the base (types are few per file)
            if d.node.start_byte <= node.start_byte and node.end_byte <= d.node.end_byte:
                owner = d
        base = name_of(_text(data, node))
        if owner is not None and base:
            cls = owner.row.qualname if owner.row is not None else owner.qualname
            rows.append(InheritRow(cls, base, node.start_point[0] + 1, kind))
    return rows
