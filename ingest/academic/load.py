"""``vgdb ingest-papers FILE...``: parse bibliographic files, merge them with what the graph
holds, and load the result in one transaction."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graphdb import Store, Transaction
from graphdb.academic import read_paper_index, read_papers, write_papers
from graphdb.findable import findable
from ingest.academic.merge import MergeResult, merge_records
from ingest.academic.records import Issue, PaperRecord
from ingest.academic.sources import parse_bibliography
from ingest.names import shown_name
from schema import PAPER

__all__ = ["FileReport", "PaperIngestSummary", "apply_records", "ingest_papers"]

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True, slots=True)
class FileReport:
    path: str
    records: int
    errors: int
    warnings: int
    #: why the file could not be read at all ('' when it was)
    unreadable: str = ""


@dataclass
class PaperIngestSummary:
    """What ``vgdb ingest-papers`` did; ``to_dict()`` is its ``--json`` output."""

    files: list[FileReport] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    written: dict[str, int] = field(default_factory=dict)
    issues: list[Issue] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def records(self) -> int:
        return sum(f.records for f in self.files)

    @property
    def unreadable(self) -> list[FileReport]:
        return [f for f in self.files if f.unreadable]

    def to_dict(self) -> dict[str, Any]:
        total = sum(self.seconds.values())
        return {
            "files": [{"path": f.path, "records": f.records, "errors": f.errors,
                       "warnings": f.warnings,
                       **({"unreadable": f.unreadable} if f.unreadable else {})}
                      for f in self.files],
            "records": self.records,
            "counts": dict(sorted(self.counts.items())),
            "written": dict(sorted(self.written.items())),
            "errors": [i.to_dict() for i in self.issues if i.severity == "error"],
            "warnings": [i.to_dict() for i in self.issues if i.severity == "warning"],
            "seconds": {k: round(v, 3) for k, v in self.seconds.items()},
            "records_per_second": round(self.records / total) if total else None,
        }


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def apply_records(tx: Transaction, records: Sequence[PaperRecord], *,
                  now: datetime | None = None) -> tuple[MergeResult, dict[str, int]]:
    """Merge ``records`` with the graph's papers and write them, inside ``tx``."""
    result = merge_records(records, read_paper_index(tx),
                           lambda ids: read_papers(tx, ids), now=now or _now())
    return result, write_papers(tx, result.load)


def ingest_papers(store: Store, paths: Sequence[str | os.PathLike[str]], *,
                  progress: Progress | None = None) -> PaperIngestSummary:
    """Load bibliographic files (BibTeX, CITATION.cff, codemeta.json, OpenAlex or Semantic
    Scholar JSON/JSONL) in one transaction. Never raises for a bad record or an unreadable
    file: both are in the summary."""
    summary = PaperIngestSummary()
    started = time.perf_counter()
    records: list[PaperRecord] = []
    for n, path in enumerate(paths, start=1):
        name = shown_name(str(path))  # printable, storable
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            summary.files.append(FileReport(name, 0, 0, 0, unreadable=exc.strerror or str(exc)))
            continue
        parsed = parse_bibliography(data, path=name)
        records.extend(parsed.records)
        summary.issues.extend(parsed.issues)
        summary.files.append(FileReport(
            name, len(parsed.records), sum(i.severity == "error" for i in parsed.issues),
            sum(i.severity == "warning" for i in parsed.issues)))
        if progress:
            progress("read", n, len(paths))
    summary.seconds["parse"] = time.perf_counter() - started
    started = time.perf_counter()
    if progress:
        progress("load", 0, 1)
    if records:
        with findable(store, [PAPER.name]) as found:
            with store.write() as tx:
                result, summary.written = apply_records(tx, records)
            found.add(PAPER.name, result.load.written_ids())
        summary.counts = result.counts
        summary.issues.extend(result.issues)
        store.touch_manifest()
    summary.seconds["load"] = time.perf_counter() - started
    if progress:
        progress("load", 1, 1)
    return summary
