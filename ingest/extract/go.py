"""Go extractor: functions, methods (``Type.Method``), named types, package-level var/const,
imports, calls and struct/interface embedding (recorded as ``extends``)."""

from __future__ import annotations

import re

import tree_sitter as ts
import tree_sitter_go

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

_DEF_TYPES = ("function_declaration", "method_declaration", "type_spec", "type_alias",
              "const_spec", "var_spec", "method_elem")
_REF_TYPES = ("call_expression", "import_spec", "package_clause")
_TEST_FUNC = re.compile(r"^(Test|Benchmark|Fuzz|Example)([A-Z0-9_]|$)")
_COMMENTS = frozenset({"comment"})


def extract(data: bytes, path: str, *, language: str = "go") -> FileExtract:
    """Symbols, imports, calls and embeddings of one Go file."""
    grammar = tree_sitter_go.language
    root = parser_for(grammar).parse(data).root_node
    in_test_file = path.endswith("_test.go")
    found = captured(node_query(grammar, _DEF_TYPES), root)
    defs = [d for nodes in found.values() for n in nodes
            for d in _definitions(n, in_test_file)]
    symbols, spans = build_symbols(defs)
    refs = captured(node_query(grammar, _REF_TYPES), root)
    fx = FileExtract(language=language, symbols=symbols, error_lines=error_lines(root),
                     loc=count_lines(data))
    for clause in refs.get("package_clause", [])[:1]:
        fx.package = node_text(clause.named_children[0]) if clause.named_children else ""
    fx.imports = [_import_row(n) for n in sorted(refs.get("import_spec", []),
                                                 key=lambda n: n.start_byte)]
    fx.calls = _calls(refs.get("call_expression", []), spans)
    fx.inherits = _embeddings(sorted(defs, key=lambda d: d.node.start_byte))
    return fx


def _definitions(node: ts.Node, in_test_file: bool) -> list[Definition]:
    t = node.type
    if t in ("const_spec", "var_spec"):
        return _value_specs(node)
    name_node = node.child_by_field_name("name")
    if name_node is None:
        return []
    name = node_text(name_node)
    if t == "function_declaration":
        is_test = in_test_file and bool(_TEST_FUNC.match(name))
        return [_make(node, name, SymbolKind.FUNCTION, is_test=is_test)]
    if t == "method_declaration":
        return [_make(node, name, SymbolKind.METHOD, owner=_receiver_type(node))]
    if t == "method_elem":  # a method of an interface type
        return [_make(node, name, SymbolKind.METHOD, doc_from=node)]
    return [_make(node, name, _type_kind(node), doc_from=_declaration_of(node))]


def _make(node: ts.Node, name: str, kind: str, *, is_test: bool = False,
          owner: str | None = None, doc_from: ts.Node | None = None) -> Definition:
    """A definition; ``doc_from`` is the node its doc comment and signature start at."""
    comments = preceding_comments(doc_from or node, _COMMENTS)
    return Definition(
        node=node, name=name, kind=kind, signature=first_line(node_text(doc_from or node)),
        docstring=clean_comment(node_text(c) for c in comments),
        visibility="public" if name[:1].isupper() else "private", is_test=is_test, owner=owner,
    )


def _declaration_of(spec: ts.Node) -> ts.Node:
    """The node a doc comment precedes: the spec inside ``( ... )``, else its declaration."""
    parent = spec.parent
    if parent is not None and parent.type.endswith("_declaration") and parent.named_child_count \
            == 1 and not any(c.type == "(" for c in parent.children):
        return parent
    return spec


def _type_kind(spec: ts.Node) -> str:
    """Struct and interface types by their shape; other named types (``type ID string``) are
    the nominal types methods attach to, recorded as struct."""
    shape = spec.child_by_field_name("type")
    if shape is not None and shape.type == "interface_type":
        return SymbolKind.INTERFACE
    return SymbolKind.STRUCT


def _value_specs(spec: ts.Node) -> list[Definition]:
    """Package-level ``const``/``var`` names (one spec may bind several)."""
    decl = spec.parent
    if decl is not None and decl.type == "var_spec_list":
        decl = decl.parent
    if decl is None or decl.parent is None or decl.parent.type != "source_file":
        return []
    kind = SymbolKind.CONSTANT if spec.type == "const_spec" else SymbolKind.VARIABLE
    names = [n for n in spec.children_by_field_name("name") if n.type == "identifier"]
    doc_from = _declaration_of(spec)
    if len(names) == 1:
        return [_make(spec, node_text(names[0]), kind, doc_from=doc_from)]
    # several names share one spec: each name is its own (non-overlapping) span
    return [_make(n, node_text(n), kind, doc_from=doc_from) for n in names]


def _receiver_type(method: ts.Node) -> str:
    receiver = method.child_by_field_name("receiver")
    for param in receiver.named_children if receiver is not None else []:
        if param.type == "parameter_declaration":
            return _type_name(param.child_by_field_name("type"))
    return ""


def _type_name(node: ts.Node | None) -> str:
    """``T`` for ``T``, ``*T``, ``T[K]`` and ``pkg.T`` for a qualified type."""
    while node is not None and node.type in ("pointer_type", "generic_type"):
        node = node.child_by_field_name("type") if node.type == "generic_type" \
            else node.named_children[0] if node.named_child_count else None
    if node is None or node.type not in ("type_identifier", "qualified_type"):
        return ""
    return strip_generics(node_text(node))


def _import_row(spec: ts.Node) -> ImportRow:
    path = node_text(spec.child_by_field_name("path")).strip('"`')
    return ImportRow(path, "", node_text(spec.child_by_field_name("name")),
                     line=spec.start_point[0] + 1)


def _dotted(node: ts.Node | None) -> str:
    if node is None:
        return ""
    if node.type in ("identifier", "field_identifier", "package_identifier"):
        return node_text(node)
    if node.type == "selector_expression":
        head = _dotted(node.child_by_field_name("operand"))
        field = node.child_by_field_name("field")
        return f"{head}.{node_text(field)}" if head and field is not None else ""
    return ""


def _calls(nodes: list[ts.Node], spans: list[Span]) -> list[CallRow]:
    sites = sorted((n.start_byte, n.start_point[0] + 1, _dotted(n.child_by_field_name("function")))
                   for n in nodes)
    scopes = enclosing_scopes(spans, [s[0] for s in sites])
    return [CallRow(scope, callee, line)
            for (_, line, callee), scope in zip(sites, scopes, strict=True)]


def _embeddings(defs: list[Definition]) -> list[InheritRow]:
    """Embedded fields of structs and embedded interfaces of interfaces."""
    rows: list[InheritRow] = []
    for d in defs:
        shape = d.node.child_by_field_name("type") if d.node.type == "type_spec" else None
        if d.row is None or shape is None:
            continue
        for base_node in _embedded(shape):
            base = _type_name(base_node)
            if base:
                rows.append(InheritRow(d.row.qualname, base, base_node.start_point[0] + 1))
    return rows


def _embedded(shape: ts.Node) -> list[ts.Node]:
    if shape.type == "struct_type":
        fields = [f for c in shape.named_children if c.type == "field_declaration_list"
                  for f in c.named_children if f.type == "field_declaration"]
        return [f.child_by_field_name("type") for f in fields
                if f.child_by_field_name("name") is None]
    if shape.type == "interface_type":
        return [c.named_children[0] for c in shape.named_children
                if c.type == "type_elem" and c.named_child_count == 1]
    return []
