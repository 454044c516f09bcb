"""What the operations commands share between the CLI and GraphQL: the tree walk ``status``
compares with, and the client that reaches the process owning a database.

One process owns a database (DESIGN §1). When ``vgdb serve --writable`` holds it, the
``status``, ``remove``, ``backup`` and ``export`` commands go through it: its GraphQL API at
the URL it recorded in ``<db>/server.json`` while it runs (or ``--url`` / ``$VGDB_URL``), with
an API token (``--token`` / ``$VGDB_TOKEN``; admin scope for the writes and copies).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from api.resident import SERVER_FILE, forget_server, read_server, record_server
from ingest.walk import walk
from queries.status import TreeFile
from schema import QueryError, StoreLockedError, VgdbError

__all__ = ["SERVER_FILE", "forget_server", "record_server", "remote", "server_url",
           "tree_files"]

def tree_files(root: Path, excludes: tuple[str, ...] = ()) -> list[TreeFile]:
    """The files an ingest of ``root`` with the default options (and ``excludes``) would
    read."""
    candidates, _ = walk(root, excludes=excludes, max_file_size=2_000_000)
    return [(c.path, c.size, c.mtime_ns) for c in candidates]


def server_url(db: str | os.PathLike[str], url: str | None = None) -> str | None:
    """The URL of the server owning ``db``: ``url`` if given, else ``$VGDB_URL``, else the
    one its running server recorded."""
    if url or os.environ.get("VGDB_URL"):
        return url or os.environ["VGDB_URL"]
    record = read_server(db)
    return None if record is None else str(record["url"])


def remote(locked: StoreLockedError, db: str, query: str, variables: dict[str, Any], *,
           url: str | None, token: str | None, timeout: float = 600.0) -> dict[str, Any]:
    """Run ``query`` on the server that holds ``db`` (``locked`` is why we cannot open it);
    returns the ``data`` of the answer, or raises the server's error as a :class:`VgdbError`.
    """
    import httpx

    found = server_url(db, url)
    if not found:
        raise locked  # no server to go through: the lock's holder is someone else
    token = token or os.environ.get("VGDB_TOKEN")
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    endpoint = found.rstrip("/")
    endpoint = endpoint if endpoint.endswith("/graphql") else f"{endpoint}/graphql"
    try:
        answer = httpx.post(endpoint, json={"query": query, "variables": variables},
                            headers=headers, timeout=timeout)
    except httpx.HTTPError as exc:
        raise VgdbError(f"the server at {endpoint} that holds {db} did not answer: {exc}",
                        suggestion="check that `vgdb serve` runs, or pass --url") from exc
    body = answer.json()
    if body.get("errors"):
        raise _error(endpoint, body["errors"][0])
    return body["data"]


def _error(endpoint: str, error: dict[str, Any]) -> VgdbError:
    """The server's error as ours, with the exit code its ``extensions.code`` has here."""
    ext = error.get("extensions") or {}
    found = VgdbError(f"{endpoint}: {error.get('message')}",
                      suggestion=ext.get("suggestion") or "")
    if ext.get("code") in ("UNAUTHENTICATED", "FORBIDDEN"):
        found.suggestion = ("pass an API token with --token or $VGDB_TOKEN (admin scope for "
                            "remove, backup and export)")
    codes = {cls.code: cls.exit_code for cls in _subclasses(VgdbError)}
    found.exit_code = codes.get(ext.get("code"), QueryError.exit_code)
    return found


def _subclasses(cls: type) -> list[type]:
    return [cls, *(s for sub in cls.__subclasses__() for s in _subclasses(sub))]
