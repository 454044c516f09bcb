"""The resident path: CLI query commands answered by the ``vgdb serve`` that holds the database.

One process owns a database (DESIGN §1), and a command that opens it pays for its imports
and the open on every call (~0.7 s before the first byte). So ``vgdb serve`` writes
``<db>/server.json`` (mode 0600: its URL, pid, interpreter and an owner token made at
start), and a read-only query command (:data:`SERVABLE`) run from a shell posts its
arguments to that server's ``/cli`` endpoint with the owner token; the server runs the same
click command in-process on the database it holds (:func:`opened` yields that store) and
sends back what it printed and its exit code (:func:`run_argv`). The output is the same
either way: the server formats for the client's terminal (:class:`api.output.Terminal`).

``vgdb ingest`` (:data:`SERVED_WRITES`) goes to a server that opened the database
read-write (``vgdb serve --writable``, which holds the lock the ingest would need): it runs
in the server's warm process on the store it holds, under the server's write lock.

The client falls back to opening the database itself when no server recorded itself, the
record is stale (its process is gone, or it does not answer), or the server runs another
interpreter (another vgdb install); ``VGDB_NO_SERVER=1`` makes it open the database
itself. Only the same user can read the token (mode 0600); that user can open the database
directly anyway, so the token gives nothing more.

This module imports only the standard library at the top: it runs before every command.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphdb import Store

__all__ = ["SERVABLE", "SERVED_WRITES", "SERVER_FILE", "forget_server", "in_server",
           "new_owner_token", "opened", "read_server", "record_server", "run_argv",
           "run_served", "working_directory"]

#: written by ``vgdb serve`` into the database directory while it runs
SERVER_FILE = "server.json"
#: read-only query commands a running server answers for the CLI
SERVABLE = frozenset({
    "affected-tests", "briefing", "citations", "communities", "cypher", "decisions-based-on",
    "impact", "overview", "paper-code", "provenance", "referenced-papers", "search",
    "supersession"})
#: commands that write, answered by a server that opened the database read-write (``vgdb
#: serve --writable``, which holds the lock an ingest would need): its warm process applies
#: the update under its write lock, the way ``vgdb serve --watch`` does
SERVED_WRITES = frozenset({"ingest"})
#: per write command, its options that take a value (the rest are flags): the first other
#: argument is its PATH, made absolute for the server
_VALUE_OPTIONS = {"ingest": frozenset({
    "--db", "--name", "--exclude", "--max-file-size", "--language", "--workers", "--since",
    "--max-commits"})}
#: options that take a path relative to the client's working directory
_PATH_OPTIONS = ("--root",)
_DEFAULT_DB = ".vgdb"  # graphdb.DEFAULT_DB, not imported: graphdb loads the engine

_RESIDENT: ContextVar[Store | None] = ContextVar("vgdb_resident_store", default=None)
_CWD: ContextVar[Path | None] = ContextVar("vgdb_client_cwd", default=None)


def in_server() -> bool:
    """This command runs inside the ``vgdb serve`` holding its database (:func:`run_argv`):
    it must neither close that store nor end the process."""
    return _RESIDENT.get() is not None


def working_directory() -> Path:
    """The directory the command was run in: the client's, for a served run (its repository's
    config file sets impact's defaults, ``api.config_cli``)."""
    return _CWD.get() or Path.cwd()


# -- the record ----------------------------------------------------------------------------
def new_owner_token() -> str:
    import secrets

    return secrets.token_urlsafe(32)


def record_server(db: Path, url: str, *, token: str | None = None,
                  writable: bool = False) -> None:
    """Say in ``db`` which URL serves it (removed by :func:`forget_server`); readable by
    this user only, since it holds the owner token. ``writable``: it applies
    :data:`SERVED_WRITES` too."""
    tmp = db / f".{SERVER_FILE}.tmp"
    data = {"url": url, "pid": os.getpid(), "db": str(db), "python": sys.executable,
            "writable": writable, **({"token": token} if token else {})}
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        os.fchmod(fh.fileno(), 0o600)  # an older file of the same name kept its mode
        fh.write(json.dumps(data) + "\n")
    os.replace(tmp, db / SERVER_FILE)


def forget_server(db: Path) -> None:
    path = db / SERVER_FILE
    try:
        if json.loads(path.read_text(encoding="utf-8")).get("pid") == os.getpid():
            path.unlink()
    except (OSError, ValueError):
        pass


def read_server(db: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The record of the live server holding ``db``, or None (none, unreadable, or its
    process is gone)."""
    try:
        data = json.loads((Path(db) / SERVER_FILE).read_text(encoding="utf-8"))
        os.kill(int(data["pid"]), 0)
        return data if isinstance(data, dict) and isinstance(data.get("url"), str) else None
    except PermissionError:  # alive, another user's: its token is not ours to use
        return None
    except (OSError, ValueError, KeyError, TypeError):
        return None


# -- the client ----------------------------------------------------------------------------
def run_served(args: list[str]) -> int | None:
    """Run the command ``args`` on the server holding its database and print its output;
    its exit code, or None when it must run here (not servable, no live server)."""
    if not args or args[0] not in SERVABLE | SERVED_WRITES or _asks_help(args) or \
            os.environ.get("VGDB_NO_SERVER"):
        return None
    if args[0] == "communities" and "--detect" in args:
        return None  # a write
    db = Path(_option(args, "--db") or os.environ.get("VGDB_DB") or _DEFAULT_DB)
    db = db.expanduser().absolute()
    record = read_server(db)
    if record is None or not record.get("token") or record.get("python") != sys.executable:
        return None
    if args[0] in SERVED_WRITES and not record.get("writable"):
        return None  # a read-only server: the database is opened here (locked: exit 3)
    request = {"argv": _absolute(args, db), "terminal": _terminal(), "cwd": os.getcwd()}
    try:
        answer = _post(record["url"], "/cli", request, token=record["token"])
    except (OSError, ValueError):
        return None  # stale: the database is opened here (or its lock says who holds it)
    if answer is None:
        return None
    sys.stdout.write(answer["stdout"])
    sys.stdout.flush()
    sys.stderr.write(answer["stderr"])
    sys.stderr.flush()
    return int(answer["code"])


def _asks_help(args: list[str]) -> bool:
    for arg in args:
        if arg == "--":
            return False
        if arg in ("-h", "--help"):
            return True
    return False


def _option(args: list[str], name: str) -> str | None:
    found = None
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg == name and i + 1 < len(args):
            found = args[i + 1]
        elif arg.startswith(name + "="):
            found = arg.split("=", 1)[1]
    return found


def _absolute(args: list[str], db: Path) -> list[str]:
    """``args`` with the database and the path options made absolute (the server runs in
    another directory), the database given explicitly (the server's environment differs)."""
    out = [args[0], "--db", str(db)]
    rest = args[1:]
    values = _VALUE_OPTIONS.get(args[0])
    i = 0
    while i < len(rest):
        arg = rest[i]
        if arg == "--":
            out.extend(rest[i:])
            break
        name, eq, value = arg.partition("=")
        if name == "--db":
            i += 1 if eq else 2
            continue
        if values is not None and not arg.startswith("-"):  # a write command's PATH
            out.append(str(Path(arg).expanduser().absolute()))
            values = None  # one PATH
            i += 1
            continue
        if values is not None and name in values and not eq and i + 1 < len(rest):
            out.extend([arg, rest[i + 1]])
            i += 2
            continue
        if name in _PATH_OPTIONS:
            if eq:
                out.append(f"{name}={Path(value).expanduser().absolute()}")
            elif i + 1 < len(rest):
                out.extend([name, str(Path(rest[i + 1]).expanduser().absolute())])
                i += 1
            else:
                out.append(arg)
        else:
            out.append(arg)
        i += 1
    return out


def _terminal() -> dict[str, Any]:
    """What rich would find here (:class:`api.output.Terminal`), without importing rich."""
    width = height = 0
    for fd in (0, 1, 2):  # rich's order
        try:
            width, height = os.get_terminal_size(fd)
            break
        except (AttributeError, ValueError, OSError):
            pass
    env = {k: v for k, v in os.environ.items()
           if k in ("TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES",
                    "TTY_COMPATIBLE", "TTY_INTERACTIVE", "JUPYTER_COLUMNS", "JUPYTER_LINES")}
    if env.get("COLUMNS", "").isdigit():
        width = int(env["COLUMNS"])
    if env.get("LINES", "").isdigit():
        height = int(env["LINES"])
    return {"stdout_tty": _isatty(sys.stdout), "stderr_tty": _isatty(sys.stderr),
            "width": width or 80, "height": height or 25, "env": env}


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _post(url: str, path: str, body: dict[str, Any], *, token: str) -> dict[str, Any] | None:
    """POST ``body`` as JSON to the server at ``url`` (``http://HOST:PORT``), one request
    per connection. Hand-written on a socket: http.client imports the email package and
    httpx far more, on every command; the server is ours (uvicorn) and answers a JSON body
    with a Content-Length."""
    import socket

    scheme, _, address = url.partition("://")
    host, _, port = address.rstrip("/").rpartition(":")
    if scheme != "http" or not host or not port.isdigit():
        return None
    payload = json.dumps(body).encode()
    head = (f"POST {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n"
            f"Authorization: Bearer {token}\r\nContent-Length: {len(payload)}\r\n"
            "Connection: close\r\n\r\n").encode()
    chunks = []
    with socket.create_connection((host.strip("[]"), int(port)), timeout=3600) as sock:
        sock.sendall(head + payload)
        while chunk := sock.recv(1 << 16):
            chunks.append(chunk)
    header, _, data = b"".join(chunks).partition(b"\r\n\r\n")
    status = header.split(b" ", 2)[1:2]
    if status != [b"200"]:
        return None  # e.g. a server of an older vgdb without /cli: run here
    answer = json.loads(data)
    return answer if isinstance(answer, dict) and "code" in answer else None


# -- the server ----------------------------------------------------------------------------
@contextmanager
def opened(db: str, *, read_only: bool = True) -> Iterator[Store]:
    """The database at ``db`` for one command: the store the server holds when the command
    runs inside it (:func:`run_argv`; not closed here), else opened (and closed) here."""
    from graphdb import Store

    resident = _RESIDENT.get()
    if resident is not None:  # never a second open in the process holding the database
        if (not read_only and resident.read_only) or \
                Path(db).resolve() != resident.path.resolve():
            from schema import StoreError

            raise StoreError(f"this server holds {resident.path}, not {db}",
                             suggestion="run the command where no server holds the database")
        yield resident
        return
    with Store.open(db, read_only=read_only) as store:
        yield store


def run_argv(store: Store, argv: list[str], terminal: dict[str, Any],
             cwd: str | None = None) -> dict[str, Any]:
    """Run the CLI command ``argv`` in this process on ``store``, as a client's shell would
    have run it: what it printed to stdout and stderr, and its exit code."""
    from api.cli import main
    from api.terminal import Terminal, captured

    if not argv or argv[0] not in SERVABLE | SERVED_WRITES or (
            argv[0] in SERVED_WRITES and store.read_only):
        return {"stdout": "", "stderr": f"error: {argv[:1]} is not served\n", "code": 2}
    shape = Terminal(stdout_tty=bool(terminal.get("stdout_tty")),
                     stderr_tty=bool(terminal.get("stderr_tty")),
                     width=int(terminal.get("width") or 80),
                     height=int(terminal.get("height") or 25),
                     env={str(k): str(v) for k, v in (terminal.get("env") or {}).items()})
    code: int = 0
    token = _RESIDENT.set(store)
    where = _CWD.set(Path(cwd) if cwd else None)
    try:
        with captured(shape) as (out, err), _writing(argv[0]):
            try:
                main(argv)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        _CWD.reset(where)
        _RESIDENT.reset(token)
    return {"stdout": out.getvalue(), "stderr": err.getvalue(), "code": code}


@contextmanager
def _writing(command: str) -> Iterator[None]:
    """A write command holds the server's write lock (every other write of the server, the
    watch's updates and GraphQL mutations, takes it too), waiting its turn, and runs without
    the request's deadline (``vgdb serve --timeout``, 10 s by default, is for queries): run
    from a shell it has none, and under a loaded machine a cut-off update was refused
    half done."""
    if command not in SERVED_WRITES:
        yield
        return
    from api.graphql.context import WRITE_LOCK
    from graphdb import deadline

    with deadline.unbounded(), WRITE_LOCK.hold(f"vgdb {command} from the CLI"):
        yield


def cli_endpoint(store: Store, owner_token: str) -> Any:
    """The ``/cli`` route of ``vgdb serve``: runs a CLI command for a client holding the
    owner token (:func:`run_served`)."""
    import hmac

    from starlette.concurrency import run_in_threadpool
    from starlette.requests import Request
    from starlette.responses import JSONResponse

    async def endpoint(request: Request) -> JSONResponse:
        scheme, _, secret = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(secret.strip().encode(),
                                                                  owner_token.encode()):
            return JSONResponse({"error": "the owner token is required"}, status_code=401)
        try:
            body = await request.json()
            argv = [str(a) for a in body["argv"]]
            terminal = dict(body.get("terminal") or {})
            cwd = str(body["cwd"]) if body.get("cwd") else None
        except (ValueError, KeyError, TypeError):
            return JSONResponse({"error": "expected {argv, terminal}"}, status_code=400)
        return JSONResponse(await run_in_threadpool(run_argv, store, argv, terminal, cwd))

    return endpoint
