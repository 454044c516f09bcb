"""Read-only Cypher for people and agents (``vgdb cypher``)."""

from __future__ import annotations

from typing import Any

import polars as pl

from graphdb import Store

__all__ = ["run_cypher"]


def run_cypher(store: Store, query: str, params: dict[str, Any] | None = None) -> pl.DataFrame:
    """Rows of a read-only query. Writes, DDL and file access raise ReadOnlyViolationError;
    syntax and semantic errors raise QueryError carrying Kuzu's message."""
    return store.cypher(query, params)
