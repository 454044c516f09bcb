"""``vgdb migrate``, ``vgdb check``, ``vgdb repair``: the database directory's own upkeep
(thin wrappers over :mod:`graphdb.health` and :class:`graphdb.Store`)."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.markup import escape

from api.options import db_option, json_option
from api.output import err_console, print_json, print_wrapped
from graphdb import Store
from graphdb.engine_migration import BACKUP_DIR
from graphdb.health import CheckReport, check_database, repair_database
from graphdb.store import LEGACY_GRAPH_FILE

__all__ = ["check", "migrate", "repair"]


@click.command()
@db_option
@json_option
def migrate(db: str, as_json: bool) -> None:
    """Move a database written by vgdb 0.1 (Kuzu 0.11.3) to LadybugDB (any write command
    does it too; the old files are kept in kuzu-0.11.3-backup/)."""
    legacy = (Path(db) / LEGACY_GRAPH_FILE).exists() and not (Path(db) / "graph.lbug").exists()
    with Store.open(db) as store:
        path = store.path
    if as_json:
        print_json({"db": str(path), "migrated": legacy,
                     "backup": str(path / BACKUP_DIR) if legacy else None})
        return
    print_wrapped("migrated" if legacy else f"{escape(db)} is already a LadybugDB database")


@click.command()
@db_option
@json_option
def check(db: str, as_json: bool) -> None:
    """Verify the database without changing it: the graph file's checksum, the write-ahead
    log, every row of every table, and the vector indexes against the graph. Exits 1 when
    something is wrong, and says what to run."""
    report = check_database(db)
    _show(report, as_json)
    if not report.ok:
        sys.exit(1)


@click.command()
@db_option
@click.option("--discard-wal", is_flag=True,
              help="Move a damaged write-ahead log aside (kept) and open the graph as of its "
                   "last checkpoint.")
@click.option("--accept-graph", is_flag=True,
              help="Record the graph file as it is now although it does not match its "
                   "checksum (e.g. restored from a backup).")
@json_option
def repair(db: str, discard_wal: bool, accept_graph: bool, as_json: bool) -> None:
    """Replay and checkpoint the write-ahead log, record the graph file's checksum, and
    rebuild derived data (vector indexes) that disagrees with the graph; then check."""
    report = repair_database(db, discard_wal=discard_wal, accept_graph=accept_graph)
    if as_json:
        print_json(report.to_dict())
    else:
        for action in report.actions:
            print_wrapped(f"- {escape(action)}")
        _show(report.check, False)
    if not report.check.ok:
        sys.exit(1)


def _show(report: CheckReport, as_json: bool) -> None:
    if as_json:
        print_json(report.to_dict())
        return
    for f in report.findings:
        mark = "[green]ok[/green]  " if f.ok else "[bold red]FAIL[/bold red]"
        print_wrapped(f"{mark} {escape(f.check)}: {escape(f.detail)}")
    if report.digest:
        print_wrapped(f"content digest {report.digest} over {sum(report.rows.values())} "
                      "nodes and rels (timestamps excluded)")
    if not report.ok:
        err_console.print("[bold red]the database needs attention[/bold red] (see FAIL above)")
