"""The MCP server (official ``mcp`` SDK, low-level ``Server``): tools from
:mod:`api.mcp.tools` over stdio (``vgdb mcp``) or streamable HTTP (``/mcp`` on ``vgdb serve``).

Access is GraphQL's: read tools need the read scope (or anonymous reading allowed), write
tools the write scope and a database opened read-write; a caller is shown only the tools it
may call. Errors are tool results with ``isError`` and GraphQL's error object as JSON text:
``{"message", "extensions": {"code", "suggestion", ...}}``; anything that is not a
``VgdbError`` is masked as ``INTERNAL`` with a request id, and logged.
"""

import json
import logging
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import anyio.to_thread
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.lowlevel.server import NotificationOptions

from api.graphql.cost import CostLimitError, too_expensive, work
from api.mcp import compact
from api.mcp.tools import DEFAULT_TOKENS, READ, TOOLS, WRITE, McpTool
from api.write_lock import WriteLock
from graphdb import Store, deadline
from graphdb.tokens import SCOPES, ApiToken
from schema import (
    AuthError,
    ConflictError,
    PermissionDeniedError,
    QueryError,
    VgdbError,
)

__all__ = ["Caller", "McpSettings", "build_server"]

log = logging.getLogger("vgdb.mcp")


@dataclass(frozen=True)
class McpSettings:
    """``allow_anonymous``: callers without a token may read (never write).
    ``writable_hint``: how to get a read-write database, quoted when a write is refused."""

    allow_anonymous: bool = False
    writable_hint: str = "start it with `vgdb serve --writable`"
    #: seconds a tool call may run, everything included (graphdb.deadline); None: no limit
    timeout: float | None = 10.0
    #: GraphQL's cost limit, for the work arguments of impact, affected_tests and search
    max_cost: int = 50_000


@dataclass(frozen=True)
class Caller:
    """Who calls: a verified token, or none. ``local``: the scope of the stdio process's own
    user (read, or write when it opened the database read-write)."""

    token: ApiToken | None = None
    local: str | None = None

    def may(self, scope: str, settings: McpSettings) -> bool:
        if self.local is not None:
            return SCOPES.index(self.local) >= SCOPES.index(scope)
        if self.token is None:
            return scope == READ and settings.allow_anonymous
        return self.token.allows(scope)

    def limits(self, settings: McpSettings) -> McpSettings:
        """``settings`` with this caller's token's own limits, where lower."""
        token = self.token
        if token is None:
            return settings
        timeout = settings.timeout
        if token.timeout is not None:
            timeout = token.timeout if timeout is None else min(timeout, token.timeout)
        return replace(settings, timeout=timeout,
                       max_cost=min(settings.max_cost, token.max_cost or settings.max_cost))

    def refusal(self, scope: str, settings: McpSettings) -> VgdbError:
        """GraphQL's refusal for the same request (api/graphql/schema.py)."""
        if self.local is not None:
            return QueryError("this MCP server opened the database read-only",
                              suggestion=settings.writable_hint)
        if self.token is None:
            return AuthError(f"this server needs an API token to {scope}",
                             suggestion="send `Authorization: Bearer <token>` (create one with "
                                        f"`vgdb token create NAME --scope {scope}`)")
        return PermissionDeniedError(
            f"API token {self.token.id} ({self.token.name}) has scope {self.token.scope}; "
            f"this needs {scope}", suggestion=f"use a token with the {scope} scope")


def error_result(exc: BaseException, request_id: str) -> types.CallToolResult:
    """A tool error shaped as GraphQL's error object."""
    if isinstance(exc, VgdbError):
        extensions: dict[str, Any] = {"code": exc.code}
        if exc.suggestion:
            extensions["suggestion"] = exc.suggestion
        if isinstance(exc, CostLimitError):
            extensions = exc.extensions
        if isinstance(exc, ConflictError):
            extensions["active"] = [{"id": a.get("display_id") or a.get("id"),
                                     "title": a.get("title")} for a in exc.active]
            extensions["choices"] = list(exc.choices)
        for attr in ("node_id", "closest"):
            if getattr(exc, attr, None):
                extensions["reference" if attr == "node_id" else attr] = (
                    list(getattr(exc, attr)) if attr == "closest" else getattr(exc, attr))
        body = {"message": exc.message, "extensions": extensions}
    else:
        log.error("internal error in MCP request %s", request_id, exc_info=exc,
                  extra={"request_id": request_id})
        body = {"message": f"internal error (request id {request_id})",
                "extensions": {"code": "INTERNAL", "request_id": request_id}}
    return types.CallToolResult(content=[types.TextContent(text=compact.dumps(body))],
                                is_error=True)


def _tool(t: McpTool) -> types.Tool:
    return types.Tool(name=t.name, description=t.description, input_schema=t.schema,
                      annotations=types.ToolAnnotations(read_only_hint=t.scope == READ))


def build_server(store_of: Callable[[], Store], *, caller_of: Callable[[Any], Caller],
                 settings: McpSettings, write_lock: WriteLock) -> Server[Any]:
    """An MCP server over the store ``store_of()`` returns (it may raise, e.g. a locked
    database: that becomes the tool's error). ``caller_of(request)`` names who calls (the
    HTTP request; None on stdio)."""
    import jsonschema

    validators = {name: jsonschema.Draft202012Validator(t.schema) for name, t in TOOLS.items()}

    def usable(t: McpTool, caller: Caller) -> bool:
        return caller.may(t.scope, settings)

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        caller = caller_of(ctx.request)
        return types.ListToolsResult(tools=[_tool(t) for t in TOOLS.values()
                                            if usable(t, caller)])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        request_id = uuid.uuid4().hex[:12]
        try:
            t = TOOLS.get(params.name)
            if t is None:
                raise QueryError(f"no tool named {params.name!r}",
                                 suggestion="list the tools: " + ", ".join(TOOLS))
            caller = caller_of(ctx.request)
            if not usable(t, caller):
                raise caller.refusal(t.scope, settings)
            arguments = dict(params.arguments or {})
            problems = sorted(validators[t.name].iter_errors(arguments), key=str)
            if problems:
                where = ".".join(str(p) for p in problems[0].absolute_path) or "arguments"
                raise QueryError(f"invalid {where}: {problems[0].message}",
                                 suggestion=f"see the input schema of {t.name}")
            limits = caller.limits(settings)
            answer = await _answer(t, lambda: _run(t, store_of, arguments, limits, write_lock),
                                   limits.timeout)
        except Exception as exc:  # the one place errors become answers
            return error_result(exc, request_id)
        return types.CallToolResult(content=[types.TextContent(text=compact.dumps(answer))])

    def input_schema(name: str) -> Mapping[str, Any] | None:
        t = TOOLS.get(name)
        return t.schema if t else None

    server: Server[Any] = Server(
        "vgdb", version=_version(), get_tool_input_schema=input_schema,
        instructions="VectorGraphDB: code, git history, agents' decisions and papers as one "
                     "graph. Answers are compact JSON with ids to pass to the next call.",
        on_list_tools=list_tools, on_call_tool=call_tool)
    server.notification_options = NotificationOptions()  # tools never change at run time
    return server


async def _answer(t: McpTool, call: Callable[[], dict[str, Any]],
                  timeout: float | None) -> dict[str, Any]:
    """``call()`` in a worker thread; a read still running at the deadline is abandoned
    (the thread stops at its next deadline check), a write never is."""
    if t.scope == WRITE or timeout is None:
        return await anyio.to_thread.run_sync(call)
    with anyio.move_on_after(timeout + 0.05):  # after: the thread's own error goes first
        return await anyio.to_thread.run_sync(call, abandon_on_cancel=True)
    raise deadline.Deadline(timeout, 0.0).error()


def _run(t: McpTool, store_of: Callable[[], Store], arguments: dict[str, Any],
         settings: McpSettings, write_lock: WriteLock) -> dict[str, Any]:
    """One tool call under the request's deadline and GraphQL's cost limit."""
    cost = work(t.name, arguments)
    if cost > settings.max_cost:
        raise too_expensive(cost, settings.max_cost)
    with deadline.within(settings.timeout):
        store = store_of()
        if t.scope == WRITE:
            if store.read_only:
                raise QueryError("this server opened the database read-only",
                                 suggestion=settings.writable_hint)
            with write_lock.hold(f"the MCP tool {t.name}"):
                return t.run(store, arguments)
        answer = t.run(store, arguments)
        deadline.check()  # the answer is built: no later than the deadline either
        return compact.cap(answer, int(arguments.get("max_tokens") or DEFAULT_TOKENS))


def _version() -> str:
    from importlib.metadata import version

    return version("vectorgraphdb")


def harness_config(*, db: str, command: str, writable: bool = False,
                   url: str | None = None) -> dict[str, Any]:
    """The ``mcpServers`` entry a harness (Claude Desktop, Claude Code) needs."""
    if url:
        return {"mcpServers": {"vgdb": {"type": "http", "url": url,
                                        "headers": {"Authorization": "Bearer ${VGDB_TOKEN}"}}}}
    args = ["mcp", "--db", db, *(["--writable"] if writable else [])]
    return {"mcpServers": {"vgdb": {"type": "stdio", "command": command, "args": args}}}


def dumps_config(config: dict[str, Any]) -> str:
    return json.dumps(config, indent=2)
