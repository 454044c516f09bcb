"""What changed between the graph and the tree: the files to read (stat changed or new), and
after parsing, which files were added, modified, removed or are unchanged by content."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl

from graphdb import Store
from ingest.walk import Candidate, Skipped
from ingest.warm import cached
from ingest.worker import FileResult, ParseTask
from schema import FILE, ParseStatus, current_code_files, file_id

__all__ = ["Changes", "plan_reads", "stored_files", "touched_frame"]


def stored_files(store: Store, repo: str) -> pl.DataFrame:
    """The current code File rows of ``repo`` (what an ingest compares the tree with); kept
    warm across a server's updates (:mod:`ingest.warm`)."""
    return cached(store, repo, "files", lambda: store.cypher(
        f"MATCH (f:{FILE.name}) WHERE {current_code_files(repo='$repo')} "
        "RETURN f.id AS id, f.path AS path, f.sha AS sha, f.size AS size, "
        "f.mtime_ns AS mtime_ns, f.language AS language, f.package AS package, "
        "f.module AS module, f.parse_status AS parse_status, f.parse_error AS parse_error",
        {"repo": repo}))


def plan_reads(root: Path, candidates: list[Candidate], stored: pl.DataFrame, *,
               scan: bool = False) -> tuple[list[ParseTask], set[str]]:
    """Files to read (stat changed or new) and files known unchanged from their stat alone;
    ``scan``: their readers also scan them for references to papers."""
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
        tasks.append(ParseTask(str(root / c.path), c.path, c.language, old_sha or "", scan,
                               c.size))
    return tasks, unchanged



@dataclass
class Changes:
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
              unchanged: set[str]) -> Changes:
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


def touched_frame(plan: Changes) -> pl.DataFrame:
    """(id, mtime_ns) of files unchanged by content whose mtime moved."""
    return pl.DataFrame({"id": [t[0] for t in plan.touched],
                         "mtime_ns": [t[1] for t in plan.touched]},
                        schema={"id": pl.Utf8, "mtime_ns": pl.Int64})

