"""Graph versions: a counter every committed write advances, per repository and for the code
graph alone, so readers (agents polling, the impact cache) tell "nothing changed" from one
primary-key lookup. A part of :class:`graphdb.store.Store`, kept apart to keep each module
short."""

from __future__ import annotations

from typing import Any

from graphdb.transaction import Transaction
from schema import META

__all__ = ["GraphVersions"]

_VERSION_KEY = "graph_version"
#: the global version at the last write that may have changed the code graph, and at the
#: last memory-only write: together they give the code version (:meth:`code_version`)
_CODE_VERSION_KEY = "graph_version#code"
_MEMORY_VERSION_KEY = "graph_version#memory"


class GraphVersions:
    """The version counters of :class:`graphdb.store.Store` (its ``meta`` lookup and the
    ``_versions`` cache it empties after each commit)."""

    _versions: dict[Any, int]
    # and the store's own ``meta`` lookup

    def graph_version(self, repo: str | None = None) -> int:
        """The graph version: advanced by every committed write transaction, so equal
        versions mean nothing was written in between (agents poll with it). With ``repo``:
        the global version at the last write that touched that repository (0: never).
        Cached until the next write of this process, the only one that can write."""
        versions = self._versions
        if repo not in versions:
            found = self.meta(_VERSION_KEY if repo is None else f"{_VERSION_KEY}:{repo}")
            versions[repo] = int(found) if found else 0
        return versions[repo]

    def code_version(self) -> int:
        """The global graph version at the last write that may have changed the code graph
        (symbols, files and the edges impact follows): equal code versions mean the same
        impact answers, whatever agent memory was written in between. When the last write
        was not memory-only, it is the global version itself. Cached like
        :meth:`graph_version`."""
        versions = self._versions
        if _CODE_VERSION_KEY not in versions:
            versions[_CODE_VERSION_KEY] = self._code_version_of(
                self.graph_version(), self.meta(_MEMORY_VERSION_KEY),
                self.meta(_CODE_VERSION_KEY))
        return versions[_CODE_VERSION_KEY]

    @staticmethod
    def _code_version_of(version: int, memory: str | None, code: str | None) -> int:
        """The code version from the global version and the two keys memory-only writes
        keep: unless the last write was memory-only, the code changed at the last write."""
        if memory is not None and code is not None and int(memory) == version:
            return int(code)
        return version

    def _advance_version(self, tx: Transaction) -> None:
        rows = tx.execute(f"MATCH (m:{META.name}) WHERE m.id = $k RETURN m.value AS v",
                          {"k": _VERSION_KEY})
        version = str(int(rows["v"][0]) + 1 if rows.height and rows["v"][0] else 1)
        previous = int(version) - 1
        for key in (_VERSION_KEY, *(f"{_VERSION_KEY}:{r}" for r in sorted(tx.repos))):
            self.set_meta(tx, key, version)
        if not tx.code:  # the code version as of the write before this one is kept
            keys = tx.execute(f"MATCH (m:{META.name}) WHERE m.id IN $k RETURN m.id AS k, "
                              "m.value AS v", {"k": [_MEMORY_VERSION_KEY, _CODE_VERSION_KEY]})
            found = dict(zip(keys["k"].to_list(), keys["v"].to_list(), strict=True))
            code = self._code_version_of(previous, found.get(_MEMORY_VERSION_KEY),
                                         found.get(_CODE_VERSION_KEY))
            self.set_meta(tx, _CODE_VERSION_KEY, str(code))
            self.set_meta(tx, _MEMORY_VERSION_KEY, version)

    def set_meta(self, tx: Transaction, key: str, value: str) -> None:
        tx.execute(f"MERGE (m:{META.name} {{id: $k}}) SET m.value = $v", {"k": key, "v": value})
