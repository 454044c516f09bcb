"""Helpers shared by the per-language extractors."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

import tree_sitter as ts

from ingest.extract.rows import SymbolRow

__all__ = [
    "dedupe_qualnames", "error_lines", "first_line", "node_text", "parser_for", "query_for",
    "strip_generics",
]


@cache
def parser_for(language_fn: Callable[[], object]) -> ts.Parser:
    """One parser per grammar per process (parsers are not thread-safe; processes are)."""
    return ts.Parser(ts.Language(language_fn()))


@cache
def query_for(language_fn: Callable[[], object], source: str) -> ts.Query:
    return ts.Query(ts.Language(language_fn()), source)


def node_text(node: ts.Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


def first_line(text: str, limit: int = 300) -> str:
    """The declaration's first line, trimmed: a compact signature."""
    line = text.split("\n", 1)[0].strip()
    return line[:limit]


_GENERICS = re.compile(r"<[^<>]*>|\[[^\[\]]*\]")


def strip_generics(name: str) -> str:
    """``Base<T>`` / ``Base[T]`` -> ``Base`` (nested generics stripped repeatedly)."""
    prev = None
    while prev != name:
        prev, name = name, _GENERICS.sub("", name)
    return name.strip()


def error_lines(root: ts.Node, limit: int = 50) -> list[int]:
    """1-based lines of ERROR / MISSING nodes, walking only into subtrees that contain errors."""
    found: list[int] = []
    if not root.has_error:
        return found
    stack = [root]
    while stack and len(found) < limit:
        node = stack.pop()
        if node.is_error or node.is_missing:
            found.append(node.start_point[0] + 1)
            continue
        stack.extend(c for c in reversed(node.children) if c.has_error)
    return sorted(set(found))


def dedupe_qualnames(symbols: list[SymbolRow]) -> None:
    """Give repeated qualnames an ordinal suffix in source order (``f``, ``f~2``, ...).

    Children of a renamed definition follow their parent's new qualname, so every id stays
    unique and deterministic (DESIGN §2).
    """
    seen: dict[str, int] = {}
    renamed: dict[str, str] = {}
    for sym in symbols:  # source order: parents come before their children
        if sym.parent in renamed:
            new_parent = renamed[sym.parent]
            sym.qualname = f"{new_parent}.{sym.qualname[len(sym.parent) + 1:]}"
            sym.parent = new_parent
        n = seen.get(sym.qualname, 0) + 1
        seen[sym.qualname] = n
        if n > 1:
            old = sym.qualname
            sym.qualname = f"{old}~{n}"
            renamed[old] = sym.qualname
        else:
            renamed.pop(sym.qualname, None)
