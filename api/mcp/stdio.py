"""``vgdb mcp``: the MCP server over stdio, in the harness's own process tree.

This process opens the database itself (DESIGN §1: one process owns it), lazily, at the
first call: a database that another process holds is an error answer naming that process
and the way round it (a running ``vgdb serve`` answers MCP at ``/mcp``), and a later call
tries again. Stdout carries the protocol only; logs go to stderr.
"""

import threading

import anyio
from mcp.server.stdio import stdio_server

from api.mcp.server import Caller, McpSettings, build_server
from api.write_lock import WriteLock
from graphdb import Store
from schema import StoreLockedError

__all__ = ["run_stdio"]


class _LazyStore:
    def __init__(self, db: str, *, writable: bool) -> None:
        self.db = db
        self.writable = writable
        self.store: Store | None = None
        self.lock = threading.Lock()

    def get(self) -> Store:
        with self.lock:
            if self.store is None:
                try:
                    self.store = Store.open(self.db, read_only=not self.writable,
                                            serving=True)
                except StoreLockedError as exc:
                    exc.suggestion = (
                        "if that is `vgdb serve`, connect the harness to its /mcp endpoint "
                        "instead (`vgdb mcp --print-config --url http://HOST:PORT/mcp`); "
                        "otherwise wait for it to finish") + (
                        "" if self.writable else
                        ", or open this database read-only alongside a read-only server")
                    raise
            return self.store

    def close(self) -> None:
        if self.store is not None:
            self.store.close()


def run_stdio(db: str, *, writable: bool = False) -> None:
    """Serve MCP on stdin/stdout until the client closes them."""
    holder = _LazyStore(db, writable=writable)
    caller = Caller(local="write" if writable else "read")
    server = build_server(holder.get, caller_of=lambda request: caller,
                          settings=McpSettings(writable_hint="run `vgdb mcp --writable`"),
                          write_lock=WriteLock())

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    try:
        anyio.run(main)
    finally:
        holder.close()
