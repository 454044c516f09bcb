"""Python extractor: definitions, imports, calls, bases and simple bindings from one file.

Python is declared as data like every other language: ``queries/python.scm`` captures the
statements (definitions, imports, assignments, binding statements) and
``queries/python_calls.scm`` the call sites, including the calls the syntax makes without
parentheses. One ``QueryCursor.matches`` walks the tree in C; :mod:`ingest.extract.python_rows`
turns each captured statement into rows in source order, and each call site is assigned to its
innermost enclosing definition by one sweep over the sorted definition spans. Python work per
file follows the captures, not the nodes. (The generic :func:`ingest.extract.engine.run` has no
words for Python's bindings, fixtures and implicit calls, hence this module of its own.)
"""

from __future__ import annotations

from functools import partial

import tree_sitter as ts
import tree_sitter_python

from ingest.extract.common import count_lines, error_lines, node_text, parser_for
from ingest.extract.engine import compiled_query
from ingest.extract.python_names import callee_text, dotted
from ingest.extract.python_rows import StatementRows, docstring, is_test_path
from ingest.extract.rows import CallRow, FileExtract, SymbolRow

__all__ = ["IMPLICIT_DUNDERS", "VALUE_PREFIX", "definitions", "extract", "is_test_path"]

#: the query files: statements, then call sites and the values functions return
_STATEMENT_QUERIES = ("python",)
_ALL_QUERIES = ("python", "python_calls", "python_returns")
#: the prefix of a function used as a value (``callee`` of a row the resolver keeps only
#: when it names a repository function: passing it on, storing it, registering a callback)
VALUE_PREFIX = "&"
_DUNDERS = {"with": ("__enter__", "__exit__"), "iter": ("__iter__",),
            "item": ("__getitem__",)}
_OPERATORS = {"+": "__add__", "-": "__sub__", "*": "__mul__", "/": "__truediv__",
              "//": "__floordiv__", "%": "__mod__", "@": "__matmul__", "|": "__or__",
              "&": "__and__", "^": "__xor__", "<<": "__lshift__", ">>": "__rshift__",
              "**": "__pow__"}
#: the methods those calls name (the resolver keeps such a call only when it finds the method)
IMPLICIT_DUNDERS = frozenset(
    {n for names in _DUNDERS.values() for n in names} | set(_OPERATORS.values()))
_IMPLICIT = frozenset({"decorator", "value", "operand", *_DUNDERS})


def definitions(data: bytes, path: str, *, language: str = "python") -> list[SymbolRow]:
    """The definitions alone, as :func:`extract` finds them: history attribution needs
    symbol spans of many old revisions, and skipping call sites saves most of the time."""
    root = parser_for(tree_sitter_python.language).parse(data).root_node
    captures = _captures(_STATEMENT_QUERIES, root)
    rows = StatementRows(data, path, symbols_only=True)
    rows.read(root, captures)
    return rows.symbols


def extract(data: bytes, path: str, *, language: str = "python") -> FileExtract:
    """Rows for one Python file; syntax errors leave a partial tree that still yields rows."""
    root = parser_for(tree_sitter_python.language).parse(data).root_node
    captures = _captures(_ALL_QUERIES, root)
    rows = StatementRows(data, path)
    rows.read(root, captures)
    return FileExtract(
        language=language,
        symbols=rows.symbols,
        imports=rows.imports,
        calls=_calls(root, captures, rows.spans),
        inherits=rows.inherits,
        assigns=rows.assigns,
        error_lines=error_lines(root),
        loc=count_lines(data),
        module_doc=docstring(root),
    )


def _captures(files: tuple[str, ...], root: ts.Node) -> dict[str, list[ts.Node]]:
    """Captured nodes by capture name, each list in source order (the rows sort them anyway).
    ``captures`` groups them in C; ``matches`` costs as much in C and needs a Python loop
    over its ~350 matches per file to group them (measured on the standard library)."""
    return ts.QueryCursor(compiled_query(files, tree_sitter_python.language)).captures(root)


def _calls(root: ts.Node, captures: dict[str, list[ts.Node]],
           spans: list[tuple[int, int, str]]) -> list[CallRow]:
    """Every call site with its innermost enclosing definition, by a sweep over sorted spans
    (sites in source order: by start, then end, then as found: call sites before the calls
    without parentheses, the ``__enter__`` of a ``with`` before its ``__exit__``)."""
    sites = [(n.start_byte, n.end_byte, i, n.start_point[0] + 1, callee_text(n))
             for i, n in enumerate(captures.get("callee", ()))]
    sites += _implicit_calls(root, captures, len(sites))
    sites.sort()
    spans = sorted(spans, key=lambda s: (s[0], -s[1]))
    spans.append((_PAST_END, _PAST_END, ""))  # a sentinel: never opened
    # the open definitions (end byte, qualname), the module at the bottom (never closed)
    stack: list[tuple[int, str]] = [(_PAST_END, "")]
    top_end, top = stack[-1]
    i, next_start = 0, spans[0][0]
    rows: list[tuple[str, str, int]] = []
    for pos, _end, _i, line, text in sites:
        if next_start <= pos:  # definitions opening at or before this site
            while next_start <= pos:
                start, end, qualname = spans[i]
                while stack[-1][0] <= start:
                    stack.pop()
                stack.append((end, qualname))
                i += 1
                next_start = spans[i][0]
            top_end, top = stack[-1]
        if top_end <= pos:  # definitions closed before it
            while stack[-1][0] <= pos:
                stack.pop()
            top_end, top = stack[-1]
        rows.append((top, text, line))
    return list(map(_CALL_ROW, rows))


#: beyond any byte of a file
_PAST_END = 1 << 62
#: a CallRow from a plain tuple, in C (a NamedTuple's own ``__new__`` is Python code)
_CALL_ROW = partial(tuple.__new__, CallRow)


def _in_bases(node: ts.Node) -> bool:
    """``node`` is a base class or ``metaclass=`` of a class statement (asked of broken
    trees only: elsewhere the query's ``@value.base`` says it)."""
    up = node.parent
    if up is not None and up.type == "keyword_argument":
        up = up.parent
    return up is not None and up.parent is not None and up.parent.type == "class_definition"


def _implicit_calls(root: ts.Node, captures: dict[str, list[ts.Node]],
                    first: int) -> list[tuple[int, int, int, int, str]]:
    """Call sites (start, end, order, line, ``receiver.__dunder__``) of the calls the syntax
    makes without parentheses; a context manager built by ``C(...)`` is an instance of ``C``.
    The resolver keeps only those reaching a repository definition."""
    broken = root.has_error
    bases = {(n.start_byte, n.end_byte) for n in captures.get("value.base", ())}
    out: list[tuple[int, int, int, int, str]] = []
    order = first
    for capture, nodes in captures.items():
        if capture == "value":  # the most frequent by far: its own loop
            for node in nodes:
                start, end = node.start_byte, node.end_byte
                if _in_bases(node) if broken else (start, end) in bases:
                    continue
                text = dotted(node)
                if text:
                    out.append((start, end, order, node.start_point[0] + 1, VALUE_PREFIX + text))
                    order += 1
            continue
        if capture not in _IMPLICIT:
            continue
        for node in nodes:
            if capture == "decorator":
                names = [dotted(node)]
            else:
                receiver = dotted(node.child_by_field_name("function")) \
                    if node.type == "call" else dotted(node)
                if not receiver:
                    continue
                if capture == "operand":
                    op = node.parent.child_by_field_name("operator") if node.parent else None
                    names = [f"{receiver}.{_OPERATORS[node_text(op)]}"] \
                        if op is not None and node_text(op) in _OPERATORS else []
                else:
                    names = [f"{receiver}.{name}" for name in _DUNDERS[capture]]
            start, end, line = node.start_byte, node.end_byte, node.start_point[0] + 1
            for name in names:
                out.append((start, end, order, line, name))
                order += 1
    return out
