"""The task an executor runs for one repository of a batch. Kept apart from the rest of
``ingest.batch`` so that a worker imports the extractors and pyarrow, never the database
layer (measured: importing the batch runner, kuzu and polars included, costs a spawned worker
several times what ``ingest.shards`` does)."""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass

from ingest.shards import ExtractRequest, ShardInfo, extract_shards

__all__ = ["ExtractJob", "extract_job"]


@dataclass(frozen=True)
class ExtractJob:
    """One repository to extract on the executor (picklable)."""

    name: str
    request: ExtractRequest


def extract_job(job: ExtractJob) -> ShardInfo:
    """Walk and parse one repository into its shard; runs on an executor worker.

    ``VGDB_FAILPOINT=extract:<name>`` SIGKILLs the worker here, as a parser crash in native
    code would (the tests' way to crash a worker; checked inline rather than through
    ``graphdb.failpoint`` so that extraction workers never import the database layer)."""
    if os.environ.get("VGDB_FAILPOINT") == f"extract:{job.name}":
        os.kill(os.getpid(), signal.SIGKILL)
    return extract_shards(job.request)
