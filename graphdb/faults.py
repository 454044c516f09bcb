"""Named failpoints, so crash-safety tests can kill a write at an exact point.

Set ``VGDB_FAILPOINT=<name>`` (e.g. ``mid-copy``) and the process SIGKILLs itself when it
reaches that point: nothing is flushed, no handler runs, just like ``kill -9``.
``<name>#<n>`` kills at the n-th time the process reaches it (the fault campaign walks every
commit of a write path this way). With the variable unset a failpoint costs one dict lookup.
"""

from __future__ import annotations

import os
import signal

__all__ = ["FAILPOINTS", "INDEX_FAILPOINTS", "SERVED_FAILPOINTS", "STORE_FAILPOINTS",
           "VECTOR_FAILPOINTS",
           "failpoint"]

#: The phases a test may name, in the order an ingest reaches them.
FAILPOINTS = ("mid-parse", "before-load", "mid-copy", "before-commit", "after-commit")
#: Points of every write transaction and checkpoint (graphdb.store), whatever writes.
STORE_FAILPOINTS = ("store:commit", "store:committed", "store:checkpoint", "store:checkpointed")
#: The phases of making a write findable (graphdb.findable, graphdb.keyword), in order: after
#: the graph commit, before the tantivy commit, after it (before the state file says synced).
INDEX_FAILPOINTS = ("findable-before-index", "keyword-before-commit", "keyword-after-commit")
#: Between a vector update's new files and its manifest (the commit point), and after it.
VECTOR_FAILPOINTS = ("vectors:files-written", "vectors:manifest-written")
#: Before a served update's derived data (``api.serve_derive``), after its answer.
SERVED_FAILPOINTS = ("served:derive",)
_SEEN: dict[str, int] = {}


def failpoint(name: str) -> None:
    spec = os.environ.get("VGDB_FAILPOINT")
    if not spec:
        return
    target, _, nth = spec.partition("#")
    if target != name:
        return
    _SEEN[name] = _SEEN.get(name, 0) + 1
    if _SEEN[name] == int(nth or 1):
        os.kill(os.getpid(), signal.SIGKILL)
