"""Helpers shared by the per-language extractors.

Grammar access (:func:`parser_for`, :func:`query_for`, :func:`node_query`, :func:`captured`),
node text and comments, and the definition assembly the JavaScript, Go, Java and Rust
extractors share: a language module turns query captures into :class:`Definition` objects,
:func:`build_symbols` nests them into qualnames in one sweep over sorted byte spans, and
:func:`enclosing_scopes` places each reference in its innermost call scope.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache

import tree_sitter as ts

from ingest.extract.rows import SymbolRow
from schema import SymbolKind

__all__ = [
    "SCOPE_KINDS", "Definition", "Span", "build_symbols", "captured", "clean_comment",
    "count_lines", "dedupe_qualnames", "enclosing_scopes", "error_lines", "first_line",
    "node_query", "node_text", "parser_for", "preceding_comments", "query_for", "strip_generics",
]


# --------------------------------------------------------------------------------------------
# Grammars and queries.

@cache
def parser_for(language_fn: Callable[[], object]) -> ts.Parser:
    """One parser per grammar per process (parsers are not thread-safe; processes are)."""
    return ts.Parser(ts.Language(language_fn()))


@cache
def query_for(language_fn: Callable[[], object], source: str) -> ts.Query:
    return ts.Query(ts.Language(language_fn()), source)


def node_query(language_fn: Callable[[], object], node_types: Iterable[str]) -> ts.Query:
    """A query capturing every node of ``node_types`` the grammar knows, by its type name."""
    lang = _language(language_fn)
    known = [t for t in node_types if lang.id_for_node_kind(t, True)]
    return query_for(language_fn, "\n".join(f"({t}) @{t}" for t in known))


@cache
def _language(language_fn: Callable[[], object]) -> ts.Language:
    return ts.Language(language_fn())


def captured(query: ts.Query, root: ts.Node) -> dict[str, list[ts.Node]]:
    """Captured nodes by capture name (= node type for :func:`node_query` queries)."""
    return ts.QueryCursor(query).captures(root)


# --------------------------------------------------------------------------------------------
# Text of nodes and files.

def node_text(node: ts.Node | None) -> str:
    text = node.text if node is not None else None  # once: each access copies the bytes
    return "" if text is None else text.decode("utf-8", "replace")


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


def preceding_comments(node: ts.Node, comment_types: frozenset[str],
                       skip_types: frozenset[str] = frozenset()) -> list[ts.Node]:
    """The comments directly above ``node`` (no blank line between), in source order."""
    found: list[ts.Node] = []
    row = node.start_point[0]
    sib = node.prev_sibling
    while sib is not None and sib.end_point[0] >= row - 1:
        if sib.type in comment_types:
            found.append(sib)
        elif sib.type not in skip_types:
            break
        row = sib.start_point[0]
        sib = sib.prev_sibling
    found.reverse()
    return found


_COMMENT_MARK = re.compile(r"^\s*(?:/\*\*?|\*/|\*(?!/)|//[/!]?)?\s?")


def clean_comment(texts: Iterable[str], marks: re.Pattern[str] = _COMMENT_MARK) -> str:
    """Comment text without ``/** */``, leading ``*``, ``//`` or ``///`` markers (or the
    line markers ``marks`` matches, for languages with other comment syntax)."""
    lines: list[str] = []
    for text in texts:
        text = text.rstrip()
        if text.endswith("*/"):
            text = text[:-2]
        lines.extend(marks.sub("", line, count=1).rstrip() for line in text.split("\n"))
    return "\n".join(lines).strip()


def count_lines(data: bytes) -> int:
    if not data:
        return 0
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


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


# --------------------------------------------------------------------------------------------
# Definitions and scopes.

#: Kinds whose body is a call scope (variables and constants are not: their initialiser's calls
#: belong to the enclosing definition).
SCOPE_KINDS = frozenset({
    SymbolKind.FUNCTION, SymbolKind.METHOD, SymbolKind.CLASS, SymbolKind.INTERFACE,
    SymbolKind.STRUCT, SymbolKind.ENUM, SymbolKind.TRAIT,
})


@dataclass(slots=True)
class Definition:
    """A definition found by a language module, before qualnames are assigned.

    ``owner`` replaces the enclosing qualname (a Go method's receiver type); ``emit=False`` marks
    a container that only prefixes its children's qualnames (a Rust ``impl`` block).
    """

    node: ts.Node
    name: str
    kind: str
    signature: str = ""
    docstring: str = ""
    visibility: str = "public"
    is_test: bool = False
    owner: str | None = None
    emit: bool = True
    qualname: str = ""  # set by build_symbols, before ordinal suffixes
    row: SymbolRow | None = None  # set by build_symbols when emitted


Span = tuple[int, int, SymbolRow]


def build_symbols(defs: Iterable[Definition]) -> tuple[list[SymbolRow], list[Span]]:
    """Symbols in source order with nested qualnames, and the byte spans of the call scopes.

    The spans hold the rows themselves, so qualnames renamed by ``dedupe_qualnames`` are what
    call scopes later read.
    """
    ordered = sorted(defs, key=lambda d: (d.node.start_byte, -d.node.end_byte))
    stack: list[tuple[int, str]] = []  # (end byte, qualname) of the open definitions
    rows: list[SymbolRow] = []
    spans: list[Span] = []
    for d in ordered:
        start, end = d.node.start_byte, d.node.end_byte
        while stack and stack[-1][0] <= start:
            stack.pop()
        prefix = d.owner if d.owner is not None else (stack[-1][1] if stack else "")
        qualname = f"{prefix}.{d.name}" if prefix else d.name
        stack.append((end, qualname))
        d.qualname = qualname
        if not d.emit:
            continue
        row = SymbolRow(
            qualname=qualname, name=d.name, kind=d.kind, start_line=d.node.start_point[0] + 1,
            end_line=d.node.end_point[0] + 1, parent=prefix, signature=d.signature,
            docstring=d.docstring, visibility=d.visibility, is_test=d.is_test,
        )
        rows.append(row)
        d.row = row
        if d.kind in SCOPE_KINDS:
            spans.append((start, end, row))
    known = {r.qualname for r in rows}
    for row in rows:  # a prefix from an impl block or a type in another file is no parent
        if row.parent not in known:
            row.parent = ""
    dedupe_qualnames(rows)
    return rows, spans


def dedupe_qualnames(symbols: list[SymbolRow]) -> None:
    """Give repeated qualnames an ordinal suffix in source order (``f``, ``f~2``, ...).

    Children of a renamed definition follow their parent's new qualname, so every id stays
    unique and deterministic (DESIGN §2).
    """
    seen: dict[str, int] = {}
    renamed: dict[str, str] = {}  # a qualname as written -> what it became
    for sym in symbols:  # source order: parents come before their children
        written = sym.qualname
        if sym.parent in renamed:
            new_parent = renamed[sym.parent]
            sym.qualname = f"{new_parent}.{sym.qualname[len(sym.parent) + 1:]}"
            sym.parent = new_parent
        n = seen.get(sym.qualname, 0) + 1
        seen[sym.qualname] = n
        if n > 1:
            sym.qualname = f"{sym.qualname}~{n}"
        # renamed by its parent or by its ordinal: its own children (at any depth) follow
        if sym.qualname != written:
            renamed[written] = sym.qualname
        else:
            renamed.pop(written, None)


def enclosing_scopes(spans: Sequence[Span], points: Sequence[int]) -> list[str]:
    """For each byte offset in ``points``, the qualname of the innermost span holding it ('')."""
    ordered = sorted(spans, key=lambda s: (s[0], -s[1]))
    out = [""] * len(points)
    stack: list[Span] = []
    i = 0
    for idx in sorted(range(len(points)), key=points.__getitem__):
        p = points[idx]
        while i < len(ordered) and ordered[i][0] <= p:
            while stack and stack[-1][1] <= ordered[i][0]:
                stack.pop()
            stack.append(ordered[i])
            i += 1
        while stack and stack[-1][1] <= p:
            stack.pop()
        if stack:
            out[idx] = stack[-1][2].qualname
    return out
