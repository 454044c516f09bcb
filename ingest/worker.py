"""What a parse worker does with one file: read, hash, decode, extract. Never raises.

Runs in a process pool (module-level functions, picklable arguments and results).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from ingest.extract import FileExtract, extract
from ingest.extract.columns import FileColumns, file_columns
from schema import ParseStatus

__all__ = [
    "FileResult", "ParseTask", "content_hash", "decode_source", "parse_file", "parse_many",
]

_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


@dataclass(frozen=True, slots=True)
class ParseTask:
    abs_path: str
    path: str
    language: str
    old_sha: str = ""
    #: also scan the text for references to papers (the papers step's read of the file)
    scan: bool = False
    #: bytes, as the walk saw them (-1: unknown); orders the pool's chunks
    size: int = -1


@dataclass(slots=True)
class FileResult:
    path: str
    language: str
    size: int
    sha: str
    status: str  # schema.ParseStatus value
    error: str
    extract: FileExtract | None
    unchanged: bool = False
    #: the papers step's scan of the file (``ingest.academic.scan.TextScan``), if asked
    scan: Any = None
    #: the extract as the load's columns (made here, on every core: ``ingest.frames``); a
    #: view of ``extract``, so not compared (a shard keeps the extract alone)
    columns: FileColumns | None = field(default=None, compare=False)


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _cookie(data: bytes) -> str:
    """The PEP 263 encoding declared on the first two lines, or ''."""
    for line in data.split(b"\n", 2)[:2]:
        match = _COOKIE.match(line)
        if match:
            return match.group(1).decode("ascii", "replace")
    return ""


def decode_source(data: bytes, language: str) -> tuple[bytes, str]:
    """UTF-8 bytes for the parser, and a note when the file was not UTF-8.

    A Python file's declared encoding (PEP 263) wins, as it does for the interpreter; other
    bytes that are not UTF-8 fall back to latin-1, which never fails and keeps line numbers,
    so a stray byte costs a character, not the file.
    """
    declared = _cookie(data) if language == "python" else ""
    if declared and declared.lower().replace("_", "-") not in ("utf-8", "utf8"):
        try:
            return data.decode(declared).encode("utf-8"), ""
        except (LookupError, UnicodeDecodeError) as exc:
            return data.decode("latin-1").encode("utf-8"), \
                f"declared encoding {declared} failed ({type(exc).__name__}); decoded as latin-1"
    try:
        data.decode("utf-8")
        return data, ""
    except UnicodeDecodeError:
        return data.decode("latin-1").encode("utf-8"), "not UTF-8; decoded as latin-1"


def parse_file(task: ParseTask) -> FileResult:
    """Read and extract one file; every failure becomes a status and a reason."""
    try:
        with open(task.abs_path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        return FileResult(task.path, task.language, 0, "", ParseStatus.SKIPPED,
                          f"unreadable: {exc.strerror or exc}", None)
    sha = content_hash(data)
    if sha == task.old_sha:
        return FileResult(task.path, task.language, len(data), sha, ParseStatus.OK, "", None,
                          unchanged=True)
    scan = _scan(data, task.path) if task.scan else None
    if b"\0" in data[:8192]:
        return FileResult(task.path, task.language, len(data), sha, ParseStatus.SKIPPED,
                          "binary (NUL bytes)", None, scan=scan)
    utf8, note = decode_source(data, task.language)
    try:
        fx = extract(task.language, utf8, task.path)
        columns = file_columns(task.path, fx)
    except Exception as exc:  # an extractor bug must not abort the batch
        return FileResult(task.path, task.language, len(data), sha, ParseStatus.ERROR,
                          f"extractor failed: {type(exc).__name__}: {exc}", None, scan=scan)
    status, notes = ParseStatus.OK, [note] if note else []
    if fx.error_lines:
        status = ParseStatus.PARTIAL
        shown = ", ".join(map(str, fx.error_lines[:10]))
        more = "" if len(fx.error_lines) <= 10 else f" (+{len(fx.error_lines) - 10} more)"
        notes.append(f"syntax errors at lines {shown}{more}")
    return FileResult(task.path, task.language, len(data), sha, status, "; ".join(notes), fx,
                      scan=scan, columns=columns)


def _scan(data: bytes, path: str) -> Any:
    """The papers step's scan of these bytes (imported on first use: a run without papers
    never loads the reference finder)."""
    from ingest.academic.scan import scan_bytes

    return scan_bytes(data, path)


def parse_many(tasks: list[ParseTask]) -> list[FileResult]:
    """A chunk of files in one call, to keep inter-process overhead per file small."""
    return [parse_file(t) for t in tasks]
