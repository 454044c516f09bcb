"""The building blocks of the schema: properties, node tables and rel tables.

Everything else (Kuzu DDL, polars frame schemas, later the GraphQL types) is generated from
these declarations, so a table or property is written down exactly once.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["KUZU_TYPES", "NodeTable", "Prop", "RelTable"]

#: Kuzu column types we use, and the polars dtype name that carries each one.
KUZU_TYPES: dict[str, str] = {
    "STRING": "Utf8",
    "INT64": "Int64",
    "INT32": "Int32",
    "DOUBLE": "Float64",
    "BOOLEAN": "Boolean",
    "TIMESTAMP": "Datetime",
    "STRING[]": "List[Utf8]",
}


@dataclass(frozen=True, slots=True)
class Prop:
    """One property (column) of a node or rel table."""

    name: str
    type: str
    doc: str = ""

    def __post_init__(self) -> None:
        if self.type not in KUZU_TYPES:
            raise ValueError(f"property {self.name!r}: unsupported type {self.type!r}")


#: Provenance and bi-temporal properties that every node and rel table carries (DESIGN §2).
COMMON_PROPS: tuple[Prop, ...] = (
    Prop("source", "STRING", "where the fact came from: ast, git, session, import, user, inferred"),
    Prop("confidence", "DOUBLE", "confidence in [0, 1] where inference is involved, else 1.0"),
    Prop("recorded_at", "TIMESTAMP", "when this database learned the fact (transaction time)"),
    Prop("expired_at", "TIMESTAMP", "when this database stopped believing it (transaction time)"),
    Prop("valid_from", "TIMESTAMP", "when it became true in the world (valid time)"),
    Prop("valid_to", "TIMESTAMP", "when it stopped being true in the world (valid time)"),
)


@dataclass(frozen=True, slots=True)
class NodeTable:
    """A node table; its primary key is always the deterministic string ``id``."""

    name: str
    domain: str
    doc: str
    props: tuple[Prop, ...]
    internal: bool = False

    @property
    def columns(self) -> tuple[Prop, ...]:
        """All columns in DDL order: id, own properties, then the common ones."""
        return (Prop("id", "STRING", "deterministic identifier"), *self.props, *COMMON_PROPS)

    def prop(self, name: str) -> Prop:
        for p in self.columns:
            if p.name == name:
                return p
        raise KeyError(f"{self.name} has no property {name!r}")


@dataclass(frozen=True, slots=True)
class RelTable:
    """A rel table; ``pairs`` lists the (FROM, TO) node tables it may connect, in that direction."""

    name: str
    doc: str
    pairs: tuple[tuple[NodeTable, NodeTable], ...]
    props: tuple[Prop, ...] = field(default=())

    @property
    def columns(self) -> tuple[Prop, ...]:
        return (*self.props, *COMMON_PROPS)

    def allows(self, src: str, dst: str) -> bool:
        return any(a.name == src and b.name == dst for a, b in self.pairs)
