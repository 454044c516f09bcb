"""Ingest: pure extractors (bytes in, rows out), resolvers (rows to edges), and the pipeline
that hands their tables to ``graphdb``.

The pipeline is imported lazily: parse workers import ``ingest.extract`` and must not pay
for (or depend on) the database layer.
"""

from __future__ import annotations

from typing import Any

__all__ = ["IngestOptions", "IngestSummary", "ingest_repository"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from ingest import pipeline

        return getattr(pipeline, name)
    raise AttributeError(name)
