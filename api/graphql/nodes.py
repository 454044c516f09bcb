"""GraphQL node types, generated from ``schema``: one type per node table, implementing Relay's
``Node`` (global id) with every property, and a cursor connection for every rel the table
takes part in, in both directions.

Field names: a property ``valid_from`` is ``validFrom``; the table's own id is ``key``
(``sym:<repo>/<path>#<qualname>``), ``id`` being the Relay global id. An outgoing rel is
named after the rel (``calls``, ``imports``, ``inCommunity``), an incoming one by
:data:`REVERSE` (``calledBy``, ``importedBy``, ``members``).
"""

import base64
from collections.abc import Iterable
from datetime import datetime
from typing import Annotated, Any

import strawberry
from strawberry import relay

from api.graphql.context import Context, EdgeKey, other_tables
from graphdb.sessions import glob_pattern
from schema import COMMON_PROPS, NODE_TABLES, REL_TABLES, SUPERSEDES, NodeTable, Prop, QueryError

__all__ = ["NODE_TYPES", "REVERSE", "make_node", "node_type", "page"]

_PY_TYPES: dict[str, Any] = {"STRING": str, "INT64": int, "INT32": int, "DOUBLE": float,
                             "BOOLEAN": bool, "TIMESTAMP": datetime, "STRING[]": list[str]}
#: ingest bookkeeping, not knowledge (and nanosecond times overflow GraphQL's Int)
_HIDDEN = {"mtime_ns"}

#: name of each rel seen from its target
REVERSE: dict[str, str] = {
    "CONTAINS": "contained_in", "IMPORTS": "imported_by", "CALLS": "called_by",
    "INHERITS": "inherited_by", "TESTS": "tested_by", "PARENT": "children",
    "AUTHORED": "authored_by", "CHANGED": "changed_by", "TOUCHED": "touched_by",
    "CO_CHANGED": "co_changed_with", "IN_SESSION": "session_items", "BY": "made",
    "ABOUT": "subject_of", "SUPERSEDES": "superseded_by", "CITES": "cited_by",
    "WROTE": "written_by", "HAS_TOPIC": "topic_of", "REFERENCES": "referenced_by",
    "BASED_ON": "basis_of", "RESOLVES": "resolved_by", "EXECUTES": "executed_by",
    "IN_COMMUNITY": "members", "SUBCOMMUNITY_OF": "subcommunities",
    "DEPENDS_ON": "dependents",
}

_TABLES = [t for t in NODE_TABLES if not t.internal]
NODE_TYPES: dict[str, type] = {}


def _attr(prop: Prop) -> str:
    return "key" if prop.name == "id" else prop.name


def _camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(w.title() for w in rest)


def _pascal(snake: str) -> str:
    return "".join(w.title() for w in snake.split("_"))


def make_node(table: str, props: dict[str, Any]) -> Any:
    """An instance of ``table``'s GraphQL type from its stored properties."""
    cls = NODE_TYPES[table]
    fields = cls.__vgdb_fields__
    return cls(id=props["id"], **{attr: props.get(name) for name, attr in fields.items()})


def node_type(table: str) -> type:
    return NODE_TYPES[table]


# ---------------------------------------------------------------------------- connections
def _cursor(offset: int) -> str:
    return base64.b64encode(f"offset:{offset}".encode()).decode()


def _offset(cursor: str) -> int:
    try:
        kind, _, number = base64.b64decode(cursor.encode(), validate=True).decode().partition(":")
        if kind != "offset":
            raise ValueError(cursor)
        return int(number)
    except ValueError as exc:
        raise QueryError(f"invalid cursor {cursor!r}",
                         suggestion="pass a cursor from pageInfo or an edge") from exc


def page(items: list[Any], *, first: int | None, after: str | None, last: int | None,
         before: str | None, context: Context) -> tuple[list[tuple[int, Any]], relay.PageInfo]:
    """The Relay pagination algorithm over a materialized list: (offset, item) pairs of the
    page and its PageInfo. The page size defaults to the settings' and is capped."""
    limit = context.settings.max_page_size
    for name, value in (("first", first), ("last", last)):
        if value is not None and (value < 0 or value > limit):
            raise QueryError(f"{name} must be between 0 and {limit}, not {value}")
    start, end = 0, len(items)
    if after is not None:
        start = max(start, _offset(after) + 1)
    if before is not None:
        end = min(end, _offset(before))
    if first is None and last is None:
        first = context.settings.page_size
    if first is not None:
        end = min(end, start + first)
    if last is not None:
        start = max(start, end - last)
    window = [(i, items[i]) for i in range(start, max(start, end))]
    info = relay.PageInfo(
        has_next_page=end < len(items), has_previous_page=start > 0,
        start_cursor=_cursor(window[0][0]) if window else None,
        end_cursor=_cursor(window[-1][0]) if window else None)
    return window, info


def _edge_types(owner: NodeTable, field: str, rel, forward: bool) -> tuple[type, type]:
    others = other_tables(rel, forward, owner.name)
    target: Any = NODE_TYPES[others[0].name] if len(others) == 1 else relay.Node
    name = f"{owner.name}{_pascal(field)}"
    annotations: dict[str, Any] = {"cursor": str, "node": target}
    namespace: dict[str, Any] = {}
    for prop in (*rel.props, *COMMON_PROPS):
        annotations[prop.name] = _PY_TYPES[prop.type] | None
        namespace[prop.name] = strawberry.field(default=None, description=prop.doc or None)
    edge = strawberry.type(type(f"{name}Edge", (), {"__annotations__": annotations,
                                                     **namespace}),
                           description=f"A {rel.name} edge: {rel.doc}")
    connection = strawberry.type(
        type(f"{name}Connection", (), {"__annotations__": {
            "edges": list[edge], "page_info": relay.PageInfo, "total_count": int}}),
        description=f"{owner.name}.{_camel(field)}: {rel.doc}")
    return edge, connection


def _connection_resolver(owner: NodeTable, rel, forward: bool, edge: type, connection: type):
    default_current = rel is not SUPERSEDES

    async def resolve(root, info: strawberry.Info,
                      first: Annotated[int | None, _arg("the first N (default 20, max 100)")]
                      = None,
                      after: Annotated[str | None, _arg("after this cursor")] = None,
                      last: Annotated[int | None, _arg("the last N")] = None,
                      before: Annotated[str | None, _arg("before this cursor")] = None,
                      current: Annotated[bool, _arg("only what is true now")] = default_current,
                      as_of: Annotated[datetime | None, _arg("true at this valid time")] = None,
                      known_at: Annotated[datetime | None,
                                          _arg("as recorded at this time")] = None,
                      kind: Annotated[str | None, _arg("the other end's kind")] = None,
                      language: Annotated[str | None, _arg("the other end's language")] = None,
                      path: Annotated[str | None, _arg("the other end's path glob "
                                                       "(*, **, ?)")] = None,
                      community: Annotated[str | None,
                                           _arg("the other end is in this community (id)")]
                      = None):
        context: Context = info.context
        filters = {"current": current, "as_of": as_of, "known_at": known_at, "kind": kind,
                   "language": language, "community": community,
                   "path_regex": glob_pattern(path) if path else None}
        key = EdgeKey(rel.name, forward, owner.name, root.key,
                      tuple(sorted((k, v) for k, v in filters.items() if v is not None)))
        items = await context.edge_loader.load(key)
        window, page_info = page(items, first=first, after=after, last=last, before=before,
                                 context=context)
        nodes = await context.node_loader.load_many([(i["_table"], i["_id"])
                                                     for _, i in window])
        edges = []
        for (offset, item), props in zip(window, nodes, strict=True):
            if props is None:
                continue
            values = {k: v for k, v in item.items() if not k.startswith("_")}
            edges.append(edge(cursor=_cursor(offset), node=make_node(item["_table"], props),
                              **{k: values.get(k) for k in edge.__annotations__
                                 if k not in ("cursor", "node")}))
        return connection(edges=edges, page_info=page_info, total_count=len(items))

    resolve.__annotations__["return"] = connection
    return resolve


def _arg(description: str) -> Any:
    return strawberry.argument(description=description)


# ----------------------------------------------------------------------------------- build
def _build() -> None:
    classes: dict[str, type] = {}
    for table in _TABLES:
        fields = {p.name: _attr(p) for p in table.columns if p.name not in _HIDDEN}
        annotations: dict[str, Any] = {"id": relay.NodeID[str]}
        namespace: dict[str, Any] = {"__vgdb_fields__": fields, "__vgdb_table__": table.name}
        for prop in table.columns:
            if prop.name in _HIDDEN:
                continue
            attr = _attr(prop)
            annotations[attr] = (str if prop.name == "id"
                                 else _PY_TYPES[prop.type] | None)
            namespace[attr] = strawberry.field(
                default=None, description=("the graph's own id (DESIGN §2)" if prop.name == "id"
                                           else prop.doc or None))
        namespace["__annotations__"] = annotations
        namespace["resolve_nodes"] = classmethod(_resolve_nodes)
        classes[table.name] = type(table.name, (relay.Node,), namespace)
        NODE_TYPES[table.name] = classes[table.name]
    for table in _TABLES:
        cls = classes[table.name]
        for rel in REL_TABLES:
            for forward in (True, False):
                if not other_tables(rel, forward, table.name):
                    continue
                field = rel.name.lower() if forward else REVERSE[rel.name]
                edge, connection = _edge_types(table, field, rel, forward)
                resolver = _connection_resolver(table, rel, forward, edge, connection)
                ends = ", ".join(t.name for t in other_tables(rel, forward, table.name))
                setattr(cls, field, strawberry.field(
                    resolver=resolver, description=f"{rel.name} "
                    f"{'to' if forward else 'from'} {ends}: {rel.doc}"))
                cls.__annotations__[field] = connection
    for table in _TABLES:
        NODE_TYPES[table.name] = strawberry.type(classes[table.name], description=table.doc)


async def _resolve_nodes(cls, *, info: strawberry.Info, node_ids: Iterable[str],
                         required: bool = False) -> list[Any]:
    ids = list(node_ids)
    found = await info.context.node_loader.load_many([(cls.__vgdb_table__, i) for i in ids])
    out = [make_node(cls.__vgdb_table__, props) if props else None for props in found]
    if required and any(o is None for o in out):
        missing = [i for i, o in zip(ids, out, strict=True) if o is None]
        raise QueryError(f"no {cls.__vgdb_table__} with id {', '.join(missing)}")
    return out


_build()
