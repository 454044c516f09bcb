"""The one record path of the surfaces (GraphQL mutations, MCP tools): write session events
through a strict :class:`~ingest.sessions.record.Recorder` in one transaction, then find the
active intents of other sessions each record falls inside.

Kept out of both surfaces so that a record made over MCP and one made over GraphQL take the
same rules, the same transaction and the same intent notices.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from graphdb import Store
from ingest.sessions.record import Recorder, RecordResult
from queries.intents import IntentNotice, overlapping_intents
from schema import ABOUT, ENTRY, FILE, SYMBOL, SessionFormatError

__all__ = ["MAX_BATCH", "record_events"]

#: records one call may carry: a batch is one transaction, and a request of any size would
#: hold the database's single writer for as long as it likes
MAX_BATCH = 500

_LINKED_SCOPE_KINDS = {"decision", "pattern", "failure", "resolution", "insight", "note",
                       "intent"}


def record_events(store: Store, session: str, events: Sequence[Mapping[str, Any]],
                  ) -> list[tuple[RecordResult, tuple[IntentNotice, ...]]]:
    """Write ``events`` (session-log events without session and time) all or nothing, and
    answer each with the other sessions' active intents it overlaps. Raises what the
    Recorder raises (``ConflictError``, ``SessionFormatError``, ``NodeNotFoundError``),
    with ``index`` naming the refused event."""
    if len(events) > MAX_BATCH:
        raise SessionFormatError(f"a batch holds at most {MAX_BATCH} records; this one holds "
                                 f"{len(events)}", suggestion="send it as several batches")
    results = Recorder(store, session=session, strict=True).record_batch(list(events))
    return [(r, _intents(store, session, r, e)) for r, e in zip(results, events, strict=True)]


def _touched(store: Store, result: RecordResult, data: Mapping[str, Any]) -> list[str]:
    """The paths a record is about: its scope, and the files of what it links to."""
    paths = list(data.get("scope") or ())
    if data["type"] in ("file_read", "file_modified"):
        return [*paths, *(data.get("paths") or ())]
    if not result.id:
        return paths
    for table, column in ((FILE, "n.path"), (SYMBOL, "n.file")):
        rows = store.cypher(f"MATCH (e:{ENTRY.name})-[:{ABOUT.name}]->(n:{table.name}) "
                            f"WHERE e.id = $id RETURN n.repo, {column}", {"id": result.id})
        for repo, value in rows.rows():
            paths.append(value.removeprefix(f"file:{repo}/") if table is SYMBOL else value)
    return paths


def _intents(store: Store, session: str, result: RecordResult,
             data: Mapping[str, Any]) -> tuple[IntentNotice, ...]:
    kind = data["type"]
    if kind not in _LINKED_SCOPE_KINDS and kind != "file_modified":
        return ()
    return overlapping_intents(store, _touched(store, result, data),
                               session=f"session:{session}", whole=kind == "intent")
