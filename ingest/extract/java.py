"""Java extractor: types (nested as ``Outer.Inner``), methods, constructors, fields, imports,
method invocations and ``new`` expressions, extends/implements."""

from __future__ import annotations

import re

import tree_sitter as ts
import tree_sitter_java

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

_TYPE_KINDS: dict[str, str] = {
    "class_declaration": SymbolKind.CLASS,
    "record_declaration": SymbolKind.CLASS,
    "interface_declaration": SymbolKind.INTERFACE,
    "annotation_type_declaration": SymbolKind.INTERFACE,
    "enum_declaration": SymbolKind.ENUM,
}
_DEF_TYPES = (*_TYPE_KINDS, "method_declaration", "constructor_declaration",
              "compact_constructor_declaration", "field_declaration", "constant_declaration",
              "enum_constant")
_REF_TYPES = ("method_invocation", "object_creation_expression", "import_declaration",
              "package_declaration")
_TEST_FILE = re.compile(r"(Test|Tests|IT)\.java$|(^|/)Test[A-Z]\w*\.java$")
_TEST_ANNOTATIONS = frozenset({"Test", "ParameterizedTest", "RepeatedTest", "TestFactory",
                               "TestTemplate"})
_COMMENTS = frozenset({"block_comment", "line_comment"})
_ANNOTATIONS = frozenset({"annotation", "marker_annotation"})
_INTERFACE_BODIES = frozenset({"interface_body", "annotation_type_body"})


def extract(data: bytes, path: str, *, language: str = "java") -> FileExtract:
    """Symbols, imports, calls and heritage of one Java file."""
    grammar = tree_sitter_java.language
    root = parser_for(grammar).parse(data).root_node
    in_test_file = bool(_TEST_FILE.search(path))
    found = captured(node_query(grammar, _DEF_TYPES), root)
    defs = [d for nodes in found.values() for n in nodes for d in _definitions(n, in_test_file)]
    symbols, spans = build_symbols(defs)
    refs = captured(node_query(grammar, _REF_TYPES), root)
    fx = FileExtract(language=language, symbols=symbols, error_lines=error_lines(root),
                     loc=count_lines(data))
    for decl in refs.get("package_declaration", [])[:1]:
        fx.package = next((node_text(c) for c in decl.named_children
                           if c.type in ("scoped_identifier", "identifier")), "")
    fx.imports = [_import_row(n) for n in sorted(refs.get("import_declaration", []),
                                                 key=lambda n: n.start_byte)]
    fx.calls = _calls(refs, spans)
    fx.inherits = _heritage(sorted(defs, key=lambda d: d.node.start_byte))
    return fx


def _definitions(node: ts.Node, in_test_file: bool) -> list[Definition]:
    t = node.type
    if t in ("field_declaration", "constant_declaration"):
        return _fields(node)
    name = node_text(node.child_by_field_name("name"))
    if not name:
        return []
    if t in _TYPE_KINDS:
        kind = _TYPE_KINDS[t]
        return [_make(node, name, kind, is_test=in_test_file and kind == SymbolKind.CLASS)]
    if t == "enum_constant":
        constant = _make(node, name, SymbolKind.CONSTANT)
        constant.visibility = "public"
        return [constant]
    is_test = _has_annotation(node, _TEST_ANNOTATIONS)
    return [_make(node, name, SymbolKind.METHOD, is_test=is_test)]


def _make(node: ts.Node, name: str, kind: str, *, is_test: bool = False,
          span: ts.Node | None = None) -> Definition:
    """A definition of ``node`` (``span`` overrides the node used for its extent)."""
    comments = preceding_comments(node, _COMMENTS)
    doc = node_text(comments[-1]) if comments else ""
    return Definition(
        node=span or node, name=name, kind=kind, signature=_signature(node),
        docstring=clean_comment([doc]) if doc.startswith("/**") else "",
        visibility=_visibility(node), is_test=is_test,
    )


def _fields(decl: ts.Node) -> list[Definition]:
    """One variable/constant per declarator; ``static final`` and interface fields are
    constants."""
    mods = _modifier_words(decl)
    in_interface = decl.parent is not None and decl.parent.type in _INTERFACE_BODIES
    constant = in_interface or {"static", "final"} <= mods
    kind = SymbolKind.CONSTANT if constant else SymbolKind.VARIABLE
    declarators = decl.children_by_field_name("declarator")
    return [_make(decl, node_text(d.child_by_field_name("name")), kind,
                  span=decl if len(declarators) == 1 else d) for d in declarators]


def _modifiers(node: ts.Node) -> ts.Node | None:
    return next((c for c in node.children if c.type == "modifiers"), None)


def _modifier_words(node: ts.Node) -> set[str]:
    mods = _modifiers(node)
    return {c.type for c in mods.children if c.type not in _ANNOTATIONS} if mods else set()


def _has_annotation(node: ts.Node, names: frozenset[str]) -> bool:
    mods = _modifiers(node)
    for ann in mods.children if mods is not None else []:
        if ann.type in _ANNOTATIONS:
            name = node_text(ann.child_by_field_name("name")).rsplit(".", 1)[-1]
            if name in names:
                return True
    return False


def _visibility(node: ts.Node) -> str:
    words = _modifier_words(node)
    for word in ("public", "private", "protected"):
        if word in words:
            return word
    in_interface = node.parent is not None and node.parent.type in _INTERFACE_BODIES
    return "public" if in_interface else "internal"  # package-private


def _signature(node: ts.Node) -> str:
    """First line of the declaration after its annotations."""
    start = node.start_byte
    mods = _modifiers(node)
    if mods is not None:
        words = [c for c in mods.children if c.type not in _ANNOTATIONS]
        after = words[0] if words else mods.next_sibling
        if after is not None:
            start = after.start_byte
    return first_line((node.text or b"")[start - node.start_byte:].decode("utf-8", "replace"))


def _import_row(decl: ts.Node) -> ImportRow:
    """``a.b.C`` -> module a.b.C; ``a.b.*`` -> (a.b, '*'); ``static a.b.C.m`` -> (a.b.C, m)."""
    line = decl.start_point[0] + 1
    is_static = any(c.type == "static" for c in decl.children)
    wildcard = any(c.type == "asterisk" for c in decl.children)
    path = next((node_text(c) for c in decl.named_children
                 if c.type in ("scoped_identifier", "identifier")), "")
    if wildcard:
        return ImportRow(path, "*", line=line)
    if is_static and "." in path:
        module, name = path.rsplit(".", 1)
        return ImportRow(module, name, line=line)
    return ImportRow(path, line=line)


def _dotted(node: ts.Node | None) -> str:
    if node is None:
        return ""
    if node.type in ("identifier", "this", "super", "type_identifier"):
        return node_text(node)
    if node.type == "field_access":
        head = _dotted(node.child_by_field_name("object"))
        field = node.child_by_field_name("field")
        return f"{head}.{node_text(field)}" if head and field is not None else ""
    if node.type in ("scoped_type_identifier", "scoped_identifier", "generic_type"):
        return strip_generics(node_text(node))
    return ""


def _callee(node: ts.Node) -> str:
    if node.type == "object_creation_expression":
        return _dotted(node.child_by_field_name("type"))
    name = node_text(node.child_by_field_name("name"))
    target = node.child_by_field_name("object")
    if target is None:
        return name
    head = _dotted(target)
    return f"{head}.{name}" if head else ""


def _calls(refs: dict[str, list[ts.Node]], spans: list[Span]) -> list[CallRow]:
    nodes = refs.get("method_invocation", []) + refs.get("object_creation_expression", [])
    sites = sorted((n.start_byte, n.start_point[0] + 1, _callee(n)) for n in nodes)
    scopes = enclosing_scopes(spans, [s[0] for s in sites])
    return [CallRow(scope, callee, line)
            for (_, line, callee), scope in zip(sites, scopes, strict=True)]


def _heritage(defs: list[Definition]) -> list[InheritRow]:
    """``extends`` (superclass, interface super-interfaces) and ``implements``."""
    rows: list[InheritRow] = []
    for d in defs:
        if d.row is None or d.node.type not in _TYPE_KINDS:
            continue
        is_interface = d.node.type == "interface_declaration"
        for child in d.node.named_children:
            if child.type in ("superclass", "extends_interfaces"):
                kind = "extends"
            elif child.type == "super_interfaces":
                kind = "extends" if is_interface else "implements"
            else:
                continue
            rows.extend(InheritRow(d.row.qualname, strip_generics(node_text(t)),
                                   t.start_point[0] + 1, kind) for t in _types_in(child))
    return rows


def _types_in(clause: ts.Node) -> list[ts.Node]:
    out: list[ts.Node] = []
    for c in clause.named_children:
        out.extend(c.named_children if c.type == "type_list" else [c])
    return out
