"""Named failpoints, so crash-safety tests can kill an ingest at an exact phase.

Set ``VGDB_FAILPOINT=<name>`` (e.g. ``mid-copy``) and the process SIGKILLs itself when it
reaches that point: nothing is flushed, no handler runs, just like ``kill -9``. With the
variable unset a failpoint costs one dict lookup.
"""

from __future__ import annotations

import os
import signal

__all__ = ["FAILPOINTS", "INDEX_FAILPOINTS", "failpoint"]

#: The phases a test may name, in the order an ingest reaches them.
FAILPOINTS = ("mid-parse", "before-load", "mid-copy", "before-commit", "after-commit")
#: The phases of making a write findable (graphdb.findable, graphdb.keyword), in order: after
#: the graph commit, before the tantivy commit, after it (before the state file says synced).
INDEX_FAILPOINTS = ("findable-before-index", "keyword-before-commit", "keyword-after-commit")


def failpoint(name: str) -> None:
    if os.environ.get("VGDB_FAILPOINT") == name:
        os.kill(os.getpid(), signal.SIGKILL)
