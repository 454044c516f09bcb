"""Python name resolution: imports, calls and base classes to symbols, files or Externals.

Handles relative imports, ``from x import y as z``, package ``__init__`` re-exports (followed
through any number of hops and ``*`` imports), module attributes (``os.path.join``),
``self``/``cls`` methods through the class's bases, ``super()``, instances bound by
``x = C()`` / ``x: C`` / ``self.x = C()``, and falls back to a name-only guess only when a
short name is unique in the repository. Every edge carries the method that found it.

The work is split by concern: :mod:`ingest.resolve.python_names` (what a name stands
for), :mod:`ingest.resolve.python_index` (namespaces, receiver types),
:mod:`ingest.resolve.python_calls` (explicit and implicit calls, functions as values, fixtures), and
:mod:`ingest.resolve.python_providers` (other repositories of the graph).
"""

from __future__ import annotations

from collections.abc import Mapping

from ingest.extract.rows import FileExtract
from ingest.resolve.python_calls import call_edges, destination, fixture_edges
from ingest.resolve.python_index import Index
from ingest.resolve.python_names import External, Instance, Module, module_name, module_names
from ingest.resolve.python_providers import Providers
from ingest.resolve.rows import EdgeRow, ResolveResult
from schema import (
    EXTERNAL,
    FILE,
    IMPORTS,
    INHERITS,
    RESOLUTION_CONFIDENCE,
    SYMBOL,
    Resolution,
    file_id,
    symbol_id,
)

__all__ = ["Providers", "module_name", "module_names", "prepare", "resolve"]


def resolve(repo: str, files: Mapping[str, FileExtract], *,
            only: set[str] | None = None,
            providers: Providers | None = None, index: Index | None = None) -> ResolveResult:
    """Resolve the imports, calls and bases of ``files`` (or of those in ``only``).

    ``providers``: the other repositories of the graph; a name that leaves this repository
    for a module one of them provides resolves into it instead of to an External.
    ``index``: one :func:`prepare` made of the same files (resolving several shares of them
    in processes forked after it was made: each inherits it instead of building its own)."""
    if index is None:
        index = Index(files, root_package=repo)
    index.providers = providers
    result = ResolveResult()
    for path in sorted(files):
        if only is not None and path not in only:
            continue
        index.ensure(path)
        fx = files[path]
        _imports(repo, path, fx, index, result)
        call_edges(repo, path, fx, index, result)
        _inherits(repo, path, fx, index, result)
        fixture_edges(repo, path, fx, index, result)
    return result



def prepare(repo: str, files: Mapping[str, FileExtract]) -> Index:
    """An index of every file of ``files``, for :func:`resolve`'s ``index``."""
    index = Index(files, root_package=repo)
    for path in files:
        index.ensure(path)
    return index


def _imports(repo: str, path: str, fx: FileExtract, index: Index,
             result: ResolveResult) -> None:
    src = file_id(repo, path)
    for imp in fx.imports:
        module = index.absolute(path, imp.module, imp.level)
        if imp.name and imp.name != "*":
            target = index.declared(module, imp.name)
            if target is None:  # a name the module does not define: the module itself
                target = index.module_target(module)
            kind = "symbol"
        else:
            target, kind = index.module_target(module), "module"
        dst = destination(repo, target, result, kind, providers=index.providers) \
            if target is not None else None
        if dst is None:
            continue
        method = Resolution.EXTERNAL if dst[1] == EXTERNAL.name else Resolution.IMPORT
        result.edges.append(EdgeRow(IMPORTS.name, src, FILE.name, dst[0], dst[1], imp.line,
                                    method, RESOLUTION_CONFIDENCE[method], imp.alias or imp.name))



def _inherits(repo: str, path: str, fx: FileExtract, index: Index,
              result: ResolveResult) -> None:
    for inh in fx.inherits:
        if inh.base == "object":
            continue
        scope = index.parents.get((path, inh.cls), "")
        target, method = index.expression(path, scope, inh.base)
        if target is None or isinstance(target, (Module, Instance)):
            continue
        dst = destination(repo, target, result, providers=index.providers, symbol_only=True)
        if dst is None:
            continue
        if isinstance(target, External) and dst[1] != EXTERNAL.name:
            method = Resolution.IMPORT  # a base class of another repository of the graph
        result.edges.append(EdgeRow(
            INHERITS.name, symbol_id(repo, path, inh.cls), SYMBOL.name, dst[0], dst[1],
            inh.line, method, RESOLUTION_CONFIDENCE[method], inh.kind))

