"""Storage of the academic domain: papers, authors, topics, citations, supersession, and
the cross-domain REFERENCES / BASED_ON edges, bulk-loaded in the caller's transaction.

A paper load is planned in ``ingest.academic.merge`` against what :func:`read_paper_index`
and :func:`read_papers` return, inside the same write transaction, and applied by
:func:`write_papers`: new rows go in with ``COPY`` (polars frames), existing papers are
updated with one ``LOAD FROM ... SET`` per load, never a per-row ``MERGE``. Edges are only
added where the same (from, to) pair is not stored yet, so loading the same files again
writes nothing new.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

import polars as pl

from graphdb.store import Store, Transaction
from schema import (
    AUTHOR,
    BASED_ON,
    CITES,
    COMMIT,
    ENTRY,
    FILE,
    HAS_TOPIC,
    PAPER,
    REFERENCES,
    REL_TABLES,
    SUPERSEDES,
    SYMBOL,
    TOPIC,
    WROTE,
    NodeTable,
    RelTable,
)

__all__ = [
    "PAPER_KEY_COLUMNS", "PaperLoad", "ReferenceLoad", "add_missing_rels", "delete_references",
    "read_paper_index", "read_papers", "read_references",
    "write_papers", "write_references",
]

#: Columns of :func:`read_paper_index`: what identity resolution needs of every paper.
PAPER_KEY_COLUMNS = ("id", "doi", "arxiv", "title_key", "ext_ids", "status")
_TABLES = {t.name: t for t in (SYMBOL, FILE, COMMIT, ENTRY, PAPER)}


def _empty() -> pl.DataFrame:
    return pl.DataFrame()


@dataclass
class PaperLoad:
    """What one paper ingest changes (frames follow :func:`schema.frame_schema`; rel frames
    have ``from``/``to`` ids)."""

    now: datetime
    new_papers: pl.DataFrame = field(default_factory=_empty)
    #: existing papers with every property recomputed by the merge (SET in place)
    updated_papers: pl.DataFrame = field(default_factory=_empty)
    #: (old id, new id): an existing node that turned out to be another one (a title-keyed
    #: stub now known by its DOI): its edges move to the new node, it stays as non-current
    merged: list[tuple[str, str]] = field(default_factory=list)
    authors: pl.DataFrame = field(default_factory=_empty)
    topics: pl.DataFrame = field(default_factory=_empty)
    #: papers whose WROTE / HAS_TOPIC edges are replaced by a more authoritative source
    replace_authors: list[str] = field(default_factory=list)
    replace_topics: list[str] = field(default_factory=list)
    wrote: pl.DataFrame = field(default_factory=_empty)
    has_topic: pl.DataFrame = field(default_factory=_empty)
    cites: pl.DataFrame = field(default_factory=_empty)
    supersedes: pl.DataFrame = field(default_factory=_empty)
    #: (id, status, valid_to) of papers that something new supersedes
    superseded: pl.DataFrame = field(default_factory=_empty)

    def written_ids(self) -> list[str]:
        """Ids of the papers this load adds, changes or ends: what the keyword and vector
        indexes must follow (:func:`graphdb.findable.findable`)."""
        ids = [old for old, _ in self.merged]
        for frame in (self.new_papers, self.updated_papers, self.superseded):
            if "id" in frame.columns:
                ids.extend(frame["id"].to_list())
        return list(dict.fromkeys(ids))


@dataclass
class ReferenceLoad:
    """Cross-domain edges into papers: REFERENCES from code, commits and entries, BASED_ON
    from decisions."""

    #: (source table name) -> frame from/to/kind/location/evidence/confidence/source
    references: dict[str, pl.DataFrame] = field(default_factory=dict)
    based_on: pl.DataFrame = field(default_factory=_empty)
    now: datetime | None = None


# ------------------------------------------------------------------------------------ reading
def read_paper_index(tx: Transaction | Store) -> pl.DataFrame:
    """Identity keys of every paper (one scan; identity needs to find a paper by DOI,
    arXiv id, title key or catalogue id whatever its own id is)."""
    run = tx.execute if isinstance(tx, Transaction) else tx.cypher
    cols = ", ".join(f"p.{c} AS {c}" for c in PAPER_KEY_COLUMNS)
    return run(f"MATCH (p:{PAPER.name}) RETURN {cols}")


def read_papers(tx: Transaction, ids: Iterable[str]) -> dict[str, dict]:
    """Every property of these papers, and whether they have authors/topics, by id."""
    ids = sorted(set(ids))
    if not ids:
        return {}
    cols = ", ".join(f"p.{c.name} AS {c.name}" for c in PAPER.columns)
    rows = tx.execute(f"UNWIND $ids AS i MATCH (p:{PAPER.name} {{id: i}}) RETURN {cols}",
                      {"ids": ids})
    out = {r["id"]: r for r in rows.to_dicts()}
    for rel, flag in ((WROTE, "_has_authors"), (HAS_TOPIC, "_has_topics")):
        arrow = f"(x)-[:{rel.name}]->(p:{PAPER.name} {{id: i}})" if rel is WROTE else \
            f"(p:{PAPER.name} {{id: i}})-[:{rel.name}]->(x)"
        found = tx.execute(f"UNWIND $ids AS i MATCH {arrow} RETURN DISTINCT p.id AS id",
                           {"ids": ids})
        for pid in found["id"].to_list():
            out[pid][flag] = True
    return out


# ------------------------------------------------------------------------------------ writing
def write_papers(tx: Transaction, load: PaperLoad) -> dict[str, int]:
    """Apply ``load`` inside ``tx``; returns rows written per table.

    Deletions (moved edges of merged nodes, replaced authorships) run before the first
    insert and start from nodes that existed before the transaction (see graphdb.loader).
    """
    counts: dict[str, int] = {}
    moved = _detach(tx, [old for old, _ in load.merged], dict(load.merged))
    for ids, arrow in ((load.replace_authors, f"()-[e:{WROTE.name}]->(p:{PAPER.name})"),
                       (load.replace_topics, f"(p:{PAPER.name})-[e:{HAS_TOPIC.name}]->()")):
        if ids:
            tx.execute(f"UNWIND $ids AS i MATCH {arrow} WHERE p.id = i DELETE e", {"ids": ids})
    counts[PAPER.name] = tx.copy_nodes(PAPER, _stamp(load.new_papers, load.now), bulk=False)
    if not load.updated_papers.is_empty():
        frame = load.updated_papers
        props = [c for c in frame.columns if c not in ("id", "recorded_at")]
        sets = ", ".join(f"n.{c} = {c}" for c in props)
        tx.execute(f"LOAD FROM $f MATCH (n:{PAPER.name} {{id: id}}) SET {sets}", {"f": frame})
        counts["updated"] = frame.height
    if load.merged:
        tx.execute(f"UNWIND $ids AS i MATCH (p:{PAPER.name} {{id: i}}) SET p.status = 'merged', "
                   "p.valid_to = $now, p.expired_at = $now",
                   {"ids": [old for old, _ in load.merged], "now": load.now})
        counts["merged"] = len(load.merged)
    counts[AUTHOR.name] = _insert_missing(tx, AUTHOR, load.authors, load.now)
    counts[TOPIC.name] = _insert_missing(tx, TOPIC, load.topics, load.now)
    fresh = frozenset(load.new_papers["id"].to_list()) if not load.new_papers.is_empty() \
        else frozenset()
    for rel, frame, src, dst in ((WROTE, load.wrote, AUTHOR, PAPER),
                                 (HAS_TOPIC, load.has_topic, PAPER, TOPIC),
                                 (CITES, load.cites, PAPER, PAPER),
                                 (SUPERSEDES, load.supersedes, PAPER, PAPER)):
        counts[rel.name] = add_missing_rels(tx, rel, src, dst, _stamp(frame, load.now),
                                            fresh=fresh)
    for (rel, src, dst), frame in moved.items():
        counts[rel.name] = counts.get(rel.name, 0) + add_missing_rels(tx, rel, src, dst, frame)
    if not load.superseded.is_empty():
        tx.execute(f"LOAD FROM $f MATCH (n:{PAPER.name} {{id: id}}) SET n.status = status, "
                   "n.valid_to = CASE WHEN n.valid_to IS NULL THEN valid_to ELSE n.valid_to END",
                   {"f": load.superseded})
    return {k: v for k, v in counts.items() if v}


def read_references(store: Store, *, repo: str, source: str) -> pl.DataFrame:
    """REFERENCES / BASED_ON edges of ``source`` from the repository's symbols, files and
    commits, and from entries of the repository or of none: columns table, rel, from, to,
    kind, location."""
    frames = []
    for table in (SYMBOL, FILE, COMMIT, ENTRY):
        cond = "(n.repo = $r OR n.repo IS NULL OR n.repo = '')" if table is ENTRY \
            else "n.repo = $r"
        for rel in (REFERENCES, BASED_ON) if table is ENTRY else (REFERENCES,):
            kind = "e.kind" if rel is REFERENCES else "''"
            frames.append(store.cypher(
                f"MATCH (n:{table.name})-[e:{rel.name}]->(p:{PAPER.name}) WHERE {cond} AND "
                f"e.source = $s RETURN '{table.name}' AS `table`, '{rel.name}' AS rel, "
                f"n.id AS `from`, p.id AS `to`, {kind} AS kind, e.location AS location",
                {"r": repo, "s": source}))
    frames = [f for f in frames if not f.is_empty()]
    schema = {c: pl.Utf8 for c in ("table", "rel", "from", "to", "kind", "location")}
    return pl.concat([f.cast(schema) for f in frames]) if frames else pl.DataFrame(
        schema=schema)


def delete_references(tx: Transaction, edges: pl.DataFrame, *, source: str) -> int:
    """Delete these REFERENCES / BASED_ON edges (rows of :func:`read_references`) of
    ``source``. Run it before any paper is written in the transaction: a ``MATCH ...
    DELETE`` binding a node created earlier in the same transaction is unsafe in Kuzu
    0.11.3 (see graphdb.loader)."""
    if edges.is_empty():
        return 0
    for (table_name, rel_name), rows in edges.group_by(["table", "rel"], maintain_order=True):
        rel = REFERENCES if rel_name == REFERENCES.name else BASED_ON
        tx.execute(f"UNWIND $rows AS r MATCH (a:{_TABLES[table_name].name} {{id: r.`from`}})"
                   f"-[e:{rel.name}]->(p:{PAPER.name} {{id: r.`to`}}) WHERE e.source = $src "
                   "AND coalesce(e.location, '') = coalesce(r.location, '') DELETE e",
                   {"rows": rows.select("from", "to", "location").to_dicts(), "src": source})
    return edges.height


def write_references(tx: Transaction, load: ReferenceLoad) -> dict[str, int]:
    """Add the REFERENCES / BASED_ON edges of ``load`` where the same pair is not stored
    (their papers must exist: write the papers first; :func:`delete_references` before)."""
    counts: dict[str, int] = {}
    for table_name, frame in sorted(load.references.items()):
        counts[REFERENCES.name] = counts.get(REFERENCES.name, 0) + add_missing_rels(
            tx, REFERENCES, _TABLES[table_name], PAPER, _stamp(frame, load.now))
    counts[BASED_ON.name] = add_missing_rels(tx, BASED_ON, ENTRY, PAPER,
                                             _stamp(load.based_on, load.now))
    return {k: v for k, v in counts.items() if v}


def add_missing_rels(tx: Transaction, rel: RelTable, src: NodeTable, dst: NodeTable,
                     frame: pl.DataFrame, *, fresh: frozenset[str] = frozenset()) -> int:
    """Insert the rows of ``frame`` whose (from, to) pair ``rel`` does not hold yet
    (several rows of one pair in ``frame``: the first is kept). Rows with an end in
    ``fresh`` (nodes created by this load, which hold no edges yet) are not looked up."""
    if frame.is_empty():
        return 0
    frame = frame.unique(["from", "to"], keep="first", maintain_order=True)
    check = frame
    if fresh:
        new = pl.Series(list(fresh), dtype=pl.Utf8)
        check = frame.filter(~pl.col("from").is_in(new) & ~pl.col("to").is_in(new))
    ids = check["from"].unique().to_list()
    if ids:
        stored = tx.execute(f"UNWIND $ids AS i MATCH (a:{src.name} {{id: i}})-[:{rel.name}]->"
                            f"(b:{dst.name}) RETURN a.id AS `from`, b.id AS `to`", {"ids": ids})
        if not stored.is_empty():
            frame = frame.join(stored, on=["from", "to"], how="anti")
    return tx.copy_rels(rel, frame, src=src, dst=dst, bulk=False)


def _stamp(frame: pl.DataFrame, now: datetime | None) -> pl.DataFrame:
    if frame.is_empty() or now is None:
        return frame
    cols = [pl.lit(now).alias("recorded_at")]
    if "valid_from" not in frame.columns:
        cols.append(pl.lit(now).alias("valid_from"))
    return frame.with_columns(cols)


def _insert_missing(tx: Transaction, table: NodeTable, frame: pl.DataFrame,
                    now: datetime) -> int:
    if frame.is_empty():
        return 0
    frame = frame.unique("id", keep="first", maintain_order=True)
    found = tx.execute(f"UNWIND $ids AS i MATCH (n:{table.name} {{id: i}}) RETURN n.id AS id",
                       {"ids": frame["id"].to_list()})
    fresh = frame.filter(~pl.col("id").is_in(found["id"].implode()))
    return tx.copy_nodes(table, _stamp(fresh, now), bulk=False)


def _detach(tx: Transaction, old_ids: list[str],
            target: dict[str, str]) -> dict[tuple[RelTable, NodeTable, NodeTable], pl.DataFrame]:
    """Read and delete every edge of the papers ``old_ids``; return them re-pointed at
    ``target[old]`` (edges between two merged papers follow both ends)."""
    out: dict[tuple[RelTable, NodeTable, NodeTable], pl.DataFrame] = {}
    if not old_ids:
        return out
    for rel in REL_TABLES:
        for src, dst in rel.pairs:
            if PAPER not in (src, dst):
                continue
            props = ", ".join(f"e.{p.name} AS {p.name}" for p in rel.columns)
            for side in ("a", "b"):
                if (side == "a" and src is not PAPER) or (side == "b" and dst is not PAPER):
                    continue
                query = (f"UNWIND $ids AS i MATCH (a:{src.name})-[e:{rel.name}]->(b:{dst.name}) "
                         f"WHERE {side}.id = i RETURN a.id AS `from`, b.id AS `to`, {props}")
                frame = tx.execute(query, {"ids": old_ids})
                if frame.is_empty():
                    continue
                tx.execute(f"UNWIND $ids AS i MATCH (a:{src.name})-[e:{rel.name}]->"
                           f"(b:{dst.name}) WHERE {side}.id = i DELETE e", {"ids": old_ids})
                frame = frame.with_columns(
                    pl.col("from").replace(target), pl.col("to").replace(target))
                key = (rel, src, dst)
                out[key] = pl.concat([out[key], frame], how="vertical_relaxed") \
                    if key in out else frame
    # a merged stub superseded by its new node is recorded afresh; no self loops
    return {k: f.filter(pl.col("from") != pl.col("to")) for k, f in out.items()}
