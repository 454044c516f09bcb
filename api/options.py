"""Options shared by every ``vgdb`` command module."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from api.output import wide_option
from graphdb import DEFAULT_DB

__all__ = ["db_option", "files_option", "ingested_root", "json_option", "server_options"]

db_option = click.option(
    "--db", "db", default=lambda: os.environ.get("VGDB_DB", DEFAULT_DB), show_default=DEFAULT_DB,
    type=click.Path(file_okay=False), help="Database directory (env VGDB_DB).")


def json_option(command: Any) -> Any:
    """``--json`` (passed on as ``as_json``) and ``--wide`` (read by api/output.py's tables)."""
    command = click.option("--json", "as_json", is_flag=True, help="Print JSON.")(command)
    return wide_option(command)


def server_options(command: Any) -> Any:
    """``--url`` and ``--token``: the `vgdb serve` holding the database, for the commands
    that go through it (passed on as ``url`` and ``token``)."""
    command = click.option("--token", default=None, metavar="TOKEN",
                           help="API token for that server (default: $VGDB_TOKEN).")(command)
    return click.option(
        "--url", default=None, metavar="URL",
        help="A `vgdb serve` holding the database (default: $VGDB_URL, or the one it "
             "recorded).")(command)


def files_option(what: str) -> Any:
    """FILES... (``files``), ``--db`` and ``--max-issues N`` (``max_issues``): the loaders of
    files that report bad lines or records (``what``) one by one."""
    def decorate(command: Any) -> Any:
        command = click.option("--max-issues", default=50, show_default=True, type=int,
                               help=f"{what} printed (all of them with --json).")(command)
        command = db_option(command)
        return click.argument("files", nargs=-1, required=True,
                              type=click.Path(path_type=Path))(command)
    return decorate


def ingested_root(store: Any, repo: str | None) -> Path:
    """The root of the one ingested repository (named ``repo``, or the only one): the tree
    a ``--base`` diff is taken in when no ``--root`` is given."""
    from queries import repositories

    repos = repositories(store)
    if repo is not None:
        repos = repos.filter(repos["name"] == repo)
    if repos.height != 1:
        raise click.UsageError("pass --root DIR (the tree to diff) or --repo NAME: the graph "
                               f"holds {repos.height} matching repositories")
    return Path(repos["root"][0])
