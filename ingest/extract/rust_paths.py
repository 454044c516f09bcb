"""The Rust rules the query file cannot express: ``use`` trees as import rows (a leaf's path
joins its ancestors' paths), ``::`` paths kept as written, and visibility.

These hooks run once per captured node (an import statement, a callee, a definition), never
over the whole tree: the query engine (:mod:`ingest.extract.engine`) finds the nodes.
"""

from __future__ import annotations

import re

import tree_sitter as ts

from ingest.extract.common import node_text, strip_generics
from ingest.extract.rows import ImportRow

__all__ = ["doc_comments", "import_rows", "path_name", "visibility"]

_METHOD_HOSTS = frozenset({"impl_item", "trait_item"})
_PATH = re.compile(r"^[A-Za-z_]\w*(?:(?:::|\.)[A-Za-z_]\w*)*$")


def path_name(text: str) -> str:
    """A called path or field chain as written (``HashMap::new``, ``self.items.insert``,
    ``util::describe::<T>`` -> ``util::describe``), or '' when it is not one."""
    if "<" in text:
        text = strip_generics(text).replace("::::", "::").rstrip(":")
    text = re.sub(r"\s+", "", text)
    return text if _PATH.match(text) else ""


def doc_comments(comments: list[str]) -> list[str]:
    """Only ``///`` and ``/** */`` comments document an item."""
    return [c for c in comments if c.startswith(("///", "/**"))]


def visibility(name: str, node: ts.Node) -> str:
    """``pub`` -> public, ``pub(crate|super|in ..)`` -> internal; trait items and trait-impl
    methods are as public as the trait; anything else is private."""
    vis = next((c for c in node.children if c.type == "visibility_modifier"), None)
    if vis is not None:
        return "public" if node_text(vis) == "pub" else "internal"
    body = node.parent
    host = body.parent if body is not None else None
    if host is not None and host.type in _METHOD_HOSTS and (
            host.type == "trait_item" or host.child_by_field_name("trait") is not None):
        return "public"
    return "private"


def import_rows(data: bytes, node: ts.Node) -> list[ImportRow]:
    """The rows of one ``use`` declaration, ``mod x;`` or ``extern crate``."""
    line = node.start_point[0] + 1
    if node.type == "mod_item":
        return [ImportRow(f"self::{node_text(node.child_by_field_name('name'))}", line=line)]
    if node.type == "extern_crate_declaration":
        return [ImportRow(node_text(node.child_by_field_name("name")), "",
                          node_text(node.child_by_field_name("alias")), line=line)]
    inline = _inline_modules(node)
    return [ImportRow(_rebase(m, inline), n, a, line=line)
            for m, n, a in _use_leaves(node.child_by_field_name("argument"), "")]


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
