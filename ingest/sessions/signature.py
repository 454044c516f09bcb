"""Failure signatures: the same failure, seen in different sessions, groups under one key.

An error message carries details that change from run to run without changing what went
wrong: line numbers, quoted values, memory addresses, temporary paths. The signature keeps the
rest, plus the failure's category and file, so ``KeyError: 'user_42'`` at line 10 and
``KeyError: 'user_7'`` at line 12 of the same file are one failure.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["failure_signature", "normalize_error", "normalize_path"]

_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    # quoted strings first: they may hold anything below (paths, numbers, addresses)
    (re.compile(r'"(?:[^"\\\n]|\\.)*"'), '"…"'),
    (re.compile(r"'(?:[^'\\\n]|\\.)*'"), "'…'"),
    (re.compile(r"`[^`\n]*`"), "`…`"),
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "0x…"),
    (re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
                r"[0-9a-fA-F]{12}\b"), "<uuid>"),
    (re.compile(r"\b(lines?)\s+\d+(?:\s*[-,]\s*\d+)*", re.IGNORECASE), r"\1 <n>"),
    (re.compile(r"(\S):\d+(?::\d+)?\b"), r"\1:<n>"),  # path:line[:col]
    (re.compile(r"\bat 0x…"), "at <addr>"),
)
_SPACE = re.compile(r"\s+")


def normalize_error(error: str) -> str:
    """``error`` without line numbers, quoted strings, addresses and uuids, whitespace folded.

    >>> normalize_error("File 'a.py', line 12: KeyError 'x' at 0x7f3a")
    "File '…', line <n>: KeyError '…' at <addr>"
    """
    text = error.strip()
    for pattern, repl in _RULES:
        text = pattern.sub(repl, text)
    return _SPACE.sub(" ", text).strip()


@lru_cache(maxsize=65536)
def normalize_path(path: str) -> str:
    """Repository-relative, '/'-separated, without a leading ``./``."""
    path = path.strip().replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def failure_signature(error: str, category: str = "", file: str = "") -> str:
    """The grouping key of a failure: ``category | file | normalized error``."""
    return f"{category.strip().lower()} | {normalize_path(file)} | {normalize_error(error)}"
