"""``vgdb ingest PATH``: walk, parse what changed (in parallel), resolve, load in one transaction.

Incremental by construction: files whose size and mtime match the graph are not read; files
whose content hash matches are not parsed; unchanged files' symbols and references are read
back from the graph (CodeRef rows), and only the files whose references could resolve
differently after the change are re-resolved. The result is the same current graph a full
rebuild of the tree would give (tested with hypothesis).
"""

from __future__ import annotations

import gc
import json
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from graphdb import CodeLoad, Store, failpoint, load_code, mark_uncommitted, touch_files
from graphdb.compact import compact_if_grown
from graphdb.findable import make_searchable
from graphdb.keyword import KEYWORD_FIELDS, mark_stale, unmark_stale, unsynced
from ingest.changes import Changes, plan_reads, stored_files, touched_frame
from ingest.code_load import build_load, count_repository, scalar
from ingest.crossrepo import providers_for, relink_consumers
from ingest.history.gitlog import uncommitted_paths
from ingest.history.pipeline import HistoryOptions, HistorySummary, ingest_history
from ingest.names import is_utf8_name, shown_name
from ingest.parsing import EarlyParse, parse_tasks, start_parse
from ingest.resolve import resolve
from ingest.scope import resolution_scope
from ingest.walk import Candidate, Skipped, TextListing, walk
from schema import FILE, SYMBOL, IngestError, ParseStatus, file_id

if TYPE_CHECKING:  # pyarrow (~0.1 s to import) only when a shard is read
    from ingest.shards import Shard, ShardInfo

__all__ = ["IngestOptions", "IngestSummary", "StagedIngest", "check_root", "finish_derived",
           "finish_repository", "finish_searchable", "ingest_repository", "ingest_staged",
           "papers_pending", "relink_repository", "stage_repository", "start_cold_parse",
           "sync_searchable", "without_cyclic_gc"]

#: Below this many files to parse, a process pool costs more than it saves.
POOL_MIN_FILES = 24
_CHUNK = 16
#: Re-resolve everything when more than this share of the files is affected anyway.
_FULL_RESOLVE_SHARE = 0.5

Progress = Callable[[str, int, int], None]
#: a caller's step run while the derived steps' children work (``finish_derived``)
Alongside = Callable[["IngestSummary"], Any]


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
                      compact: bool = True, early: EarlyParse | None = None) -> IngestSummary:
    """Ingest (or update) the code of the tree at ``path`` into ``store``, then the git
    history of its repository (new commits only).

    With ``shards`` (a shard directory written by :func:`ingest.shards.extract_shards` for
    this tree), the walk and parse results come from the shard instead of the tree: its walk
    options apply, the repository name defaults to the shard's, and the change plan is the
    same (files unchanged by stat or content hash are neither reloaded nor re-resolved).
    ``compact=False`` leaves compaction to the caller (a batch compacts once, at its end).
    ``early``: the parse :func:`start_cold_parse` started for this tree and these options
    before the database was opened; its results are used if the files to read are the same.
    """
    return ingest_staged(store, path, options=options, progress=progress, shards=shards,
                         compact=compact, early=early).summary


def ingest_staged(store: Store, path: str | os.PathLike[str], *,
                  options: IngestOptions = IngestOptions(),
                  progress: Progress | None = None,
                  shards: str | os.PathLike[str] | ShardInfo | None = None,
                  compact: bool = True, early: EarlyParse | None = None,
                  defer: bool = False, alongside: Alongside | None = None) -> StagedIngest:
    """:func:`ingest_repository`, answering the staged ingest itself. ``defer``: stop once
    the code is committed and linked across repositories; the caller runs
    :func:`finish_derived` on the result later (a served update, ``api.serve_derive``).
    The load's transaction then also records which files the papers step still has to
    read (:func:`papers_pending`), so a kill before it loses nothing. ``alongside``: see
    :func:`finish_derived`."""
    with without_cyclic_gc():
        staged = stage_repository(store, path, options=options, progress=progress,
                                  shards=shards, early=early)
        if staged.load is not None:
            if defer and options.papers:
                summary = staged.summary
                changed = {*papers_pending(store, summary.repo), *summary.reparsed_paths,
                           *summary.removed_paths}
                staged.load.meta[_papers_key(summary.repo)] = json.dumps(sorted(changed))
            failpoint("before-load")
            if progress:
                progress("load", 0, 1)
            load_code(store, staged.load)
            staged.loaded(store)
        relink_repository(store, staged)
        if not defer:
            finish_derived(store, staged, options=options, progress=progress,
                           compact=compact, alongside=alongside)
        return staged


def papers_pending(store: Store, repo: str) -> set[str]:
    """Files of ``repo`` a deferred papers step has not read yet (a served update killed
    before its derived data): the next papers step reads them as changed."""
    raw = store.meta(_papers_key(repo))
    return set(json.loads(raw)) if raw else set()


def _papers_key(repo: str) -> str:
    return f"papers-pending:{repo}"


@contextmanager
def without_cyclic_gc() -> Iterator[None]:
    """Python's cycle collector off for the length of an ingest.

    An ingest allocates millions of small containers that live until its end (the
    workers' rows, the resolver's indexes, the frames), and the collector walks all of
    them again each time the young generations fill up: on the standard library, 0.21 of
    the 0.28 s spent unpickling the workers' results and 0.5 of the 2.2 s of resolution
    (CPU). Its garbage is freed by reference counting; the few cycles wait for the
    collector, which is enabled again (if it was) at the end."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


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
    #: the papers step's files, found by the code walk (None: it walks the tree itself)
    texts: TextListing | None = None
    #: the parse workers' scans of the files they read, for the papers step (by path)
    scans: dict[str, Any] = field(default_factory=dict)

    def loaded(self, store: Store) -> None:
        """The load is committed: time it and count what the repository now holds."""
        self.clock.lap("load")
        count_repository(store, self.summary.repo, self.summary)
        self.clock.lap("count")


def stage_repository(store: Store, path: str | os.PathLike[str], *,
                     options: IngestOptions = IngestOptions(),
                     progress: Progress | None = None,
                     shards: str | os.PathLike[str] | ShardInfo | None = None,
                     early: EarlyParse | None = None) -> StagedIngest:
    """The first half of :func:`ingest_repository`: everything before the load's write."""
    try:
        return _stage(store, path, options, progress, shards, early)
    finally:
        if early is not None:
            early.close()  # not taken over (other files to read, a shard): dropped


def start_cold_parse(path: str | os.PathLike[str], *,
                     options: IngestOptions = IngestOptions()) -> EarlyParse | None:
    """Start parsing the tree at ``path`` as an ingest into an empty graph would, before
    the database is even opened: the workers parse while this process creates the
    database (~0.25 s on 2 cores, the other core idle until now). Pass the result to
    :func:`ingest_repository`, which takes the results over when the files it has to read
    are exactly these (else they are dropped), and the walk with them when it would walk
    the tree with the same options (one walk per cold ingest), or ``close()`` it. None
    when the files would be parsed in this process anyway, or when the walk fails (bad
    input is reported by the ingest itself, as without an early start)."""
    try:
        root = check_root(path)
        texts = _text_listing() if options.papers else None
        candidates, skipped = _walk(root, options, texts)
    except IngestError:
        return None
    tasks, _ = plan_reads(root, candidates, _NOTHING_STORED, scan=options.papers)
    early = start_parse(tasks, workers=options.workers)
    if early is not None:
        early.listing = _Listing(root, _walk_key(options), candidates, skipped, texts)
    return early


@dataclass(frozen=True)
class _Listing:
    """A walk of ``root`` with the options of ``key`` (:func:`_walk_key`)."""

    root: Path
    key: tuple
    candidates: list[Candidate]
    skipped: list[Skipped]
    texts: TextListing | None


def _walk_key(options: IngestOptions) -> tuple:
    """What a walk's result depends on, of an ingest's options."""
    return (options.excludes, options.default_excludes, options.gitignore,
            options.max_file_size, options.languages, options.papers)


def _early_listing(early: EarlyParse | None, root: Path,
                   options: IngestOptions) -> _Listing | None:
    """The early parse's walk, if it walked this tree as this ingest would."""
    listing = early.listing if early is not None else None
    if isinstance(listing, _Listing) and listing.root == root \
            and listing.key == _walk_key(options):
        return listing
    return None


#: the stored File rows of a repository the graph does not hold (what ``plan_reads`` reads)
_NOTHING_STORED = pl.DataFrame(schema={"path": pl.Utf8, "sha": pl.Utf8, "size": pl.Int64,
                                       "mtime_ns": pl.Int64, "parse_status": pl.Utf8})


def _walk(root: Path, options: IngestOptions, texts: TextListing | None = None,
          ) -> tuple[list[Candidate], list[Skipped]]:
    """The code walk (``texts``: also list what the papers step reads, on the way)."""
    candidates, skipped = walk(root, excludes=options.excludes,
                               default_excludes=options.default_excludes,
                               gitignore=options.gitignore,
                               max_file_size=options.max_file_size, texts=texts)
    if options.languages:  # only these languages (config `languages`, --language)
        candidates = [c for c in candidates if c.language in options.languages]
    return candidates, skipped


def _stage(store: Store, path: str | os.PathLike[str], options: IngestOptions,
           progress: Progress | None, shards: str | os.PathLike[str] | ShardInfo | None,
           early: EarlyParse | None) -> StagedIngest:
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
    listing = _early_listing(early, root, options) if shard is None else None
    texts = listing.texts if listing is not None else (
        _text_listing() if options.papers and shard is None else None)
    scans: dict[str, Any] = {}
    load = _stage_code(store, root, repo, summary, options, progress, shard, clock, scans,
                       early, texts, listing)
    return StagedIngest(root, summary, load, version, lagging, clock, texts, scans)


def _text_listing() -> TextListing:
    """What the papers step reads, listed by the code walk (one walk of the tree)."""
    from ingest.academic.links import text_kind

    return TextListing(text_kind)


def finish_repository(store: Store, staged: StagedIngest, *,
                      options: IngestOptions = IngestOptions(),
                      progress: Progress | None = None, searchable: bool = True,
                      compact: bool = True) -> IngestSummary:
    """The second half, once the code is committed: cross-repository links, history,
    papers, then (``searchable``) the keyword and vector indexes and (``compact``) the
    compaction policy. A grouped load passes ``searchable=False`` and syncs once for the
    group (:func:`sync_searchable`)."""
    relink_repository(store, staged)
    return finish_derived(store, staged, options=options, progress=progress,
                          searchable=searchable, compact=compact)


def relink_repository(store: Store, staged: StagedIngest) -> None:
    """Other repositories of the graph that use this one resolve into it anew (after a
    change of its files)."""
    summary = staged.summary
    if summary.added or summary.modified or summary.removed:
        summary.cross_repo = relink_consumers(store, summary.repo).to_dict()


def finish_derived(store: Store, staged: StagedIngest, *,
                   options: IngestOptions = IngestOptions(),
                   progress: Progress | None = None, searchable: bool = True,
                   compact: bool = True, alongside: Alongside | None = None) -> IngestSummary:
    """What follows from the committed code: history (and the uncommitted marks), papers,
    then (``searchable``) the keyword and vector indexes and (``compact``) the compaction
    policy.

    ``alongside(summary)``: the caller's next step (the communities step, which must follow
    the history), run once the history and papers are done, while forked children index
    and embed (:func:`graphdb.findable.make_searchable`); always run exactly once."""
    root, summary, repo = staged.root, staged.summary, staged.summary.repo
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

        pending = papers_pending(store, repo)
        summary.papers = link_repository(
            store, root, repo, excludes=options.excludes,
            default_excludes=options.default_excludes, gitignore=options.gitignore,
            max_file_size=options.max_file_size, progress=progress,
            changed={*summary.reparsed_paths, *summary.removed_paths, *pending},
            listing=staged.texts, scans=staged.scans).to_dict()
        if pending:
            with store.write() as tx:  # read now: not pending any more
                store.set_meta(tx, _papers_key(repo), "")
    if searchable:
        finish_searchable(store, staged, options=options, progress=progress, compact=compact,
                          alongside=alongside)
    elif alongside is not None:
        alongside(summary)
    return summary


def finish_searchable(store: Store, staged: StagedIngest, *,
                      options: IngestOptions = IngestOptions(),
                      progress: Progress | None = None, compact: bool = True,
                      alongside: Alongside | None = None) -> None:
    """The last step of :func:`finish_repository`: the keyword and vector indexes synced
    with what ``staged`` wrote, then (``compact``) the compaction policy. A served update
    runs it after its answer (``api.serve_derive``): until then the tables it reads are
    marked stale (:func:`stage_repository`), so a kill in between leaves them to the next
    sync. ``alongside``: see :func:`finish_derived`."""
    summary = staged.summary
    if store.graph_version() == staged.version and not staged.lagging:
        # nothing was written (a no-op run): the indexes are as synced as before
        unmark_stale(store, KEYWORD_FIELDS)
        if alongside is not None:
            alongside(summary)
        return
    summary.search = sync_searchable(
        store, [staged], embed=options.embed, progress=progress,
        alongside=None if alongside is None else lambda: alongside(summary))
    for step, took in summary.search.pop("seconds").items():
        summary.seconds[step] = took
    if compact and (summary.added or summary.modified or summary.removed):
        # the engine never shrinks its file: rewrite it once it outgrew its content
        t0 = time.perf_counter()
        compacted = compact_if_grown(store)
        summary.compacted = compacted.to_dict() if compacted else None
        summary.seconds["compact"] = time.perf_counter() - t0


def sync_searchable(store: Store, staged: list[StagedIngest], *, embed: bool = True,
                    progress: Progress | None = None,
                    alongside: Callable[[], Any] | None = None) -> dict[str, Any]:
    """Keyword index synced and new or changed texts embedded after ``staged`` were
    written; when only their code changed, the keyword index compares their changed files'
    symbols alone. ``alongside``: run meanwhile (:func:`graphdb.findable.make_searchable`)."""
    only_code = not any(s.lagging or any(t in ((s.summary.papers or {}).get("written") or {})
                                         for t in KEYWORD_FIELDS) for s in staged)
    symbols = [sid for s in staged for sid in _symbols_of(store, s.summary.repo, s.summary)] \
        if only_code else None
    return make_searchable(store, embed=embed, progress=progress, symbols=symbols,
                           alongside=alongside)


def _stage_code(store: Store, root: Path, repo: str, summary: IngestSummary,
                options: IngestOptions, progress: Progress | None,
                shard: Shard | None, clock: _Clock, scans: dict[str, Any],
                early: EarlyParse | None, texts: TextListing | None = None,
                listing: _Listing | None = None) -> CodeLoad | None:
    if shard is not None:
        candidates, skipped = list(shard.candidates), list(shard.skipped)
        if options.languages:  # only these languages (config `languages`, --language)
            candidates = [c for c in candidates if c.language in options.languages]
    elif listing is not None:  # walked by the early parse (a cold ingest walks once)
        candidates, skipped = listing.candidates, listing.skipped
    else:
        candidates, skipped = _walk(root, options, texts)
    summary.files_seen = len(candidates) + len(skipped)
    clock.lap("walk")

    stored = stored_files(store, repo)
    # the workers also scan what they read for the papers step: one read of each file
    tasks, unchanged = plan_reads(root, candidates, stored,
                                  scan=options.papers and shard is None)
    results = (shard.parse(tasks) if shard is not None else
               parse_tasks(tasks, workers=options.workers, progress=progress, early=early))
    scans.update((r.path, r.scan) for r in results if r.scan is not None)
    clock.lap("parse")

    plan = Changes.build(repo, candidates, skipped, results, stored, unchanged)
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
        touch_files(store, touched_frame(plan))
        count_repository(store, repo, summary)
        clock.lap("load")
        return None

    extracts, only = resolution_scope(store, repo, plan)
    if progress:
        progress("resolve", 0, 1)
    result = resolve(repo, extracts, only=only, providers=providers_for(store, repo),
                     workers=options.workers or os.cpu_count() or 1)
    summary.reresolved = len(only) if only is not None else len(extracts)
    for *_, reason in result.unresolved:
        summary.unresolved_calls[reason] = summary.unresolved_calls.get(reason, 0) + 1
    clock.lap("resolve")

    load = build_load(repo, root, plan, extracts, result, only)
    # any change is followed by the communities step (api.steps.communities_after_ingest)
    load.communities_due = bool(plan.added or plan.modified or plan.removed)
    if load.fresh:  # no code files yet; files known from history alone are updated in place
        load.fresh = not scalar(store, f"MATCH (f:{FILE.name}) WHERE f.repo = $r "
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
