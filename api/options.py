"""Options shared by every ``vgdb`` command module."""

from __future__ import annotations

import os
from typing import Any

import click

from api.output import wide_option
from graphdb import DEFAULT_DB

__all__ = ["db_option", "json_option"]

db_option = click.option(
    "--db", "db", default=lambda: os.environ.get("VGDB_DB", DEFAULT_DB), show_default=DEFAULT_DB,
    type=click.Path(file_okay=False), help="Database directory (env VGDB_DB).")


def json_option(command: Any) -> Any:
    """``--json`` (passed on as ``as_json``) and ``--wide`` (read by api/output.py's tables)."""
    command = click.option("--json", "as_json", is_flag=True, help="Print JSON.")(command)
    return wide_option(command)
