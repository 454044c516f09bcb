"""Docstrings assigned after the fact: ``f.__doc__ = f\"\"\"...\"\"\"`` (issue 22).

A reference inside such a string belongs to ``f``, not to the file whose top level holds the
assignment. ``doc_assignments`` finds them with :mod:`ast` (the standard library's parser:
exact spans, no guessing from text).
"""

from __future__ import annotations

import ast
import re

__all__ = ["doc_assignments"]

#: what every ``... .__doc__ = ...`` holds, between the name and ``=``: blanks, line
#: continuations, closing parentheses, comments (a superset: ``==`` matches too)
_MAYBE = re.compile(r"__doc__(?:[\s\\)]|#[^\n]*)*=")


def doc_assignments(text: str) -> list[tuple[int, int, str]]:
    """(first line, last line, dotted target) of each ``X.__doc__ = ...`` in Python source;
    none for a file that does not parse."""
    if text.isascii() and not _MAYBE.search(text):
        # nothing to find, without parsing the file (most files; a non-ASCII one may spell
        # the name with characters NFKC folds to it, so it is parsed)
        return []
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    out: list[tuple[int, int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target = node.targets[0]
        if isinstance(target, ast.Attribute) and target.attr == "__doc__":
            name = _dotted(target.value)
            if name:
                out.append((node.lineno, node.end_lineno or node.lineno, name))
    return out


def _dotted(node: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))
