"""Turning the query API's frozen dataclasses into polars frames."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Iterable
from datetime import datetime
from typing import Any

import polars as pl

__all__ = ["to_frame"]

_SCALARS: dict[Any, pl.DataType] = {
    str: pl.Utf8(), int: pl.Int64(), float: pl.Float64(), bool: pl.Boolean(),
    datetime: pl.Datetime("us"),
}


def _dtype(hint: Any) -> pl.DataType | None:
    """The polars type of a field annotated ``str``, ``int | None``, ``tuple[str, ...]``..."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    origin = typing.get_origin(hint)
    if hint in _SCALARS:
        return _SCALARS[hint]
    if origin in (typing.Union, types.UnionType) and len(args) == 1:
        return _dtype(args[0])
    if origin is tuple and args and args[0] in _SCALARS:
        return pl.List(_SCALARS[args[0]])
    return None


def to_frame(items: Iterable[Any], *, cls: type | None = None) -> pl.DataFrame:
    """One row per dataclass in ``items`` (``EntryView``, ``Misplaced``, ``CommitFact``, ...),
    one column per field; nested dataclasses become structs and tuples lists.

    Columns whose field type is a plain scalar, optional scalar or tuple of scalars get that
    type even when the frame is empty or a column is all null, so frames built from empty
    results still concatenate and filter (``cls`` names the dataclass when ``items`` may be
    empty).
    """
    rows = list(items)
    kind = cls or (type(rows[0]) if rows else None)
    if kind is None:
        return pl.DataFrame()
    if not dataclasses.is_dataclass(kind):
        raise TypeError(f"to_frame takes dataclass instances, not {kind.__name__}")
    hints = typing.get_type_hints(kind)
    fields = [f.name for f in dataclasses.fields(kind)]
    schema = {name: _dtype(hints.get(name)) for name in fields}
    data = [dataclasses.asdict(r) for r in rows]
    if not data:
        return pl.DataFrame(schema={n: t or pl.Null() for n, t in schema.items()})
    frame = pl.DataFrame(data, infer_schema_length=None,
                         schema_overrides={n: t for n, t in schema.items() if t is not None})
    return frame.select(fields)
