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
from collections.abc import Iterator, Mapping

from ingest.extract.rows import FileExtract
from ingest.resolve import forked, python, queried
from ingest.resolve.python import Providers
from ingest.resolve.python_index import Index
from ingest.resolve.rows import EdgeRow, ExternalRow, ResolveResult
from ingest.resolve.tests import tests_edges
from schema import TESTS

__all__ = ["FAMILIES", "EdgeRow", "ExternalRow", "Providers", "ResolveResult", "resolve"]

#: language -> resolver family (languages that import each other resolve together).
FAMILIES: dict[str, str] = {
    "python": "python", "jupyter": "python",  # notebooks' code cells are Python
    "javascript": "javascript", "typescript": "javascript", "tsx": "javascript",
    "go": "go",
    "java": "java",
    "rust": "rust",
    **queried.FAMILIES,  # the query-engine languages (ingest/resolve/queried.py)
}


class _Subset(Mapping[str, FileExtract]):
    """The files of one family, as a view: a lazy mapping stays lazy."""

    def __init__(self, files: Mapping[str, FileExtract], paths: list[str]) -> None:
        self._files = files
        self._paths = paths
        self._set = set(paths)

    def __getitem__(self, path: str) -> FileExtract:
        if path not in self._set:
            raise KeyError(path)
        return self._files[path]

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)

    def __contains__(self, path: object) -> bool:
        return path in self._set

    def __getattr__(self, name: str) -> object:
        return getattr(self._files, name)  # callables_by_name, language_of, ...


def _language(files: Mapping[str, FileExtract], path: str) -> str:
    language_of = getattr(files, "language_of", None)
    return language_of(path) if language_of is not None else files[path].language


def resolve(repo: str, files: Mapping[str, FileExtract], *,
            only: set[str] | None = None,
            providers: Providers | None = None, workers: int = 1) -> ResolveResult:
    """Resolve the references of ``files`` (or of ``only``) in repository ``repo``.

    ``providers`` (Python only so far) resolves names that leave the repository into the
    other repositories of the graph (:class:`ingest.resolve.python.Providers`).

    ``files`` may be any mapping; one that builds extracts on access (``ingest.stored``)
    is only asked for the files the resolution actually reaches.

    ``workers`` > 1: the files' references are resolved in that many processes forked from
    this one (:mod:`ingest.resolve.forked`) when every extract is in memory and there are
    enough of them; the result is the same, edge for edge (each file's edges in the same
    order).
    """
    targets = sorted(only if only is not None else files)
    groups = _groups(files)
    if len(targets) >= forked.MIN_FILES and forked.can_fork(files, workers, providers):
        # the Python index built once, here: the forked children inherit it (each built its
        # own, ~0.09 s CPU apiece on the standard library)
        prepared = {"python": python.prepare(repo, groups["python"])} \
            if "python" in groups else {}

        def run_with_tests(run: set[str]) -> ResolveResult:
            """A share's edges, then its TESTS (a test's edges are all its own file's)."""
            part = _resolve_families(repo, groups, run, providers, prepared)
            part.edges.extend(tests_edges(repo, files, part.edges, only=run))
            return part

        result = forked.resolve_forked(targets, files, run_with_tests, workers=workers)
        rel = TESTS.name
        tests = [e for e in result.edges if e.rel == rel]
        if tests:  # last and sorted, as one process gives them
            result.edges = [e for e in result.edges if e.rel != rel]
            result.edges.extend(sorted(tests, key=lambda e: (e.src, e.dst)))
    else:
        result = _resolve_families(repo, groups, only, providers, {})
        result.edges.extend(tests_edges(repo, files, result.edges, only=only))
    return result


def _groups(files: Mapping[str, FileExtract]) -> dict[str, _Subset]:
    """The files of each resolver family, families in name order."""
    paths: dict[str, list[str]] = {}
    for path in files:
        family = FAMILIES.get(_language(files, path))
        if family is not None:
            paths.setdefault(family, []).append(path)
    return {family: _Subset(files, paths[family]) for family in sorted(paths)}


def _resolve_families(repo: str, groups: dict[str, _Subset], only: set[str] | None,
                      providers: Providers | None,
                      prepared: dict[str, Index]) -> ResolveResult:
    """Imports, calls and bases of ``groups`` (or of ``only``), family by family;
    ``prepared``: indexes already built, by family."""
    result = ResolveResult()
    for family, group in groups.items():
        if only is not None and not (only & group.keys()):
            continue
        part: ResolveResult
        if family in queried.SPECS:
            part = queried.resolve(family, repo, group, only=only)
        else:
            module = importlib.import_module(f"ingest.resolve.{family}")
            extra: dict[str, object] = {"providers": providers} \
                if providers is not None and family == "python" else {}
            if family in prepared:
                extra["index"] = prepared[family]
            part = module.resolve(repo, group, only=only, **extra)
        result.edges.extend(part.edges)
        result.externals.update(part.externals)
        result.unresolved.extend(part.unresolved)
    return result
