"""Storing recorded coverage: which test executed which symbols (``EXECUTES``, source=coverage).

One recording per repository is current. Storing a new one ends the current edges of that
repository (``valid_to`` = the new recording's commit time, ``expired_at`` = now) and bulk
loads the new ones in the same transaction: nothing is erased, and ``as_of`` reads can see
which tests executed what at an older commit.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import polars as pl

from graphdb.store import Store
from schema import EXECUTES, FILE, REPOSITORY, SYMBOL, NodeTable, Source

__all__ = ["CoverageWrite", "code_spans", "coverage_state", "ran_outside_tests",
           "write_coverage"]

_META_PREFIX = "coverage:"
_OUTSIDE_PREFIX = "coverage-outside:"


@dataclass(frozen=True)
class CoverageWrite:
    """One recording of ``repo`` at ``commit``.

    ``to_symbols`` / ``to_files`` hold rel rows (``from`` = test symbol id, ``to`` = symbol or
    file id, ``lines``, ``count``, ``phases``, ``cases``); ``summary`` is kept in the
    database's metadata (what :func:`coverage_state` returns); ``outside`` lists the symbols
    that ran outside every test (:func:`ran_outside_tests`).
    """

    repo: str
    commit: str
    valid_from: datetime
    to_symbols: pl.DataFrame
    to_files: pl.DataFrame
    summary: dict[str, Any]
    outside: tuple[str, ...] = ()


def code_spans(store: Store, repo: str) -> tuple[dict[str, Any] | None, pl.DataFrame,
                                                 pl.DataFrame]:
    """What mapping coverage onto the graph needs: the repository's row (name, root, head,
    or None), its current code files (id, path, loc) and their current symbols (id, file,
    qualname, start_line, end_line, is_test)."""
    rows = store.cypher(f"MATCH (r:{REPOSITORY.name}) WHERE r.name = $r RETURN r.name AS name, "
                        "r.root AS root, r.head AS head", {"r": repo}).to_dicts()
    files = store.cypher(
        f"MATCH (f:{FILE.name}) WHERE f.repo = $r AND f.valid_to IS NULL AND f.source <> "
        f"'{Source.GIT.value}' RETURN f.id AS id, f.path AS path, f.loc AS loc", {"r": repo})
    symbols = store.cypher(
        f"MATCH (s:{SYMBOL.name}) WHERE s.repo = $r AND s.valid_to IS NULL RETURN s.id AS id, "
        "s.file AS file, s.qualname AS qualname, s.start_line AS start_line, "
        "s.end_line AS end_line, s.is_test AS is_test", {"r": repo})
    return (rows[0] if rows else None), files, symbols


def coverage_state(store: Store, repo: str) -> dict[str, Any] | None:
    """The summary of ``repo``'s current recording (commit, recorded_at, tests, edges, ...),
    or None when none was stored."""
    text = store.meta(_META_PREFIX + repo)
    return None if text is None else json.loads(text)


def ran_outside_tests(store: Store, repo: str) -> frozenset[str]:
    """Symbols of ``repo``'s current recording that ran outside every test context (at an
    import no context labelled): they ran, so a change to them is no never-executed code.
    Kept apart from :func:`coverage_state`, which every selection reads."""
    text = store.meta(_OUTSIDE_PREFIX + repo)
    return frozenset(json.loads(text)) if text else frozenset()


def write_coverage(store: Store, write: CoverageWrite, *, now: datetime) -> dict[str, int]:
    """End ``write.repo``'s current EXECUTES edges and load the new ones, in one transaction.
    Returns how many edges were ended and written."""
    digest = _recording_digest(write)
    current = coverage_state(store, write.repo)
    if current is not None and current.get("digest") == digest \
            and _current_edges(store, write.repo) == current.get("edges"):
        # the same recording again (a rerun, e.g. after a kill right after its commit):
        # ending the stored edges and writing equal ones would only add history noise. The
        # edge count is checked too: LadybugDB 0.22 can keep a transaction's small writes
        # but lose its COPY when killed inside COMMIT (benchmarks/ladybug_torn_commit.py)
        return {"ended": 0, "written": 0}
    stamp = [pl.lit(Source.COVERAGE.value).alias("source"), pl.lit(1.0).alias("confidence"),
             pl.lit(now).alias("recorded_at"), pl.lit(write.valid_from).alias("valid_from"),
             pl.lit(write.repo).alias("repo"), pl.lit(write.commit).alias("commit")]
    with store.write() as tx:
        tx.touch(write.repo)
        ended = 0
        for dst in (SYMBOL, FILE):
            ended += int(tx.execute(
                f"MATCH (:{SYMBOL.name})-[e:{EXECUTES.name}]->(:{dst.name}) WHERE e.repo = $r "
                "AND e.valid_to IS NULL SET e.valid_to = $vt, e.expired_at = $now "
                "RETURN count(e) AS n",
                {"r": write.repo, "vt": max(write.valid_from, _latest(tx, write.repo)),
                 "now": now})["n"][0])
        written = 0
        targets: tuple[tuple[pl.DataFrame, NodeTable], ...] = (
            (write.to_symbols, SYMBOL), (write.to_files, FILE))
        for frame, dst in targets:
            if not frame.is_empty():
                written += tx.copy_rels(EXECUTES, frame.with_columns(stamp), src=SYMBOL,
                                        dst=dst, bulk=True)
        summary = {**write.summary, "commit": write.commit, "recorded_at": now.isoformat(),
                   "valid_from": write.valid_from.isoformat(), "edges": written,
                   "digest": digest}
        store.set_meta(tx, _META_PREFIX + write.repo, json.dumps(summary, sort_keys=True))
        store.set_meta(tx, _OUTSIDE_PREFIX + write.repo, json.dumps(list(write.outside)))
    store.touch_manifest()
    return {"ended": ended, "written": written}


def _current_edges(store: Store, repo: str) -> int:
    rows = store.cypher(f"MATCH (:{SYMBOL.name})-[e:{EXECUTES.name}]->() WHERE e.repo = $r "
                        "AND e.valid_to IS NULL RETURN count(e) AS n", {"r": repo})
    return int(rows["n"][0])


def _recording_digest(write: CoverageWrite) -> str:
    """What a recording says (its edges, commit and time), not when it was loaded."""
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{write.commit}|{write.valid_from.isoformat()}|".encode())
    for frame in (write.to_symbols, write.to_files):
        flat = [c for c, t in frame.schema.items() if not t.is_nested()]
        h.update(frame.sort(flat).write_ndjson().encode("utf-8") if flat else b"")
    h.update(json.dumps(sorted(write.outside)).encode())
    return h.hexdigest()


def _latest(tx: Any, repo: str) -> datetime:
    """When the current recording became valid (a new one cannot end it earlier)."""
    rows = tx.execute(f"MATCH (:{SYMBOL.name})-[e:{EXECUTES.name}]->() WHERE e.repo = $r AND "
                      "e.valid_to IS NULL RETURN max(e.valid_from) AS v", {"r": repo})
    value = rows["v"][0] if not rows.is_empty() else None
    return value if value is not None else datetime.min
