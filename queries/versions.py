"""Conditional reads: whether anything an answer reads changed after a graph version.

Every committed write advances the global graph version (:meth:`graphdb.Store.graph_version`);
writes that change what is known of a repository (ingest, history, coverage, communities,
paper links, session entries about its code) also set that repository's version to the new
global one. A client passes back the global version it was answered at (``ifChangedSince``);
an answer about one repository is unchanged while that repository's version is not newer,
any other answer while the global version is not.
"""

from __future__ import annotations

from graphdb import Store

__all__ = ["unchanged_since"]


def unchanged_since(store: Store, since: int | None, *, repo: str | None = None) -> bool:
    """True when nothing the answer reads (``repo``'s facts, or the whole graph) was written
    after version ``since``. A version newer than the graph's (a rebuilt database) or
    below 0 never counts as unchanged."""
    if since is None:
        return False
    current = store.graph_version()
    if not 0 <= since <= current:
        return False
    return (store.graph_version(repo) if repo else current) <= since
