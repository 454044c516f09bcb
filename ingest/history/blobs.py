"""Symbols of old revisions: parse blobs straight from the git object store, in workers.

Only the definitions are extracted (no call sites): attribution needs spans, and a history
holds many revisions of each file. Each worker process opens the repository once.
"""

from __future__ import annotations

from dataclasses import dataclass

import pygit2

from ingest.extract import SymbolRow, definitions
from ingest.worker import decode_source

__all__ = ["BlobSymbols", "BlobTask", "parse_blobs"]

_REPOS: dict[str, pygit2.Repository] = {}


@dataclass(frozen=True, slots=True)
class BlobTask:
    oid: str
    path: str
    language: str


@dataclass(frozen=True, slots=True)
class BlobSymbols:
    """The definitions of one blob; ``error`` says why there are none (binary, too large,
    extractor failure), in which case its changes are not attributed."""

    oid: str
    symbols: tuple[SymbolRow, ...]
    loc: int
    error: str = ""


def parse_blobs(git_dir: str, tasks: list[BlobTask], max_size: int) -> list[BlobSymbols]:
    """Definitions of each blob; never raises for one bad blob."""
    repo = _REPOS.get(git_dir)
    if repo is None:
        repo = _REPOS[git_dir] = pygit2.Repository(git_dir)
    return [_parse(repo, task, max_size) for task in tasks]


def _parse(repo: pygit2.Repository, task: BlobTask, max_size: int) -> BlobSymbols:
    try:
        data = repo[task.oid].data
    except (KeyError, ValueError) as exc:
        return BlobSymbols(task.oid, (), 0, f"missing blob: {exc}")
    if len(data) > max_size:
        return BlobSymbols(task.oid, (), 0, f"larger than {max_size} bytes")
    if b"\0" in data[:8192]:
        return BlobSymbols(task.oid, (), 0, "binary (NUL bytes)")
    loc = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    utf8, _ = decode_source(data, task.language)
    try:
        rows = definitions(task.language, utf8, task.path)
    except Exception as exc:  # an extractor bug must not abort the history
        return BlobSymbols(task.oid, (), loc, f"extractor failed: {type(exc).__name__}: {exc}")
    return BlobSymbols(task.oid, tuple(rows), loc)
