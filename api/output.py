"""One place that formats results for the terminal: JSON, or rich tables."""

from __future__ import annotations

import json
import sys
from datetime import date, datetime
from typing import Any

import polars as pl
from rich.console import Console
from rich.table import Table

__all__ = ["console", "err_console", "print_frame", "print_json"]

console = Console(highlight=False, soft_wrap=True)
err_console = Console(stderr=True, highlight=False)


def _default(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if hasattr(value, "to_dict"):
        return value.to_dict()
    return str(value)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=_default, ensure_ascii=False) + "\n")


def print_frame(frame: pl.DataFrame, *, as_json: bool = False, title: str | None = None) -> None:
    """Rows as a JSON list of objects, or as a table."""
    if as_json:
        print_json(frame.to_dicts())
        return
    table = Table(title=title, show_lines=False)
    for name in frame.columns:
        table.add_column(name, overflow="fold")
    for row in frame.iter_rows():
        table.add_row(*("" if v is None else str(v) for v in row))
    console.print(table)
    console.print(f"[dim]{frame.height} row{'s' if frame.height != 1 else ''}[/dim]")
