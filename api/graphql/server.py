"""The HTTP server: GraphQL at ``/graphql`` (POST and GET; GET answers carry an ETag and
honour ``If-None-Match``), MCP at ``/mcp`` (streamable HTTP, :mod:`api.mcp.http`),
``/healthz``, and one JSON log line per request (with the request
id that error messages quote).
"""

import hashlib
import json
import logging
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from strawberry.asgi import GraphQL

from api.graphql.context import WRITE_LOCK, Context, Settings
from api.graphql.jobs import IngestJobs
from api.graphql.schema import build_schema
from api.web import explorer_routes
from graphdb import Store, deadline
from graphdb.tokens import TokenStore
from queries.impact.adjacency import status as adjacency_status
from schema import AuthError

__all__ = ["create_app", "serve", "watch_trees"]

log = logging.getLogger("vgdb.api")
_STATIC = Path(__file__).resolve().parent / "static"


class _JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {"time": self.formatTime(record), "level": record.levelname,
                                "logger": record.name, "message": record.getMessage()}
        for key in ("request_id", "method", "path", "status", "ms", "queries"):
            if hasattr(record, key):
                data[key] = getattr(record, key)
        if record.exc_info:
            data["traceback"] = self.formatException(record.exc_info)
        return json.dumps(data, default=str)


def configure_logging(level: int = logging.INFO) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_JsonFormatter())
    root = logging.getLogger("vgdb")
    root.handlers[:] = [handler]
    root.setLevel(level)
    root.propagate = False


class _GraphQL(GraphQL):
    def __init__(self, store: Store, settings: Settings) -> None:
        super().__init__(build_schema(settings), graphql_ide="graphiql",
                         allow_queries_via_get=True)
        self.store = store
        self.settings = settings
        self.tokens = TokenStore(store.path)
        self.jobs = IngestJobs(store, WRITE_LOCK)

    def encode_json(self, data: object) -> str:
        """The answer as JSON, within the response size limit and the deadline: serialising
        a large answer is the request's work too, so an answer finished past the deadline is
        replaced by the deadline's error (never sent late and whole). An answer that is
        already an error (BUSY at the deadline, 401, TOO_EXPENSIVE) is sent as it is: it
        says why."""
        failed = isinstance(data, dict) and bool(data.get("errors"))
        late = None if failed else _late()
        text = super().encode_json(data) if late is None else ""
        late = late or (None if failed else _late())
        if late is not None:
            return json.dumps({"data": None, "errors": [{
                "message": late.message,
                "extensions": {"code": late.code, "suggestion": late.suggestion}}]})
        if len(text) > self.settings.max_response:
            return json.dumps({"data": None, "errors": [{
                "message": f"answer of {len(text):,} bytes is over the limit of "
                           f"{self.settings.max_response:,}",
                "extensions": {"code": "TOO_LARGE",
                               "suggestion": "ask for less (smaller pages, fewer fields)"}}]})
        return text

    async def render_graphql_ide(self, request: Request) -> Response:
        """GraphiQL from the bundled scripts (strawberry's page loads them from CDNs)."""
        return HTMLResponse((_STATIC / "graphiql.html").read_text(encoding="utf-8"))

    async def get_context(self, request: Request, response: Response) -> Context:
        context = Context(self.store, self.settings, jobs=self.jobs)
        header = request.headers.get("authorization", "")
        if header:
            scheme, _, secret = header.partition(" ")
            try:
                if scheme.lower() != "bearer" or not secret.strip():
                    raise AuthError("the Authorization header must be `Bearer <token>`")
                context.token = self.tokens.verify(secret.strip())
            except AuthError as exc:
                context.auth_error = exc
        if context.token is not None:  # the token's own limits, where lower
            deadline.tighten(context.token.timeout, since=context.started)
            if context.token.max_cost:
                context.max_cost = min(context.token.max_cost, self.settings.max_cost)
        context.response = response
        request.state.context = context
        response.headers["x-request-id"] = context.request_id
        return context


def create_app(store: Store, settings: Settings | None = None, *,
               host: str | None = None, owner_token: str | None = None) -> Starlette:
    """The ASGI application serving ``store`` (``host``: the address it listens on; MCP
    refuses other Host headers on a loopback address; ``owner_token``: the CLI's commands
    are run at ``/cli`` for a client holding it, :mod:`api.resident`)."""
    from api.mcp.http import McpEndpoint
    from api.mcp.server import McpSettings
    from api.resident import cli_endpoint
    from api.serve_derive import SettleDerived

    settings = settings or Settings()
    graphql = _GraphQL(store, settings)
    mcp = McpEndpoint(store, tokens=graphql.tokens, write_lock=WRITE_LOCK, host=host,
                      settings=McpSettings(allow_anonymous=settings.allow_anonymous,
                                             timeout=settings.timeout,
                                             max_cost=settings.max_cost))

    async def healthz(request: Request) -> JSONResponse:
        """Up or not, for anyone; where the database is, only for a valid token."""
        rows = store.cypher("RETURN 1 AS ok")
        answer: dict[str, Any] = {"status": "ok", "read_only": store.read_only,
                                  "ok": int(rows["ok"][0]),
                                  "impact_adjacency": adjacency_status(store)}
        scheme, _, secret = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and secret.strip():
            try:
                graphql.tokens.verify(secret.strip())
                answer["database"] = str(store.path)
            except AuthError:
                pass
        return JSONResponse(answer)

    return Starlette(routes=[Route("/healthz", healthz),
                             Route("/graphql", _ConditionalGet(graphql, store),
                                   methods=["GET", "POST"]),
                             Route("/mcp", mcp, methods=["GET", "POST", "DELETE"]),
                             *([Route("/cli", cli_endpoint(store, owner_token),
                                      methods=["POST"])] if owner_token else []),
                             Mount("/graphql/static", StaticFiles(directory=_STATIC)),
                             *explorer_routes()],
                     middleware=[Middleware(_AccessLog, max_body=settings.max_body,
                                            timeout=settings.timeout),
                                 # within the request's deadline: a served update's derived
                                 # data first (api.serve_derive)
                                 Middleware(SettleDerived)],
                     lifespan=lambda app: mcp.lifespan())


class _ConditionalGet:
    """HTTP caching for GraphQL over GET: a 200 answer without errors carries a weak
    ``ETag`` (the global graph version, and a digest of the query string and the
    Authorization header), and a GET whose ``If-None-Match`` names the current one is
    answered ``304 Not Modified`` without running the query. The version is read before
    the query runs, so a write during it changes the next ETag (never a missed change)."""

    def __init__(self, app: ASGIApp, store: Store) -> None:
        self.app = app
        self.store = store

    def etag(self, scope: Scope) -> str:
        headers = dict(scope.get("headers") or ())
        digest = hashlib.blake2b(scope.get("query_string", b"") + b"\0"
                                 + headers.get(b"authorization", b""), digest_size=8)
        return f'W/"{self.store.graph_version()}-{digest.hexdigest()}"'

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET" or \
                b"query=" not in scope.get("query_string", b""):
            await self.app(scope, receive, send)
            return
        etag = self.etag(scope)
        asked = dict(scope.get("headers") or ()).get(b"if-none-match", b"").decode("latin-1")
        if etag in {t.strip() for t in asked.split(",")}:
            await Response(status_code=304, headers={"ETag": etag})(scope, receive, send)
            return
        start: Message | None = None
        body: list[bytes] = []

        async def buffered(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                start = message
                return
            if message["type"] != "http.response.body":
                await send(message)
                return
            body.append(message.get("body", b""))
            if message.get("more_body"):
                return
            assert start is not None
            data = b"".join(body)
            headers = [(k, v) for k, v in start.get("headers", []) if k != b"content-length"]
            if start["status"] == 200 and b'"errors"' not in data:
                headers.append((b"etag", etag.encode("latin-1")))
            headers.append((b"content-length", str(len(data)).encode()))
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": data})

        await self.app(scope, receive, buffered)


class _AccessLog:
    """Starts the request's deadline (:mod:`graphdb.deadline`), refuses bodies over the
    limit (announced by Content-Length, or counted as they are read: a chunked body has
    none), and logs one JSON line per request. Plain ASGI: Starlette's BaseHTTPMiddleware
    would stream every response through a task group and memory channels, about a
    millisecond a request."""

    def __init__(self, app: ASGIApp, *, max_body: int, timeout: float) -> None:
        self.app = app
        self.max_body = max_body
        self.timeout = timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500
        responded = False

        async def sent(message: Message) -> None:
            nonlocal status, responded
            if message["type"] == "http.response.start":
                status, responded = message["status"], True
            await send(message)

        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    raise _TooLarge
            return message

        headers = dict(scope.get("headers") or ())
        size = int(headers.get(b"content-length") or 0)
        try:
            with deadline.within(self.timeout):
                if size > self.max_body:  # refused before the body is read
                    raise _TooLarge
                await self.app(scope, counted, sent)
        except _TooLarge:
            if responded:  # cannot happen: a body is read before the answer starts
                raise
            await JSONResponse(status_code=413, content={"errors": [{
                "message": f"request body over the limit of {self.max_body:,} bytes",
                "extensions": {"code": "TOO_LARGE"}}]},
                headers={"connection": "close"})(scope, receive, sent)
        finally:
            self._log(scope, status, started)

    @staticmethod
    def _log(scope: Scope, status: int, started: float) -> None:
        context = (scope.get("state") or {}).get("context")  # set by _GraphQL.get_context
        method, path = scope["method"], scope["path"]
        log.info("%s %s %s", method, path, status,
                 extra={"method": method, "path": path, "status": status,
                        "ms": round((time.perf_counter() - started) * 1000, 2),
                        **({"request_id": context.request_id, "queries": context.queries}
                           if context else {})})


def _late() -> deadline.DeadlineExceededError | None:
    try:
        deadline.check()
    except deadline.DeadlineExceededError as exc:
        return exc
    return None


class _TooLarge(Exception):
    """The request body went over the limit while it was read."""


def serve(store: Store, *, host: str = "127.0.0.1", port: int = 8765,
          settings: Settings | None = None,
          on_listening: Callable[[str], None] | None = None) -> None:
    """Serve until interrupted (uvicorn, one process; queries run in its thread pool).

    While it runs, ``<db>/server.json`` says where, with an owner token for the CLI's
    commands (:mod:`api.resident`); written once the port is bound (port 0: the one the
    system chose), removed when the server stops. ``on_listening`` is called with the base
    URL once the port is bound (`vgdb serve --json` prints it)."""
    from api.resident import forget_server, new_owner_token, record_server

    configure_logging()
    owner = new_owner_token()
    app = create_app(store, settings, host=host, owner_token=owner)
    sock = socket.create_server((host, port), family=socket.AF_INET6 if ":" in host
                                else socket.AF_INET)
    # inherited by the accepted connections (Linux): without it a kept-alive client waits
    # ~40 ms per answer (Nagle holding the body behind the headers, until a delayed ACK)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    url = f"http://{_url_host(host)}:{sock.getsockname()[1]}"
    record_server(store.path, url, token=owner, writable=not store.read_only)
    if on_listening is not None:
        on_listening(url)
    if threading.current_thread() is threading.main_thread():
        # uvicorn raises the signal that stopped it again once it has; SIGTERM's default
        # action would end the process there, before the record is removed
        signal.signal(signal.SIGTERM, _interrupt)
    try:
        uvicorn.Server(uvicorn.Config(app, log_config=None, access_log=False)).run(
            sockets=[sock])
    except KeyboardInterrupt:
        pass  # uvicorn re-raises SIGINT/SIGTERM after its graceful shutdown: a clean stop
    finally:
        forget_server(store.path)
        sock.close()


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _url_host(host: str) -> str:
    """Where a local client reaches a server listening on ``host``."""
    if host in ("", "0.0.0.0"):
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host


def watch_trees(store: Store, roots: list[Path]) -> threading.Event:
    """``vgdb serve --watch``: apply saved files to the graph in this process, under the
    write lock every other write of the server takes (``ingest.watch``); returns the event
    that stops the watch. Each update is logged as one JSON line."""
    from ingest.watch import Watcher, WatchUpdate, update_tree

    watch_log = logging.getLogger("vgdb.watch")

    def apply(root: Path) -> dict[str, Any]:
        with WRITE_LOCK.hold(f"the watch of {root}"):  # no deadline here: it waits its turn
            return update_tree(store, root)

    def logged(update: WatchUpdate) -> None:
        watch_log.info("updated %s: %s", update.root, ", ".join(update.paths)[:200],
                       extra={"ms": round(update.seconds * 1000, 1)})
        if update.error:
            watch_log.error("update of %s failed: %s", update.root, update.error)

    stop = threading.Event()
    watcher = Watcher(roots, apply, ignore=[store.path])
    threading.Thread(target=watcher.run, args=(logged,), kwargs={"stop": stop}, daemon=True,
                     name="vgdb-watch").start()
    return stop
