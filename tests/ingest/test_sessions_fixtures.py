"""Shared set-up for the session tests (no tests here): a graph holding this repository's
code (the files and symbols the example session names) and one of its commits, written
through the store."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import polars as pl

from graphdb import Store
from schema import COMMIT, FILE, SYMBOL, commit_id, file_id, symbol_id

REPO = "vectorgraphdb"
#: Real files of this repository (as `vgdb ingest . --name vectorgraphdb` stores them).
PATHS = ("ingest/pipeline.py", "graphdb/loader.py", "graphdb/store.py", "tests/test_layers.py",
         "tests/ingest/test_incremental.py", "benchmarks/ingest.py", "queries/overview.py")
SYMBOLS = (("graphdb/loader.py", "load_code"), ("graphdb/loader.py", "_delete_outgoing"),
           ("graphdb/store.py", "Transaction.copy_nodes"),
           ("graphdb/store.py", "Transaction.copy_rels"),
           ("graphdb/store.py", "Store.exit_process"))
#: "Loader: all deletions before inserts ..." — the commit the example session names.
SHA = "2bdb19e203d325ec8b29e5e4eec20f6e82e87d67"
T0 = datetime(2026, 11, 1)


def seed_code(store: Store) -> None:
    files = pl.DataFrame({"id": [file_id(REPO, p) for p in PATHS], "repo": [REPO] * len(PATHS),
                          "path": list(PATHS), "valid_from": [T0] * len(PATHS)})
    symbols = pl.DataFrame({
        "id": [symbol_id(REPO, p, q) for p, q in SYMBOLS], "repo": [REPO] * len(SYMBOLS),
        "file": [file_id(REPO, p) for p, _ in SYMBOLS], "qualname": [q for _, q in SYMBOLS],
        "valid_from": [T0] * len(SYMBOLS)})
    commits = pl.DataFrame({"id": [commit_id(SHA), commit_id("2b" + "0" * 38)],
                            "sha": [SHA, "2b" + "0" * 38], "repo": [REPO, REPO]})
    with store.write() as tx:
        tx.copy_nodes(FILE, files)
        tx.copy_nodes(SYMBOL, symbols)
        tx.copy_nodes(COMMIT, commits)


def write_log(path: Path, events: list[dict | str]) -> Path:
    """A session log: dicts become JSON lines, strings are written as they are."""
    path.write_text("".join((e if isinstance(e, str) else json.dumps(e)) + "\n"
                            for e in events), encoding="utf-8")
    return path


def ev(type_: str, ts: str, session: str = "s1", **fields: object) -> dict:
    return {"type": type_, "ts": f"2026-11-02T{ts}Z", "session": session, **fields}
