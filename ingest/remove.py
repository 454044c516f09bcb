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
``relink-pending:<repo>``), so a process killed before they are done leaves the mark: ``vgdb
status`` reports it, and ``vgdb remove REPO`` again (or any removal) finishes the job.
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

__all__ = ["RemoveSummary", "finish_pending", "pending_removals", "remove_repository"]

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
    unfinished = pending_removals(store)
    relinked = finish_pending(store)  # a removal killed after its commit: finished first
    found = store.cypher(f"MATCH (r:{REPOSITORY.name}) WHERE r.name = $r RETURN r.id",
                         {"r": repo})
    if found.is_empty() and repo in unfinished:
        make_searchable(store, embed=bool(vector_status(store).get("tables")))
        return RemoveSummary(repo, {}, relinked, 0, round(time.perf_counter() - started, 3))
    if found.is_empty():
        names = store.cypher(f"MATCH (r:{REPOSITORY.name}) RETURN r.name ORDER BY r.name")
        raise NodeNotFoundError(
            f"no repository {repo!r} in the graph", node_id=repo,
            closest=tuple(names["r.name"].to_list()),
            suggestion="`vgdb status` lists the repositories")
    _, consumers = consumer_paths(store, repo)
    kept = store.cypher(f"MATCH (e:{ENTRY.name}) WHERE e.repo = $r RETURN count(*)",
                        {"r": repo}).item()
    mark_stale(store)  # Symbols go without being unindexed one by one: synced below
    # nodes the repository may leave orphaned: only these go if nothing else points at them
    orphans = {
        EXTERNAL: store.cypher(f"MATCH (n)-[]->(e:{EXTERNAL.name}) WHERE n.repo = $r "
                               "RETURN DISTINCT e.id AS id", {"r": repo})["id"].to_list(),
        PERSON: store.cypher(f"MATCH (p:{PERSON.name})-[]->(c:{COMMIT.name}) WHERE c.repo = $r "
                             "RETURN DISTINCT p.id AS id", {"r": repo})["id"].to_list()}
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
            orphan = (f"UNWIND $ids AS i MATCH (n:{table.name} {{id: i}}) "
                      "WHERE NOT EXISTS { MATCH (n)-[]-() }")
            ids = {"ids": orphans[table]}
            deleted[label] = int(tx.execute(f"{orphan} RETURN count(*) AS n", ids)["n"][0])
            if deleted[label]:
                tx.execute(f"{orphan} DELETE n", ids)
        meta = (f"MATCH (m:{META.name}) WHERE m.id ENDS WITH $tail OR m.id CONTAINS $mid "
                "OR m.id = $version")
        params = {"tail": f":{repo}", "mid": f":{repo}:", "version": f"graph_version:{repo}"}
        deleted["meta"] = int(tx.execute(f"{meta} RETURN count(*) AS n", params)["n"][0])
        tx.execute(f"{meta} DELETE m", params)
        if consumers:
            store.set_meta(tx, _PENDING + repo, json.dumps(consumers, sort_keys=True))
        for consumer in consumers:
            tx.touch(consumer)
    relinked.update(finish_pending(store))
    make_searchable(store, embed=bool(vector_status(store).get("tables")))
    store.touch_manifest()
    return RemoveSummary(repo, deleted, relinked, int(kept),
                         round(time.perf_counter() - started, 3))


def pending_removals(store: Store) -> list[str]:
    """Repositories whose removal committed but whose consumers were not re-resolved yet
    (the process was killed in between): `vgdb remove REPO` again finishes it."""
    marks = store.cypher(f"MATCH (m:{META.name}) WHERE m.id STARTS WITH $p RETURN m.id AS id "
                         "ORDER BY id", {"p": _PENDING})
    return [key.removeprefix(_PENDING) for key in marks["id"].to_list()]


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
