"""History ingest: read new commits, attribute them to symbols, load them in one transaction.

Incremental: commits already in the graph are not read again (the walk stops at the head
recorded by the last history ingest). Blobs are parsed in worker processes, a window of
commits ahead of the attribution, and dropped from memory after their last use.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl
import pygit2

from graphdb import HistoryLoad, Store, load_history
from ingest.extract import language_for
from ingest.frames import module_short_name
from ingest.history.gitlog import Change, CommitRow, GitLog, NotARepository, read_history
from schema import (
    CHANGED,
    COMMIT,
    FILE,
    MODULE_QUALNAME,
    REPOSITORY,
    SYMBOL,
    ParseStatus,
    Source,
    commit_id,
    file_id,
    frame_schema,
    person_id,
)

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

    from ingest.history.attribution import Attribution
    from ingest.history.blobs import BlobSymbols

__all__ = ["HistoryOptions", "HistorySummary", "ingest_history"]

Progress = Callable[[str, int, int], None]

#: commits attributed per step; the blobs of the next step are parsed meanwhile
_WINDOW = 250
_CHUNK = 24
#: fewer blobs than this are parsed in this process (a pool costs ~0.3 s to start)
_POOL_MIN_BLOBS = 64


@dataclass(frozen=True)
class HistoryOptions:
    """How much history to read, and how co-change is counted."""

    enabled: bool = True
    since: datetime | None = None
    max_commits: int | None = None
    cochange_max_files: int = 50
    cochange_min_count: int = 2
    workers: int | None = None
    max_file_size: int = 2_000_000


@dataclass
class HistorySummary:
    """What a history ingest did; ``to_dict()`` is part of ``vgdb ingest --json``."""

    status: str = "ingested"  # ingested | up to date | skipped | failed
    reason: str = ""
    head: str = ""
    commits: int = 0
    changes: int = 0
    touched: int = 0
    lineage: int = 0
    people: int = 0
    unattributed: int = 0
    notes: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "reason": self.reason, "head": self.head,
                "commits": self.commits, "changes": self.changes, "touched": self.touched,
                "lineage": self.lineage, "people": self.people,
                "unattributed_changes": self.unattributed, "notes": self.notes,
                "seconds": {k: round(v, 3) for k, v in self.seconds.items()}}


def ingest_history(store: Store, root: Path, repo: str, *,
                   options: HistoryOptions = HistoryOptions(),
                   progress: Progress | None = None) -> HistorySummary:
    """Add the commits of the git repository holding ``root`` that the graph lacks."""
    summary = HistorySummary()
    t = time.perf_counter()
    known, stored_head = _known_commits(store, repo)
    try:
        log = read_history(root, known=known, stop_at=(stored_head,) if stored_head else (),
                           since=options.since, max_commits=options.max_commits)
        summary.head, summary.notes = log.head, log.notes
        summary.seconds["git"] = time.perf_counter() - t
        if not log.commits:
            summary.status = "up to date" if log.head else "skipped"
            summary.reason = "; ".join(log.notes)
            return summary
        t = time.perf_counter()
        acc = _attribute(log, repo, options, progress)
    except NotARepository as exc:
        return HistorySummary(status="skipped", reason=exc.message)
    except (pygit2.GitError, KeyError) as exc:  # a damaged repository: missing objects, bad refs
        return HistorySummary(
            status="failed", reason=f"git could not read the repository ({exc}); the code was "
                                    "ingested and the graph keeps the history it had")
    summary.seconds["attribute"] = time.perf_counter() - t
    t = time.perf_counter()
    if progress:
        progress("history load", 0, 1)
    load = _build_load(store, repo, log, acc, known, options)
    counts = load_history(store, load)
    summary.seconds["load"] = time.perf_counter() - t
    summary.commits, summary.changes = len(log.commits), len(log.changes)
    summary.touched, summary.lineage = load.touched.height, load.supersedes.height
    summary.people, summary.unattributed = counts["persons"], acc.unattributed
    return summary


def _known_commits(store: Store, repo: str) -> tuple[set[str], str]:
    # this repository's commits, and those it shares with another repository ingested first
    # (each commit node belongs to the repository that brought it; its CHANGED edges to
    # this repository's files say it is known here too)
    rows = store.cypher(f"MATCH (c:{COMMIT.name}) WHERE c.repo = $repo RETURN c.sha AS sha "
                        f"UNION MATCH (c:{COMMIT.name})-[:{CHANGED.name}]->(f:{FILE.name}) "
                        "WHERE f.repo = $repo RETURN c.sha AS sha", {"repo": repo})
    head = store.cypher(f"MATCH (r:{REPOSITORY.name}) WHERE r.name = $repo "
                        "RETURN r.head AS head", {"repo": repo})
    known = set(rows["sha"].to_list())
    stored = head["head"][0] if head.height and head["head"][0] in known else ""
    return known, stored or ""


# ------------------------------------------------------------------------------ attribution
def _attribute(log: GitLog, repo: str, options: HistoryOptions,
               progress: Progress | None) -> Attribution:
    # imported when there are new commits: an update whose history is up to date (most of
    # them) does not load the attribution (rapidfuzz), blob parsing or the process pool
    from ingest.history.attribution import Attribution, attribute_commit
    from ingest.pool import process_pool

    acc = Attribution(repo=repo)
    by_commit: dict[str, list[Change]] = defaultdict(list)
    uses: Counter[str] = Counter()
    for change in log.changes:
        if change.language:
            by_commit[change.sha].append(change)
            uses.update(b for b in (change.old_blob, change.new_blob) if b)
    commits = [c for c in log.commits if c.sha in by_commit]
    git_dir = log.git_dir
    reader = _BodyReader(pygit2.Repository(git_dir))
    windows = [commits[i:i + _WINDOW] for i in range(0, len(commits), _WINDOW)]
    cache: dict[str, BlobSymbols] = {}
    total_blobs = len(uses)
    workers = options.workers or 2
    pool = process_pool(workers) if total_blobs >= _POOL_MIN_BLOBS and workers > 1 else None
    try:
        scheduled: set[str] = set()
        pending: list[list[Future[list[BlobSymbols]]] | list[BlobSymbols]] = []
        for i, window in enumerate(windows):
            while len(pending) < i + 2 and len(pending) < len(windows):
                pending.append(_schedule(pool, git_dir, windows[len(pending)], by_commit,
                                         scheduled, options.max_file_size))
            for parsed in _results(pending[i]):
                cache[parsed.oid] = parsed
            pending[i] = []
            for commit in window:
                attribute_commit(acc, commit, by_commit[commit.sha], cache.__getitem__,
                                 reader)
                for change in by_commit[commit.sha]:
                    for blob in (change.old_blob, change.new_blob):
                        if blob:
                            uses[blob] -= 1
                            if uses[blob] <= 0:
                                cache.pop(blob, None)
            if progress:
                progress("history", min((i + 1) * _WINDOW, len(commits)), len(commits))
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return acc


def _schedule(pool: ProcessPoolExecutor | None, git_dir: str, window: list[CommitRow],
              by_commit: dict[str, list[Change]], scheduled: set[str],
              max_size: int) -> list[Future[list[BlobSymbols]]] | list[BlobSymbols]:
    from ingest.history.blobs import BlobTask, parse_blobs

    tasks = []
    for commit in window:
        for change in by_commit[commit.sha]:
            for blob, path in ((change.old_blob, change.old_path or change.path),
                               (change.new_blob, change.path)):
                if blob and blob not in scheduled:
                    scheduled.add(blob)
                    tasks.append(BlobTask(blob, path, change.language or ""))
    if pool is None:
        return parse_blobs(git_dir, tasks, max_size)
    return [pool.submit(parse_blobs, git_dir, tasks[j:j + _CHUNK], max_size)
            for j in range(0, len(tasks), _CHUNK)]


def _results(batch: list[Future[list[BlobSymbols]]] | list[BlobSymbols]) -> Iterator[BlobSymbols]:
    from ingest.history.blobs import BlobSymbols

    for item in batch:
        if isinstance(item, BlobSymbols):
            yield item
        else:
            yield from item.result()


class _BodyReader:
    """Lines of a blob's text, for comparing bodies; keeps the last few blobs decoded."""

    def __init__(self, repo: pygit2.Repository) -> None:
        self.repo = repo
        self.lines: dict[str, list[str]] = {}

    def __call__(self, blob: str, start: int, end: int) -> str:
        lines = self.lines.get(blob)
        if lines is None:
            if len(self.lines) > 64:
                self.lines.clear()
            data = self.repo[blob].data
            lines = self.lines[blob] = data.decode("utf-8", errors="replace").splitlines()
        return "\n".join(lines[start - 1:end])


# ------------------------------------------------------------------------------------ rows
def _build_load(store: Store, repo: str, log: GitLog, acc: Attribution, known: set[str],
                options: HistoryOptions) -> HistoryLoad:
    from ingest.history.cochange import co_changes

    now = datetime.now(UTC).replace(tzinfo=None)
    when = {c.sha: c.committed_at for c in log.commits}
    author = {c.sha: person_id(c.author.email) for c in log.commits}
    in_batch = set(when)
    files, validity, changed = _file_rows(store, repo, log, when)
    symbols, keep = _symbol_rows(store, repo, acc)
    touched = pl.DataFrame(
        [{"from": commit_id(t.sha), "to": t.symbol, "kind": t.kind, "lines": t.lines,
          "valid_from": when[t.sha]} for t in acc.touches if t.symbol in keep],
        schema={"from": pl.Utf8, "to": pl.Utf8, "kind": pl.Utf8, "lines": pl.Int64,
                "valid_from": pl.Datetime("us")})
    supersedes = pl.DataFrame(
        [{"from": x.new, "to": x.old, "reason": x.reason, "evidence": x.evidence(),
          "at": when[x.sha], "by": author[x.sha], "confidence": x.similarity,
          "valid_from": when[x.sha]}
         for x in acc.lineage if x.new in keep and x.old in keep],
        schema={"from": pl.Utf8, "to": pl.Utf8, "reason": pl.Utf8, "evidence": pl.Utf8,
                "at": pl.Datetime("us"), "by": pl.Utf8, "confidence": pl.Float64,
                "valid_from": pl.Datetime("us")})
    births = pl.DataFrame([{"id": sid, "valid_from": t} for sid, t in acc.born.items()
                           if sid in keep],
                          schema={"id": pl.Utf8, "valid_from": pl.Datetime("us")})
    stored_changes = store.cypher(
        f"MATCH (c:{COMMIT.name})-[:{CHANGED.name}]->(f:{FILE.name}) WHERE c.repo = $repo "
        "AND c.files_changed <= $limit RETURN c.id AS commit, f.id AS file",
        {"repo": repo, "limit": options.cochange_max_files})
    # no file changed in these commits (e.g. a repository whose only commit is empty):
    # `changed` has no columns at all
    batch_changes = (changed.select(pl.col("from").alias("commit"), pl.col("to").alias("file"))
                     if changed.width else pl.DataFrame(schema={"commit": pl.Utf8,
                                                                "file": pl.Utf8}))
    return HistoryLoad(
        repo=repo, now=now, head=log.head,
        commits=_commit_frame(repo, log.commits),
        persons=_person_frame(log.commits),
        parents=_from_git(pl.DataFrame(
            [{"from": commit_id(c.sha), "to": commit_id(p), "ordinal": i,
              "valid_from": c.committed_at}
             for c in log.commits for i, p in enumerate(c.parents)
             if p in in_batch or p in known],
            schema={"from": pl.Utf8, "to": pl.Utf8, "ordinal": pl.Int64,
                    "valid_from": pl.Datetime("us")})),
        authored=_from_git(_authored_frame(log.commits)),
        files=files, file_validity=validity, changed=_from_git(changed), symbols=symbols,
        births=births, touched=_from_git(touched), supersedes=_from_git(supersedes),
        cochanged=_from_git(co_changes(pl.concat([stored_changes, batch_changes]),
                                       max_files=options.cochange_max_files,
                                       min_count=options.cochange_min_count)),
    )


def _from_git(frame: pl.DataFrame) -> pl.DataFrame:
    """Provenance columns of facts read from git (confidence kept where computed)."""
    if frame.is_empty():
        return frame
    cols = [pl.lit(Source.GIT.value).alias("source")]
    if "confidence" not in frame.columns:
        cols.append(pl.lit(1.0).alias("confidence"))
    return frame.with_columns(cols)


def _commit_frame(repo: str, commits: list[CommitRow]) -> pl.DataFrame:
    return pl.DataFrame([{
        "id": commit_id(c.sha), "sha": c.sha, "repo": repo,
        "summary": c.message.split("\n", 1)[0].strip(), "message": c.message,
        "authored_at": c.authored_at, "committed_at": c.committed_at, "is_merge": c.is_merge,
        "files_changed": c.files_changed, "additions": c.additions, "deletions": c.deletions,
        "source": Source.GIT.value, "confidence": 1.0, "valid_from": c.committed_at,
    } for c in commits], schema=frame_schema(COMMIT))


def _person_frame(commits: list[CommitRow]) -> pl.DataFrame:
    """One row per normalized email: the newest name, the others as aliases."""
    names: dict[str, list[tuple[datetime, str]]] = defaultdict(list)
    emails: dict[str, str] = {}
    first: dict[str, datetime] = {}
    for c in commits:
        for who in (c.author, c.committer):
            pid = person_id(who.email)
            names[pid].append((c.committed_at, who.name))
            emails[pid] = pid.removeprefix("person:")
            first[pid] = min(first.get(pid, c.committed_at), c.committed_at)
    rows = []
    for pid, seen in sorted(names.items()):
        newest = max(seen)[1]
        rows.append({"id": pid, "name": newest, "email": emails[pid],
                     "aliases": sorted({n for _, n in seen} - {newest}),
                     "source": Source.GIT.value, "confidence": 1.0, "valid_from": first[pid]})
    return pl.DataFrame(rows, schema={"id": pl.Utf8, "name": pl.Utf8, "email": pl.Utf8,
                                      "aliases": pl.List(pl.Utf8), "source": pl.Utf8,
                                      "confidence": pl.Float64,
                                      "valid_from": pl.Datetime("us")})


def _authored_frame(commits: list[CommitRow]) -> pl.DataFrame:
    rows = []
    for c in commits:
        author, committer = person_id(c.author.email), person_id(c.committer.email)
        rows.append({"from": author, "to": commit_id(c.sha), "role": "author",
                     "valid_from": c.authored_at})
        if committer != author:
            rows.append({"from": committer, "to": commit_id(c.sha), "role": "committer",
                         "valid_from": c.committed_at})
    return pl.DataFrame(rows, schema={"from": pl.Utf8, "to": pl.Utf8, "role": pl.Utf8,
                                      "valid_from": pl.Datetime("us")})


def _file_rows(store: Store, repo: str, log: GitLog, when: dict[str, datetime]
               ) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """New history-only File rows, validity updates of known history-only files, and the
    CHANGED rows."""
    stored = store.cypher(f"MATCH (f:{FILE.name}) WHERE f.repo = $repo "
                          "RETURN f.path AS path, f.source AS source", {"repo": repo})
    sources = dict(zip(stored["path"].to_list(), stored["source"].to_list(), strict=True))
    first: dict[str, datetime] = {}
    last: dict[str, datetime] = {}
    changed = []
    for ch in log.changes:
        t = when[ch.sha]
        first.setdefault(ch.path, t)
        last[ch.path] = t
        if ch.old_path:
            last[ch.old_path] = t
        changed.append({"from": commit_id(ch.sha), "to": file_id(repo, ch.path),
                        "kind": ch.kind, "additions": ch.additions, "deletions": ch.deletions,
                        "old_path": ch.old_path, "binary": ch.binary, "valid_from": t})
    new_rows, validity = [], []
    for path in sorted(first):
        valid_to = None if path in log.head_paths else last[path]
        if path not in sources:
            new_rows.append({
                "id": file_id(repo, path), "repo": repo, "path": path,
                "language": language_for(path) or "", "module": "", "package": "",
                "parse_status": ParseStatus.SKIPPED.value,
                "parse_error": "known from git history only (not in the ingested tree)",
                "is_test": False, "source": Source.GIT.value, "confidence": 1.0,
                "valid_from": first[path], "valid_to": valid_to})
        elif sources[path] == Source.GIT.value:
            validity.append({"id": file_id(repo, path), "valid_to": valid_to})
    return (pl.DataFrame(new_rows, schema=frame_schema(FILE)) if new_rows
            else pl.DataFrame(),
            pl.DataFrame(validity, schema={"id": pl.Utf8, "valid_to": pl.Datetime("us")}),
            pl.DataFrame(changed, schema_overrides={"valid_from": pl.Datetime("us")})
            if changed else pl.DataFrame())


def _symbol_rows(store: Store, repo: str, acc: Attribution) -> tuple[pl.DataFrame, set[str]]:
    """Rows for vanished symbols the graph lacks, and every symbol id facts may point at."""
    stored = set(store.cypher(f"MATCH (s:{SYMBOL.name}) WHERE s.repo = $repo "
                              "RETURN s.id AS id", {"repo": repo})["id"].to_list())
    rows = []
    for sid, version in sorted(acc.last.items()):
        if sid in stored or acc.alive.get(sid, True):
            continue
        r = version.row
        rows.append({
            "id": sid, "repo": repo, "file": file_id(repo, version.path),
            "qualname": r.qualname,
            "name": r.name if r.qualname != MODULE_QUALNAME else module_short_name(
                version.path),
            "kind": r.kind, "language": version.language, "signature": r.signature,
            "docstring": r.docstring, "start_line": r.start_line, "end_line": r.end_line,
            "visibility": r.visibility, "is_test": r.is_test, "source": Source.GIT.value,
            "confidence": 1.0, "valid_from": acc.born.get(sid, acc.died[sid]),
            "valid_to": acc.died[sid]})
    keep = stored | {r["id"] for r in rows}
    frame = pl.DataFrame(rows, schema=frame_schema(SYMBOL)) if rows else pl.DataFrame()
    return frame, keep
