"""Looking up many nodes by id, through the engine's primary-key index.

LadybugDB 0.22 (like Kuzu 0.11.3 before it) answers ``WHERE n.id IN $ids`` by scanning the
table and comparing each row with the list: measured (``benchmarks/id_lookup.py``) 11 ms for
10 ids and 296 ms for 1,000 on a 32K-symbol graph, 0.5 s for 10 and 2.7 s for 100 on a
2.8M-symbol one. ``UNWIND $ids AS i MATCH (n:T {id: i})`` probes the index per id (0.6 ms
for 10, 11 ms for 1,000; 0.6 ms for 100 at 2.8M symbols), but only while the statement
matches that node alone: with a relationship in the pattern the planner scans the
relationships (4-6 s at 2.8M symbols, whatever the list). A statement of ``UNION ALL``
branches that each match ``(n:T {id: $iK})-[...]`` probes the index per branch (3.2 ms for
100 ids in chunks of :data:`PROBE_MAX`, at 2.8M symbols). So node-only lookups are one
``UNWIND`` statement, and lookups with relationships a few ``UNION ALL`` statements.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import polars as pl

from graphdb import Store

__all__ = ["PROBE_MAX", "by_ids", "lookup_template"]

#: ``UNION ALL`` branches per statement of a lookup through relationships (each branch one
#: index probe; longer statements cost more to plan than they save in round trips).
PROBE_MAX = 24

_IN = re.compile(r"\{IN:(\w+)\}")
_RELATIONSHIP = re.compile(r"\]-|-\[|<-|->")


def by_ids(store: Store, ids: Sequence[str], template: str,
           params: dict[str, Any] | None = None, *,
           timeout: float | None = None) -> pl.DataFrame:
    """Run ``template`` (made by :func:`lookup_template`) for every distinct id. The
    template binds the looked-up node with ``{B}`` (its property map) and filters it with
    ``{IN:alias}`` (a condition on that node's id). ``timeout``: see ``Store.cypher``
    (per statement)."""
    ids = list(dict.fromkeys(ids))  # as ``IN`` would: each id once
    params = dict(params or {})
    if not _RELATIONSHIP.search(template):
        text = "UNWIND $lookup_ids AS lookup_id " + _IN.sub(
            "true", template.replace("{B}", " {id: lookup_id}"))
        return store.cypher(text, {**params, "lookup_ids": ids}, timeout=timeout)
    frames = []
    for start in range(0, max(len(ids), 1), PROBE_MAX):
        chunk = ids[start:start + PROBE_MAX] or [None]
        branches = []
        for k, value in enumerate(chunk):
            branches.append(_IN.sub("true", template.replace("{B}", f" {{id: $i{k}}}")))
            params[f"i{k}"] = value
        frames.append(store.cypher(" UNION ALL ".join(branches), params, timeout=timeout))
        for k in range(len(chunk)):
            del params[f"i{k}"]
    return frames[0] if len(frames) == 1 else pl.concat(frames, how="vertical_relaxed")


def lookup_template(text: str, alias: str) -> str:
    """``text`` for a lookup by the id of its node ``alias``: ``{ALIAS}`` names it, and
    ``{IN}`` becomes the id condition :func:`by_ids` fills in."""
    return text.replace("{ALIAS}", alias).replace("{IN}", "{IN:" + alias + "}")
