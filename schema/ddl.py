"""Kuzu DDL and polars frame schemas, generated from the table declarations.

polars is imported when a frame schema is first asked for, not with ``schema``: parse workers
import ``schema`` for its enums, and polars alone costs them ~0.4 s of start-up.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from schema.model import NodeTable, Prop, RelTable
from schema.tables import NODE_TABLES, REL_TABLES

if TYPE_CHECKING:
    import polars as pl

__all__ = ["ddl_statements", "frame_schema", "node_ddl", "polars_dtype", "rel_ddl"]


@cache
def _polars() -> dict[str, pl.DataType]:
    import polars as pl

    return {
        "STRING": pl.Utf8(),
        "INT64": pl.Int64(),
        "INT32": pl.Int32(),
        "DOUBLE": pl.Float64(),
        "BOOLEAN": pl.Boolean(),
        "TIMESTAMP": pl.Datetime("us"),
        "STRING[]": pl.List(pl.Utf8()),
    }


def polars_dtype(prop: Prop) -> pl.DataType:
    return _polars()[prop.type]


def _columns(props: tuple[Prop, ...]) -> str:
    return ", ".join(f"{p.name} {p.type}" for p in props)


def node_ddl(table: NodeTable) -> str:
    return (f"CREATE NODE TABLE IF NOT EXISTS {table.name}"
            f"({_columns(table.columns)}, PRIMARY KEY (id))")


def rel_ddl(table: RelTable) -> str:
    pairs = ", ".join(f"FROM {a.name} TO {b.name}" for a, b in table.pairs)
    return f"CREATE REL TABLE IF NOT EXISTS {table.name}({pairs}, {_columns(table.columns)})"


def ddl_statements() -> list[str]:
    """Every CREATE statement of the schema, nodes first."""
    return [node_ddl(t) for t in NODE_TABLES] + [rel_ddl(t) for t in REL_TABLES]


def frame_schema(table: NodeTable | RelTable) -> dict[str, pl.DataType]:
    """The polars schema of a frame that loads into ``table`` with COPY FROM.

    Rel frames start with ``from`` and ``to`` (node ids) before the properties.
    """
    cols = {p.name: polars_dtype(p) for p in table.columns}
    if isinstance(table, RelTable):
        string = _polars()["STRING"]
        return {"from": string, "to": string, **cols}
    return cols
