"""``vgdb ingest PATH``: walk, parse what changed (in parallel), resolve, load in one transaction.

Incremental by construction: files whose size and mtime match the graph are not read; files
whose content hash matches are not parsed; unchanged files' symbols and references are read
back from the graph (CodeRef rows), and only the files whose references could resolve
differently after the change are re-resolved. The result is the same current graph a full
rebuild of the tree would give (tested with hypothesis).
"""

from __future__ import annotations

import os
import re
import time
import warnings
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from graphdb import (
    STRUCTURAL,
    CodeLoad,
    Store,
    failpoint,
    load_code,
    mark_uncommitted,
    touch_files,
)
from graphdb.compact import compact_if_grown
from graphdb.findable import make_searchable
from graphdb.keyword import KEYWORD_FIELDS, mark_stale, unmark_stale, unsynced
from ingest.crossrepo import providers_for, relink_consumers
from ingest.extract.rows import FileExtract
from ingest.frames import (
    SYMBOL_COLUMNS,
    build_extract,
    edge_frames,
    external_frame,
    extracts_from_rows,
    file_frame,
    module_short_name,
    ref_frame,
    symbol_frame,
)
from ingest.history.gitlog import uncommitted_paths
from ingest.history.pipeline import HistoryOptions, HistorySummary, ingest_history
from ingest.names import is_utf8_name, shown_name
from ingest.pool import pool_starts, process_pool
from ingest.resolve import resolve
from ingest.resolve.python import module_names
from ingest.resolve.tests import tested_stem
from ingest.stored import Extracts
from ingest.walk import Candidate, Skipped, walk
from ingest.worker import FileResult, ParseTask, parse_file, parse_many
from schema import (
    CODE_REF,
    EXTERNAL,
    FILE,
    INHERITS,
    SYMBOL,
    IngestError,
    ParseStatus,
    Source,
    current_code_files,
    file_id,
    repo_id,
)

if TYPE_CHECKING:  # pyarrow (~0.1 s to import) only when a shard is read
    from ingest.shards import Shard, ShardInfo

__all__ = ["IngestOptions", "IngestSummary", "StagedIngest", "check_root", "finish_repository",
           "ingest_repository", "stage_repository", "sync_searchable"]

#: Below this many files to parse, a process pool costs more than it saves.
_POOL_MIN_FILES = 24
_CHUNK = 16
#: Re-resolve everything when more than this share of the files is affected anyway.
_FULL_RESOLVE_SHARE = 0.5

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class IngestOptions:
    """How to ingest a tree. ``excludes`` are .gitignore-style patterns."""

    name: str | None = None
    excludes: tuple[str, ...] = ()
    default_excludes: bool = True
    gitignore: bool = True
    max_file_size: int = 2_000_000
    workers: int | None = None
    #: git history of the tree's repository (``HistoryOptions(enabled=False)`` to skip it)
    history: HistoryOptions = field(default_factory=HistoryOptions)
    #: load the tree's bibliographies and link code, commits and entries to papers
    papers: bool = True
    #: embed new or changed texts at the end (the keyword index is synced in any case)
    embed: bool = True
    #: only files of these languages (empty: every language with a grammar)
    languages: tuple[str, ...] = ()


@dataclass
class IngestSummary:
    """What an ingest did; ``to_dict()`` is the ``--json`` output."""

    repo: str
    root: str
    files_seen: int = 0
    parsed: int = 0
    added: int = 0
    modified: int = 0
    removed: int = 0
    unchanged: int = 0
    reresolved: int = 0
    reparsed_paths: list[str] = field(default_factory=list)
    #: paths of code files that left the tree (for the papers step; not in the JSON)
    removed_paths: list[str] = field(default_factory=list)
    partial: list[dict[str, str]] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    nodes: dict[str, int] = field(default_factory=dict)
    edges: dict[str, int] = field(default_factory=dict)
    unresolved_calls: dict[str, int] = field(default_factory=dict)
    references: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    history: HistorySummary | None = None
    #: code files whose content is not committed (source = worktree); with history only
    uncommitted: int = 0
    #: what the academic step did (``ingest.academic.links.LinkSummary.to_dict``)
    papers: dict[str, Any] | None = None
    #: consumer files of other repositories re-resolved into this one (``ingest.crossrepo``)
    cross_repo: dict[str, Any] | None = None
    #: the last steps: keyword index synced, texts embedded (``graphdb.make_searchable``)
    search: dict[str, Any] | None = None
    #: the graph file rewritten because it outgrew its content (``graphdb.compact``)
    compacted: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "papers": self.papers,
            "history": self.history.to_dict() if self.history else None,
            "repo": self.repo, "root": self.root,
            "files": {"seen": self.files_seen, "parsed": self.parsed, "added": self.added,
                      "modified": self.modified, "removed": self.removed,
                      "unchanged": self.unchanged, "re_resolved": self.reresolved,
                      "skipped": len(self.skipped), "partial": len(self.partial),
                      "uncommitted": self.uncommitted},
            "nodes": self.nodes, "edges": self.edges, "references": self.references,
            "unresolved_calls": self.unresolved_calls,
            "skipped": self.skipped, "partial": self.partial,
            "reparsed_paths": self.reparsed_paths,
            "search": self.search,
            "compacted": self.compacted,
            "seconds": {k: round(v, 3) for k, v in self.seconds.items()},
        }


class _Clock:
    def __init__(self, summary: IngestSummary) -> None:
        self.summary = summary
        self.t = time.perf_counter()

    def lap(self, phase: str) -> None:
        now = time.perf_counter()
        self.summary.seconds[phase] = self.summary.seconds.get(phase, 0.0) + now - self.t
        self.t = now


def ingest_repository(store: Store, path: str | os.PathLike[str], *,
                      options: IngestOptions = IngestOptions(),
                      progress: Progress | None = None,
                      shards: str | os.PathLike[str] | ShardInfo | None = None,
                      compact: bool = True) -> IngestSummary:
    """Ingest (or update) the code of the tree at ``path`` into ``store``, then the git
    history of its repository (new commits only).

    With ``shards`` (a shard directory written by :func:`ingest.shards.extract_shards` for
    this tree), the walk and parse results come from the shard instead of the tree: its walk
    options apply, the repository name defaults to the shard's, and the change plan is the
    same (files unchanged by stat or content hash are neither reloaded nor re-resolved).
    ``compact=False`` leaves compaction to the caller (a batch compacts once, at its end).
    """
    staged = stage_repository(store, path, options=options, progress=progress, shards=shards)
    if staged.load is not None:
        failpoint("before-load")
        if progress:
            progress("load", 0, 1)
        load_code(store, staged.load)
        staged.loaded(store)
    return finish_repository(store, staged, options=options, progress=progress,
                             compact=compact)


@dataclass
class StagedIngest:
    """A repository walked, parsed and resolved, its load built but not yet written
    (``load`` is None when nothing changed): :func:`ingest_repository` loads it at once,
    the grouped batch loader (:mod:`ingest.batch.group`) with other repositories' loads in
    one transaction."""

    root: Path
    summary: IngestSummary
    load: CodeLoad | None
    version: int
    lagging: bool
    clock: _Clock

    def loaded(self, store: Store) -> None:
        """The load is committed: time it and count what the repository now holds."""
        self.clock.lap("load")
        _count(store, self.summary.repo, self.summary)
        self.clock.lap("count")


def stage_repository(store: Store, path: str | os.PathLike[str], *,
                     options: IngestOptions = IngestOptions(),
                     progress: Progress | None = None,
                     shards: str | os.PathLike[str] | ShardInfo | None = None) -> StagedIngest:
    """The first half of :func:`ingest_repository`: everything before the load's write."""
    root = check_root(path)
    shard = None
    if shards is not None:
        from ingest.shards import read_shards

        shard = read_shards(shards)
    repo = options.name or (shard.info.repo if shard else root.name)
    summary = IngestSummary(repo=repo, root=str(root))
    # every searchable table may change below without being indexed row by row: marked now,
    # synced by the last step, so a kill anywhere in between is caught by the next sync
    version, lagging = store.graph_version(), unsynced(store, KEYWORD_FIELDS)
    mark_stale(store, KEYWORD_FIELDS)
    clock = _Clock(summary)
    load = _stage_code(store, root, repo, summary, options, progress, shard, clock)
    return StagedIngest(root, summary, load, version, lagging, clock)


def finish_repository(store: Store, staged: StagedIngest, *,
                      options: IngestOptions = IngestOptions(),
                      progress: Progress | None = None, searchable: bool = True,
                      compact: bool = True) -> IngestSummary:
    """The second half, once the code is committed: cross-repository links, history,
    papers, then (``searchable``) the keyword and vector indexes and (``compact``) the
    compaction policy. A grouped load passes ``searchable=False`` and syncs once for the
    group (:func:`sync_searchable`)."""
    root, summary, repo = staged.root, staged.summary, staged.summary.repo
    if summary.added or summary.modified or summary.removed:
        # other repositories of the graph that use this one resolve into it anew
        summary.cross_repo = relink_consumers(store, repo).to_dict()
    if options.history.enabled:
        uncommitted = uncommitted_paths(root)
        if uncommitted is not None:
            summary.uncommitted = mark_uncommitted(store, repo, uncommitted)
        history = options.history
        if history.workers is None and options.workers is not None:
            history = replace(history, workers=options.workers)
        summary.history = ingest_history(store, root, repo, options=history,
                                         progress=progress)
    if options.papers:
        from ingest.academic.links import link_repository

        summary.papers = link_repository(
            store, root, repo, excludes=options.excludes,
            default_excludes=options.default_excludes, gitignore=options.gitignore,
            max_file_size=options.max_file_size, progress=progress,
            changed={*summary.reparsed_paths, *summary.removed_paths}).to_dict()
    if not searchable:
        return summary
    if store.graph_version() == staged.version and not staged.lagging:
        # nothing was written (a no-op run): the indexes are as synced as before
        unmark_stale(store, KEYWORD_FIELDS)
        return summary
    summary.search = sync_searchable(store, [staged], embed=options.embed, progress=progress)
    for step, took in summary.search.pop("seconds").items():
        summary.seconds[step] = took
    if compact and (summary.added or summary.modified or summary.removed):
        # the engine never shrinks its file: rewrite it once it outgrew its content
        t0 = time.perf_counter()
        compacted = compact_if_grown(store)
        summary.compacted = compacted.to_dict() if compacted else None
        summary.seconds["compact"] = time.perf_counter() - t0
    return summary


def sync_searchable(store: Store, staged: list[StagedIngest], *, embed: bool = True,
                    progress: Progress | None = None) -> dict[str, Any]:
    """Keyword index synced and new or changed texts embedded after ``staged`` were
    written; when only their code changed, the keyword index compares their changed files'
    symbols alone."""
    only_code = not any(s.lagging or any(t in ((s.summary.papers or {}).get("written") or {})
                                         for t in KEYWORD_FIELDS) for s in staged)
    symbols = [sid for s in staged for sid in _symbols_of(store, s.summary.repo, s.summary)] \
        if only_code else None
    return make_searchable(store, embed=embed, progress=progress, symbols=symbols)


def _stage_code(store: Store, root: Path, repo: str, summary: IngestSummary,
                options: IngestOptions, progress: Progress | None,
                shard: Shard | None, clock: _Clock) -> CodeLoad | None:
    if shard is not None:
        candidates, skipped = list(shard.candidates), list(shard.skipped)
    else:
        candidates, skipped = walk(root, excludes=options.excludes,
                                   default_excludes=options.default_excludes,
                                   gitignore=options.gitignore,
                                   max_file_size=options.max_file_size)
    if options.languages:  # only these languages (config `languages`, --language)
        candidates = [c for c in candidates if c.language in options.languages]
    summary.files_seen = len(candidates) + len(skipped)
    clock.lap("walk")

    stored = _stored_files(store, repo)
    tasks, unchanged = _plan(root, candidates, stored)
    results = (shard.parse(tasks) if shard is not None else
               _parse(tasks, workers=options.workers, progress=progress))
    clock.lap("parse")

    plan = _Changes.build(repo, candidates, skipped, results, stored, unchanged)
    summary.parsed = len(plan.parsed)
    summary.reparsed_paths = sorted(plan.parsed)
    summary.removed_paths = sorted(plan.removed)
    summary.unchanged = len(plan.same)
    summary.added, summary.modified, summary.removed = (
        len(plan.added), len(plan.modified), len(plan.removed))
    summary.skipped = [{"path": s.path, "reason": s.reason} for s in plan.skipped]
    summary.partial = [{"path": r.path, "reason": r.error} for r in plan.parsed.values()
                       if r.status == ParseStatus.PARTIAL]
    if not plan.changed and not plan.removed:
        touch_files(store, _touched_frame(plan))
        _count(store, repo, summary)
        clock.lap("load")
        return None

    extracts, only = _resolution_scope(store, repo, plan)
    if progress:
        progress("resolve", 0, 1)
    result = resolve(repo, extracts, only=only, providers=providers_for(store, repo))
    summary.reresolved = len(only) if only is not None else len(extracts)
    for *_, reason in result.unresolved:
        summary.unresolved_calls[reason] = summary.unresolved_calls.get(reason, 0) + 1
    clock.lap("resolve")

    load = _build_load(repo, root, plan, extracts, result, only)
    # the policy of api.steps.communities_after_ingest: files came or went, or >= 5% changed
    changed = len(plan.added) + len(plan.modified) + len(plan.removed)
    load.communities_due = bool(plan.added or plan.removed) or \
        changed >= 0.05 * max(summary.files_seen, 1)
    if load.fresh:  # no code files yet; files known from history alone are updated in place
        load.fresh = not _scalar(store, f"MATCH (f:{FILE.name}) WHERE f.repo = $r "
                                        "RETURN count(*)", {"r": repo})
    return load


def _symbols_of(store: Store, repo: str, summary: IngestSummary) -> list[str]:
    """Ids of every symbol (current or ended) of the files this ingest parsed or removed."""
    files = [file_id(repo, p) for p in (*summary.reparsed_paths, *summary.removed_paths)]
    if not files:
        return []
    return store.cypher(f"MATCH (s:{SYMBOL.name}) WHERE s.file IN $files RETURN s.id AS id",
                        {"files": files})["id"].to_list()


def check_root(path: str | os.PathLike[str]) -> Path:
    """The tree's absolute root, or IngestError when it is missing or not a directory."""
    root = Path(path).expanduser()
    if not root.exists():
        raise IngestError(f"path does not exist: {root}", suggestion="check the PATH argument")
    if not root.is_dir():
        raise IngestError(f"not a directory: {root}", suggestion="vgdb ingest takes a directory")
    if not is_utf8_name(str(root.resolve())):  # the graph stores the root and its name
        raise IngestError(f"the path is not valid UTF-8: {shown_name(str(root.resolve()))}",
                          suggestion="rename the directory (or the one holding it)")
    return root.resolve()


# ------------------------------------------------------------------------------ planning
def _stored_files(store: Store, repo: str) -> pl.DataFrame:
    return store.cypher(
        f"MATCH (f:{FILE.name}) WHERE {current_code_files(repo='$repo')} "
        "RETURN f.id AS id, f.path AS path, f.sha AS sha, f.size AS size, "
        "f.mtime_ns AS mtime_ns, f.language AS language, f.package AS package, "
        "f.module AS module, f.parse_status AS parse_status, f.parse_error AS parse_error",
        {"repo": repo})


def _plan(root: Path, candidates: list[Candidate],
          stored: pl.DataFrame) -> tuple[list[ParseTask], set[str]]:
    """Files to read (stat changed or new) and files known unchanged from their stat alone."""
    known = {row[0]: row for row in stored.select(
        "path", "sha", "size", "mtime_ns", "parse_status").iter_rows()}
    tasks: list[ParseTask] = []
    unchanged: set[str] = set()
    for c in candidates:
        row = known.get(c.path)
        if row is not None and row[2] == c.size and row[3] == c.mtime_ns and \
                row[4] in (ParseStatus.OK, ParseStatus.PARTIAL):
            unchanged.add(c.path)
            continue
        old_sha = row[1] if row is not None and row[4] != ParseStatus.ERROR else ""
        tasks.append(ParseTask(str(root / c.path), c.path, c.language, old_sha or ""))
    return tasks, unchanged


def _parse(tasks: list[ParseTask], *, workers: int | None,
           progress: Progress | None) -> list[FileResult]:
    """Parse in a process pool; a worker that dies is replaced and its files retried alone."""
    total = len(tasks)
    if progress:
        progress("parse", 0, total)
    n_workers = workers if workers is not None else (os.cpu_count() or 1)
    if total < _POOL_MIN_FILES or n_workers <= 1:
        results = []
        for i, task in enumerate(tasks):
            results.append(parse_file(task))
            if progress:
                progress("parse", i + 1, total)
            if i + 1 >= total // 2:
                failpoint("mid-parse")
        return results
    chunks = [tasks[i:i + _CHUNK] for i in range(0, total, _CHUNK)]
    results: list[FileResult] = []
    retry: list[ParseTask] = []
    with process_pool(n_workers) as pool:
        futures = [(chunk, pool.submit(parse_many, chunk)) for chunk in chunks]
        for chunk, future in futures:
            try:
                results.extend(future.result())
            except BrokenProcessPool:
                retry.extend(chunk)
            if progress:
                progress("parse", len(results) + len(retry), total)
            if len(results) >= total // 2:
                failpoint("mid-parse")
    results.extend(_retry_alone(retry))
    return results


def _retry_alone(tasks: list[ParseTask]) -> list[FileResult]:
    """Each file of a crashed chunk on its own, so one bad file cannot sink the others.

    The pool is replaced only after a crash: one new process per crash, not per file. When no
    worker can start at all, the files are parsed in this process instead.
    """
    if tasks and not pool_starts():
        warnings.warn("parse workers cannot start (is the calling script missing an "
                      "`if __name__ == '__main__':` guard?); parsing in this process",
                      RuntimeWarning, stacklevel=3)
        return [parse_file(t) for t in tasks]
    out: list[FileResult] = []
    pool: ProcessPoolExecutor | None = None
    try:
        for task in tasks:
            pool = pool or process_pool(1)
            try:
                out.append(pool.submit(parse_file, task).result())
            except BrokenProcessPool:
                out.append(FileResult(task.path, task.language, 0, "", ParseStatus.ERROR,
                                      "the parser process crashed on this file", None))
                pool.shutdown(wait=False)
                pool = None
    finally:
        if pool is not None:
            pool.shutdown()
    return out


@dataclass
class _Changes:
    """What changed between the graph and the tree."""

    parsed: dict[str, FileResult]  # re-parsed files (added or modified), by path
    skipped: list[Skipped]
    skipped_rows: dict[str, FileResult]  # skipped files that have a language: File rows
    same: set[str]  # unchanged by stat or by hash
    touched: list[tuple[str, int]]  # unchanged by hash, new mtime: (file id, mtime_ns)
    added: set[str]
    modified: set[str]
    removed: set[str]
    stored: pl.DataFrame
    mtimes: dict[str, int]

    @property
    def changed(self) -> set[str]:
        return self.added | self.modified

    @classmethod
    def build(cls, repo: str, candidates: list[Candidate], skipped: list[Skipped],
              results: list[FileResult], stored: pl.DataFrame,
              unchanged: set[str]) -> _Changes:
        stored_paths = set(stored["path"].to_list())
        mtimes = {c.path: c.mtime_ns for c in candidates}
        parsed: dict[str, FileResult] = {}
        skipped_rows: dict[str, FileResult] = {}
        same = set(unchanged)
        touched: list[tuple[str, int]] = []
        all_skipped = list(skipped)
        for r in results:
            if r.unchanged:
                same.add(r.path)
                touched.append((file_id(repo, r.path), mtimes[r.path]))
            elif r.extract is None:
                all_skipped.append(Skipped(r.path, r.error, r.language))
                skipped_rows[r.path] = r
            else:
                parsed[r.path] = r
        known_skips = {path: reason for path, status, reason in stored.select(
            "path", "parse_status", "parse_error").iter_rows() if status == ParseStatus.SKIPPED}
        for s in skipped:
            if not s.language:
                continue
            if known_skips.get(s.path) == s.reason:
                same.add(s.path)  # skipped before for the same reason: nothing changed
            else:
                skipped_rows[s.path] = FileResult(s.path, s.language, 0, "",
                                                  ParseStatus.SKIPPED, s.reason, None)
        present = same | parsed.keys() | skipped_rows.keys()
        changed = parsed.keys() | skipped_rows.keys()
        return cls(
            parsed=parsed, skipped=sorted(all_skipped, key=lambda s: s.path),
            skipped_rows=skipped_rows, same=same, touched=touched,
            added=set(changed - stored_paths), modified=set(changed & stored_paths),
            removed=stored_paths - present, stored=stored, mtimes=mtimes,
        )


def _touched_frame(plan: _Changes) -> pl.DataFrame:
    """(id, mtime_ns) of files unchanged by content whose mtime moved."""
    return pl.DataFrame({"id": [t[0] for t in plan.touched],
                         "mtime_ns": [t[1] for t in plan.touched]},
                        schema={"id": pl.Utf8, "mtime_ns": pl.Int64})


# ------------------------------------------------------------------------------ resolution
def _resolution_scope(store: Store, repo: str,
                      plan: _Changes) -> tuple[Mapping[str, FileExtract], set[str] | None]:
    """Extracts of every file (new ones parsed, the rest built from the graph when the
    resolver reaches them) and the set of files whose references must be re-resolved (None:
    all of them).

    A reference can resolve differently only if a name it mentions is bound differently now:
    so the files to re-resolve are the changed ones, those mentioning a name whose binding
    changed (closed over subclasses), and the tests named after a changed module. A change
    to the package structure or to a ``*`` import re-resolves everything.
    """
    extracts = {p: r.extract for p, r in plan.parsed.items() if r.extract is not None}
    parseable = set(plan.stored.filter(
        pl.col("parse_status").is_in([ParseStatus.OK, ParseStatus.PARTIAL]))["path"])
    kept = sorted(p for p in plan.same if p not in extracts and p in parseable)
    if not kept:
        return extracts, None
    stored = plan.stored.filter(pl.col("path").is_in(kept))
    symbols = store.cypher(
        f"MATCH (s:{SYMBOL.name}) WHERE s.repo = $repo AND s.valid_to IS NULL "
        "RETURN s.file AS file, " + ", ".join(f"s.{c} AS {c}" for c in SYMBOL_COLUMNS),
        {"repo": repo})
    decls = _stored_refs(store, repo, calls=False)
    old_ids = [file_id(repo, p) for p in plan.modified | plan.removed]
    old = extracts_from_rows(plan.stored.filter(pl.col("id").is_in(old_ids)),
                             symbols.filter(pl.col("file").is_in(old_ids)),
                             decls.filter(pl.col("file").is_in(old_ids)))
    structural = any(Path(p).name == "__init__.py" for p in plan.added | plan.removed) or \
        _has_star(extracts.values()) or _has_star(old.values())
    packed = dict(zip(decls["file"], decls["decls"], strict=True))
    affected: set[str] = set()
    if not structural:
        ids = dict(zip(stored["path"], stored["id"], strict=True))
        names, guessed = _changed_names(old, extracts, plan.added | plan.removed)
        mentioned = _mentioning_closure(store, repo, names, extracts, packed,
                                        set(ids.values()))
        mentioned |= _subclass_files(store, mentioned) & set(ids.values())
        mentioned |= _calling(store, repo, guessed - names) & set(ids.values())
        stems = {module_short_name(p) for p in plan.changed | plan.removed}
        affected = {p for p, fid in ids.items() if fid in mentioned or _tests_one_of(p, stems)}
    full = structural or len(affected) + len(extracts) > _FULL_RESOLVE_SHARE * (
        len(kept) + len(extracts))
    call_paths = kept if full else sorted(affected)
    calls = _stored_refs(store, repo, calls=True, files=[file_id(repo, p) for p in call_paths])
    files = Extracts(extracts, stored,
                     symbols.filter(pl.col("file").is_in(stored["id"].implode())),
                     packed, dict(zip(calls["file"], calls["calls"], strict=True)))
    if full:
        return files, None
    return files, set(plan.parsed) | affected


def _stored_refs(store: Store, repo: str, *, calls: bool,
                 files: list[str] | None = None) -> pl.DataFrame:
    """CodeRef rows of the repository: (file, decls), plus the call sites of ``files``."""
    if not calls:
        return store.cypher(
            f"MATCH (r:{CODE_REF.name}) WHERE r.file STARTS WITH $prefix "
            "RETURN r.file AS file, r.decls AS decls", {"prefix": file_id(repo, "")})
    if not files:
        return pl.DataFrame(schema={"file": pl.Utf8, "decls": pl.Utf8, "calls": pl.Utf8})
    return store.cypher(
        f"MATCH (r:{CODE_REF.name}) WHERE r.file IN $files "
        "RETURN r.file AS file, '[]' AS decls, r.calls AS calls", {"files": files})


def _tests_one_of(path: str, stems: set[str]) -> bool:
    """A test file named for one of these modules (``test_parser.py`` for ``parser``)."""
    stem = Path(path).name.split(".", 1)[0]
    tested = tested_stem(path)
    return tested != stem and tested in stems


def _has_star(extracts: Iterable[FileExtract]) -> bool:
    return any(i.name == "*" for fx in extracts for i in fx.imports)


def _bindings(fx: FileExtract) -> dict[str, set[tuple]]:
    """What each name is bound to in a file: definitions, imports, bases and assignments.
    Bodies and line numbers are left out: they never change how another file resolves; nor
    do names bound inside a function body (``x = 1``, a local import), which no other file
    can reach, unless they are ``self.`` attributes."""
    functions = {s.qualname for s in fx.symbols if s.kind in ("function", "method")}
    out: dict[str, set[tuple]] = {}
    for sym in fx.symbols:
        out.setdefault(sym.name, set()).add(("def", sym.qualname, sym.kind, sym.is_test))
    for i in fx.imports:
        if i.scope in functions:
            continue
        bound = i.alias or i.name or i.module.split(".", 1)[0]
        out.setdefault(bound, set()).add(("import", i.scope, i.module, i.name, i.level))
    for h in fx.inherits:
        out.setdefault(h.cls.rsplit(".", 1)[-1], set()).add(("base", h.cls, h.base, h.kind))
    for a in fx.assigns:
        if a.scope in functions and not a.target.startswith("self."):
            continue
        out.setdefault(a.target.rsplit(".", 1)[-1], set()).add(
            ("assign", a.scope, a.target, a.value, a.kind))
    return out


def _changed_names(old: dict[str, FileExtract], new: dict[str, FileExtract],
                   appeared_or_gone: set[str]) -> tuple[set[str], set[str]]:
    """Names bound differently after the change, plus the module names of files that
    appeared or vanished; and the short names whose name-only guess may now differ.

    A Python module that appeared or vanished (not a package ``__init__`` nor a
    ``conftest.py``: those are structural) changes how another file binds only through its
    module name (nothing could import from it before, or can now) and through the
    name-only guess, which counts the repository's functions, methods and classes of a short
    name. The guess is taken for call sites only (never for an import, base or binding), so
    those names re-resolve the files *calling* them, without the re-export closure. Its
    imports, variables and bases bind nothing elsewhere, so ``import json`` in a new file
    does not re-resolve every file that mentions ``json``. Other languages see their
    package's names without an import (Go, Java), so every binding counts there.
    """
    names: set[str] = set()
    guessed: set[str] = set()
    for path in old.keys() | new.keys():
        if path in appeared_or_gone and _plain_python_module(path):
            fx = new.get(path) or old[path]
            guessed.update(s.name for s in fx.symbols if s.kind in _GUESSABLE_KINDS)
            continue
        before = _bindings(old[path]) if path in old else {}
        after = _bindings(new[path]) if path in new else {}
        names.update(n for n in before.keys() | after.keys() if before.get(n) != after.get(n))
    for path in appeared_or_gone:
        names.update(Path(part).name.split(".", 1)[0] for part in Path(path).parts)
    return names, guessed


#: symbol kinds the name-only guess of the Python resolver chooses among
_GUESSABLE_KINDS = frozenset({"function", "method", "class"})


def _plain_python_module(path: str) -> bool:
    name = Path(path).name
    return name.endswith((".py", ".pyi")) and name not in (
        "__init__.py", "__init__.pyi", "conftest.py")


def _mentioning(store: Store, repo: str, names: set[str]) -> set[str]:
    """Ids of files with a reference (call, import, base, binding) mentioning a name.

    Kuzu scans the packed JSON of every file with one regular expression: a name counts
    where it stands between JSON quotes and/or the separators of a dotted expression."""
    if not names:
        return set()
    alternatives = "|".join(sorted(re.escape(n) for n in names))
    pattern = rf'["./:]({alternatives})["./:(]'
    rows = store.cypher(
        f"MATCH (r:{CODE_REF.name}) WHERE r.file STARTS WITH $prefix AND "
        "(regexp_matches(r.decls, $re) OR regexp_matches(r.calls, $re)) "
        "RETURN r.file AS file", {"prefix": file_id(repo, ""), "re": pattern})
    return set(rows["file"].to_list())


def _calling(store: Store, repo: str, names: set[str]) -> set[str]:
    """Ids of files with a call site whose callee ends in one of ``names`` (``run()``,
    ``x.run()``): the packed call sites are ``[scope, callee, line]``, so the name stands
    after a quote or a dot and before the quote that precedes the line number."""
    if not names:
        return set()
    alternatives = "|".join(sorted(re.escape(n) for n in names))
    rows = store.cypher(
        f"MATCH (r:{CODE_REF.name}) WHERE r.file STARTS WITH $prefix AND "
        "regexp_matches(r.calls, $re) RETURN r.file AS file",
        {"prefix": file_id(repo, ""), "re": rf'[".]({alternatives})",[0-9]'})
    return set(rows["file"].to_list())


def _mentioning_closure(store: Store, repo: str, names: set[str],
                        parsed: Mapping[str, FileExtract], decls: Mapping[str, str],
                        kept: set[str]) -> set[str]:
    """Ids of the ``kept`` files mentioning a name whose binding changed, directly or through
    a re-export.

    A binding that mentions a changed name may now lead elsewhere although it reads the same:
    ``model``'s ``from .api import delta`` once ``api`` is gone. Every file importing ``delta``
    from ``model`` then resolves differently without mentioning ``api``, so the names such
    bindings bind count as changed too, in the changed files and in every file found, until
    no new name turns up.
    """
    names = set(names)
    sources: dict[str, FileExtract] = dict(parsed)
    found: set[str] = set()
    new = set(names)
    while new:
        found |= _mentioning(store, repo, new) & kept
        for fid in found - sources.keys():
            sources[fid] = build_extract("", "", (), decls.get(fid))
        new = set().union(*(_rebound(fx, names) for fx in sources.values())) - names
        names |= new
    return found


def _rebound(fx: FileExtract, names: set[str]) -> set[str]:
    """Names that ``fx`` binds for other files (module-level imports and assignments,
    ``self.`` attributes, classes through their bases) by an expression mentioning one of
    ``names``."""
    out: set[str] = set()
    for i in fx.imports:
        if not i.scope and i.name != "*" and _words(i.module, i.name) & names:
            out.add(i.alias or i.name or i.module.split(".", 1)[0])
    for h in fx.inherits:
        if _words(h.base) & names:
            out.add(h.cls.rsplit(".", 1)[-1])
    for a in fx.assigns:
        if (not a.scope or a.target.startswith("self.")) and _words(a.value) & names:
            out.add(a.target.rsplit(".", 1)[-1])
    return out


def _words(*texts: str) -> set[str]:
    return {w for t in texts for w in re.findall(r"\w+", t)}


def _subclass_files(store: Store, files: set[str]) -> set[str]:
    """Files defining subclasses (at any depth) of the classes of ``files``, from the stored
    INHERITS edges (a base that now resolves differently is a name its file mentions)."""
    if not files:
        return set()
    rows = store.cypher(
        f"MATCH (c:{SYMBOL.name})-[:{INHERITS.name}*1..20]->(b:{SYMBOL.name}) "
        "WHERE b.file IN $files AND c.valid_to IS NULL RETURN DISTINCT c.file AS file",
        {"files": sorted(files)})
    return set(rows["file"].to_list())


# ------------------------------------------------------------------------------ loading
def _modules(repo: str, extracts: Mapping[str, FileExtract]) -> dict[str, str]:
    """Module names of every file: the resolver's Python dotted names, the path without its
    suffix otherwise."""
    python = module_names(extracts, root_package=repo)
    return {p: python.get(p, p.rsplit(".", 1)[0]) for p in extracts}


def _file_rows(plan: _Changes, modules: dict[str, str]) -> list[dict]:
    from ingest.extract.python import is_test_path

    rows = []
    for path, r in sorted({**plan.parsed, **plan.skipped_rows}.items()):
        fx = r.extract
        rows.append({
            "path": path, "language": r.language, "module": modules.get(path, ""),
            "package": fx.package if fx else "", "size": r.size, "sha": r.sha,
            "mtime_ns": plan.mtimes.get(path, 0), "loc": fx.loc if fx else 0,
            "parse_status": str(r.status), "parse_error": r.error,
            "is_test": bool(fx and any(s.is_test for s in fx.symbols)) or is_test_path(path),
        })
    return rows


def _build_load(repo: str, root: Path, plan: _Changes, extracts: Mapping[str, FileExtract],
                result: Any, only: set[str] | None) -> CodeLoad:
    now = datetime.now(UTC).replace(tzinfo=None)
    modules = _modules(repo, extracts)
    parsed = {p: extracts[p] for p in plan.parsed}
    resolved = sorted(only if only is not None else extracts)
    repository = pl.DataFrame({
        "id": [repo_id(repo)], "name": [repo], "root": [str(root)],
        "ingested_at": [now], "source": [Source.AST.value], "confidence": [1.0]})
    stored_modules = dict(zip(plan.stored["path"], plan.stored["module"], strict=True))
    moved = {p: m for p, m in modules.items()
             if p in plan.same and stored_modules.get(p) not in (None, m)}
    renamed_modules = pl.DataFrame({"id": [file_id(repo, p) for p in sorted(moved)],
                                    "module": [moved[p] for p in sorted(moved)]},
                                   schema={"id": pl.Utf8, "module": pl.Utf8})
    return CodeLoad(
        repo=repo, now=now, repository=repository,
        files=file_frame(repo, _file_rows(plan, modules)),
        symbols=symbol_frame(repo, parsed),
        refs=ref_frame(repo, parsed),
        externals=external_frame(result.externals),
        edges=edge_frames(repo, result.edges, parsed, plan.added),
        reparsed=[file_id(repo, p) for p in sorted(plan.changed)],
        resolved=[file_id(repo, p) for p in resolved],
        removed=[file_id(repo, p) for p in sorted(plan.removed)],
        touched=_touched_frame(plan),
        modules=renamed_modules,
        fresh=plan.stored.is_empty(),
    )


def _count(store: Store, repo: str, summary: IngestSummary) -> None:
    """Current nodes and edges of the repository, per table (what ``--json`` reports)."""
    prefix = file_id(repo, "")
    summary.nodes = {
        "File": _scalar(store, f"MATCH (f:{FILE.name}) WHERE {current_code_files()} "
                               "RETURN count(*)", {"r": repo}),
        "Symbol": _scalar(store, f"MATCH (s:{SYMBOL.name}) WHERE s.repo = $r AND "
                                 "s.valid_to IS NULL RETURN count(*)", {"r": repo}),
        "External": _scalar(store, f"MATCH (e:{EXTERNAL.name}) RETURN count(*)", {}),
    }
    summary.references = _scalar(store, f"MATCH (r:{CODE_REF.name}) WHERE r.file STARTS WITH "
                                        "$p RETURN coalesce(sum(r.count), 0)", {"p": prefix})
    summary.edges = {
        rel.name: _scalar(store, f"MATCH (a)-[e:{rel.name}]->() WHERE a.repo = $r OR "
                                 "a.name = $r RETURN count(*)", {"r": repo})
        for rel in STRUCTURAL}


def _scalar(store: Store, query: str, params: dict) -> int:
    return int(store.cypher(query, params).item())
