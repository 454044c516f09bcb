"""``vgdb serve``, ``mcp`` and ``token``: serving the graph (docs/api.md, docs/mcp.md)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click
from rich.markup import escape

from api.options import db_option, json_option
from api.output import console, err_console, print_frame, print_json
from graphdb import Store

__all__ = ["mcp", "serve", "token"]


@click.command()
@db_option
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535),
              help="Port (0: any free port).")
@click.option("--timeout", default=10.0, show_default=True, type=float,
              help="Seconds a request may run.")
@click.option("--anonymous", is_flag=True,
              help="Let requests without a token read (never write).")
@click.option("--writable", is_flag=True,
              help="Open the database read-write, for mutations (tokens with the write "
                   "scope); ingests must then go through this server.")
@click.option("--watch", "watch_paths", multiple=True, metavar="PATH",
              type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Keep the tree at PATH current as files are saved, in this process "
                   "(repeatable; needs --writable; see `vgdb watch`).")
@click.option("--introspection/--no-introspection", default=None,
              help="Answer GraphQL introspection (default: only with --anonymous).")
@click.option("--json", "as_json", is_flag=True,
              help="Once listening, print one JSON line: url, graphql, mcp, explorer, pid, "
                   "db, mode (for scripts; with --port 0 the port the system chose).")
def serve(db: str, host: str, port: int, timeout: float, anonymous: bool,
          writable: bool, watch_paths: tuple[Path, ...], introspection: bool | None,
          as_json: bool) -> None:
    """Serve the graph over GraphQL at http://HOST:PORT/graphql, MCP at /mcp (and /healthz),
    and the web explorer at http://HOST:PORT/ (docs/explorer.md).

    Requests need an API token (`vgdb token create`) unless --anonymous lets them read.
    Read-only by default: other readers may share the database, an ingest waits until the
    server stops (see docs/api.md)."""
    from api.graphql import Settings
    from api.graphql import serve as run_server
    from api.graphql.server import watch_trees
    from queries.impact.adjacency import settle as settle_impact
    from queries.impact.adjacency import warm_in_background as warm_impact

    if watch_paths and not writable:
        raise click.UsageError("--watch writes the updates: add --writable")
    with Store.open(db, read_only=not writable, serving=True) as store:
        mode = "read-write" if writable else "read-only"
        access = "anonymous reads allowed" if anonymous else "API token required"
        err_console.print(f"serving {escape(str(store.path))} ({mode}, {access}) at "
                          f"http://{host}:{port}/graphql and /mcp, explorer at "
                          f"http://{host}:{port}/  (Ctrl-C stops)")
        stop_watching = watch_trees(store, list(watch_paths)) if watch_paths else None
        warm_impact(store)  # the in-memory adjacency, built in the background
        stop_compacting = deriver = None
        if writable:
            from api.graphql.context import WRITE_LOCK
            from api.serve_derive import start_deriving
            from api.serve_idle import compact_when_idle
            from ingest import warm

            # a served update answers before its derived data, finished here first; the
            # rows the next update reads first are kept warm
            deriver = start_deriving(WRITE_LOCK)
            warm.enable()
            stop_compacting = compact_when_idle(store, WRITE_LOCK)

        def listening(url: str) -> None:
            if as_json:
                print_json(serve_line(url, db=store.path, writable=writable,
                                      anonymous=anonymous), indent=None)
                sys.stdout.flush()

        try:
            run_server(store, host=host, port=port, on_listening=listening,
                       settings=Settings(timeout=timeout, allow_anonymous=anonymous,
                                         introspection=introspection))
        finally:
            if stop_watching is not None:
                stop_watching.set()
            if stop_compacting is not None:
                stop_compacting.stop()  # waits for a compaction under way
            if deriver is not None:
                from api.serve_derive import stop_deriving

                stop_deriving(deriver)  # what is pending is derived before the store closes
            settle_impact(store)  # no engine query may run while the store closes


def serve_line(url: str, *, db: Path, writable: bool, anonymous: bool) -> dict[str, object]:
    """What `vgdb serve --json` prints once listening (docs/api.md)."""
    return {"url": url, "graphql": f"{url}/graphql", "mcp": f"{url}/mcp",
            "explorer": f"{url}/", "pid": os.getpid(), "db": str(db),
            "mode": "read-write" if writable else "read-only", "anonymous": anonymous}


@click.command()
@db_option
@click.option("--writable", is_flag=True,
              help="Open the database read-write and offer the record tools.")
@click.option("--print-config", is_flag=True,
              help="Print the `mcpServers` JSON a harness needs, and exit.")
@click.option("--url", default=None, metavar="URL",
              help="With --print-config: a `vgdb serve` /mcp endpoint to use instead.")
def mcp(db: str, writable: bool, print_config: bool, url: str | None) -> None:
    """Serve the graph to an agent harness over MCP (stdio): search, impact,
    affected-tests, provenance, supersession, node, cypher, and with --writable the record
    tools (docs/mcp.md). Where `vgdb serve` holds the database, use its /mcp endpoint.

    No --json: stdout is the MCP protocol itself (JSON-RPC messages), and --print-config
    already prints JSON."""
    if print_config:
        import shutil

        from api.mcp.server import dumps_config, harness_config

        command = shutil.which("vgdb") or str(Path(sys.executable).with_name("vgdb"))
        sys.stdout.write(dumps_config(harness_config(
            db=str(Path(db).resolve()), command=command, writable=writable, url=url)) + "\n")
        return
    from api.mcp.stdio import run_stdio

    run_stdio(db, writable=writable)


@click.group()
def token() -> None:
    """API tokens of a database (for `vgdb serve`): create, list, revoke."""


@token.command("create")
@click.argument("name")
@db_option
@click.option("--scope", type=click.Choice(["read", "write", "admin"]), default="read",
              show_default=True, help="write includes read; admin includes write.")
@click.option("--expires-days", type=click.IntRange(min=1), default=None,
              help="Expire after N days (default: never).")
@click.option("--max-cost", type=click.IntRange(min=1), default=None,
              help="This token's cost limit (default: the server's; the lower one applies).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Seconds this token's requests may run (default: the server's; the "
                   "lower one applies).")
@json_option
def token_create(name: str, db: str, scope: str, expires_days: int | None,
                 max_cost: int | None, timeout: float | None, as_json: bool) -> None:
    """Create a token NAME; its secret is printed once and stored only as a hash."""
    from datetime import timedelta

    from graphdb.tokens import TokenStore

    made, secret = TokenStore(db).create(
        name, scope=scope, expires_in=timedelta(days=expires_days) if expires_days else None,
        max_cost=max_cost, timeout=timeout)
    if as_json:
        print_json({**made.__dict__, "token": secret})
        return
    console.print(secret)
    err_console.print(f"token {made.id} ({made.name}, scope {made.scope}"
                      f"{', expires ' + made.expires_at if made.expires_at else ''}); "
                      "keep it: it is not shown again")


@token.command("list")
@db_option
@json_option
def token_list(db: str, as_json: bool) -> None:
    """The tokens of the database (never their secrets)."""
    import polars as pl

    from graphdb.tokens import TokenStore

    rows = [{**t.__dict__, "state": t.state()} for t in TokenStore(db).list()]
    print_frame(pl.DataFrame(rows, schema={
        "id": pl.Utf8, "name": pl.Utf8, "scope": pl.Utf8, "created_at": pl.Utf8,
        "expires_at": pl.Utf8, "revoked_at": pl.Utf8, "max_cost": pl.Int64,
        "timeout": pl.Float64, "state": pl.Utf8}), as_json=as_json,
        title="API tokens")


@token.command("revoke")
@click.argument("token_id")
@db_option
@json_option
def token_revoke(token_id: str, db: str, as_json: bool) -> None:
    """Revoke token TOKEN_ID (it stays listed, as revoked)."""
    from graphdb.tokens import TokenStore

    revoked = TokenStore(db).revoke(token_id)
    if as_json:
        print_json({**revoked.__dict__, "state": revoked.state()})
        return
    console.print(f"revoked {revoked.id} ({revoked.name})")
