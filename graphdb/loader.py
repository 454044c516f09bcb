"""Bulk loading of one repository's code graph, in one transaction.

New nodes and every edge go in with ``COPY FROM`` polars frames; only nodes that already exist
(a re-parsed file's surviving symbols) are updated in place, so edges from other domains
(history, decisions, papers) that point at them survive a re-ingest. Symbols and files that
disappeared from the tree are kept as non-current nodes (``valid_to`` set), never erased.
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
    CALLS,
    CODE_REF,
    CONTAINS,
    EXTERNAL,
    FILE,
    IMPORTS,
    INHERITS,
    REPOSITORY,
    SYMBOL,
    TESTS,
    NodeTable,
    RelTable,
    Source,
)

__all__ = ["STRUCTURAL", "CodeLoad", "load_code", "load_code_group", "load_rows",
           "mark_uncommitted",
           "touch_files"]

#: Structural rels derived from a file's code; they are replaced, not versioned.
STRUCTURAL: tuple[RelTable, ...] = (CONTAINS, IMPORTS, CALLS, INHERITS, TESTS)


@dataclass
class CodeLoad:
    """Everything one ingest step changes for repository ``repo``.

    ``files`` and ``symbols`` hold the rows of the (re)parsed files; ``reparsed`` their file
    ids (their symbols, refs and CONTAINS edges are replaced); ``resolved`` the file ids whose
    outgoing CALLS/IMPORTS/INHERITS/TESTS are replaced by ``edges`` (keyed by rel, source table
    and target table); ``removed`` file ids gone from the tree; ``touched`` files whose
    content is unchanged but whose stat changed (id, mtime_ns).
    """

    repo: str
    now: datetime
    repository: pl.DataFrame
    files: pl.DataFrame
    symbols: pl.DataFrame
    refs: pl.DataFrame
    externals: pl.DataFrame
    edges: dict[tuple[str, str, str], pl.DataFrame]
    reparsed: list[str]
    resolved: list[str]
    removed: list[str] = field(default_factory=list)
    touched: pl.DataFrame | None = None
    #: unchanged files whose module name changed (a package __init__ came or went)
    modules: pl.DataFrame | None = None
    #: the repository had no files in the graph: skip the checks for existing rows
    fresh: bool = False
    #: the structure changed enough that communities are to be detected again (marked in the
    #: same transaction: graphdb.communities.mark_communities_due)
    communities_due: bool = False
    #: Meta rows set in the load's transaction (``ingest.pipeline.papers_pending``)
    meta: dict[str, str] = field(default_factory=dict)


_TABLES = {t.name: t for t in (FILE, SYMBOL, EXTERNAL, REPOSITORY)}
#: between the two ids of an edge's key (no id holds it)
_SEP = "\x1f"
_RELS = {r.name: r for r in STRUCTURAL}


def load_code(store: Store, load: CodeLoad) -> dict[str, int]:
    """Apply ``load`` atomically; returns counts of what was written.

    Every deletion runs before the first insert, and only ever starts from nodes that existed
    before the transaction: in Kuzu 0.11.3 a ``MATCH ... DELETE`` that binds a node created
    earlier in the same transaction can delete another node's rels (found by the incremental
    property test).
    """
    counts: dict[str, int] = {}
    mark_stale(store)  # Symbols rewritten without indexing: the ingest ends with a sync
    with store.write() as tx:
        tx.touch(load.repo)
        known = set() if load.fresh else _existing(tx, FILE, load.files["id"].to_list())
        gone = load.removed
        replaced = sorted((set(load.reparsed) & known) | set(gone))
        resolved = sorted((set(load.resolved) & (known | set(_current_ids(tx, load))))
                          | set(gone))
        if gone:
            _tombstone_files(tx, gone, load.now)
        if replaced:
            _delete_contains(tx, replaced)
            tx.execute(f"MATCH (r:{CODE_REF.name}) WHERE r.file IN $files DELETE r",
                       {"files": replaced})
        edges = load.edges
        if resolved:
            # only the edges that changed: a one-function edit re-resolves its file and its
            # importers, whose edges are nearly all as they were (click's termui.py: ~1,000
            # edges rewritten for a handful that differ, a WAL past the replay limit, a
            # checkpoint and a compaction at every edit)
            edges = _delete_changed_outgoing(tx, resolved, load.edges)
        if replaced:
            counts["tombstoned_symbols"] = _tombstone_vanished(tx, load, replaced)
        if replaced or resolved:
            # before anything new is inserted: an External still wanted is re-inserted below
            tx.execute(f"MATCH (e:{EXTERNAL.name}) WHERE NOT EXISTS {{ MATCH ()-[]->(e) }} "
                       "DELETE e")
        failpoint("mid-copy")
        _upsert(tx, REPOSITORY, load.repository, load.now)
        if load.fresh:
            counts["files"] = tx.copy_nodes(FILE, _stamp(load.files, load.now))
            tx.copy_nodes(SYMBOL, _stamp(load.symbols, load.now))
        else:
            counts["files"] = _upsert(tx, FILE, load.files, load.now, known=known)
            _upsert(tx, SYMBOL, load.symbols, load.now)
        counts["symbols"] = load.symbols.height
        for frame, column in ((load.touched, "mtime_ns"), (load.modules, "module")):
            _set_file_column(tx, frame, column)
        counts["refs"] = tx.copy_nodes(CODE_REF, _stamp(load.refs, load.now), bulk=load.fresh)
        counts["externals"] = _insert_missing(tx, EXTERNAL, load.externals, load.now)
        _copy_edges(tx, edges, load.now, counts, bulk=load.fresh)
        if load.communities_due:
            mark_communities_due(store, tx, load.repo)
        for key, value in load.meta.items():
            store.set_meta(tx, key, value)
        failpoint("before-commit")
    failpoint("after-commit")
    store.touch_manifest()
    return counts


#: the resolved rels, each with how its source node names its file
_RESOLVED = ((CALLS, SYMBOL, "a.file"), (INHERITS, SYMBOL, "a.file"), (TESTS, SYMBOL, "a.file"),
             (IMPORTS, FILE, "a.id"))


def _delete_changed_outgoing(tx: Transaction, files: list[str],
                             edges: dict[tuple[str, str, str], pl.DataFrame]
                             ) -> dict[tuple[str, str, str], pl.DataFrame]:
    """Delete the resolved edges out of ``files`` that ``edges`` (their new edges) do not
    hold with the same properties; return the frames of the edges still to insert.

    Compared per (source, target) pair on the new frame's columns: a pair whose rows differ
    in any way is deleted and inserted again whole, so the result is the same as deleting
    every outgoing edge and inserting ``edges``; an unchanged edge keeps its
    ``recorded_at`` and ``valid_from`` (the ingest that first found it). One read per rel
    (its target tables told apart by ``label``)."""
    out = dict(edges)
    for rel, src, via in _RESOLVED:
        cols = sorted({c for (name, _, _), frame in edges.items() if name == rel.name
                       for c in frame.columns if c not in ("from", "to")})
        found = tx.execute(
            f"MATCH (a:{src.name})-[e:{rel.name}]->(b) WHERE {via} IN $files "
            "RETURN a.id AS `from`, b.id AS `to`, label(b) AS dst"
            + "".join(f", e.{c} AS {c}" for c in cols), {"files": files})
        if found.is_empty():
            continue
        for (dst,), old in found.partition_by("dst", as_dict=True).items():
            key = (rel.name, src.name, dst)
            new = edges.get(key)
            old = old.drop("dst")
            if new is None or new.is_empty():
                gone = old.select("from", "to").unique()
            else:
                mine = [c for c in new.columns if c not in ("from", "to")]
                old = old.select("from", "to", *mine).cast({c: new.schema[c] for c in mine})
                on = ["from", "to", *mine]
                changed = pl.concat([
                    old.join(new, on=on, how="anti", nulls_equal=True).select("from", "to"),
                    new.join(old, on=on, how="anti", nulls_equal=True).select("from", "to"),
                    old.group_by("from", "to").len().filter(pl.col("len") > 1)
                       .select("from", "to")]).unique()
                gone = changed.join(old.select("from", "to"), on=["from", "to"], how="semi")
                kept = old.join(changed, on=["from", "to"], how="anti").select("from", "to")
                out[key] = new.join(kept, on=["from", "to"], how="anti")
            if not gone.is_empty():
                # by the sources' files and a (from, to) key: an UNWIND of the pairs
                # through both endpoints' ids scans the rel table (10 ms against 2.5 ms
                # for 18 pairs of one stdlib file, benchmarks/RESULTS.md "Served edits")
                keys = [f"{a}{_SEP}{b}" for a, b in gone.iter_rows()]
                tx.execute(f"MATCH (a:{src.name})-[e:{rel.name}]->(b:{dst}) "
                           f"WHERE {via} IN $files AND "
                           "list_contains($keys, concat(a.id, $sep, b.id)) DELETE e",
                           {"files": files, "keys": keys, "sep": _SEP})
    return out


def _copy_edges(tx: Transaction, edges: dict[tuple[str, str, str], pl.DataFrame], now: datetime,
                counts: dict[str, int], *, bulk: bool = False) -> None:
    """COPY each (rel, src table, dst table) frame, in a fixed order; add its rows to
    ``counts[rel]``."""
    for (rel, src, dst), frame in sorted(edges.items()):
        counts[rel] = counts.get(rel, 0) + tx.copy_rels(
            _RELS[rel], _stamp(frame, now), src=_TABLES[src], dst=_TABLES[dst], bulk=bulk)


def load_code_group(store: Store, loads: list[CodeLoad]) -> dict[str, int]:
    """Apply the loads of several repositories new to the graph in ONE transaction: one
    COPY per table (and per rel table pair) for the whole group, one commit.

    A commit's cost grows with the tables it writes into, not with its rows (measured in
    ``benchmarks/commit_growth.py``: 161 µs per row at 10M CALLS for a 29K-row repository,
    29 µs for ten of them together), so a batch loads repositories in groups. Only fresh
    loads (no file of the repository in the graph: nothing to delete or update) can be
    grouped; the caller loads the others with :func:`load_code`. All or nothing: a crash
    before the commit loses the group and nothing else.
    """
    stale = [load.repo for load in loads if not load.fresh]
    if stale:
        raise ValueError(f"only repositories new to the graph load in a group: {stale}")
    if not loads:
        return {}
    now = max(load.now for load in loads)
    counts: dict[str, int] = {}
    mark_stale(store)  # Symbols written without indexing: the ingest ends with a sync
    with store.write() as tx:
        for load in loads:
            tx.touch(load.repo)
        failpoint("mid-copy")
        _upsert(tx, REPOSITORY, _concat([load.repository for load in loads]), now)
        counts["files"] = tx.copy_nodes(FILE, _stamp(_concat([x.files for x in loads]), now))
        symbols = _concat([load.symbols for load in loads])
        tx.copy_nodes(SYMBOL, _stamp(symbols, now))
        counts["symbols"] = symbols.height
        counts["refs"] = tx.copy_nodes(CODE_REF, _stamp(_concat([x.refs for x in loads]), now))
        externals = _concat([load.externals for load in loads]).unique("id", keep="first",
                                                                       maintain_order=True)
        counts["externals"] = _insert_missing(tx, EXTERNAL, externals, now)
        keys = {key for load in loads for key in load.edges}
        _copy_edges(tx, {key: _concat([load.edges[key] for load in loads if key in load.edges])
                         for key in keys}, now, counts)
        for load in loads:
            if load.communities_due:
                mark_communities_due(store, tx, load.repo)
        failpoint("before-commit")
    failpoint("after-commit")
    store.touch_manifest()
    return counts


def load_rows(load: CodeLoad) -> int:
    """Rows a load writes (nodes and edges): what a batch sizes its groups by."""
    return (load.files.height + load.symbols.height + load.refs.height
            + load.externals.height + sum(f.height for f in load.edges.values()))


def _concat(frames: list[pl.DataFrame]) -> pl.DataFrame:
    frames = [f for f in frames if not f.is_empty()] or frames[:1]
    return pl.concat(frames, how="diagonal_relaxed") if len(frames) > 1 else frames[0]


def touch_files(store: Store, touched: pl.DataFrame) -> None:
    """Record new mtimes (id, mtime_ns) of files whose content did not change, so the next
    ingest skips hashing them."""
    if touched.is_empty():
        return
    with store.write() as tx:
        _set_file_column(tx, touched, "mtime_ns")


def mark_uncommitted(store: Store, repo: str, paths: set[str]) -> int:
    """Give the current code files at ``paths`` (content not committed) and their symbols
    ``source = worktree``; files committed since go back to ``ast``. Returns how many files
    are uncommitted."""
    ast, worktree = Source.AST.value, Source.WORKTREE.value
    rows = store.cypher(f"MATCH (f:{FILE.name}) WHERE f.repo = $repo AND f.valid_to IS NULL "
                        f"AND f.source IN ['{ast}', '{worktree}'] "
                        "RETURN f.id AS id, f.path AS path, f.source AS source", {"repo": repo})
    flips = {ast: [], worktree: []}
    for fid, path, source in rows.iter_rows():
        wanted = worktree if path in paths else ast
        if source != wanted:
            flips[wanted].append(fid)
    if flips[ast] or flips[worktree]:
        with store.write() as tx:
            tx.touch(repo)
            for source, ids in flips.items():
                if ids:
                    tx.execute(f"UNWIND $ids AS i MATCH (f:{FILE.name} {{id: i}}) "
                               "SET f.source = $s", {"ids": ids, "s": source})
                    tx.execute(f"MATCH (s:{SYMBOL.name}) WHERE s.file IN $ids AND "
                               "s.valid_to IS NULL SET s.source = $s",
                               {"ids": ids, "s": source})
    return sum(1 for path in rows["path"].to_list() if path in paths)


def _set_file_column(tx: Transaction, frame: pl.DataFrame | None, column: str) -> None:
    if frame is not None and not frame.is_empty():
        tx.execute(f"LOAD FROM $f MATCH (n:{FILE.name} {{id: id}}) SET n.{column} = {column}",
                   {"f": frame})


def _current_ids(tx: Transaction, load: CodeLoad) -> list[str]:
    """Ids among ``load.resolved`` of files already in the graph (unchanged files that are
    re-resolved are not in ``load.files``)."""
    extra = sorted(set(load.resolved) - set(load.files["id"].to_list()))
    return sorted(_existing(tx, FILE, extra)) if extra else []


def _stamp(frame: pl.DataFrame, now: datetime) -> pl.DataFrame:
    """Fill the transaction-time columns (``recorded_at``; ``valid_from`` when absent)."""
    cols = [pl.lit(now).alias("recorded_at")]
    if "valid_from" not in frame.columns:
        cols.append(pl.lit(now).alias("valid_from"))
    return frame.with_columns(cols)


def _existing(tx: Transaction, table: NodeTable, ids: list[str]) -> set[str]:
    """Which ``ids`` the table holds, by primary key: the engine answers ``n.id IN $ids`` by
    comparing every row with the list (queries/batch.py, ``benchmarks/id_lookup.py``)."""
    if not ids:
        return set()
    rows = tx.execute(f"UNWIND $ids AS i MATCH (n:{table.name} {{id: i}}) RETURN n.id AS id",
                      {"ids": list(dict.fromkeys(ids))})
    return set(rows["id"].to_list())


def _upsert(tx: Transaction, table: NodeTable, frame: pl.DataFrame, now: datetime, *,
            known: set[str] | None = None) -> int:
    """Insert new ids; update the others in place (and make them current again)."""
    if frame.is_empty():
        return 0
    existing = known if known is not None else _existing(tx, table, frame["id"].to_list())
    fresh = frame.filter(~pl.col("id").is_in(list(existing)))
    tx.copy_nodes(table, _stamp(fresh, now), bulk=False)
    old = frame.filter(pl.col("id").is_in(list(existing)))
    if not old.is_empty():
        keep = {"id", "recorded_at", "valid_from"}
        props = [c for c in old.columns if c not in keep]
        sets = ", ".join(f"n.{c} = {c}" for c in props)
        tx.execute(f"LOAD FROM $f MATCH (n:{table.name} {{id: id}}) SET {sets}, "
                   "n.valid_to = NULL, n.expired_at = NULL", {"f": old})
    return frame.height


def _insert_missing(tx: Transaction, table: NodeTable, frame: pl.DataFrame,
                    now: datetime) -> int:
    if frame.is_empty():
        return 0
    existing = _existing(tx, table, frame["id"].to_list())
    return tx.copy_nodes(table, _stamp(frame.filter(~pl.col("id").is_in(list(existing))), now),
                         bulk=False)


def _tombstone_vanished(tx: Transaction, load: CodeLoad, files: list[str]) -> int:
    """Tombstone the current symbols of re-parsed files that the new parse no longer has."""
    rows = tx.execute(f"MATCH (s:{SYMBOL.name}) WHERE s.file IN $files AND s.valid_to IS NULL "
                      "RETURN s.id AS id", {"files": files})
    vanished = sorted(set(rows["id"].to_list()) - set(load.symbols["id"].to_list()))
    if vanished:
        _tombstone_symbols(tx, vanished, load.now)
    return len(vanished)


def _delete_touching(tx: Transaction, table: NodeTable, ids: list[str]) -> None:
    """Drop every structural edge into or out of these nodes (Kuzu deletes directed matches
    only, so both directions are written out)."""
    for rel in STRUCTURAL:
        for pattern in (f"(n:{table.name})-[e:{rel.name}]->()",
                        f"()-[e:{rel.name}]->(n:{table.name})"):
            tx.execute(f"MATCH {pattern} WHERE n.id IN $ids DELETE e", {"ids": ids})


def _tombstone_symbols(tx: Transaction, ids: list[str], now: datetime) -> None:
    _delete_touching(tx, SYMBOL, ids)
    tx.execute(f"UNWIND $ids AS i MATCH (s:{SYMBOL.name} {{id: i}}) SET s.valid_to = $now",
               {"ids": list(dict.fromkeys(ids)), "now": now})


def _tombstone_files(tx: Transaction, ids: list[str], now: datetime) -> None:
    rows = tx.execute(f"MATCH (s:{SYMBOL.name}) WHERE s.file IN $ids AND s.valid_to IS NULL "
                      "RETURN s.id AS id", {"ids": ids})
    _tombstone_symbols(tx, rows["id"].to_list(), now)
    _delete_touching(tx, FILE, ids)
    tx.execute(f"UNWIND $ids AS i MATCH (f:{FILE.name} {{id: i}}) SET f.valid_to = $now",
               {"ids": list(dict.fromkeys(ids)), "now": now})


def _delete_contains(tx: Transaction, file_ids: list[str]) -> None:
    tx.execute(f"MATCH (f:{FILE.name})-[e:{CONTAINS.name}]->() WHERE f.id IN $files DELETE e",
               {"files": file_ids})
    tx.execute(f"MATCH (s:{SYMBOL.name})-[e:{CONTAINS.name}]->() WHERE s.file IN $files "
               "DELETE e", {"files": file_ids})


def _delete_outgoing(tx: Transaction, file_ids: list[str]) -> None:
    """Drop the resolved edges that start in these files; they are about to be re-resolved."""
    for rel in (CALLS, INHERITS, TESTS):
        tx.execute(f"MATCH (s:{SYMBOL.name})-[e:{rel.name}]->() WHERE s.file IN $files DELETE e",
                   {"files": file_ids})
    tx.execute(f"MATCH (f:{FILE.name})-[e:{IMPORTS.name}]->() WHERE f.id IN $files DELETE e",
               {"files": file_ids})
