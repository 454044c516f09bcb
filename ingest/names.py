"""File names as the disk gives them, and as we may store and print them.

POSIX names are bytes; Python hands back the bytes that are not UTF-8 as lone surrogates
(``surrogateescape``), which no UTF-8 consumer — Kuzu, JSON, a terminal — accepts. Such a
file is reported under its name with those bytes written ``\\xNN``, never stored as is.
"""

from __future__ import annotations

import os

__all__ = ["is_utf8_name", "shown_name"]


def is_utf8_name(name: str) -> bool:
    """Whether a name from ``os.scandir`` was valid UTF-8 on disk (Python keeps other bytes
    as lone surrogates, which no UTF-8 consumer — Kuzu, JSON, a terminal — accepts)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown_name(name: str) -> str:
    """``name`` with each byte that is not UTF-8 written ``\\xNN``: printable and storable."""
    try:
        raw = os.fsencode(name)
    except UnicodeEncodeError:  # a surrogate no byte stands for (text from JSON, say)
        return name.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")
