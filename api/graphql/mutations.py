"""Mutations: the history write API (``ingest.sessions.Recorder``) over GraphQL.

A rejected write is an answer, not an exception: every record mutation returns the union
``RecordPayload`` — ``Recorded``, ``Conflict`` (naming the active entries it contradicts and
what to do) or ``Rejected`` (an invalid event, or a reference to nothing).
"""

from datetime import datetime
from typing import Annotated, Any

import strawberry

from api.graphql.context import Context
from api.graphql.derive import from_result, object_type
from api.graphql.jobs import IngestJob
from ingest.sessions.record import Recorder, RecordResult
from schema import ConflictError, NodeNotFoundError, QueryError, SessionFormatError

__all__ = ["Mutation"]

Recorded = object_type(RecordResult, name="Recorded",
                       description="The entry a call created (or merged into, if a duplicate).")


@strawberry.type(description="An active entry a rejected write contradicts.")
class ActiveEntry:
    id: str
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


@strawberry.type(description="The write was refused: an invalid event or a reference to "
                             "nothing; nothing was written.")
class Rejected:
    code: str
    message: str
    suggestion: str


RecordPayload = Annotated[Recorded | Conflict | Rejected,
                          strawberry.union("RecordPayload")]


@strawberry.type(description="A session is open for records.")
class SessionStarted:
    session: str


async def _record(info: strawberry.Info, session: str, method: str, *args: Any,
                  **kwargs: Any) -> Any:
    context: Context = info.context

    def call(store: Any) -> RecordResult:
        return getattr(Recorder(store, session=session), method)(*args, **kwargs)

    try:
        return from_result(await context.write(call))
    except ConflictError as exc:
        return Conflict(message=exc.message, choices=list(exc.choices),
                        suggestion=exc.suggestion,
                        active=[ActiveEntry(id=a.get("id", ""), display_id=a.get("display_id"),
                                            title=a.get("title")) for a in exc.active])
    except (SessionFormatError, NodeNotFoundError) as exc:
        return Rejected(code=exc.code, message=exc.message, suggestion=exc.suggestion)


def _clean(**values: Any) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


@strawberry.type(description="Record what agents and people decide, try and learn "
                             "(needs a token with the write scope).")
class Mutation:
    @strawberry.mutation(description="Open a session (a fresh id if none is given).")
    async def start_session(self, info: strawberry.Info, session: str | None = None,
                            title: str = "", agent: str = "", model: str = "",
                            repo: str = "") -> SessionStarted:
        context: Context = info.context

        def call(store: Any) -> str:
            recorder = Recorder(store, session=session, title=title, agent=agent,
                                model=model, repo=repo)
            recorder.start_session()
            return recorder.session

        return SessionStarted(session=await context.write(call))

    @strawberry.mutation(description="Close a session with its summary and outcome.")
    async def end_session(self, info: strawberry.Info, session: str, summary: str = "",
                          outcome: str = "") -> SessionStarted:
        context: Context = info.context
        await context.write(lambda store: Recorder(store, session=session).end_session(
            summary, outcome))
        return SessionStarted(session=session)

    @strawberry.mutation(description="A decision; `supersedes` (ids or display ids) "
                                     "replaces the active ones it overlaps.")
    async def record_decision(self, info: strawberry.Info, session: str, title: str,
                              content: str = "", category: str = "",
                              scope: list[str] | None = None,
                              supersedes: list[str] | None = None, reason: str = "",
                              evidence: str = "") -> RecordPayload:
        return await _record(info, session, "record_decision", title, content,
                             **_clean(category=category, scope=scope or [],
                                      supersedes=supersedes or [], reason=reason,
                                      evidence=evidence))

    @strawberry.mutation(description="A pattern (a way of doing things that works), "
                                     "optionally superseding earlier ones.")
    async def record_pattern(self, info: strawberry.Info, session: str, title: str,
                             content: str = "", category: str = "",
                             scope: list[str] | None = None,
                             supersedes: list[str] | None = None, reason: str = "",
                             evidence: str = "") -> RecordPayload:
        return await _record(info, session, "record_pattern", title, content,
                             **_clean(category=category, scope=scope or [],
                                      supersedes=supersedes or [], reason=reason,
                                      evidence=evidence))

    @strawberry.mutation(description="A failure; its signature groups it with the same "
                                     "failure elsewhere.")
    async def record_failure(self, info: strawberry.Info, session: str, error: str,
                             title: str = "", approach: str = "", context: str = "",
                             file: str = "", category: str = "") -> RecordPayload:
        return await _record(info, session, "record_failure", error, title=title,
                             approach=approach, context=context, file=file, category=category)

    @strawberry.mutation(description="What was done about a failure, with a first outcome.")
    async def record_resolution(self, info: strawberry.Info, session: str, failure: str,
                                title: str, content: str = "", approach: str = "",
                                outcome: str = "pending") -> RecordPayload:
        return await _record(info, session, "record_resolution", failure, title, content,
                             approach=approach, outcome=outcome)

    @strawberry.mutation(description="A later outcome of a resolution (a new edge, never an "
                                     "edit).")
    async def record_outcome(self, info: strawberry.Info, session: str, resolution: str,
                             outcome: str) -> RecordPayload:
        return await _record(info, session, "record_outcome", resolution, outcome)

    @strawberry.mutation(description="Ingest (or update) the tree at `path` on the server, in "
                                     "the background (admin scope). Follow it with "
                                     "`ingestJob(id)`; readers are never blocked.")
    async def ingest(self, info: strawberry.Info, path: str, name: str | None = None,
                     history: bool = True) -> IngestJob:
        context: Context = info.context
        context.require("admin")
        if context.store.read_only or context.jobs is None:
            raise QueryError("this server opened the database read-only",
                             suggestion="start it with `vgdb serve --writable`")
        return context.jobs.start(path, name=name, history=history)

    @strawberry.mutation(description="What a session means to change, until it expires.")
    async def record_intent(self, info: strawberry.Info, session: str, title: str,
                            content: str = "", scope: list[str] | None = None,
                            expires_at: datetime | None = None) -> RecordPayload:
        return await _record(info, session, "record_intent", title, content,
                             scope=scope or [], expires_at=expires_at)
