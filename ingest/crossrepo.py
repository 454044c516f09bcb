"""Cross-repository resolution: IMPORTS, CALLS and INHERITS from one repository of the graph
into another (a package and its consumers) instead of to an External.

Two directions, so the order of ingest does not matter:

- while a repository is resolved, :func:`providers_for` hands the resolver the top-level
  modules the *other* repositories provide (a name leaving the repository for one of them
  resolves into it, :class:`ingest.resolve.python.Providers`);
- after a repository changed, :func:`relink_consumers` re-resolves the files of the other
  repositories that mention one of its modules (read back from their CodeRef rows, nothing is
  parsed), so consumers ingested before their dependency now point into it, and consumers of a
  symbol that moved or vanished follow it (or fall back to an External).

A top-level module name that two repositories provide is ambiguous and links to neither;
names that are not importable packages (``setup``, ``conftest``, modules under ``tests/``,
``docs/``, ``examples/``...) are never provided.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import PurePosixPath

import polars as pl

from graphdb import CodeLoad, Store, load_code
from ingest.changes import stored_files
from ingest.extract.rows import FileExtract
from ingest.frames import (
    SYMBOL_COLUMNS,
    build_extract,
    edge_frames,
    external_frame,
    file_frame,
    ref_frame,
    symbol_frame,
)
from ingest.resolve import Providers, resolve
from ingest.scope import mentioning_closure, rebound, stored_refs
from ingest.stored import Extracts
from schema import (
    CODE_REF,
    FILE,
    REPOSITORY,
    SYMBOL,
    ParseStatus,
    RefKind,
    Source,
    file_id,
)

__all__ = ["RelinkSummary", "consumer_paths", "provided_modules", "providers_for",
           "relink_consumers",
           "reresolve", "stored_extracts"]

#: Directories whose modules are not importable by other projects.
_PRIVATE_DIRS = frozenset({"tests", "test", "testing", "docs", "doc", "examples", "example",
                           "benchmarks", "benchmark", "bench", "scripts", "tools", "demo",
                           "samples", ".github"})
#: Top-level module names every project may have for itself.
_PRIVATE_NAMES = frozenset({"setup", "conftest", "noxfile", "tasks", "fabfile", "manage",
                            "__main__", "__init__", "main", "test", "tests", "docs"})


@dataclass(frozen=True)
class RelinkSummary:
    """What :func:`relink_consumers` did: consumer repositories and files re-resolved."""

    provider: str
    modules: tuple[str, ...]
    files: dict[str, int]

    def to_dict(self) -> dict[str, object]:
        return {"provider": self.provider, "modules": list(self.modules),
                "files": dict(self.files)}


def _others_exist(store: Store, repo: str) -> bool:
    return bool(store.cypher(f"MATCH (r:{REPOSITORY.name}) WHERE r.name <> $repo "
                             "RETURN count(*)", {"repo": repo}).item())


def _python_modules(store: Store) -> pl.DataFrame:
    return store.cypher(
        f"MATCH (f:{FILE.name}) WHERE f.language = 'python' AND f.valid_to IS NULL AND "
        f"f.source <> '{Source.GIT.value}' AND f.module <> '' "
        "RETURN f.repo AS repo, f.module AS module, f.path AS path")


def _importable(top: str, paths: Iterable[str]) -> bool:
    """Whether another project could import top-level module ``top`` from these files."""
    if top in _PRIVATE_NAMES or top.startswith("test_") or not top.isidentifier():
        return False
    return any(not (set(PurePosixPath(p).parts[:-1]) & _PRIVATE_DIRS) for p in paths)


def provided_modules(store: Store) -> dict[str, set[str]]:
    """Repository -> the importable top-level Python modules it provides."""
    rows = _python_modules(store)
    paths: dict[tuple[str, str], list[str]] = {}
    for repo, module, path in rows.iter_rows():
        paths.setdefault((repo, module.split(".", 1)[0]), []).append(path)
    out: dict[str, set[str]] = {}
    for (repo, top), files in paths.items():
        if _importable(top, files):
            out.setdefault(repo, set()).add(top)
    return out


def providers_for(store: Store, repo: str) -> Providers | None:
    """The other repositories' modules, for resolving ``repo``; None when it is alone."""
    if not _others_exist(store, repo):
        return None
    owners: dict[str, list[str]] = {}
    for other, tops in provided_modules(store).items():
        if other != repo:
            for top in tops:
                owners.setdefault(top, []).append(other)
    modules = {top: repos[0] for top, repos in owners.items() if len(repos) == 1}
    if not modules:
        return None
    return Providers(modules, lambda other: stored_extracts(store, other))


def stored_extracts(store: Store, repo: str, *,
                    calls_of: list[str] | None = None) -> Extracts:
    """Every parsed file of ``repo`` as an extract built from the graph on first use (with
    the call sites of ``calls_of``, file ids, for re-resolving them)."""
    stored = stored_files(store, repo).filter(
        pl.col("parse_status").is_in([ParseStatus.OK, ParseStatus.PARTIAL]))
    symbols = store.cypher(
        f"MATCH (s:{SYMBOL.name}) WHERE s.repo = $repo AND s.valid_to IS NULL "
        "RETURN s.file AS file, " + ", ".join(f"s.{c} AS {c}" for c in SYMBOL_COLUMNS),
        {"repo": repo})
    decls = stored_refs(store, repo, calls=False)
    calls = stored_refs(store, repo, calls=True, files=calls_of or [])
    return Extracts({}, stored, symbols, dict(zip(decls["file"], decls["decls"], strict=True)),
                    dict(zip(calls["file"], calls["calls"], strict=True)))


def relink_consumers(store: Store, provider: str) -> RelinkSummary:
    """Re-resolve the files of other repositories that import a module ``provider``
    provides, and the files using a name such an import binds (through re-exports), after
    ``provider`` changed."""
    tops, consumers = consumer_paths(store, provider)
    done = {consumer: reresolve(store, consumer, paths)
            for consumer, paths in sorted(consumers.items())}
    return RelinkSummary(provider, tops, done)


def consumer_paths(store: Store, provider: str) -> tuple[tuple[str, ...], dict[str, list[str]]]:
    """The top-level modules ``provider`` provides, and per other repository the paths of
    its files that import one of them or use a name such an import binds: what to
    re-resolve when ``provider`` changes or goes (``ingest.remove``)."""
    if not _others_exist(store, provider):
        return (), {}
    tops = sorted(provided_modules(store).get(provider, set()))
    if not tops:
        return (), {}
    out: dict[str, list[str]] = {}
    for consumer, seeds in sorted(_importers(store, tops, exclude=provider).items()):
        stored = stored_files(store, consumer).filter(
            pl.col("parse_status").is_in([ParseStatus.OK, ParseStatus.PARTIAL]))
        ids = dict(zip(stored["path"], stored["id"], strict=True))
        refs = stored_refs(store, consumer, calls=False)
        decls = dict(zip(refs["file"], refs["decls"], strict=True))
        names = set().union(*(rebound(build_extract("", "", (), decls.get(fid)), set(tops))
                              for fid in seeds))
        found = set(seeds)
        if names:
            closure = mentioning_closure(store, consumer, names, {}, decls, set(ids.values()))
            found |= set(ids.values()) if closure is None else closure
        paths = sorted(p for p, fid in ids.items() if fid in found)
        if paths:
            out[consumer] = paths
    return tuple(tops), out


def _importers(store: Store, modules: list[str], *, exclude: str) -> dict[str, set[str]]:
    """Repository -> ids of its files with an absolute import of one of ``modules`` (or of
    a submodule), read from the packed CodeRef rows (``ingest.frames.ref_frame``)."""
    field = '"[^"]*"'  # scopes, names and aliases are identifiers: no escaped quotes
    alternatives = "|".join(re.escape(m) for m in modules)
    pattern = (rf'\["{RefKind.IMPORT.value}",{field},"(?:{alternatives})(?:\.[^"]*)?",'
               rf'{field},{field},0,')
    rows = store.cypher(
        f"MATCH (r:{CODE_REF.name}) WHERE NOT r.file STARTS WITH $prefix AND "
        "regexp_matches(r.decls, $re) "
        f"MATCH (f:{FILE.name}) WHERE f.id = r.file RETURN f.repo AS repo, f.id AS id",
        {"prefix": file_id(exclude, ""), "re": pattern})
    out: dict[str, set[str]] = {}
    for repo, fid in rows.iter_rows():
        out.setdefault(repo, set()).add(fid)
    return out


def reresolve(store: Store, repo: str, paths: list[str]) -> int:
    """Resolve the references of ``paths`` of ``repo`` again from the graph (no parsing) and
    replace their outgoing edges; returns how many files were re-resolved."""
    ids = [file_id(repo, p) for p in paths]
    extracts: Mapping[str, FileExtract] = stored_extracts(store, repo, calls_of=ids)
    result = resolve(repo, extracts, only=set(paths), providers=providers_for(store, repo))
    load_code(store, CodeLoad(
        repo=repo, now=datetime.now(UTC).replace(tzinfo=None), repository=pl.DataFrame(),
        files=file_frame(repo, []), symbols=symbol_frame(repo, {}), refs=ref_frame(repo, {}),
        externals=external_frame(result.externals),
        edges=edge_frames(repo, result.edges, {}, set()),
        reparsed=[], resolved=ids))
    return len(paths)
