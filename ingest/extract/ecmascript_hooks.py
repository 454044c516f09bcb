"""The JavaScript/TypeScript rules the query files cannot express: import rows (clauses,
re-exports, ``require`` targets), where a declaration's doc comment and signature start, and
visibility.

These hooks run once per captured node (an import statement, a definition, a callee), never over
the whole tree: the query engine (:mod:`ingest.extract.engine`) finds the nodes.
"""

from __future__ import annotations

import tree_sitter as ts

from ingest.extract.common import node_text
from ingest.extract.engine import dotted
from ingest.extract.rows import ImportRow

__all__ = ["doc_comments", "doc_node", "import_rows", "name_of", "signature_start",
           "visibility"]


def name_of(text: str) -> str:
    """A callee or base as a dotted name: ``a!.b`` -> ``a.b``; a subscript is no name."""
    if "[" in text:
        return ""
    return dotted(text.replace("!", ""))


def doc_node(node: ts.Node) -> ts.Node:
    """The statement a definition's doc comment precedes: its ``export``, its ``const``."""
    outer = node
    if node.type == "variable_declarator" and node.parent is not None:
        outer = node.parent
    if outer.parent is not None and outer.parent.type == "export_statement":
        outer = outer.parent
    return outer


def doc_comments(comments: list[str]) -> list[str]:
    """Only a JSDoc comment (``/** ... */``) right above documents a declaration."""
    return comments[-1:] if comments and comments[-1].startswith("/**") else []


def signature_start(node: ts.Node) -> int:
    """The declaration's start after any decorators."""
    for child in node.children:
        if child.type not in ("decorator", "comment"):
            return child.start_byte
    return node.start_byte


def visibility(name: str, node: ts.Node) -> str:
    for child in node.children:
        if child.type == "accessibility_modifier":
            return node_text(child)
    return "private" if name.startswith(("#", "_")) else "public"


def import_rows(data: bytes, node: ts.Node) -> list[ImportRow]:
    """The rows of an ``import``, an ``export ... from`` or a ``require('m')`` call."""
    if node.type == "import_statement":
        return _import_rows(node)
    if node.type == "export_statement":
        return _reexport_rows(node)
    args = node.child_by_field_name("arguments")
    spec = _string_value(args.named_children[0]) if args is not None else None
    return _require_rows(node, spec) if spec is not None else []


def _string_value(node: ts.Node | None) -> str | None:
    if node is None or node.type != "string":
        return None
    return node_text(node)[1:-1]


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
