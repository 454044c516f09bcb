"""Reads of an update kept warm across a server's updates (``vgdb serve --writable``).

An update of one file reads, before it resolves anything, every current File row of the
repository and every current Symbol and declaration row (to build the extracts of the files
it does not re-parse): ~30 ms of the ~0.2 s a served one-function edit of the standard
library takes, the same rows each time. In a server, the derivation that follows each update
(``api.serve_derive``) reads them again once it is done (:func:`prefill`), after the
answer; the next update takes them from here when the graph version is still the one they
were read at (:meth:`graphdb.Store.graph_version`: any committed write advances it), and
reads them itself otherwise. A process that never calls :func:`enable` (the CLI) keeps
nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import polars as pl

from graphdb import Store

__all__ = ["cached", "disable", "enable", "prefill"]

_LOCK = threading.Lock()
#: (database, repository, what) -> (graph version read at, frame)
_FRAMES: dict[tuple[Path, str, str], tuple[int, pl.DataFrame]] = {}
_ENABLED = False


def enable() -> None:
    """Keep the reads of :func:`cached` in this process (a writable server)."""
    global _ENABLED
    _ENABLED = True


def disable() -> None:
    """Keep nothing any more (the server stops)."""
    global _ENABLED
    _ENABLED = False
    with _LOCK:
        _FRAMES.clear()


def cached(store: Store, repo: str, what: str, read: Callable[[], pl.DataFrame]
           ) -> pl.DataFrame:
    """``read()``, or the frame it gave at the current graph version (when enabled)."""
    if not _ENABLED:
        return read()
    key = (store.path, repo, what)
    version = store.graph_version()
    with _LOCK:
        hit = _FRAMES.get(key)
    if hit is not None and hit[0] == version:
        return hit[1]
    frame = read()
    with _LOCK:
        # one version per repository: older frames of it are dropped
        for old in [k for k in _FRAMES if k[:2] == key[:2] and _FRAMES[k][0] != version]:
            del _FRAMES[old]
        _FRAMES[key] = (version, frame)
    return frame


def prefill(store: Store, repo: str) -> None:
    """Read what the next update of ``repo`` will need, at the current graph version."""
    if not _ENABLED:
        return
    from ingest.changes import stored_files
    from ingest.scope import current_symbols, stored_refs

    stored_files(store, repo)
    current_symbols(store, repo)
    stored_refs(store, repo, calls=False)
