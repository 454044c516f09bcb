"""Rust extractor: items (fns, structs, enums, unions, traits, consts, statics), impl methods as
``Type.method``, ``use`` leaves and ``mod x;`` as imports, calls (macros are skipped), and
``impl Trait for Type`` / supertraits as heritage."""

from __future__ import annotations

import tree_sitter as ts
import tree_sitter_rust

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

_ITEM_KINDS: dict[str, str] = {
    "struct_item": SymbolKind.STRUCT,
    "union_item": SymbolKind.STRUCT,
    "enum_item": SymbolKind.ENUM,
    "trait_item": SymbolKind.TRAIT,
    "const_item": SymbolKind.CONSTANT,
    "static_item": SymbolKind.CONSTANT,
}
_DEF_TYPES = (*_ITEM_KINDS, "function_item", "function_signature_item", "impl_item", "mod_item")
_REF_TYPES = ("call_expression", "use_declaration", "mod_item", "extern_crate_declaration")
_COMMENTS = frozenset({"line_comment", "block_comment"})
_ATTRIBUTES = frozenset({"attribute_item"})
_METHOD_HOSTS = frozenset({"impl_item", "trait_item"})


def extract(data: bytes, path: str, *, language: str = "rust") -> FileExtract:
    """Symbols, imports, calls and trait relations of one Rust file."""
    grammar = tree_sitter_rust.language
    root = parser_for(grammar).parse(data).root_node
    found = captured(node_query(grammar, _DEF_TYPES), root)
    defs = [d for nodes in found.values() for n in nodes if (d := _definition(n)) is not None]
    symbols, spans = build_symbols(defs)
    refs = captured(node_query(grammar, _REF_TYPES), root)
    fx = FileExtract(language=language, symbols=symbols, error_lines=error_lines(root),
                     loc=count_lines(data))
    fx.imports = _imports(refs)
    fx.calls = _calls(refs.get("call_expression", []), spans)
    fx.inherits = _heritage(sorted(defs, key=lambda d: d.node.start_byte))
    return fx


def _definition(node: ts.Node) -> Definition | None:
    t = node.type
    if t == "impl_item":  # a container: its methods are Type.method
        return Definition(node=node, name=_type_name(node.child_by_field_name("type")),
                          kind=SymbolKind.STRUCT, emit=False)
    name = node_text(node.child_by_field_name("name"))
    if not name:
        return None
    if t == "mod_item":  # inline `mod tests { ... }` prefixes qualnames; `mod x;` is an import
        has_body = node.child_by_field_name("body") is not None
        return Definition(node=node, name=name, kind=SymbolKind.MODULE, emit=False) \
            if has_body else None
    kind = _ITEM_KINDS.get(t)
    if kind is None:
        kind = SymbolKind.METHOD if _host(node) is not None else SymbolKind.FUNCTION
    elif t == "static_item" and any(c.type == "mutable_specifier" for c in node.children):
        kind = SymbolKind.VARIABLE
    docs = [node_text(c) for c in preceding_comments(node, _COMMENTS, _ATTRIBUTES)
            if node_text(c).startswith(("///", "/**"))]
    return Definition(
        node=node, name=name, kind=kind, signature=first_line(node_text(node)),
        docstring=clean_comment(docs), visibility=_visibility(node),
        is_test=t == "function_item" and _is_test(node),
    )


def _host(node: ts.Node) -> ts.Node | None:
    """The impl or trait whose body holds ``node``, if any."""
    body = node.parent
    host = body.parent if body is not None else None
    return host if host is not None and host.type in _METHOD_HOSTS else None


def _visibility(node: ts.Node) -> str:
    """``pub`` -> public, ``pub(crate|super|in ..)`` -> internal; trait items and trait-impl
    methods are as public as the trait; anything else is private."""
    vis = next((c for c in node.children if c.type == "visibility_modifier"), None)
    if vis is not None:
        return "public" if node_text(vis) == "pub" else "internal"
    host = _host(node)
    if host is not None and (host.type == "trait_item"
                             or host.child_by_field_name("trait") is not None):
        return "public"
    return "private"


def _is_test(node: ts.Node) -> bool:
    """``#[test]``, ``#[tokio::test]`` and the like among the attributes above ``node``."""
    sib = node.prev_named_sibling
    while sib is not None and sib.type in _ATTRIBUTES | _COMMENTS:
        if sib.type == "attribute_item":
            attr = sib.named_children[0] if sib.named_child_count else None
            path = attr.named_children[0] if attr is not None and attr.named_child_count else None
            if path is not None and node_text(path).rsplit("::", 1)[-1] == "test":
                return True
        sib = sib.prev_named_sibling
    return False


def _type_name(node: ts.Node | None) -> str:
    """``S`` for ``S``, ``S<T>``, ``&S``, ``a::S``; the text without generics otherwise."""
    while node is not None and node.type in ("generic_type", "reference_type"):
        node = node.child_by_field_name("type")
    if node is None:
        return ""
    if node.type == "scoped_type_identifier":
        return node_text(node.child_by_field_name("name"))
    return strip_generics(node_text(node))


def _inline_modules(node: ts.Node) -> list[str]:
    """Names of the inline ``mod x { ... }`` blocks around ``node``, outermost first."""
    names: list[str] = []
    parent = node.parent
    while parent is not None:
        if parent.type == "mod_item" and parent.child_by_field_name("body") is not None:
            names.insert(0, node_text(parent.child_by_field_name("name")))
        parent = parent.parent
    return names


def _rebase(module: str, inline: list[str]) -> str:
    """A ``self::``/``super::`` path written inside inline modules, made relative to the
    file's own module: in ``mod tests { use super::*; }`` ``super`` is the file itself."""
    parts = module.split("::")
    if not inline or parts[0] not in ("self", "super"):
        return module
    ups = 0
    while parts and parts[0] in ("self", "super"):
        ups += parts[0] == "super"
        parts = parts[1:]
    if ups > len(inline):
        return "::".join(["super"] * (ups - len(inline)) + parts)
    return "::".join(["self", *inline[: len(inline) - ups], *parts])


def _imports(refs: dict[str, list[ts.Node]]) -> list[ImportRow]:
    found: list[tuple[int, ImportRow]] = []
    for node in refs.get("use_declaration", []):
        line = node.start_point[0] + 1
        arg = node.child_by_field_name("argument")
        inline = _inline_modules(node)
        found.extend((node.start_byte, ImportRow(_rebase(m, inline), n, a, line=line))
                     for m, n, a in _use_leaves(arg, ""))
    for node in refs.get("mod_item", []):
        if node.child_by_field_name("body") is None:
            module = f"self::{node_text(node.child_by_field_name('name'))}"
            found.append((node.start_byte, ImportRow(module, line=node.start_point[0] + 1)))
    for node in refs.get("extern_crate_declaration", []):
        alias = node_text(node.child_by_field_name("alias"))
        found.append((node.start_byte, ImportRow(node_text(node.child_by_field_name("name")),
                                                 "", alias, line=node.start_point[0] + 1)))
    found.sort(key=lambda f: f[0])
    return [row for _, row in found]


def _join(prefix: str, path: str) -> str:
    return f"{prefix}::{path}" if prefix and path else prefix or path


def _leaf(full: str, alias: str = "") -> tuple[str, str, str]:
    """``a::b::c`` -> (a::b, c, alias); a single segment is a whole-crate import."""
    if full.endswith("::self"):
        return full[: -len("::self")], "", alias
    if "::" not in full:
        return full, "", alias
    module, name = full.rsplit("::", 1)
    return module, name, alias


def _use_leaves(node: ts.Node | None, prefix: str) -> list[tuple[str, str, str]]:
    """(module, name, alias) for every leaf of a ``use`` tree."""
    if node is None:
        return []
    t = node.type
    if t == "use_as_clause":
        path = _join(prefix, node_text(node.child_by_field_name("path")))
        return [_leaf(path, node_text(node.child_by_field_name("alias")))]
    if t == "scoped_use_list":
        inner = _join(prefix, node_text(node.child_by_field_name("path")))
        return _use_leaves(node.child_by_field_name("list"), inner)
    if t == "use_list":
        return [leaf for c in node.named_children for leaf in _use_leaves(c, prefix)]
    if t == "use_wildcard":
        path = node_text(node.named_children[0]) if node.named_child_count else ""
        return [(_join(prefix, path), "*", "")]
    if t in ("scoped_identifier", "identifier", "self", "crate", "super"):
        return [_leaf(_join(prefix, node_text(node)))]
    return []


def _path(node: ts.Node | None) -> str:
    """``a::b::c`` / ``self.x.f`` for a path or field chain of names, else ''."""
    if node is None:
        return ""
    t = node.type
    if t in ("identifier", "self", "super", "crate", "type_identifier", "field_identifier"):
        return node_text(node)
    if t == "generic_type":
        return _path(node.child_by_field_name("type"))
    if t == "generic_function":
        return _path(node.child_by_field_name("function"))
    if t == "scoped_identifier":
        head = _path(node.child_by_field_name("path"))
        name = node_text(node.child_by_field_name("name"))
        return f"{head}::{name}" if head else ""
    if t == "field_expression":
        head = _path(node.child_by_field_name("value"))
        field = node_text(node.child_by_field_name("field"))
        return f"{head}.{field}" if head and field else ""
    return ""


def _calls(nodes: list[ts.Node], spans: list[Span]) -> list[CallRow]:
    sites = sorted((n.start_byte, n.start_point[0] + 1, _path(n.child_by_field_name("function")))
                   for n in nodes)
    scopes = enclosing_scopes(spans, [s[0] for s in sites])
    return [CallRow(scope, callee, line)
            for (_, line, callee), scope in zip(sites, scopes, strict=True)]


def _heritage(defs: list[Definition]) -> list[InheritRow]:
    """``impl Trait for Type`` (implements, cls = Type) and supertraits (extends)."""
    rows: list[InheritRow] = []
    for d in defs:
        node = d.node
        if node.type == "impl_item" and node.child_by_field_name("trait") is not None:
            trait = node.child_by_field_name("trait")
            rows.append(InheritRow(d.qualname, strip_generics(node_text(trait)),
                                   node.start_point[0] + 1, "implements"))
        elif node.type == "trait_item" and d.row is not None:
            bounds = node.child_by_field_name("bounds")
            for b in bounds.named_children if bounds is not None else []:
                if b.type in ("type_identifier", "scoped_type_identifier", "generic_type"):
                    rows.append(InheritRow(d.row.qualname, strip_generics(node_text(b)),
                                           b.start_point[0] + 1, "extends"))
    return rows
