"""What an unannotated Python function returns, as the rows of its ``<returns>`` bindings:
``return C(...)`` (a call gives an instance of C), ``return a.b`` (the value itself), and a
``yield C(...)`` at the top of its body (a fixture's value).

Two routes to the same rows: :func:`returns_by_function` gives every function's at once
from the captured ``return`` and ``yield`` statements (``queries/python_returns.scm``), each
climbing to its function through the blocks the rows are read from; :func:`walked_returns`
walks one function's blocks, for trees with syntax errors.
"""

from __future__ import annotations

from operator import itemgetter

import tree_sitter as ts

from ingest.extract.python_names import dotted

__all__ = ["returns_by_function", "walked_returns"]


#: statements whose blocks :func:`walked_returns` looks into (never a nested ``def``/``class``)
_RETURN_BLOCKS = frozenset({"if_statement", "elif_clause", "else_clause", "try_statement",
                            "except_clause", "finally_clause", "with_statement",
                            "for_statement", "while_statement", "block"})


def walked_returns(body: ts.Node | None) -> list[tuple[str, str]]:
    """What an unannotated function's ``return`` statements give, in source order, at any
    depth of its blocks: (``returns``, ``C``) for ``return C(...)`` (what calling C gives),
    (``returns-value``, ``a.b``) for ``return a.b`` (the value itself: a module, a class),
    each once. A top-level ``yield C(...)`` counts as a return (a fixture's value)."""
    out: dict[tuple[str, str], None] = {}
    _collect_returns(body, True, out)
    return list(out)


def returns_by_function(captures: dict[str, list[ts.Node]]) -> dict[int, list[tuple[str, str]]]:
    """:func:`walked_returns` of every function at once, by the function's start byte, from the
    captured ``return`` statements and the ``yield`` statements of function bodies
    (``queries/python_returns.scm``): each return climbs to the function whose body it is
    in, through the blocks :func:`walked_returns` looks into, instead of every function's blocks
    being walked. For trees without syntax errors (where a body is always a block)."""
    found: list[tuple[int, int, ts.Node]] = []  # (statement start, function start, statement)
    for stmt in captures.get("return", ()):
        function = _returning_function(stmt)
        if function is not None:
            found.append((stmt.start_byte, function, stmt))
    for stmt in captures.get("return.yield", ()):  # a statement of a function's body
        found.append((stmt.start_byte, stmt.parent.parent.start_byte, stmt))
    found.sort(key=itemgetter(0))
    out: dict[int, dict[tuple[str, str], None]] = {}
    for _start, function, stmt in found:
        value = _returned_value(stmt, True)
        if value is not None:
            out.setdefault(function, {})[value] = None
    return {function: list(values) for function, values in out.items()}


def _returning_function(stmt: ts.Node) -> int | None:
    """The start byte of the function a ``return`` statement gives the value of in the sense
    of :func:`walked_returns` (reached from the function's body through :data:`_RETURN_BLOCKS`),
    or None."""
    node = stmt.parent
    while node is not None:
        parent = node.parent
        if parent is not None and parent.type == "function_definition":
            body = parent.child_by_field_name("body")
            return parent.start_byte if body is not None and body.id == node.id else None
        if node.type not in _RETURN_BLOCKS:
            return None
        node = parent
    return None


def _returned_value(stmt: ts.Node, top: bool) -> tuple[str, str] | None:
    """What a ``return`` (or, at the top of a body, a ``yield``) statement gives, as a row
    of :func:`walked_returns`, or None."""
    value = stmt.named_child(0) if stmt.named_child_count else None
    if stmt.type == "expression_statement" and top and value is not None \
            and value.type == "yield":
        value = value.named_child(0) if value.named_child_count else None
    elif stmt.type != "return_statement":
        return None
    if value is not None and value.type == "call":
        callee = dotted(value.child_by_field_name("function"))
        if callee:
            return "returns", callee
    elif value is not None and value.type == "attribute":
        held = dotted(value)
        if held and not held.startswith("self."):
            return "returns-value", held
    return None


def _collect_returns(node: ts.Node | None, top: bool,
                     out: dict[tuple[str, str], None]) -> None:
    for stmt in node.named_children if node is not None else ():
        if stmt.type in _RETURN_BLOCKS:
            _collect_returns(stmt, False, out)
            continue
        value = _returned_value(stmt, top)
        if value is not None:
            out[value] = None
