"""``vgdb watch [PATH...]``: keep the graph current as files are saved (:mod:`ingest.watch`).

The process that owns the database applies each update: this one, when it can open the
database; else the ``vgdb serve`` holding it, through its ``ingest`` mutation (admin token);
``vgdb serve --watch PATH`` watches in the server's own process instead.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from rich.markup import escape

from api.operate import remote
from api.options import db_option, json_option
from api.output import err_console
from graphdb import Store
from ingest.pipeline import IngestOptions
from ingest.watch import Watcher, WatchUpdate, update_tree
from schema import StoreLockedError

__all__ = ["watch"]


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, file_okay=False,
                                                   path_type=Path))
@db_option
@click.option("--name", help="Repository name (one PATH only; default: the directory name).")
@click.option("--exclude", multiple=True, metavar="GLOB",
              help=".gitignore-style pattern to skip, as given to `vgdb ingest` (repeatable).")
@click.option("--no-embed", is_flag=True, help="Do not embed changed texts.")
@click.option("--step-ms", default=30, show_default=True, type=click.IntRange(1, 10_000),
              help="Apply a batch once no new event came for this long.")
@json_option
def watch(paths: tuple[Path, ...], db: str, name: str | None, exclude: tuple[str, ...],
          no_embed: bool, step_ms: int, as_json: bool) -> None:
    """Watch the trees at PATH... (default: here) and update the graph as files are saved:
    incremental, debounced, code only (commits come through `vgdb hooks`). Ctrl-C stops."""
    roots = list(paths) or [Path(".")]
    if name and len(roots) > 1:
        raise click.UsageError("--name needs exactly one PATH")
    try:
        store: Store | None = Store.open(db)
    except StoreLockedError as exc:
        store, locked = None, exc

    def apply(root: Path) -> dict[str, Any]:
        if store is not None:
            return update_tree(store, root, options=IngestOptions(
                name=name, excludes=exclude, embed=not no_embed))
        data = remote(locked, db, "mutation($p: String!, $n: String) "
                                  "{ ingest(path: $p, name: $n, history: false) { id } }",
                      {"p": str(root.resolve()), "n": name}, url=None, token=None)
        return {"job": data["ingest"]["id"]}

    def show(update: WatchUpdate) -> None:
        if as_json:
            sys.stdout.write(json.dumps({"root": update.root, "paths": list(update.paths),
                                         "seconds": round(update.seconds, 4),
                                         "error": update.error,
                                         "summary": update.summary}, default=str) + "\n")
            sys.stdout.flush()
        elif update.error:
            err_console.print(f"[red]{escape(update.root)}: {escape(update.error)}[/red]")
        else:
            files = update.summary.get("files", {})
            err_console.print(f"{escape(update.root)}: {', '.join(update.paths)[:120]} -> "
                              f"{files.get('modified', 0)} modified, {files.get('added', 0)} "
                              f"added, {files.get('removed', 0)} removed "
                              f"({update.seconds * 1000:.0f} ms)")

    watcher = Watcher(roots, apply, ignore=[db], step_ms=step_ms)
    err_console.print(f"watching {', '.join(str(r) for r in watcher.roots)} (Ctrl-C stops)")
    stop = threading.Event()
    try:
        with _ctrl_c_stops(stop):
            watcher.run(show, stop=stop)
    finally:
        if store is not None:
            store.close()


@contextmanager
def _ctrl_c_stops(stop: threading.Event) -> Iterator[None]:
    """Ctrl-C sets ``stop``: the watch ends once the update in progress is applied and
    printed. (watchfiles swallows Ctrl-C only while it waits for events; anywhere else the
    KeyboardInterrupt aborted the command with exit 130, even between two batches.) A second
    Ctrl-C interrupts as usual."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers belong to the main thread; Ctrl-C stays as it is
        return
    previous = signal.getsignal(signal.SIGINT)

    def first(signum: int, frame: object) -> None:
        stop.set()
        signal.signal(signal.SIGINT, previous)

    signal.signal(signal.SIGINT, first)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
