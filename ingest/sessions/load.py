"""Batch load of session logs: files -> events -> one plan -> one transaction of bulk COPYs.

Every file of one call is parsed, their events are put in time order (a stable sort: ties
keep file and line order), the rules run once over all of them (:mod:`ingest.sessions.plan`)
and the result is written in one transaction, new rows as polars frames through ``COPY``.
Bad lines are reported with their line numbers and skipped; every good line is kept.
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graphdb import Store
from graphdb.findable import findable
from graphdb.sessions import read_context, write_sessions
from ingest.names import shown_name
from ingest.sessions.format import Event, Issue, parse_lines
from ingest.sessions.plan import Plan, Recorded, collect_needs, plan_events
from schema import Source

__all__ = ["FileReport", "SessionLoadSummary", "apply_events", "load_sessions"]

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True, slots=True)
class FileReport:
    path: str
    lines: int
    events: int
    errors: int
    warnings: int
    #: why the file could not be read at all ('' when it was)
    unreadable: str = ""


@dataclass
class SessionLoadSummary:
    """What ``vgdb ingest-session`` did: per file, per rule, and every bad line."""

    files: list[FileReport] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    written: dict[str, int] = field(default_factory=dict)
    issues: list[Issue] = field(default_factory=list)
    recorded: list[Recorded] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def events(self) -> int:
        return sum(f.events for f in self.files)

    @property
    def unreadable(self) -> list[FileReport]:
        return [f for f in self.files if f.unreadable]

    def to_dict(self) -> dict[str, Any]:
        total = sum(self.seconds.values())
        return {
            "files": [{"path": f.path, "lines": f.lines, "events": f.events,
                       "errors": f.errors, "warnings": f.warnings,
                       **({"unreadable": f.unreadable} if f.unreadable else {})}
                      for f in self.files],
            "events": self.events,
            "counts": dict(sorted(self.counts.items())),
            "written": dict(sorted(self.written.items())),
            "errors": [i.to_dict() for i in self.issues if i.severity == "error"],
            "warnings": [i.to_dict() for i in self.issues if i.severity == "warning"],
            "entries": [r.to_dict() for r in self.recorded],
            "seconds": {k: round(v, 3) for k, v in self.seconds.items()},
            "events_per_second": round(self.events / total) if total else None,
        }


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def apply_events(store: Store, events: list[Event], *, now: datetime | None = None,
                 source: str = Source.SESSION,
                 check: Callable[[Plan], None] | None = None) -> tuple[Plan, dict[str, int]]:
    """Run the rules over ``events`` (in time order) and write the result, in one
    transaction; returns the plan and the rows written per table.

    ``check`` sees the plan before anything is written: if it raises, nothing is (the
    all-or-nothing batches of the write API)."""
    needs = collect_needs(events)
    with findable(store) as found:  # searchable by keyword and vector before we return
        with store.write() as tx:
            ctx = read_context(tx, needs)
            plan = plan_events(events, ctx, now=now or _now(), source=source)
            if check is not None:
                check(plan)
            written = write_sessions(tx, plan.write)
        for table, ids in plan.write.written_ids().items():
            found.add(table, ids)
    return plan, written


def _order_warnings(events: Sequence[Event]) -> list[Issue]:
    """A line whose time is earlier than an earlier line's: applied in time order."""
    out, latest = [], None
    for ev in events:
        if latest is not None and ev.ts < latest.ts:
            out.append(Issue(ev.file, ev.line, "warning",
                             f"{ev.type} at {ev.ts.isoformat()} is earlier than line "
                             f"{latest.line} ({latest.ts.isoformat()}); events are applied in "
                             "time order", code="order"))
        else:
            latest = ev
    return out


def load_sessions(store: Store, paths: Sequence[str | os.PathLike[str]], *,
                  progress: Progress | None = None) -> SessionLoadSummary:
    """Load session logs (JSON lines, docs/sessions.md) into the graph, in one transaction.

    Never raises for a bad line or an unreadable file: both are in the summary.
    """
    # A load builds hundreds of thousands of small, acyclic objects; the cyclic collector
    # would rescan the growing heap again and again (measured: a quarter of the time of a
    # 100,000-event load). It is paused for the call and resumed after.
    paused = gc.isenabled()
    gc.disable()
    try:
        return _load_sessions(store, paths, progress)
    finally:
        if paused:
            gc.enable()


def _load_sessions(store: Store, paths: Sequence[str | os.PathLike[str]],
                   progress: Progress | None) -> SessionLoadSummary:
    summary = SessionLoadSummary()
    started = time.perf_counter()
    events: list[Event] = []
    for n, path in enumerate(paths, start=1):
        name = shown_name(str(path))  # printable, storable
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            summary.files.append(FileReport(name, 0, 0, 0, 0,
                                            unreadable=exc.strerror or str(exc)))
            continue
        parsed = parse_lines(data.splitlines(), file=name)
        parsed.issues.extend(_order_warnings(parsed.events))
        events.extend(parsed.events)
        summary.issues.extend(parsed.issues)
        summary.files.append(FileReport(
            name, parsed.lines, len(parsed.events),
            sum(i.severity == "error" for i in parsed.issues),
            sum(i.severity == "warning" for i in parsed.issues)))
        if progress:
            progress("read", n, len(paths))
    events.sort(key=lambda e: e.ts)
    summary.seconds["parse"] = time.perf_counter() - started
    started = time.perf_counter()
    if events:
        plan, summary.written = apply_events(store, events)
        summary.counts = plan.counts
        summary.recorded = plan.recorded
        summary.issues.extend(plan.issues)
        _recount(summary, plan.issues)
        store.touch_manifest()
    summary.counts["events"] = len(events)
    summary.counts["bad_lines"] = sum(f.errors for f in summary.files)
    summary.issues.sort(key=lambda i: (i.file, i.line))
    summary.seconds["load"] = time.perf_counter() - started
    if progress:
        progress("load", 1, 1)
    return summary


def _recount(summary: SessionLoadSummary, issues: list[Issue]) -> None:
    """Add the planner's per-line issues to the per-file figures."""
    by_file: dict[str, list[Issue]] = {}
    for issue in issues:
        by_file.setdefault(issue.file, []).append(issue)
    summary.files = [
        FileReport(f.path, f.lines, f.events,
                   f.errors + sum(i.severity == "error" for i in by_file.get(f.path, ())),
                   f.warnings + sum(i.severity == "warning" for i in by_file.get(f.path, ())),
                   f.unreadable)
        for f in summary.files]
