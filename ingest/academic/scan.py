"""The papers step's scan of one text file — references to papers and the ``__doc__``
assignments that place them — as a pure function of the file's bytes.

Parse workers run it on the bytes they already read for extraction (one read of each file,
and the scan on every core instead of after the load on one); the papers step
(:func:`ingest.academic.links.link_repository`) takes those scans and reads only the files
no worker scanned.
"""

from __future__ import annotations

from typing import NamedTuple

from ingest.academic.docowners import doc_assignments
from ingest.academic.references import FoundReference, find_references

__all__ = ["CODE_SUFFIXES", "DOC_SUFFIXES", "TextScan", "decode_text", "is_scanned",
           "scan_bytes", "scan_text"]

#: documentation the papers step reads (always, even when unchanged)
DOC_SUFFIXES = (".md", ".rst", ".txt", ".markdown", ".adoc")
#: code whose comments and docstrings it reads (when changed)
CODE_SUFFIXES = (".py", ".pyi", ".js", ".jsx", ".mjs", ".ts", ".tsx", ".go", ".java", ".rs",
                 ".c", ".h", ".cc", ".cpp", ".hpp")


class TextScan(NamedTuple):
    """What the papers step finds in one file: its references, the ``X.__doc__ = ...``
    spans of a Python file that holds any, or the message of a failed extraction."""

    found: list[FoundReference]
    assigned: list[tuple[int, int, str]]
    error: str = ""


def is_scanned(path: str) -> bool:
    """Whether the papers step reads ``path`` for references (by its suffix)."""
    return path.lower().endswith(DOC_SUFFIXES + CODE_SUFFIXES)


def decode_text(data: bytes) -> str:
    """The text ``Path.read_text(encoding="utf-8", errors="replace")`` gives for ``data``:
    undecodable bytes replaced, and universal newlines (``\\r\\n`` and ``\\r`` become
    ``\\n``), so line numbers agree whichever way the file was read."""
    return data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")


def scan_text(text: str, path: str) -> TextScan:
    """References in ``text`` (the file ``path``); an extraction that fails is reported in
    ``error``, never raised (one file's text never aborts the ingest)."""
    try:
        found = find_references(text, path=path)
    except Exception as exc:
        return TextScan([], [], f"reference extraction failed: {exc!r}")
    assigned = doc_assignments(text) if found and path.endswith(".py") else []
    return TextScan(found, assigned)


def scan_bytes(data: bytes, path: str) -> TextScan | None:
    """:func:`scan_text` of the file's bytes, or None when the papers step does not read
    such a file or the scan itself failed (the step then reads the file as before)."""
    if not is_scanned(path):
        return None
    try:
        return scan_text(decode_text(data), path)
    except Exception:  # e.g. a RecursionError in doc_assignments: left to the papers step
        return None
