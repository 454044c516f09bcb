"""Bulk loading of one repository's git history, in one transaction.

History is append-only: commits, their edges and symbol attribution are only ever added. The
few in-place updates are to identities and validity: a person's names, when a history-only
file stopped existing, when a current symbol was first committed, and co-change weights (a
derived aggregate, recomputed whole).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import polars as pl

from graphdb.communities import mark_communities_due
from graphdb.faults import failpoint
from graphdb.keyword import mark_stale
from graphdb.store import Store, Transaction
from schema import (
    AUTHORED,
    CHANGED,
    CO_CHANGED,
    COMMIT,
    FILE,
    PARENT,
    PERSON,
    REPOSITORY,
    SUPERSEDES,
    SYMBOL,
    TOUCHED,
    NodeTable,
)

__all__ = ["HistoryLoad", "load_history"]


def _empty() -> pl.DataFrame:
    return pl.DataFrame()


@dataclass
class HistoryLoad:
    """What one history ingest adds for repository ``repo`` (frames follow
    :func:`schema.frame_schema`; rel frames have ``from``/``to`` ids)."""

    repo: str
    now: datetime
    head: str
    commits: pl.DataFrame = field(default_factory=_empty)
    persons: pl.DataFrame = field(default_factory=_empty)
    parents: pl.DataFrame = field(default_factory=_empty)
    authored: pl.DataFrame = field(default_factory=_empty)
    #: File rows for paths the graph does not hold yet (history-only files)
    files: pl.DataFrame = field(default_factory=_empty)
    #: (id, valid_to) of history-only files whose existence changed
    file_validity: pl.DataFrame = field(default_factory=_empty)
    changed: pl.DataFrame = field(default_factory=_empty)
    #: Symbol rows of symbols that no longer exist and the graph does not hold
    symbols: pl.DataFrame = field(default_factory=_empty)
    #: (id, valid_from): first commit of a symbol; applied where earlier than the stored one
    births: pl.DataFrame = field(default_factory=_empty)
    touched: pl.DataFrame = field(default_factory=_empty)
    supersedes: pl.DataFrame = field(default_factory=_empty)
    #: every CO_CHANGED pair of the repository (replaces the stored ones), or None: unchanged
    cochanged: pl.DataFrame | None = None


def load_history(store: Store, load: HistoryLoad) -> dict[str, int]:
    """Apply ``load`` atomically; returns counts of what was written.

    Deletions (co-change pairs) run before the first insert, as in the code loader.
    """
    counts: dict[str, int] = {}
    mark_stale(store)  # symbols may be added or superseded: as in load_code
    with store.write() as tx:
        tx.touch(load.repo)
        if load.cochanged is not None:
            tx.execute(f"MATCH (a:{FILE.name})-[e:{CO_CHANGED.name}]->() WHERE a.repo = $repo "
                       "DELETE e", {"repo": load.repo})
        counts["persons"] = _upsert_persons(tx, load.persons, load.now)
        commits, parents, authored = _new_commits(tx, load)
        counts["commits"] = tx.copy_nodes(COMMIT, _stamp(commits, load.now), bulk=False)
        counts["files"] = tx.copy_nodes(FILE, _stamp(load.files, load.now), bulk=False)
        counts["symbols"] = tx.copy_nodes(SYMBOL, _stamp(load.symbols, load.now), bulk=False)
        failpoint("mid-copy")
        for rel, frame, src, dst in (
                (PARENT, parents, COMMIT, COMMIT),
                (AUTHORED, authored, PERSON, COMMIT),
                (CHANGED, load.changed, COMMIT, FILE),
                (TOUCHED, load.touched, COMMIT, SYMBOL),
                (SUPERSEDES, load.supersedes, SYMBOL, SYMBOL)):
            counts[rel.name] = tx.copy_rels(rel, _stamp(frame, load.now), src=src, dst=dst,
                                            bulk=False)
        if load.cochanged is not None:
            counts[CO_CHANGED.name] = tx.copy_rels(
                CO_CHANGED, _stamp(load.cochanged, load.now), src=FILE, dst=FILE, bulk=False)
        _set(tx, FILE, load.file_validity, "n.valid_to = valid_to")
        _set(tx, SYMBOL, load.births,
             "n.valid_from = CASE WHEN n.valid_from IS NULL OR valid_from < n.valid_from "
             "THEN valid_from ELSE n.valid_from END")
        if load.head:
            tx.execute(f"MATCH (r:{REPOSITORY.name}) WHERE r.name = $repo SET r.head = $head",
                       {"repo": load.repo, "head": load.head})
        if not load.commits.is_empty():  # new commits change co-change weights
            mark_communities_due(store, tx, load.repo, detect=True)
        failpoint("before-commit")
    failpoint("after-commit")
    store.touch_manifest()
    return counts


def _new_commits(tx: Transaction, load: HistoryLoad
                 ) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """The load's commits, PARENT and AUTHORED rows without the commits the graph already
    holds: another repository may share them (the same history ingested under two names,
    two subdirectories of one git repository), and ids are global (``commit:<sha>``)."""
    if load.commits.is_empty():
        return load.commits, load.parents, load.authored
    rows = tx.execute(  # by primary key: ``IN $ids`` compares every row with the list
        f"UNWIND $ids AS i MATCH (c:{COMMIT.name} {{id: i}}) RETURN c.id AS id",
        {"ids": load.commits["id"].unique(maintain_order=True).to_list()})
    if rows.is_empty():
        return load.commits, load.parents, load.authored
    known = rows["id"]
    return (load.commits.filter(~pl.col("id").is_in(known.implode())),
            load.parents.filter(~pl.col("from").is_in(known.implode()))
            if not load.parents.is_empty() else load.parents,
            load.authored.filter(~pl.col("to").is_in(known.implode()))
            if not load.authored.is_empty() else load.authored)


def _stamp(frame: pl.DataFrame, now: datetime) -> pl.DataFrame:
    if frame.is_empty():
        return frame
    return frame.with_columns(pl.lit(now).alias("recorded_at"))


def _set(tx: Transaction, table: NodeTable, frame: pl.DataFrame, assignment: str) -> None:
    if not frame.is_empty():
        tx.execute(f"LOAD FROM $f MATCH (n:{table.name} {{id: id}}) SET {assignment}",
                   {"f": frame})


def _upsert_persons(tx: Transaction, persons: pl.DataFrame, now: datetime) -> int:
    """New people are inserted; known ones take the newest name and keep the others as
    aliases (identities merge by normalized email)."""
    if persons.is_empty():
        return 0
    rows = tx.execute(f"UNWIND $ids AS i MATCH (p:{PERSON.name} {{id: i}}) "
                      "RETURN p.id AS id, p.name AS name, p.aliases AS aliases",
                      {"ids": persons["id"].unique(maintain_order=True).to_list()})
    known = {r["id"]: r for r in rows.to_dicts()}
    fresh = persons.filter(~pl.col("id").is_in(list(known)))
    tx.copy_nodes(PERSON, _stamp(fresh, now), bulk=False)
    updates = []
    for row in persons.filter(pl.col("id").is_in(list(known))).to_dicts():
        old = known[row["id"]]
        names = {old["name"], *(old["aliases"] or []), *(row["aliases"] or [])} - {row["name"]}
        if row["name"] != old["name"] or names != set(old["aliases"] or []):
            updates.append({"id": row["id"], "name": row["name"],
                            "aliases": sorted(n for n in names if n)})
    if updates:
        _set(tx, PERSON, pl.DataFrame(updates, schema={"id": pl.Utf8, "name": pl.Utf8,
                                                       "aliases": pl.List(pl.Utf8)}),
             "n.name = name, n.aliases = aliases")
    return persons.height
