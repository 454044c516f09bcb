"""``vgdb remove REPO``: take one repository out of the graph, with what derives from it.

What goes, in one write transaction:

- the ``Repository`` node, its ``File``, ``Symbol`` and ``CodeRef`` rows, its ``Commit``
  nodes, its ``Community`` partitions, and every edge touching them (``DETACH DELETE``:
  CALLS/IMPORTS/INHERITS into it from other repositories, EXECUTES from its recorded
  coverage, TOUCHED/CHANGED/PARENT/AUTHORED of its history, ABOUT/REFERENCES to it);
- ``External`` nodes and ``Person`` nodes nothing points at any more (what an ingest without
  the repository would never have made);
- its ``Meta`` rows (community fingerprints and marks, coverage summaries, papers-linked
  marks, its graph version).

What stays: the memory of agents and people. ``Entry`` and ``Session`` nodes about the
repository are history (append-only, DESIGN §2): they are kept with their ``repo`` property,
and only lose their ``ABOUT`` edges to the code and commits that went (unlinked, not
erased: a re-ingest of the repository does not relink them). ``Paper`` nodes stay too: the
paper catalogue is shared by every repository and by decisions; only the repository's
``REFERENCES`` edges to papers go.

Then, after the commit: files of other repositories that imported the removed repository's
modules are re-resolved from their stored references (``ingest.crossrepo``, nothing is
parsed), so their imports and calls point at ``External`` nodes as if the repository had never
been ingested; and the keyword index and vectors drop the removed texts. The consumers to
re-resolve are recorded in the same transaction as the deletion (``Meta``
``relink-pending:<repo>``), so a process killed before they are done leaves the mark, and the
next ``vgdb remove`` (of any repository, or :func:`finish_pending`) finishes the job.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from graphdb import Store
from graphdb.findable import make_searchable
from graphdb.keyword import mark_stale
from graphdb.vectors import vector_status
from ingest.crossrepo import consumer_paths, reresolve
from schema import (
    CODE_REF,
    COMMIT,
    COMMUNITY,
    ENTRY,
    EXTERNAL,
    FILE,
    META,
    PERSON,
    REPOSITORY,
    SYMBOL,
    NodeNotFoundError,
    file_id,
)

__all__ = ["RemoveSummary", "finish_pending", "remove_repository"]

_PENDING = "relink-pending:"


@dataclass(frozen=True)
class RemoveSummary:
    """What :func:`remove_repository` deleted (rows per table) and re-resolved."""

    repo: str
    deleted: dict[str, int]
    #: other repository -> files of it re-resolved (they imported the removed one)
    relinked: dict[str, int] = field(default_factory=dict)
    kept_entries: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def remove_repository(store: Store, repo: str) -> RemoveSummary:
    """Delete ``repo`` and what derives from it (see the module docstring).

    Raises
    ------
    NodeNotFoundError : no repository of that name.
    """
    started = time.perf_counter()
    found = store.cypher(f"MATCH (r:{REPOSITORY.name}) WHERE r.name = $r RETURN r.id",
                         {"r": repo})
    if found.is_empty():
        names = store.cypher(f"MATCH (r:{REPOSITORY.name}) RETURN r.name ORDER BY r.name")
        raise NodeNotFoundError(
            f"no repository {repo!r} in the graph", node_id=repo,
            closest=tuple(names["r.name"].to_list()),
            suggestion="`vgdb status` lists the repositories")
    finish_pending(store)
    _, consumers = consumer_paths(store, repo)
    kept = store.cypher(f"MATCH (e:{ENTRY.name}) WHERE e.repo = $r RETURN count(*)",
                        {"r": repo}).item()
    mark_stale(store)  # Symbols go without being unindexed one by one: synced below
    deleted: dict[str, int] = {}
    with store.write() as tx:
        prefix = file_id(repo, "")
        for label, table, where in (
                ("symbols", SYMBOL, "n.repo = $r"),
                ("code_refs", CODE_REF, "n.file STARTS WITH $prefix"),
                ("files", FILE, "n.repo = $r"),
                ("commits", COMMIT, "n.repo = $r"),
                ("communities", COMMUNITY, "n.repo = $r"),
                ("repositories", REPOSITORY, "n.name = $r")):
            rows = tx.execute(f"MATCH (n:{table.name}) WHERE {where} RETURN count(*) AS n",
                              {"r": repo, "prefix": prefix})
            deleted[label] = int(rows["n"][0])
            if deleted[label]:
                tx.execute(f"MATCH (n:{table.name}) WHERE {where} DETACH DELETE n",
                           {"r": repo, "prefix": prefix})
        for label, table in (("externals", EXTERNAL), ("people", PERSON)):
            orphan = f"MATCH (n:{table.name}) WHERE NOT EXISTS {{ MATCH (n)-[]-() }}"
            deleted[label] = int(tx.execute(f"{orphan} RETURN count(*) AS n")["n"][0])
            if deleted[label]:
                tx.execute(f"{orphan} DELETE n")
        meta = (f"MATCH (m:{META.name}) WHERE m.id ENDS WITH $tail OR m.id CONTAINS $mid "
                "OR m.id = $version")
        params = {"tail": f":{repo}", "mid": f":{repo}:", "version": f"graph_version:{repo}"}
        deleted["meta"] = int(tx.execute(f"{meta} RETURN count(*) AS n", params)["n"][0])
        tx.execute(f"{meta} DELETE m", params)
        if consumers:
            store.set_meta(tx, _PENDING + repo, json.dumps(consumers, sort_keys=True))
        for consumer in consumers:
            tx.touch(consumer)
    relinked = finish_pending(store)
    make_searchable(store, embed=bool(vector_status(store).get("tables")))
    store.touch_manifest()
    return RemoveSummary(repo, deleted, relinked, int(kept),
                         round(time.perf_counter() - started, 3))


def finish_pending(store: Store) -> dict[str, int]:
    """Re-resolve the consumers a removal recorded and did not get to (killed after its
    commit); returns files re-resolved per consumer repository."""
    marks = store.cypher(f"MATCH (m:{META.name}) WHERE m.id STARTS WITH $p "
                         "RETURN m.id AS id, m.value AS value ORDER BY id", {"p": _PENDING})
    done: dict[str, int] = {}
    for key, value in marks.iter_rows():
        present = set(store.cypher(f"MATCH (r:{REPOSITORY.name}) RETURN r.name")["r.name"])
        for consumer, paths in sorted(json.loads(value or "{}").items()):
            if consumer in present:
                done[consumer] = done.get(consumer, 0) + reresolve(store, consumer, paths)
        with store.write() as tx:
            tx.execute(f"MATCH (m:{META.name}) WHERE m.id = $k DELETE m", {"k": key})
    return done
