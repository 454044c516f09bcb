"""A cold ``vgdb ingest`` creates its new database in a thread, beside the walk.

Before its first parse result a cold ingest of a small repository mostly waits: for the fork
server to import the workers' modules (~0.1-0.25 s), then for the workers. The database's
creation is mostly the engine's own work (the schema, its commit and fsyncs: the engine
releases the GIL), so a thread does it meanwhile; the store is handed over as soon as it is
open. The same thread then imports what the later steps need anyway (numpy and the
embedding model, igraph for the communities) while this process waits for its parse
workers. Only third-party packages and leaf modules of ours are imported there, none of
which resolution's forked children (:mod:`ingest.resolve.forked`) import, so a fork while
one of them is half-imported cannot leave a child waiting on its import lock (the embedding
model's loading thread, :func:`graphdb.embed.preload_default_embedder`, runs the same way).
"""

from __future__ import annotations

import threading
from contextlib import suppress
from importlib import import_module

from graphdb import Store

__all__ = ["ColdStart"]


class ColdStart:
    """``Store.open(db)`` (a new database: created) and the later steps' imports, in a
    thread started now; :meth:`store` waits for it and hands the store over (or raises
    what the open raised), :meth:`close` closes a store never handed over."""

    def __init__(self, db: str, *, embed: bool, communities: bool) -> None:
        self._store: Store | None = None
        self._error: BaseException | None = None
        self._taken = False
        self._opened = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(db, embed, communities),
                                        name="vgdb-cold-start")
        self._thread.start()

    def _run(self, db: str, embed: bool, communities: bool) -> None:
        try:
            self._store = Store.open(db)
        except BaseException as exc:  # re-raised in the caller's thread by store()
            self._error = exc
            return
        finally:
            self._opened.set()
        # a failing import fails again where it is needed: not here
        if embed:
            with suppress(Exception):
                from graphdb.embed import preload_default_embedder

                preload_default_embedder()  # the model loads in its own thread
        if communities:
            with suppress(Exception):
                import_module("queries.igraph_headless")  # igraph and leidenalg

    def store(self) -> Store:
        """The opened store, once it is open (its error, if the open failed)."""
        self._opened.wait()
        if self._error is not None:
            raise self._error
        assert self._store is not None
        self._taken = True
        return self._store

    def close(self) -> None:
        """Wait for the thread; close the store if it was never handed over."""
        self._thread.join()
        if self._store is not None and not self._taken:
            self._store.close()
