"""Name resolution: turn every file's rows into edges between ids, across files.

Each language family has a module ``ingest.resolve.<family>`` with
``resolve(repo, files, *, only=None) -> ResolveResult`` where ``files`` maps repository-relative
paths to their :class:`~ingest.extract.rows.FileExtract` (all files of that family) and ``only``,
when given, limits which files' references are resolved (their edges are the only ones
returned). A resolver may read any file's symbols, imports and inherits, but never another
file's calls: incremental ingest hands it call rows only for the files it re-resolves.
"""

from __future__ import annotations

import importlib

from ingest.extract.rows import FileExtract
from ingest.resolve.rows import EdgeRow, ExternalRow, ResolveResult
from ingest.resolve.tests import tests_edges

__all__ = ["FAMILIES", "EdgeRow", "ExternalRow", "ResolveResult", "resolve"]

#: language -> resolver family (languages that import each other resolve together).
FAMILIES: dict[str, str] = {
    "python": "python",
    "javascript": "javascript", "typescript": "javascript", "tsx": "javascript",
    "go": "go",
    "java": "java",
    "rust": "rust",
}


def resolve(repo: str, files: dict[str, FileExtract], *,
            only: set[str] | None = None) -> ResolveResult:
    """Resolve the references of ``files`` (or of ``only``) in repository ``repo``."""
    result = ResolveResult()
    by_family: dict[str, dict[str, FileExtract]] = {}
    for path, fx in files.items():
        family = FAMILIES.get(fx.language)
        if family is not None:
            by_family.setdefault(family, {})[path] = fx
    for family, group in sorted(by_family.items()):
        if only is not None and not (only & group.keys()):
            continue
        module = importlib.import_module(f"ingest.resolve.{family}")
        part: ResolveResult = module.resolve(repo, group, only=only)
        result.edges.extend(part.edges)
        result.externals.update(part.externals)
        result.unresolved.extend(part.unresolved)
    result.edges.extend(tests_edges(repo, files, result.edges, only=only))
    return result
