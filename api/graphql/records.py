"""What the write API takes and answers: record inputs, the ``Recorded`` / ``Conflict`` /
``Rejected`` union, and the one path every record mutation takes (a batch, one transaction).

Ids: every argument that names a node takes its Relay id, its graph key (``entry:<uuid>``,
``sym:...``) or, for entries, its display id (``DEC-12``); every answer gives the Relay id
(``id``), the key (``key``) and the display id.
"""

import base64
import enum
from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any

import strawberry
from strawberry import relay

from api.graphql.context import Context
from api.recording import record_events
from ingest.sessions.record import RecordResult
from queries.intents import IntentNotice
from schema import ENTRY, ConflictError, NodeNotFoundError, SessionFormatError

__all__ = ["ActiveEntry", "Conflict", "IntentOverlap", "RecordBatchPayload", "RecordInput",
           "RecordPayload", "RecordType", "Recorded", "RecordedBatch", "Rejected", "plain_id",
           "plain_ids", "record", "record_one"]


def plain_id(ref: str) -> str:
    """A graph key from a Relay global id (``base64("Entry:entry:...")``); anything else
    (a key, a display id, a path) unchanged."""
    from api.graphql.nodes import NODE_TYPES

    if len(ref) % 4 or len(ref) < 8:
        return ref
    try:
        text = base64.b64decode(ref, validate=True).decode("utf-8")
    except ValueError:  # not base64 (binascii.Error), not ASCII, or not UTF-8 inside
        return ref
    kind, sep, key = text.partition(":")
    return key if sep and kind in NODE_TYPES and key else ref


def plain_ids(refs: Sequence[str] | None) -> list[str]:
    return [plain_id(r) for r in refs or ()]


def _relay(key: str) -> str:
    return relay.to_base64(ENTRY.name, key) if key else ""


@strawberry.enum(description="What a record is (the session format's event types).")
class RecordType(enum.Enum):
    DECISION = "decision"
    PATTERN = "pattern"
    FAILURE = "failure"
    RESOLUTION = "resolution"
    INSIGHT = "insight"
    INTENT = "intent"
    NOTE = "note"
    OUTCOME = "outcome"
    FILE_READ = "file_read"
    FILE_MODIFIED = "file_modified"
    COMMIT = "commit"


@strawberry.input(description="One record of a batch (`record`): the fields of its type, as "
                              "the single mutations take them (docs/sessions.md).")
class RecordInput:
    type: RecordType
    key: str | None = strawberry.field(default=None, description=(
        "this record's own name in the session: later records (in this batch or later "
        "calls) may name it in supersedes, failure or resolution"))
    title: str | None = None
    content: str | None = None
    category: str | None = None
    scope: list[str] | None = strawberry.field(default=None, description=(
        "paths or globs (`graphdb/**`) it applies to: impact, provenance and entries of "
        "the code inside return it ('in scope: <glob>')"))
    supersedes: list[str] | None = None
    reason: str | None = None
    evidence: str | None = None
    symbols: list[str] | None = strawberry.field(default=None, description=(
        "symbols it is about: keys, ids, `path#qualname` or a qualname"))
    files: list[str] | None = strawberry.field(default=None, description="files it is about")
    commits: list[str] | None = strawberry.field(default=None, description="shas (or prefixes)")
    papers: list[str] | None = strawberry.field(default=None, description=(
        "papers it cites: DOI, arXiv id, paper key or exact title"))
    based_on: list[str] | None = strawberry.field(default=None, description=(
        "decisions: the papers it rests on (as papers)"))
    error: str | None = strawberry.field(default=None, description="failures: the error text")
    approach: str | None = None
    context: str | None = None
    file: str | None = strawberry.field(default=None, description="failures: where it happened")
    failure: str | None = strawberry.field(default=None, description="resolutions: the failure")
    resolution: str | None = strawberry.field(default=None, description="outcomes: the resolution")
    outcome: str | None = None
    expires_at: datetime | None = None
    paths: list[str] | None = strawberry.field(default=None, description=(
        "file_read / file_modified: the files"))
    sha: str | None = strawberry.field(default=None, description="commit: the sha")
    at: datetime | None = strawberry.field(default=None, description=(
        "when it happened (default: now)"))


@strawberry.type(description="An active intent of another session that overlaps what was "
                             "just recorded: someone else means to change it.")
class IntentOverlap:
    id: str
    key: str
    display_id: str
    title: str
    session: str
    agent: str
    scope: list[str]
    expires_at: datetime | None


@strawberry.type(description="What a record became: the entry it created (or merged into, "
                             "if a near-duplicate), or the links a touch or commit made.")
class Recorded:
    kind: str
    id: str | None = strawberry.field(description="the entry's Relay id (as Entry.id)")
    key: str | None = strawberry.field(description="the entry's graph key (entry:<uuid>)")
    display_id: str | None
    merged: bool
    similarity: float
    at: datetime | None = strawberry.field(description="when it happened (validFrom)")
    unresolved: list[str]
    warnings: list[str]
    intents: list[IntentOverlap] = strawberry.field(description=(
        "active intents of other sessions it falls inside (a recordIntent: that overlap it)"))


@strawberry.type(description="Every record of a batch, in order; all were written.")
class RecordedBatch:
    records: list[Recorded]


@strawberry.type(description="An active entry a refused write contradicts.")
class ActiveEntry:
    id: str
    key: str
    display_id: str | None
    title: str | None


@strawberry.type(description="The write contradicts active entries in an overlapping scope "
                             "(or supersedes one that is no longer active): nothing was "
                             "written. Choices: supersede them, narrow the scope, or abort.")
class Conflict:
    message: str
    active: list[ActiveEntry]
    choices: list[str]
    suggestion: str
    index: int = strawberry.field(description="which record of the batch (0 for a single one)")


@strawberry.type(description="The write was refused: an invalid record or a link to nothing "
                             "(`reference`, with the `closest` nodes that exist); nothing "
                             "was written.")
class Rejected:
    code: str
    message: str
    suggestion: str
    reference: str | None
    closest: list[str]
    index: int = strawberry.field(description="which record of the batch (0 for a single one)")


RecordPayload = Annotated[Recorded | Conflict | Rejected, strawberry.union("RecordPayload")]
RecordBatchPayload = Annotated[RecordedBatch | Conflict | Rejected,
                               strawberry.union("RecordBatchPayload")]

def _dict(rec: RecordInput) -> dict[str, Any]:
    """A record input as a session event (without session and time)."""
    data: dict[str, Any] = {
        "type": rec.type.value, "id": rec.key, "title": rec.title, "content": rec.content,
        "category": rec.category, "scope": rec.scope, "supersedes": plain_ids(rec.supersedes),
        "reason": rec.reason, "evidence": rec.evidence, "symbols": plain_ids(rec.symbols),
        "files": plain_ids(rec.files), "commits": plain_ids(rec.commits),
        "papers": plain_ids(rec.papers), "based_on": plain_ids(rec.based_on),
        "error": rec.error, "approach": rec.approach, "context": rec.context,
        "file": plain_id(rec.file) if rec.file else None, "outcome": rec.outcome,
        "expires_at": rec.expires_at.isoformat() if rec.expires_at else None,
        "paths": plain_ids(rec.paths), "sha": rec.sha, "at": rec.at}
    if rec.failure:
        data["resolves"] = [plain_id(rec.failure)]
    if rec.resolution:
        data["resolution"] = plain_id(rec.resolution)
    return data


def _answer(result: RecordResult, intents: list[IntentNotice]) -> Recorded:
    notices = [IntentOverlap(id=_relay(i.id), key=i.id, display_id=i.display_id,
                             title=i.title, session=i.session, agent=i.agent,
                             scope=list(i.scope), expires_at=i.expires_at) for i in intents]
    warnings = list(result.warnings) + [
        f"inside {i.display_id} {i.title!r}, an active intent of session {i.session}"
        f"{f' ({i.agent})' if i.agent else ''}" for i in intents]
    return Recorded(kind=result.kind, id=_relay(result.id) or None, key=result.id or None,
                    display_id=result.display_id or None, merged=result.merged,
                    similarity=result.similarity, at=result.at,
                    unresolved=list(result.unresolved), warnings=warnings, intents=notices)


async def record(info: strawberry.Info, session: str,
                 records: list[RecordInput]) -> RecordedBatch | Conflict | Rejected:
    """Write ``records`` in one transaction (all or nothing) through a strict Recorder;
    answer each with the intents of other sessions it falls inside."""
    context: Context = info.context
    data = [_dict(r) for r in records]

    def call(store: Any) -> list[Recorded]:
        return [_answer(r, list(i)) for r, i in record_events(store, session, data)]

    try:
        return RecordedBatch(records=await context.write(call))
    except ConflictError as exc:
        return Conflict(message=exc.message, choices=list(exc.choices),
                        suggestion=exc.suggestion, index=getattr(exc, "index", 0),
                        active=[ActiveEntry(id=_relay(a.get("id", "")), key=a.get("id", ""),
                                            display_id=a.get("display_id"),
                                            title=a.get("title")) for a in exc.active])
    except (SessionFormatError, NodeNotFoundError) as exc:
        closest = list(getattr(exc, "closest", ()))
        reference = getattr(exc, "node_id", None) or None
        return Rejected(code=exc.code, message=exc.message, suggestion=exc.suggestion,
                        reference=reference, closest=closest, index=getattr(exc, "index", 0))


async def record_one(info: strawberry.Info, session: str,
                     rec: RecordInput) -> Recorded | Conflict | Rejected:
    """A single record mutation: a batch of one."""
    answer = await record(info, session, [rec])
    return answer.records[0] if isinstance(answer, RecordedBatch) else answer
