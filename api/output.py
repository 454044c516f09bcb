"""One place that formats results for the terminal: JSON, or tables that fit the terminal.

Tables fit the console's width (``COLUMNS``, 80 when not a terminal): node ids are shortened
smartly (``sym:repo/json/decoder.py#JSONDecoder.raw_decode`` -> ``decoder.py#JSONDecoder.
raw_decode``, lengthened only where two would read the same), columns are dropped by priority
(a footnote names them), and the remaining text is cut with ``…``, never wrapped, so an id is
never split mid-word. ``--wide`` prints full ids and every column; ``--json`` the full data.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import click
import polars as pl
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from api.terminal import console, err_console  # the process's, or a served run's

__all__ = [
    "Column", "console", "err_console", "fit_widths", "is_wide", "print_frame", "print_json",
    "print_table", "print_wrapped", "progress_bar", "shorten_id", "shorten_ids", "wide_option",
]

#: ``sym:``, ``file:``, ... : what a node id starts with
ID_PATTERN = re.compile(r"^(sym|file|commit|entry|paper|repo|community|session|person|agent|"
                        r"external|topic|author):\S+$")
#: the width an id column keeps before low-priority columns are dropped for it
#: (``decoder.py#JSONDecoder.raw_decode`` is 33)
ID_WANTED = 36
#: between two columns: the padding of each and the box's divider
_GAP = 3
_ELLIPSIS = "…"
_WIDE = "vgdb.wide"


def _set_wide(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    if value:
        ctx.meta[_WIDE] = True
    return value


#: ``--wide``: full ids and every column, however long the lines (no value is passed on)
wide_option = click.option("--wide", is_flag=True, expose_value=False, callback=_set_wide,
                           help="Full ids and every column in tables (lines may be long).")


def is_wide() -> bool:
    """Whether the running command was given ``--wide``."""
    ctx = click.get_current_context(silent=True)
    return bool(ctx is not None and ctx.meta.get(_WIDE))


@dataclass(frozen=True, slots=True)
class Column:
    """A table column: ``priority`` 0 is never dropped, higher numbers are dropped first on a
    narrow terminal; ``kind`` says how a value is shortened: ``id`` (a node id, by
    :func:`shorten_id`), ``path`` (cut on the left), ``text`` (cut on the right) or ``num``."""

    name: str
    priority: int = 0
    kind: str = "text"
    justify: str = "left"


def _default(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if hasattr(value, "to_dict"):
        return value.to_dict()
    return str(value)


def print_json(data: Any, *, indent: int | None = 2) -> None:
    """``data`` as JSON on stdout (``indent=None``: one line, for a stream of events)."""
    sys.stdout.write(json.dumps(data, indent=indent, default=_default, ensure_ascii=False)
                     + "\n")


# ------------------------------------------------------------------------------- ids
def shorten_id(node_id: str, *, parts: int = 1) -> str:
    """A node id as a person reads it: the file name and qualname of a symbol (``parts``
    trailing path components), a file's path, a commit's first 10 hex digits."""
    kind, _, rest = node_id.partition(":")
    if kind in ("sym", "file"):
        path, hash_, qualname = rest.partition("#")
        components = path.split("/")[1:] or path.split("/")  # drop the repository
        short = "/".join(components[-parts:]) if kind == "sym" else "/".join(components)
        if kind == "file" and parts < len(components):
            short = "/".join(components[-max(parts, 2):])
            if len(components) > max(parts, 2):
                short = f"{_ELLIPSIS}/{short}"
        return short + hash_ + qualname
    if kind == "commit":
        return rest[:10]
    if kind == "entry":
        return f"entry:{rest[:8]}"
    if kind in ("repo", "session", "person"):
        return rest
    return node_id


def shorten_ids(ids: Iterable[str]) -> dict[str, str]:
    """Each id's short form, lengthened (more path components) where two would be equal, and
    the full id where even that does not tell them apart."""
    out = {i: shorten_id(i) for i in dict.fromkeys(ids)}
    for parts in range(2, 8):
        clashes = [group for group in _groups(out) if len(group) > 1]
        if not clashes:
            return out
        for group in clashes:
            for i in group:
                out[i] = shorten_id(i, parts=parts)
    for group in _groups(out):
        if len(group) > 1:
            for i in group:
                out[i] = i
    return out


def _groups(short: dict[str, str]) -> list[list[str]]:
    seen: dict[str, list[str]] = {}
    for i, s in short.items():
        seen.setdefault(s, []).append(i)
    return list(seen.values())


# ----------------------------------------------------------------------------- tables
def fit_widths(columns: Sequence[Column], cells: Sequence[Sequence[str]], width: int,
               ) -> tuple[list[int], list[int]]:
    """(indexes of the columns kept, their widths) so that the table fits ``width``: drop the
    highest priorities first while the kept columns' minimum widths do not fit, then give each
    its natural width and take the excess from the widest shrinkable columns."""
    natural = [max([len(c.name), *(len(row[i]) for row in cells)]) for i, c in enumerate(columns)]
    minimum = [_minimum(c, natural[i]) for i, c in enumerate(columns)]
    kept = list(range(len(columns)))

    def room() -> int:
        return width - _GAP * (len(kept) - 1)

    empty = [i for i in kept if not any(row[i] for row in cells)]
    droppable = empty + sorted((i for i, c in enumerate(columns)
                                if c.priority > 0 and i not in empty),
                               key=lambda i: (-columns[i].priority, -i))
    # first what must go for the minimums to fit, then what keeps ids from being readable
    while sum(minimum[i] for i in kept) > room() and droppable:
        kept.remove(droppable.pop(0))
    wanted = {i: min(natural[i], ID_WANTED) if c.kind == "id" else minimum[i]
              for i, c in enumerate(columns)}
    while sum(wanted[i] for i in kept) > room() and droppable:
        kept.remove(droppable.pop(0))
    widths = {i: natural[i] for i in kept}
    excess = sum(widths.values()) - room()
    while excess > 0:  # one character at a time from the widest column that can give it
        shrinkable = [i for i in kept if widths[i] > minimum[i]]
        if not shrinkable:
            break
        # ids past ID_WANTED give first, then text, then ids: a cut id reads worse
        widest = max(shrinkable, key=lambda i: (
            (2 if widths[i] > wanted[i] else 0) if columns[i].kind == "id" else 1,
            widths[i] - minimum[i], i))
        widths[widest] -= 1
        excess -= 1
    return kept, [widths[i] for i in kept]


def _minimum(column: Column, natural: int) -> int:
    floor = {"num": natural, "id": 12, "path": 12}.get(column.kind, 8)
    return min(natural, max(floor, len(column.name)))


def _cut(value: str, width: int, kind: str) -> str:
    if len(value) <= width:
        return value
    if width <= 1:
        return _ELLIPSIS[:width]
    if kind in ("id", "path"):
        return _ELLIPSIS + value[-(width - 1):]
    return value[:width - 1] + _ELLIPSIS


def print_table(columns: Sequence[Column], rows: Iterable[Sequence[Any]], *,
                title: str | None = None, width: int | None = None,
                wide: bool | None = None) -> None:
    """Rows as a table that fits the terminal (see the module docstring); ``wide`` (default:
    the command's ``--wide``) prints every column and full ids."""
    wide = is_wide() if wide is None else wide
    raw = [["" if v is None else str(v) for v in row] for row in rows]
    id_columns = [i for i, c in enumerate(columns) if c.kind == "id"]
    if not wide and id_columns:
        short = shorten_ids(row[i] for row in raw for i in id_columns if row[i])
        raw = [[short.get(v, v) if i in id_columns else v for i, v in enumerate(row)]
               for row in raw]
    width = width or console.width
    if wide:
        kept = list(range(len(columns)))
        widths = [max([len(c.name), *(len(r[i]) for r in raw)]) for i, c in enumerate(columns)]
        width = sum(widths) + _GAP * (len(widths) - 1)
    else:
        kept, widths = fit_widths(columns, raw, width)
    table = Table(title=escape(title) if title else None, box=box.SIMPLE_HEAD, show_edge=False,
                  pad_edge=False, title_justify="left")
    for i, w in zip(kept, widths, strict=True):
        table.add_column(escape(columns[i].name), width=w, no_wrap=True, overflow="ignore",
                         justify=columns[i].justify)  # type: ignore[arg-type]
    for row in raw:
        table.add_row(*(escape(_cut(row[i], w, columns[i].kind))
                        for i, w in zip(kept, widths, strict=True)))
    out = Console(width=width, highlight=False, file=console.file, color_system=(
        console.color_system and "auto"), force_terminal=console.is_terminal)
    if title and len(title) > width:
        table.title = escape(_cut(title, width, "text"))
    out.print(table, crop=True)
    hidden = [c.name for i, c in enumerate(columns) if i not in kept]
    footer = f"{len(raw)} row{'s' if len(raw) != 1 else ''}"
    if hidden:
        footer += f"; hidden: {', '.join(hidden)} (--wide or --json shows them)"
    out.print(f"[dim]{escape(_cut(footer, width, 'text'))}[/dim]")


#: how much further a wrapped line's continuation is indented than its first line
HANG = 4


def print_wrapped(line: str, *, markup: bool = True) -> None:
    """One line of a listing (``markup``: rich markup) on stdout, wrapped at spaces to the
    console's width with a hanging indent: never past the width unless one word (an id) is
    itself longer, never split inside a word. ``--wide`` prints it as it is."""
    if is_wide():
        console.print(line if markup else Text(line), soft_wrap=True)
        return
    body = line.lstrip(" ")
    indent = len(line) - len(body)
    text = Text.from_markup(body) if markup else Text(body)
    width = max(console.width - indent - HANG, 20)
    breaks = _breaks(text.plain, width)
    for number, piece in enumerate(text.divide(breaks)):
        piece.rstrip()
        pad = indent + (HANG if number else 0)
        console.print(Text(" " * pad) + piece, soft_wrap=True)


_WORD = re.compile(r"\S+\s*")


def _breaks(plain: str, width: int) -> list[int]:
    """Where to start new lines so that each holds at most ``width`` characters of words
    (spaces after the last one not counted). Hand-written: rich folds a word longer than the
    width, splitting an id, and its "ignore" overflow turns wrapping off; here such a word
    gets a line of its own, whole."""
    out: list[int] = []
    start = 0
    for word in _WORD.finditer(plain):
        if word.start() > start and word.start() + len(word.group().rstrip()) - start > width:
            out.append(word.start())
            start = word.start()
    return out


def print_frame(frame: pl.DataFrame, *, as_json: bool = False, title: str | None = None,
                priorities: dict[str, int] | None = None) -> None:
    """Rows as a JSON list of objects, or as a table that fits the terminal: columns holding
    node ids are shortened, later columns are dropped first unless ``priorities`` says."""
    if as_json:
        print_json(frame.to_dicts())
        return
    columns = []
    for index, name in enumerate(frame.columns):
        values = [v for v in frame[name].head(50).to_list() if v not in (None, "")]
        if values and all(isinstance(v, str) and ID_PATTERN.match(v) for v in values):
            kind = "id"
        elif values and all(isinstance(v, (int, float)) for v in values):
            kind = "num"
        elif values and all(isinstance(v, str) and "/" in v and " " not in v for v in values):
            kind = "path"
        else:
            kind = "text"
        priority = (priorities or {}).get(name, index)
        columns.append(Column(name, priority=priority, kind=kind,
                              justify="right" if kind == "num" else "left"))
    print_table(columns, frame.iter_rows(), title=title)


@contextmanager
def progress_bar(enabled: bool) -> Iterator[Callable[[str, int, int], None] | None]:
    """A rich progress bar on a terminal; nothing when output is piped or in CI."""
    if not enabled:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=err_console, transient=True) as bar:
        tasks: dict[str, Any] = {}

        def update(phase: str, done: int, total: int) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(phase, total=total or 1)
            bar.update(tasks[phase], completed=done, total=total or 1)

        yield update
