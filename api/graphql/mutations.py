"""Mutations: the history write API (``ingest.sessions.Recorder``) over GraphQL.

Every fact a session log can hold, an agent can record here, with the same rules: entries with
links to symbols, files, commits and papers, outcomes, files read or modified, commits; and
``record`` takes several in one transaction. A refused write is an answer, not an exception:
the record mutations return a union — ``Recorded``, ``Conflict`` (naming the active entries
it contradicts and what to do) or ``Rejected`` (an invalid record, or a link to nothing with
the closest nodes that exist). Types and the shared path: :mod:`api.graphql.records`.
"""

from datetime import datetime
from typing import Annotated, Any

import strawberry
from strawberry.scalars import JSON

from api.graphql.context import Context
from api.graphql.jobs import IngestJob
from api.graphql.operate import backup, export, remove
from api.graphql.records import (
    RecordBatchPayload,
    RecordInput,
    RecordPayload,
    RecordType,
    record,
    record_one,
)
from ingest.sessions.record import Recorder
from schema import QueryError

__all__ = ["Mutation"]


@strawberry.type(description="A session is open for records.")
class SessionStarted:
    session: str


@strawberry.type(description="A session was closed.")
class SessionEnded:
    session: str
    summary: str
    outcome: str


def _arg(description: str) -> Any:
    return strawberry.argument(description=description)


_Session = Annotated[str, _arg("the session's id (from startSession)")]
_Scope = Annotated[list[str] | None, _arg(
    "paths or globs (`graphdb/**`) it applies to: impact, provenance and the entries of code "
    "inside return it, marked 'in scope: <glob>'")]
_Supersedes = Annotated[list[str] | None, _arg(
    "the active entries it replaces: Relay ids, keys (entry:...) or display ids (DEC-3)")]
_Symbols = Annotated[list[str] | None, _arg(
    "symbols it is about: Relay ids, keys (sym:...), `path#qualname` or a unique qualname")]
_Files = Annotated[list[str] | None, _arg("files it is about: paths, keys or Relay ids")]
_Commits = Annotated[list[str] | None, _arg("commits it is about: shas or unique prefixes")]
_Papers = Annotated[list[str] | None, _arg(
    "papers it cites: DOI, arXiv id, paper key, Relay id or exact title")]
_BasedOn = Annotated[list[str] | None, _arg("papers the decision rests on (as papers)")]
_At = Annotated[datetime | None, _arg("when it happened (default: now)")]
_Key = Annotated[str | None, _arg(
    "its own name in the session, for later records to point at (supersedes, failure)")]


@strawberry.type(description="Record what agents and people decide, try and learn "
                             "(needs a token with the write scope).")
class Mutation:
    @strawberry.mutation(description="Open a session (a fresh id if none is given). Entries "
                                     "of a session with an agent have source `session`.")
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
                          outcome: str = "") -> SessionEnded:
        context: Context = info.context
        await context.write(lambda store: Recorder(store, session=session).end_session(
            summary, outcome))
        return SessionEnded(session=session, summary=summary, outcome=outcome)

    @strawberry.mutation(description="Several records in one transaction, in order, all or "
                                     "nothing: a refusal names the record (`index`).")
    async def record(self, info: strawberry.Info, session: _Session,
                     records: list[RecordInput]) -> RecordBatchPayload:
        return await record(info, session, records)

    @strawberry.mutation(description="A decision; `supersedes` replaces the active ones it "
                                     "overlaps.")
    async def record_decision(self, info: strawberry.Info, session: _Session, title: str,
                              content: str = "", category: str = "", scope: _Scope = None,
                              supersedes: _Supersedes = None, reason: str = "",
                              evidence: str = "", symbols: _Symbols = None,
                              files: _Files = None, commits: _Commits = None,
                              papers: _Papers = None, based_on: _BasedOn = None,
                              at: _At = None, key: _Key = None) -> RecordPayload:
        return await record_one(info, session, RecordInput(
            type=RecordType.DECISION, title=title, content=content, category=category,
            scope=scope, supersedes=supersedes, reason=reason, evidence=evidence,
            symbols=symbols, files=files, commits=commits, papers=papers, based_on=based_on,
            at=at, key=key))

    @strawberry.mutation(description="A pattern (a way of doing things that works), "
                                     "optionally superseding earlier ones.")
    async def record_pattern(self, info: strawberry.Info, session: _Session, title: str,
                             content: str = "", category: str = "", scope: _Scope = None,
                             supersedes: _Supersedes = None, reason: str = "",
                             evidence: str = "", symbols: _Symbols = None,
                             files: _Files = None, commits: _Commits = None,
                             papers: _Papers = None, at: _At = None,
                             key: _Key = None) -> RecordPayload:
        return await record_one(info, session, RecordInput(
            type=RecordType.PATTERN, title=title, content=content, category=category,
            scope=scope, supersedes=supersedes, reason=reason, evidence=evidence,
            symbols=symbols, files=files, commits=commits, papers=papers, at=at, key=key))

    @strawberry.mutation(description="A failure; its signature groups it with the same "
                                     "failure elsewhere.")
    async def record_failure(self, info: strawberry.Info, session: _Session, error: str,
                             title: str = "", approach: str = "", context: str = "",
                             file: str = "", category: str = "", scope: _Scope = None,
                             symbols: _Symbols = None, files: _Files = None,
                             commits: _Commits = None, papers: _Papers = None,
                             at: _At = None, key: _Key = None) -> RecordPayload:
        return await record_one(info, session, RecordInput(
            type=RecordType.FAILURE, error=error, title=title, approach=approach,
            context=context, file=file, category=category, scope=scope, symbols=symbols,
            files=files, commits=commits, papers=papers, at=at, key=key))

    @strawberry.mutation(description="What was done about a failure, with a first outcome.")
    async def record_resolution(self, info: strawberry.Info, session: _Session,
                                failure: str, title: str, content: str = "",
                                approach: str = "", outcome: str = "pending",
                                symbols: _Symbols = None, files: _Files = None,
                                commits: _Commits = None, papers: _Papers = None,
                                at: _At = None, key: _Key = None) -> RecordPayload:
        return await record_one(info, session, RecordInput(
            type=RecordType.RESOLUTION, failure=failure, title=title, content=content,
            approach=approach, outcome=outcome, symbols=symbols, files=files,
            commits=commits, papers=papers, at=at, key=key))

    @strawberry.mutation(description="A later outcome of a resolution (a new edge, never an "
                                     "edit).")
    async def record_outcome(self, info: strawberry.Info, session: _Session, resolution: str,
                             outcome: str, at: _At = None) -> RecordPayload:
        return await record_one(info, session, RecordInput(
            type=RecordType.OUTCOME, resolution=resolution, outcome=outcome, at=at))

    @strawberry.mutation(description="Something learned (no conflict rule applies).")
    async def record_insight(self, info: strawberry.Info, session: _Session, title: str,
                             content: str = "", category: str = "", scope: _Scope = None,
                             symbols: _Symbols = None, files: _Files = None,
                             commits: _Commits = None, papers: _Papers = None,
                             at: _At = None, key: _Key = None) -> RecordPayload:
        return await record_one(info, session, RecordInput(
            type=RecordType.INSIGHT, title=title, content=content, category=category,
            scope=scope, symbols=symbols, files=files, commits=commits, papers=papers,
            at=at, key=key))

    @strawberry.mutation(description="A note.")
    async def record_note(self, info: strawberry.Info, session: _Session, title: str,
                          content: str = "", scope: _Scope = None, symbols: _Symbols = None,
                          files: _Files = None, commits: _Commits = None,
                          papers: _Papers = None, at: _At = None,
                          key: _Key = None) -> RecordPayload:
        return await record_one(info, session, RecordInput(
            type=RecordType.NOTE, title=title, content=content, scope=scope,
            symbols=symbols, files=files, commits=commits, papers=papers, at=at, key=key))

    @strawberry.mutation(description="What a session means to change, until it expires. "
                                     "`intents` on the answer: the active intents of other "
                                     "sessions whose scope overlaps.")
    async def record_intent(self, info: strawberry.Info, session: _Session, title: str,
                            content: str = "", scope: _Scope = None,
                            expires_at: datetime | None = None, symbols: _Symbols = None,
                            files: _Files = None, at: _At = None,
                            key: _Key = None) -> RecordPayload:
        return await record_one(info, session, RecordInput(
            type=RecordType.INTENT, title=title, content=content, scope=scope,
            expires_at=expires_at, symbols=symbols, files=files, at=at, key=key))

    @strawberry.mutation(description="Files (and symbols) the session read.")
    async def record_files_read(self, info: strawberry.Info, session: _Session,
                                paths: list[str], at: _At = None) -> RecordPayload:
        return await record_one(info, session, RecordInput(
            type=RecordType.FILE_READ, paths=paths, at=at))

    @strawberry.mutation(description="Files the session modified; `intents` on the answer: "
                                     "other sessions' active intents they fall inside.")
    async def record_files_modified(self, info: strawberry.Info, session: _Session,
                                    paths: list[str], at: _At = None) -> RecordPayload:
        return await record_one(info, session, RecordInput(
            type=RecordType.FILE_MODIFIED, paths=paths, at=at))

    @strawberry.mutation(description="A commit the session made (full or unique short sha).")
    async def record_commit(self, info: strawberry.Info, session: _Session, sha: str,
                            at: _At = None) -> RecordPayload:
        return await record_one(info, session, RecordInput(
            type=RecordType.COMMIT, sha=sha, at=at))

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

    @strawberry.mutation(description="Copy the database (graph, write-ahead log, keyword "
                                     "index, vectors, tokens) into the new directory "
                                     "`directory` on the server, consistently: writes wait "
                                     "while it copies, reads go on (admin scope).")
    async def backup(self, info: strawberry.Info, directory: str) -> JSON:
        return await backup(info, directory)

    @strawberry.mutation(description="Write every table as Parquet into the new directory "
                                     "`directory` on the server (admin scope; "
                                     "docs/operate.md).")
    async def export_graph(self, info: strawberry.Info, directory: str) -> JSON:
        return await export(info, directory)

    @strawberry.mutation(description="Remove a repository and what derives from it; other "
                                     "repositories' references to it are re-resolved "
                                     "(admin scope).")
    async def remove_repository(self, info: strawberry.Info, name: str) -> JSON:
        return await remove(info, name)
