"""Resolution split over processes forked from the ingest process, one share of the files
each, so a cold ingest resolves on every core instead of one.

Why fork: the resolver reads every file's rows (the standard library's extracts pickle to
~10 MB, ~0.8 s to unpickle in each pool worker), and a forked child starts with them in
memory for free (copy-on-write). The child computes and writes back its edges; it never
touches the database, the indexes or any other handle the parent holds, and leaves with
``os._exit`` (no atexit, no destructors), so the parent's open database is safe. It is used
only when every extract is in memory (a plain dict: a lazy mapping would read the graph)
and no other repository provides names (that would read the graph too).

Edges come back in the order a single process would produce them: the files are split into
contiguous runs of the sorted paths, each run resolved in order, the runs concatenated. A
child that fails in any way has its run resolved again in the parent: nothing is lost.
"""

from __future__ import annotations

import os
import pickle
import sys
from collections.abc import Callable, Mapping
from dataclasses import fields

from ingest.extract.rows import FileExtract
from ingest.resolve.rows import EdgeRow, ExternalRow, ResolveResult

__all__ = ["MIN_FILES", "can_fork", "resolve_forked", "split_runs"]

#: Below this many files to resolve, a fork costs more than it saves.
MIN_FILES = 100

Resolver = Callable[[set[str]], ResolveResult]


def can_fork(files: Mapping[str, FileExtract], workers: int, providers: object) -> bool:
    """Whether :func:`resolve_forked` applies: extracts all in memory, nothing read from the
    graph while resolving, several cores, a platform with ``fork``."""
    return (workers > 1 and type(files) is dict and providers is None
            and hasattr(os, "fork") and sys.platform == "linux")


def split_runs(paths: list[str], files: Mapping[str, FileExtract],
               parts: int) -> list[list[str]]:
    """``paths`` (sorted) cut into ``parts`` contiguous runs of about equal work (call sites
    and imports, which dominate resolution)."""
    weights = [len(files[p].calls) + len(files[p].imports) + 1 for p in paths]
    total = sum(weights)
    runs: list[list[str]] = [[] for _ in range(parts)]
    done = 0
    for path, weight in zip(paths, weights, strict=True):
        runs[min(parts - 1, done * parts // max(total, 1))].append(path)
        done += weight
    return [run for run in runs if run]


def resolve_forked(paths: list[str], files: Mapping[str, FileExtract], resolver: Resolver,
                   *, workers: int) -> ResolveResult:
    """``resolver(run)`` for each run of ``paths``: the first in this process, the others
    in forked children at the same time; the results concatenated in run order."""
    runs = split_runs(paths, files, workers)
    children = [_fork(run, resolver) for run in runs[1:]]
    results = [resolver(set(runs[0]))]
    for run, child in zip(runs[1:], children, strict=True):
        part = _collect(child)
        results.append(part if part is not None else resolver(set(run)))
    merged = ResolveResult()
    for part in results:
        merged.edges.extend(part.edges)
        for eid, external in part.externals.items():
            merged.externals.setdefault(eid, external)
        merged.unresolved.extend(part.unresolved)
    return merged


def _fork(run: list[str], resolver: Resolver) -> tuple[int, int] | None:
    """(pid, read end of its pipe) of a child resolving ``run``, or None if none started."""
    try:
        read, write = os.pipe()
    except OSError:
        return None
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        return None
    if pid == 0:  # the child: compute, write, leave without running anything else
        code = 1
        try:
            os.close(read)
            _die_with_parent()
            data = pickle.dumps(_pack(resolver(set(run))), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write, "wb") as out:
                out.write(data)
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    return pid, read


def _collect(child: tuple[int, int] | None) -> ResolveResult | None:
    """The child's result, or None when it failed (then the caller resolves its run)."""
    if child is None:
        return None
    pid, read = child
    try:
        with os.fdopen(read, "rb") as handle:
            data = handle.read()
    finally:
        _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0 or not data:
        return None
    try:
        return _unpack(pickle.loads(data))
    except Exception:  # a damaged result: resolved again in the parent
        return None


def _pack(result: ResolveResult) -> tuple:
    """Columns of plain values: ~10x faster to pickle than one object per edge."""
    edges = result.edges
    columns = tuple([getattr(e, f.name) for e in edges] for f in fields(EdgeRow))
    externals = [(x.id, x.name, x.language, x.package, x.kind)
                 for x in result.externals.values()]
    return columns, externals, result.unresolved


def _unpack(packed: tuple) -> ResolveResult:
    columns, externals, unresolved = packed
    return ResolveResult(edges=[EdgeRow(*row) for row in zip(*columns, strict=True)],
                         externals={x[0]: ExternalRow(*x) for x in externals},
                         unresolved=list(unresolved))


def _die_with_parent() -> None:
    """SIGKILL this child when the ingest process dies (a ``kill -9`` of the ingest must not
    leave it computing). Linux only."""
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() == 1:
        os._exit(1)
