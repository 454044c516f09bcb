"""``vgdb ingest-batch``: many repositories into one graph, resumably.

```
manifest ──► materialize (path / clone+checkout) ──► skip if done and unchanged
         ──► extract: walk + parse into a Parquet shard, on the executor (local pool, Dask, Ray)
         ──► load: the single writer stages each shard as it arrives (resolve) and commits
             repositories new to the graph in groups, one transaction per group
             (:mod:`ingest.batch.group`); then per repository cross-repository links,
             history, papers, ``after_ingest`` (communities); one index sync per group;
             compaction once at the end
```

A failure of one repository (unreachable, bad ref, a worker that crashes, a load error) is
recorded and the others go on; a full disk stops the batch (nothing more can be written) with
the graph intact. Status per repository lives in ``<db>/batch/status.json``
(:mod:`ingest.batch.status`), so a rerun — after a kill, a fix, or a new commit — ingests only
what is not done or changed.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphdb import Store, failpoint, is_disk_full
from graphdb.compact import compact_if_grown
from ingest.batch.group import (
    LOAD_ERRORS,
    GroupWriter,
    Member,
    graph_rows,
    group_growth,
    group_max_rows,
    reopen_groups,
    reopen_store,
)
from ingest.batch.group import group_rows as group_rows_of
from ingest.batch.jobs import ExtractJob, extract_job
from ingest.batch.manifest import Manifest, RepoEntry
from ingest.batch.sources import Checkout, materialize, tree_digest
from ingest.batch.status import BatchStatus
from ingest.history.pipeline import HistoryOptions
from ingest.pipeline import IngestOptions, Progress, stage_repository
from ingest.shards import ExtractRequest, ShardInfo
from schema import DiskFullError, VgdbError

__all__ = ["BatchSummary", "RepoOutcome", "run_batch"]

AfterIngest = Callable[[Store, dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class RepoOutcome:
    """What became of one repository in a batch run."""

    name: str
    status: str  # done | unchanged | failed | not run
    source: str
    commit: str | None = None
    reason: str = ""
    files: int = 0
    nodes: int = 0
    edges: int = 0
    seconds: float = 0.0
    extract_seconds: float = 0.0
    cross_repo: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status, "source": self.source,
                "commit": self.commit, "reason": self.reason, "files": self.files,
                "nodes": self.nodes, "edges": self.edges, "seconds": round(self.seconds, 3),
                "extract_seconds": round(self.extract_seconds, 3),
                "cross_repo": self.cross_repo}


@dataclass(frozen=True)
class BatchSummary:
    """A batch run: one outcome per manifest entry, in manifest order."""

    manifest: str
    executor: str
    outcomes: tuple[RepoOutcome, ...]
    seconds: float
    disk_full: bool = False
    #: per group transaction: (repositories, rows, seconds of the load)
    groups: tuple[tuple[int, int, float], ...] = ()
    compacted: dict[str, Any] | None = None
    #: the store open at the end: a batch of many groups closes and opens the database
    #: again between groups (``reopen_every``), leaving the caller's store closed
    store: Store | None = field(default=None, compare=False, repr=False)

    @property
    def failed(self) -> list[RepoOutcome]:
        return [o for o in self.outcomes if o.status in ("failed", "not run")]

    def to_dict(self) -> dict[str, Any]:
        counts: dict[str, int] = {}
        for o in self.outcomes:
            counts[o.status] = counts.get(o.status, 0) + 1
        return {"manifest": self.manifest, "executor": self.executor,
                "seconds": round(self.seconds, 3), "counts": counts,
                "disk_full": self.disk_full,
                "groups": [{"repositories": n, "rows": rows, "seconds": round(t, 3)}
                           for n, rows, t in self.groups],
                "compacted": self.compacted,
                "repositories": [o.to_dict() for o in self.outcomes]}


@dataclass
class _Ready:
    entry: RepoEntry
    checkout: Checkout
    fingerprint: str


def run_batch(store: Store, manifest: Manifest, *, executor: str = "local",
              workers: int | None = None, retry_failed: bool = False, force: bool = False,
              keep_shards: bool = False, progress: Progress | None = None,
              after_ingest: AfterIngest | None = None,
              group_rows: int | None = None,
              reopen_every: int | None = None,
              growth: float | None = None,
              growth_max_rows: int | None = None) -> BatchSummary:
    """Ingest every repository of ``manifest`` into ``store``.

    Repositories done before with the same fingerprint (manifest entry + commit, and the
    files' stat for trees used in place) are skipped unless ``force``; ``retry_failed`` runs
    only those that failed last time. ``executor`` is where extraction runs
    (:func:`ingest.executors.get_executor`: ``local``, ``dask://...``, ``ray://...``) with
    ``workers`` processes; loading is always here, repositories new to the graph in
    groups of about ``group_rows`` rows per transaction (:mod:`ingest.batch.group`), or
    ``growth`` of the rows already in the graph when that is more (``VGDB_BATCH_GROUP_GROWTH``,
    default :data:`~ingest.batch.group.GROUP_GROWTH`), at most ``growth_max_rows``
    (``VGDB_BATCH_GROUP_MAX_ROWS``), and the graph is compacted (when it outgrew its rows)
    once at the end. Every ``reopen_every`` groups (``VGDB_BATCH_REOPEN_GROUPS``, default
    :data:`~ingest.batch.group.REOPEN_GROUPS`) the database is closed and opened again,
    which returns the engine's per-group memory: the summary's ``store`` is then the one
    open, and ``store`` is closed.
    """
    from ingest.executors import get_executor

    start = time.perf_counter()
    status = BatchStatus(store.path)
    cache = Path(manifest.cache_dir) if manifest.cache_dir else store.path / "batch" / "clones"
    shard_root = store.path / "batch" / "shards"
    outcomes: dict[str, RepoOutcome] = {}
    total = len(manifest.repositories)

    def report() -> None:
        if progress:
            progress("repositories", len(outcomes), total)

    def fail(entry: RepoEntry, exc: BaseException | str, **extra: Any) -> None:
        reason = exc if isinstance(exc, str) else _reason(exc)
        outcomes[entry.name] = RepoOutcome(entry.name, "failed", entry.source, reason=reason,
                                           **extra)
        status.set(entry.name, "failed", error=reason, source=entry.source)
        report()

    ready: list[_Ready] = []
    disk_full = False
    groups: list[tuple[int, int, float]] = []
    compacted = None
    try:
        for entry in manifest.repositories:
            prev = status.get(entry.name) or {}
            if retry_failed and prev.get("status") != "failed":
                why = "done earlier" if prev.get("status") == "done" else "did not fail"
                outcomes[entry.name] = RepoOutcome(entry.name, "unchanged", entry.source,
                                                   prev.get("commit"), f"{why} (--retry-failed)")
                continue
            try:
                checkout = materialize(entry, cache)
                fingerprint = _fingerprint(entry, checkout)
            except (VgdbError, OSError) as exc:
                if is_disk_full(exc):
                    raise
                fail(entry, exc)
                continue
            if not force and prev.get("status") == "done" and \
                    prev.get("fingerprint") == fingerprint:
                outcomes[entry.name] = RepoOutcome(
                    entry.name, "unchanged", entry.source, checkout.commit,
                    f"done at {prev.get('updated_at', '?')}, unchanged since",
                    files=prev.get("files", 0), nodes=prev.get("nodes", 0),
                    edges=prev.get("edges", 0))
                report()
                continue
            status.set(entry.name, "extracting", source=entry.source, commit=checkout.commit,
                       fingerprint=fingerprint, error="")
            ready.append(_Ready(entry, checkout, fingerprint))
        report()
        if ready:
            writer = _extract_and_load(store, ready, status, outcomes, fail, report,
                                       get_executor(executor, workers=workers),
                                       shard_root, keep_shards=keep_shards,
                                       workers=workers, progress=progress,
                                       after_ingest=after_ingest,
                                       group_rows=group_rows_of(group_rows),
                                       reopen_every=reopen_groups(reopen_every),
                                       growth=group_growth(growth),
                                       growth_max_rows=group_max_rows(growth_max_rows))
            store = writer.store
            disk_full, groups = writer.stopped, writer.groups
            if not disk_full and any(o.status == "done" for o in outcomes.values()):
                # once for the batch, not per repository: each compaction rewrites the
                # whole graph (measured ~20 s at 1M edges, RESULTS.md)
                compacted = compact_if_grown(store)
    except (VgdbError, OSError) as exc:
        if not is_disk_full(exc):
            raise
        disk_full = True
    for entry in manifest.repositories:
        if entry.name not in outcomes:
            reason = "not run: no space left on device" if disk_full else "not run"
            outcomes[entry.name] = RepoOutcome(entry.name, "not run", entry.source,
                                               reason=reason)
    return BatchSummary(manifest.path, executor,
                        tuple(outcomes[e.name] for e in manifest.repositories),
                        time.perf_counter() - start, disk_full=disk_full,
                        groups=tuple(groups),
                        compacted=compacted.to_dict() if compacted else None,
                        store=store)


def _extract_and_load(store: Store, ready: list[_Ready], status: BatchStatus,
                      outcomes: dict[str, RepoOutcome], fail: Callable[..., None],
                      report: Callable[[], None], pool: Any, shard_root: Path, *,
                      keep_shards: bool, workers: int | None, progress: Progress | None,
                      after_ingest: AfterIngest | None, group_rows: int,
                      reopen_every: int, growth: float,
                      growth_max_rows: int) -> GroupWriter:
    """Extract on ``pool``; here, stage each shard as it arrives and load the staged
    repositories in groups (:mod:`ingest.batch.group`). Returns the writer: ``stopped`` when
    the disk filled up, ``groups`` what each group transaction wrote."""
    by_name = {r.entry.name: r for r in ready}
    extracted: dict[str, float] = {}

    def done(member: Member) -> None:
        item, data = by_name[member.name], member.data
        files, nodes = data["files"], data["nodes"]
        outcome = RepoOutcome(
            member.name, "done", item.entry.source, item.checkout.commit,
            files=files["seen"], nodes=nodes.get("File", 0) + nodes.get("Symbol", 0),
            edges=sum(data["edges"].values()), seconds=time.perf_counter() - member.started,
            extract_seconds=extracted.get(member.name, 0.0),
            cross_repo=member.staged.summary.cross_repo)
        status.set(member.name, "done", files=outcome.files, nodes=outcome.nodes,
                   edges=outcome.edges, seconds=round(outcome.seconds, 3),
                   fingerprint=item.fingerprint, commit=item.checkout.commit)
        outcomes[member.name] = outcome
        report()

    def failed(member: Member, exc: BaseException) -> None:
        entry = by_name[member.name].entry
        if _is_full(store.path, exc):
            # the engine may report a full disk in other words: free space decides
            exc = DiskFullError(str(store.path), message="no space left on device loading "
                                f"{entry.name} ({_reason(exc)}); the load was rolled back")
        fail(entry, exc)

    writer = GroupWriter(store, group_rows, done, failed,
                         lambda exc: _is_full(store.path, exc), progress=progress,
                         after_ingest=after_ingest, reopen_every=reopen_every,
                         reopen=reopen_store, growth=growth, growth_max_rows=growth_max_rows,
                         graph_rows=graph_rows(store) if growth and group_rows > 1 else 0)
    jobs = [ExtractJob(r.entry.name, ExtractRequest(
        root=r.checkout.root, out=str(shard_root / r.entry.name), repo=r.entry.name,
        excludes=r.entry.excludes(), default_excludes=r.entry.default_excludes,
        gitignore=r.entry.gitignore, max_file_size=r.entry.max_file_size)) for r in ready]
    with pool:
        for job, result in pool.map_unordered(extract_job, jobs):
            item = by_name[job.name]
            entry = item.entry
            if isinstance(result, BaseException):
                if is_disk_full(result):
                    fail(entry, DiskFullError(str(shard_root), message="no space left on "
                                              f"device writing the shard of {entry.name}"))
                    writer.stopped = True
                    break
                fail(entry, result)
                continue
            short = _short_of_space(store.path, result)
            if short:
                fail(entry, DiskFullError(str(store.path), message="not enough free space "
                                          f"to load {entry.name}: {short}"))
                writer.stopped = True
                break
            status.set(entry.name, "running")
            failpoint(f"batch-load:{entry.name}")
            extracted[entry.name] = result.seconds
            started = time.perf_counter()
            try:
                staged = stage_repository(writer.store, item.checkout.root,
                                          options=_options(entry, workers),
                                          progress=progress, shards=result)
            except LOAD_ERRORS as exc:
                failed(Member(entry.name, None, _options(entry, workers), started), exc)
                if _is_full(store.path, exc):
                    writer.stopped = True
                    break
                continue
            finally:
                if not keep_shards:  # staged: the load holds what it needs
                    shutil.rmtree(result.path, ignore_errors=True)
            writer.add(Member(entry.name, staged, _options(entry, workers), started))
            if writer.stopped:
                break
        else:
            writer.flush()
    if writer.stopped:
        for member in writer.pending:
            fail(by_name[member.name].entry, "not run: no space left on device")
    return writer


def _is_full(db_dir: Path, exc: BaseException) -> bool:
    return is_disk_full(exc) or _nearly_full(db_dir)


def _options(entry: RepoEntry, workers: int | None) -> IngestOptions:
    h = entry.history
    return IngestOptions(
        name=entry.name, excludes=entry.excludes(), default_excludes=entry.default_excludes,
        gitignore=entry.gitignore, max_file_size=entry.max_file_size, workers=workers,
        history=HistoryOptions(enabled=h.enabled, since=h.since, max_commits=h.max_commits,
                               max_file_size=entry.max_file_size),
        papers=entry.papers)


def _fingerprint(entry: RepoEntry, checkout: Checkout) -> str:
    """Entry + commit; a tree used in place adds its files' stat (edits without a commit)."""
    parts = [entry.fingerprint(), checkout.commit or "-"]
    if not checkout.cloned:
        parts.append(tree_digest(entry, checkout.root))
    return ":".join(parts)


def _min_free_bytes() -> int:
    return int(float(os.environ.get("VGDB_MIN_FREE_MB", "64")) * 1024 * 1024)


def _short_of_space(db_dir: Path, shard: ShardInfo) -> str:
    """Why there is not enough room to load ``shard`` ('' when there is): Kuzu cannot
    report a full disk clearly (see ``_nearly_full``), so the batch checks first. Room
    means VGDB_MIN_FREE_MB (64) plus 8 times the shard's size (a load writes the rows, the
    WAL and a checkpoint's shadow pages)."""
    size = sum(f.stat().st_size for f in Path(shard.path).glob("*.parquet"))
    needed = _min_free_bytes() + 8 * size
    free = shutil.disk_usage(db_dir).free
    if free >= needed:
        return ""
    return f"{free / 2**20:.1f} MB free on {db_dir}, about {needed / 2**20:.1f} MB needed"


def _nearly_full(db_dir: Path) -> bool:
    usage = shutil.disk_usage(db_dir)
    return usage.free < min(16 * 2**20, usage.total // 20)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, VgdbError):
        return exc.message
    return f"{type(exc).__name__}: {exc}"
