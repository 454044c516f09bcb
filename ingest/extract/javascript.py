"""JavaScript / TypeScript / TSX extractor (one module: the grammars share most node types).

Everything is found with tree-sitter queries (C speed) and placed in its enclosing definition by
one sweep over sorted byte spans (:func:`ingest.extract.common.enclosing_scopes`), instead of a
walk up the parents for each node.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import tree_sitter as ts
import tree_sitter_javascript
import tree_sitter_typescript

from ingest.extract.common import (
    Definition,
    Span,
    build_symbols,
    captured,
    clean_comment,
    count_lines,
    enclosing_scopes,
    error_lines,
    first_line,
    node_query,
    node_text,
    parser_for,
    preceding_comments,
    strip_generics,
)
from ingest.extract.rows import CallRow, FileExtract, ImportRow, InheritRow
from schema import SymbolKind

__all__ = ["extract"]

_GRAMMARS: dict[str, Callable[[], object]] = {
    "javascript": tree_sitter_javascript.language,
    "typescript": tree_sitter_typescript.language_typescript,
    "tsx": tree_sitter_typescript.language_tsx,
}
_DEF_TYPES = (
    "function_declaration", "generator_function_declaration", "class_declaration",
    "abstract_class_declaration", "interface_declaration", "type_alias_declaration",
    "enum_declaration", "method_definition", "method_signature", "abstract_method_signature",
    "variable_declarator", "field_definition", "public_field_definition",
)
_REF_TYPES = ("call_expression", "new_expression", "import_statement", "export_statement")
_FUNCTION_VALUES = frozenset({
    "arrow_function", "function_expression", "function", "generator_function",
})
_CLASS_VALUES = frozenset({"class"})
_TEST_FILE = re.compile(r"(^|/)__tests__/|[._-](test|spec)\.[cm]?[jt]sx?$")
_COMMENTS = frozenset({"comment"})


def extract(data: bytes, path: str, *, language: str) -> FileExtract:
    """Symbols, imports, calls and heritage of one JavaScript/TypeScript file."""
    grammar = _GRAMMARS[language]
    root = parser_for(grammar).parse(data).root_node
    in_test_file = bool(_TEST_FILE.search(path))
    defs_found = captured(node_query(grammar, _DEF_TYPES), root)
    defs = [d for nodes in defs_found.values() for n in nodes
            if (d := _definition(n, in_test_file)) is not None]
    symbols, spans = build_symbols(defs)
    refs = captured(node_query(grammar, _REF_TYPES), root)
    fx = FileExtract(language=language, symbols=symbols, error_lines=error_lines(root),
                     loc=count_lines(data))
    _add_imports(fx, refs, spans)
    _add_calls(fx, refs, spans)
    _add_inherits(fx, sorted(defs, key=lambda d: d.node.start_byte))
    return fx


def _definition(node: ts.Node, in_test_file: bool) -> Definition | None:
    kind, name_node = _kind_and_name(node)
    if kind is None or name_node is None:
        return None
    name = node_text(name_node)
    outer = node.parent if node.parent is not None and node.parent.type == "export_statement" \
        else node
    if node.type == "variable_declarator":
        outer = node.parent if node.parent is not None else node
        if outer.parent is not None and outer.parent.type == "export_statement":
            outer = outer.parent
    doc_nodes = preceding_comments(outer, _COMMENTS)
    docstring = clean_comment([node_text(doc_nodes[-1])]) \
        if doc_nodes and node_text(doc_nodes[-1]).startswith("/**") else ""
    return Definition(
        node=node, name=name, kind=kind, signature=_signature(outer), docstring=docstring,
        visibility=_visibility(node, name),
        is_test=in_test_file and kind in (SymbolKind.FUNCTION, SymbolKind.METHOD),
    )


def _kind_and_name(node: ts.Node) -> tuple[str | None, ts.Node | None]:
    t = node.type
    name = node.child_by_field_name("name")
    if t in ("function_declaration", "generator_function_declaration"):
        return SymbolKind.FUNCTION, name
    if t in ("class_declaration", "abstract_class_declaration"):
        return SymbolKind.CLASS, name
    if t in ("interface_declaration", "type_alias_declaration"):
        return SymbolKind.INTERFACE, name
    if t == "enum_declaration":
        return SymbolKind.ENUM, name
    if t in ("method_definition", "abstract_method_signature"):
        return SymbolKind.METHOD, name
    if t == "method_signature":  # only interface members; object type literals are no symbols
        in_interface = node.parent is not None and node.parent.type == "interface_body"
        return (SymbolKind.METHOD if in_interface else None), name
    if t in ("field_definition", "public_field_definition"):
        value = node.child_by_field_name("value")
        is_fn = value is not None and value.type in _FUNCTION_VALUES
        return (SymbolKind.METHOD if is_fn else None), name or node.child_by_field_name("property")
    if t == "variable_declarator":
        return _declarator_kind(node), name if name is not None and name.type == "identifier" \
            else None
    return None, None


def _declarator_kind(node: ts.Node) -> str | None:
    """Functions and classes bound to a name anywhere; other values only at module level."""
    value = node.child_by_field_name("value")
    if value is not None and value.type in _FUNCTION_VALUES:
        return SymbolKind.FUNCTION
    if value is not None and value.type in _CLASS_VALUES:
        return SymbolKind.CLASS
    decl = node.parent
    if decl is None:
        return None
    holder = decl.parent
    if holder is not None and holder.type == "export_statement":
        holder = holder.parent
    if holder is None or holder.type != "program":
        return None
    name = node_text(node.child_by_field_name("name"))
    is_const = decl.child(0) is not None and decl.child(0).type == "const"
    return SymbolKind.CONSTANT if is_const and name.isupper() else SymbolKind.VARIABLE


def _signature(node: ts.Node) -> str:
    """First line of the declaration, starting after any decorators."""
    skip = 0
    for child in node.children:
        if child.type not in ("decorator", "comment"):
            skip = child.start_byte - node.start_byte
            break
    return first_line((node.text or b"")[skip:].decode("utf-8", "replace"))


def _visibility(node: ts.Node, name: str) -> str:
    for child in node.children:
        if child.type == "accessibility_modifier":
            return node_text(child)
    return "private" if name.startswith(("#", "_")) else "public"


def _dotted(node: ts.Node | None) -> str:
    """``a.b.c`` / ``this.x`` for a chain of identifiers, else ''."""
    if node is None:
        return ""
    t = node.type
    if t in ("identifier", "this", "super", "property_identifier", "private_property_identifier",
             "type_identifier"):
        return node_text(node)
    if t == "member_expression":
        head = _dotted(node.child_by_field_name("object"))
        prop = node.child_by_field_name("property")
        return f"{head}.{node_text(prop)}" if head and prop is not None else ""
    if t == "non_null_expression" and node.named_child_count:
        return _dotted(node.named_children[0])
    return ""


def _string_value(node: ts.Node | None) -> str | None:
    if node is None or node.type != "string":
        return None
    return node_text(node)[1:-1]


def _add_calls(fx: FileExtract, refs: dict[str, list[ts.Node]], spans: list[Span]) -> None:
    sites: list[tuple[int, int, str]] = []
    for node in refs.get("call_expression", []):
        fn = node.child_by_field_name("function")
        if fn is None or fn.type == "import" or _require_spec(node) is not None:
            continue
        sites.append((node.start_byte, node.start_point[0] + 1, _dotted(fn)))
    for node in refs.get("new_expression", []):
        callee = strip_generics(_dotted(node.child_by_field_name("constructor")))
        sites.append((node.start_byte, node.start_point[0] + 1, callee))
    sites.sort()
    scopes = enclosing_scopes(spans, [s[0] for s in sites])
    fx.calls = [CallRow(scope, callee, line) for (_, line, callee), scope in zip(sites, scopes,
                                                                                 strict=True)]


def _require_spec(call: ts.Node) -> str | None:
    """``m`` for ``require('m')``, else None."""
    fn = call.child_by_field_name("function")
    if fn is None or fn.type != "identifier" or node_text(fn) != "require":
        return None
    args = call.child_by_field_name("arguments")
    if args is None or args.named_child_count != 1:
        return None
    return _string_value(args.named_children[0])


def _add_imports(fx: FileExtract, refs: dict[str, list[ts.Node]], spans: list[Span]) -> None:
    found: list[tuple[int, ImportRow]] = []
    for node in refs.get("import_statement", []):
        found.extend((node.start_byte, row) for row in _import_rows(node))
    for node in refs.get("export_statement", []):
        found.extend((node.start_byte, row) for row in _reexport_rows(node))
    for node in refs.get("call_expression", []):
        spec = _require_spec(node)
        if spec is not None:
            found.extend((node.start_byte, row) for row in _require_rows(node, spec))
    found.sort(key=lambda f: f[0])
    scopes = enclosing_scopes(spans, [f[0] for f in found])
    for (_, row), scope in zip(found, scopes, strict=True):
        row.scope = scope
        fx.imports.append(row)


def _import_rows(node: ts.Node) -> list[ImportRow]:
    line = node.start_point[0] + 1
    spec = _string_value(node.child_by_field_name("source"))
    rows: list[ImportRow] = []
    for child in node.named_children:
        if child.type == "import_require_clause":  # TS: import x = require('m')
            spec = _string_value(child.child_by_field_name("source"))
            name = child.named_children[0]
            return [ImportRow(spec or "", "", node_text(name), line=line)] if spec else []
        if child.type == "import_clause":
            rows.extend(_clause_rows(child, line))
    if spec is None:
        return []
    for row in rows:
        row.module = spec
    return rows or [ImportRow(spec, line=line)]


def _clause_rows(clause: ts.Node, line: int) -> list[ImportRow]:
    rows: list[ImportRow] = []
    for part in clause.named_children:
        if part.type == "identifier":
            rows.append(ImportRow("", "default", node_text(part), line=line))
        elif part.type == "namespace_import":
            rows.append(ImportRow("", "*", node_text(part.named_children[-1]), line=line))
        elif part.type == "named_imports":
            for spec in part.named_children:
                if spec.type == "import_specifier":
                    alias = spec.child_by_field_name("alias")
                    rows.append(ImportRow("", node_text(spec.child_by_field_name("name")),
                                          node_text(alias), line=line))
    return rows


def _reexport_rows(node: ts.Node) -> list[ImportRow]:
    spec = _string_value(node.child_by_field_name("source"))
    if spec is None:
        return []
    line = node.start_point[0] + 1
    rows: list[ImportRow] = []
    for child in node.named_children:
        if child.type == "export_clause":
            for es in child.named_children:
                if es.type == "export_specifier":
                    alias = es.child_by_field_name("alias")
                    rows.append(ImportRow(spec, node_text(es.child_by_field_name("name")),
                                          node_text(alias), line=line))
        elif child.type == "namespace_export":
            rows.append(ImportRow(spec, "*", node_text(child.named_children[-1]), line=line))
    return rows or [ImportRow(spec, "*", line=line)]


def _require_rows(call: ts.Node, spec: str) -> list[ImportRow]:
    line = call.start_point[0] + 1
    parent = call.parent
    target = parent.child_by_field_name("name") \
        if parent is not None and parent.type == "variable_declarator" else None
    if target is not None and target.type == "identifier":
        return [ImportRow(spec, "", node_text(target), line=line)]
    if target is not None and target.type == "object_pattern":
        rows = []
        for prop in target.named_children:
            if prop.type == "shorthand_property_identifier_pattern":
                rows.append(ImportRow(spec, node_text(prop), "", line=line))
            elif prop.type == "pair_pattern":
                key, value = prop.child_by_field_name("key"), prop.child_by_field_name("value")
                rows.append(ImportRow(spec, node_text(key), node_text(value), line=line))
        return rows
    return [ImportRow(spec, line=line)]


def _add_inherits(fx: FileExtract, defs: list[Definition]) -> None:
    """``extends``/``implements`` of classes and interfaces."""
    for d in defs:
        if d.row is None or d.kind not in (SymbolKind.CLASS, SymbolKind.INTERFACE):
            continue
        body = d.node.child_by_field_name("value") if d.node.type == "variable_declarator" \
            else d.node
        for base, kind, line in _heritage(body) if body is not None else []:
            fx.inherits.append(InheritRow(d.row.qualname, base, line, kind))


def _heritage(node: ts.Node) -> list[tuple[str, str, int]]:
    out: list[tuple[str, str, int]] = []
    for child in node.named_children:
        if child.type == "class_heritage":
            out.extend(_heritage_clause(child))
        elif child.type == "extends_type_clause":  # interface I extends K
            out.extend((strip_generics(node_text(t)), "extends", t.start_point[0] + 1)
                       for t in child.named_children)
    return out


def _heritage_clause(heritage: ts.Node) -> list[tuple[str, str, int]]:
    out: list[tuple[str, str, int]] = []
    for part in heritage.named_children:
        if part.type == "extends_clause":  # TypeScript
            value = part.child_by_field_name("value")
            out.append((_dotted(value), "extends", part.start_point[0] + 1))
        elif part.type == "implements_clause":
            out.extend((strip_generics(node_text(t)), "implements", t.start_point[0] + 1)
                       for t in part.named_children)
        else:  # JavaScript: the expression itself
            out.append((_dotted(part), "extends", part.start_point[0] + 1))
    return [o for o in out if o[0]]
