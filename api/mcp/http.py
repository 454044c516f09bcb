"""``/mcp`` on ``vgdb serve``: MCP over streamable HTTP (stateless, JSON answers) in the
GraphQL server's Starlette app, with its API tokens.

A request with a bad token, or without one where anonymous reading is off, is answered 401
before MCP sees it (GraphQL's error object in ``errors``); a valid token's scope decides
which tools the caller sees and may call.
"""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from api.mcp.server import Caller, McpSettings, build_server
from api.write_lock import WriteLock
from graphdb import Store
from graphdb.tokens import TokenStore
from schema import AuthError

__all__ = ["McpEndpoint"]

_LOOPBACK = ("127.0.0.1", "localhost", "::1")


class McpEndpoint:
    """The ASGI endpoint for ``/mcp``; enter :meth:`lifespan` with the app's."""

    def __init__(self, store: Store, *, tokens: TokenStore, settings: McpSettings,
                 write_lock: WriteLock, host: str | None = None) -> None:
        self.tokens = tokens
        self.settings = settings
        server = build_server(lambda: store, caller_of=_caller, settings=settings,
                              write_lock=write_lock)
        security = None
        if host in _LOOPBACK:  # DNS rebinding: a web page must not reach a local server
            security = TransportSecuritySettings(
                enable_dns_rebinding_protection=True,
                allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
                allowed_origins=["http://127.0.0.1:*", "http://localhost:*",
                                 "http://[::1]:*"])
        self.manager = StreamableHTTPSessionManager(app=server, stateless=True,
                                                    json_response=True,
                                                    security_settings=security)

    @asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        async with self.manager.run():
            yield

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        header = Headers(scope=scope).get("authorization", "")
        try:
            caller = Caller()
            if header:
                kind, _, secret = header.partition(" ")
                if kind.lower() != "bearer" or not secret.strip():
                    raise AuthError("the Authorization header must be `Bearer <token>`")
                caller = Caller(token=self.tokens.verify(secret.strip()))
            elif not self.settings.allow_anonymous:
                raise AuthError("this server needs an API token",
                                suggestion="send `Authorization: Bearer <token>` (create one "
                                           "with `vgdb token create NAME --scope read`)")
        except AuthError as exc:
            error = {"message": exc.message, "extensions": {
                "code": exc.code, **({"suggestion": exc.suggestion} if exc.suggestion else {})}}
            await JSONResponse({"errors": [error]}, status_code=401,
                               headers={"www-authenticate": "Bearer"})(scope, receive, send)
            return
        scope.setdefault("state", {})["vgdb_caller"] = caller
        await self.manager.handle_request(scope, receive, send)


def _caller(request: Any) -> Caller:
    state = getattr(request, "scope", {}).get("state") or {}
    return state.get("vgdb_caller") or Caller()
