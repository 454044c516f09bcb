"""``vgdb watch`` and ``vgdb serve --watch``: the graph follows the files as they are saved.

File events come from ``watchfiles`` (Rust ``notify`` underneath: inotify here), grouped: a
batch is handed over once no new event came for ``step_ms`` (or after ``debounce_ms`` of
steady events), so an editor's save (write, rename, chmod) is one update. Each batch runs one
incremental ingest of every watched tree it touched: only the changed files are parsed, and
the files whose references could resolve differently re-resolved (``ingest.pipeline``); the
keyword index and the vectors follow, as after any ingest.

Not in a watch update, to keep it near the edit: the git history (commits come through the
hooks, ``vgdb hooks install``, or the next ``vgdb ingest``) and community detection (a
structural change marks the communities due: ``vgdb status`` says so, the next ``vgdb
ingest`` detects them).

Who applies an update is the caller's choice (:class:`Watcher` takes an ``apply`` callable):
the process that owns the database, in-process (``vgdb watch`` opening it, or ``vgdb serve
--watch`` under its write lock), or a request to the server that owns it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import watchfiles

from graphdb import Store
from ingest.extract import language_for
from ingest.history.pipeline import HistoryOptions
from ingest.pipeline import IngestOptions, check_root, ingest_repository
from schema import REPOSITORY, VgdbError

__all__ = ["WatchUpdate", "Watcher", "ingested_name", "update_tree"]


@dataclass(frozen=True)
class WatchUpdate:
    """One applied batch: which tree, which files the events named, how long from the
    first event's arrival to the committed update, and what the ingest did (or its error)."""

    root: str
    paths: tuple[str, ...]
    seconds: float
    summary: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


def update_tree(store: Store, root: Path, *,
                options: IngestOptions | None = None) -> dict[str, Any]:
    """One watch update of the tree at ``root``: an incremental ingest of its code with
    ``options`` (name, excludes, embedding: as the tree was ingested), without the history
    or a community detection, parsed in this process (a save is a few files)."""
    options = replace(options or IngestOptions(), history=HistoryOptions(enabled=False),
                      workers=1)
    if options.name is None:  # the name it was ingested under, not the directory's
        options = replace(options, name=ingested_name(store, root))
    return ingest_repository(store, root, options=options).to_dict()


def ingested_name(store: Store, root: Path) -> str | None:
    """The name of the repository last ingested from ``root``, if any."""
    rows = store.cypher(f"MATCH (r:{REPOSITORY.name}) WHERE r.root = $root RETURN r.name "
                        "ORDER BY r.name", {"root": str(check_root(root))})
    return rows["r.name"][0] if rows.height == 1 else None


class Watcher:
    """Watch ``roots`` and call ``apply(root)`` for each tree a batch of events touched.

    ``ignore``: directories whose events never count (the database directory when it lies
    inside a watched tree: its own writes must not trigger updates).
    """

    def __init__(self, roots: Iterable[str | Path], apply: Callable[[Path], dict[str, Any]], *,
                 ignore: Iterable[str | Path] = (), step_ms: int = 30,
                 debounce_ms: int = 400) -> None:
        self.roots = [check_root(r) for r in roots]
        self.apply = apply
        self.ignore = tuple(str(Path(p).expanduser().absolute()) for p in ignore)
        self.step_ms = step_ms
        self.debounce_ms = debounce_ms
        self._default = watchfiles.DefaultFilter()

    def wanted(self, change: watchfiles.Change, path: str) -> bool:
        """Events of source files (a language vgdb parses) outside ignored directories."""
        if any(path == d or path.startswith(d + "/") for d in self.ignore):
            return False
        return language_for(path) is not None and self._default(change, path)

    def run(self, on_update: Callable[[WatchUpdate], None], *,
            stop: threading.Event | None = None, ready: threading.Event | None = None) -> None:
        """Apply batches until ``stop`` is set (or Ctrl-C). ``ready`` is set once the
        watches are in place: an edit after it is seen."""
        stop = stop or threading.Event()
        batches = watchfiles.watch(*(str(r) for r in self.roots), watch_filter=self.wanted,
                                   debounce=self.debounce_ms, step=self.step_ms,
                                   stop_event=stop, rust_timeout=200, yield_on_timeout=True,
                                   raise_interrupt=False)
        for changes in batches:  # an empty batch every 200 ms without events
            if ready is not None:
                ready.set()  # the watches were in place before the first batch
            if not changes:
                continue
            arrived = time.perf_counter()
            for root, paths in self._by_root(changes).items():
                try:
                    summary, error = self.apply(root), None
                except VgdbError as exc:  # reported, and the watch goes on
                    summary, error = {}, exc.message
                on_update(WatchUpdate(str(root), tuple(sorted(paths)),
                                      time.perf_counter() - arrived, summary, error))

    def _by_root(self, changes: set[tuple[watchfiles.Change, str]]) -> dict[Path, set[str]]:
        out: dict[Path, set[str]] = {}
        for _, path in changes:
            for root in self.roots:
                if path.startswith(str(root) + "/"):
                    out.setdefault(root, set()).add(path[len(str(root)) + 1:])
                    break
        return out
