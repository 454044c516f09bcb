"""GraphQL node types, generated from ``schema``: one type per node table, implementing Relay's
``Node`` (global id) with every property, and a cursor connection for every rel the table
takes part in, in both directions.

Field names: a property ``valid_from`` is ``validFrom``; the table's own id is ``key``
(``sym:<repo>/<path>#<qualname>``), ``id`` being the Relay global id. An outgoing rel is
named after the rel (``calls``, ``imports``, ``inCommunity``), an incoming one by
:data:`REVERSE` (``calledBy``, ``importedBy``, ``members``).
"""

import base64
import enum
import json
from collections.abc import Iterable, Iterator, Sequence
from datetime import date, datetime
from typing import Annotated, Any, NamedTuple

import strawberry
from strawberry import relay
from strawberry.types.nodes import SelectedField

from api.graphql.code_entries import entries_field
from api.graphql.context import TIME_PROPS, Context, EdgeKey, other_tables, time_expr
from graphdb import deadline
from graphdb.sessions import glob_pattern
from schema import (
    COMMON_PROPS,
    ENTRY,
    FILE,
    NODE_TABLES,
    REL_TABLES,
    SUPERSEDES,
    SYMBOL,
    NodeTable,
    Prop,
    QueryError,
)

__all__ = ["NODE_TYPES", "REVERSE", "TIME_PROPS", "Direction", "OrderBy", "SortKey", "make_node",
           "needs_props", "node_type", "page", "sort_items", "sort_keys", "time_expr"]

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


# ------------------------------------------------------------------------------- ordering
@strawberry.enum(description="ASC: smallest first, DESC: largest first; nodes without the "
                             "property come last either way.")
class Direction(enum.Enum):
    ASC = "ASC"
    DESC = "DESC"


@strawberry.input(description="One key to order a list by: a property of its nodes in "
                              "camelCase (`startLine`, `committedAt`, `key`) or, with "
                              "`edge: true`, of its edges (`line`, `weight`). Ties are "
                              "broken by the node's key.")
class OrderBy:
    field: str
    direction: Direction = Direction.ASC
    edge: bool = False


class SortKey(NamedTuple):
    """A validated ``OrderBy``: ``prop`` is the stored (snake_case) name."""

    on_edge: bool
    prop: str
    descending: bool


def sort_keys(order_by: list[OrderBy] | None, tables: Sequence[NodeTable], rel: Any,
              where: str, default: tuple[SortKey, ...] = ()) -> tuple[SortKey, ...]:
    """``order_by`` checked against the properties of ``tables`` (and of ``rel``'s edges):
    an unknown field is an error that lists the known ones."""
    if not order_by:
        return default
    keys = []
    for order in order_by:
        if order.edge:
            if rel is None:
                raise QueryError(f"{where} has no edges to order by",
                                 suggestion="order by a property of its nodes (edge: false)")
            props = [*rel.props, *COMMON_PROPS]
            owner = f"a {rel.name} edge"
        else:
            props = [p for t in tables for p in t.columns if p.name not in _HIDDEN]
            owner = " / ".join(t.name for t in tables)
        names = {("key" if p.name == "id" else _camel(p.name)): p.name for p in props
                 if p.type != "STRING[]"}
        if order.field not in names:
            raise QueryError(f"cannot order {where} by {order.field!r}: {owner} has no such "
                             "property", suggestion="order by one of: " +
                             ", ".join(sorted(names)))
        keys.append(SortKey(order.edge, names[order.field],
                            order.direction is Direction.DESC))
    return tuple(keys)


def _plain(value: Any) -> Any:
    """A sort value as JSON (cursors carry them): times as ISO text, which sorts as they do."""
    return value.isoformat() if isinstance(value, (datetime, date)) else value


def _value(item: dict[str, Any], key: SortKey) -> Any:
    if key.on_edge:
        return _plain(item.get(key.prop))
    return item["_id"] if key.prop == "id" else _plain(item.get(f"_n_{key.prop}"))


def sort_items(items: list[dict[str, Any]], keys: Sequence[SortKey]) -> list[dict[str, Any]]:
    """``items`` (each with ``_id``, its node properties as ``_n_<prop>`` and its edge
    properties) ordered by ``keys`` then by id, as a new list. Stable sorts from the last key
    to the first (Python keeps ties in order, also with ``reverse``)."""
    out = sorted(items, key=lambda i: i["_id"])
    for key in reversed(keys):
        values = [_value(i, key) for i in out]
        order = sorted(range(len(out)), reverse=key.descending, key=lambda n: (
            # nulls last: with reverse, non-null (True) comes first
            (values[n] is not None) if key.descending else (values[n] is None),
            values[n] if values[n] is not None else 0))
        out = [out[n] for n in order]
    return out


def _cursor_key(item: dict[str, Any], keys: Sequence[SortKey]) -> list[Any]:
    return [*(_value(item, k) for k in keys), item["_id"]]


def _fingerprint(keys: Sequence[SortKey]) -> str:
    return ",".join(f"{'edge.' if k.on_edge else ''}{k.prop}{' desc' if k.descending else ''}"
                    for k in keys)


def _encode(key: list[Any], keys: Sequence[SortKey]) -> str:
    payload = json.dumps({"o": _fingerprint(keys), "k": key}, separators=(",", ":"))
    return base64.urlsafe_b64encode(payload.encode()).decode()


def _decode(cursor: str, keys: Sequence[SortKey]) -> list[Any]:
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor.encode()).decode())
        key, order = data["k"], data["o"]
        if not isinstance(key, list) or len(key) != len(keys) + 2:
            raise ValueError(cursor)
    except (ValueError, TypeError, KeyError) as exc:  # binascii.Error is a ValueError
        raise QueryError(f"invalid cursor {cursor!r}",
                         suggestion="pass a cursor from pageInfo or an edge") from exc
    if order != _fingerprint(keys):
        raise QueryError(f"cursor {cursor!r} was made for another orderBy",
                         suggestion="page with the orderBy the cursor came from")
    return key


def _compare(a: list[Any], b: list[Any], keys: Sequence[SortKey]) -> int:
    """Order of two cursor keys (values, id, duplicate number), as :func:`sort_items`."""
    descending = [k.descending for k in keys] + [False, False]  # then id, number
    for x, y, down in zip(a, b, descending, strict=True):
        if x == y:
            continue
        if x is None or y is None:
            return 1 if x is None else -1
        if type(x) is not type(y):
            x, y = str(x), str(y)
        less = x < y
        return (1 if less else -1) if down else (-1 if less else 1)
    return 0


def page(items: list[dict[str, Any]], *, first: int | None, after: str | None,
         last: int | None, before: str | None, context: Context,
         keys: Sequence[SortKey] = ()) -> tuple[list[tuple[str, dict]], relay.PageInfo]:
    """The Relay pagination algorithm over ``items`` sorted by ``keys`` (see
    :func:`sort_items`): (cursor, item) pairs of the page and its PageInfo. The page size
    defaults to the settings' and is capped.

    Cursors are keyset cursors: the item's sort values and id (and a number among equal
    ones), not an offset, so a page continues after the same item when nodes were added or
    removed before it meanwhile; a cursor of another ordering is refused."""
    limit = context.settings.max_page_size
    for name, value in (("first", first), ("last", last)):
        if value is not None and (value < 0 or value > limit):
            raise QueryError(f"{name} must be between 0 and {limit}, not {value}")
    full: list[list[Any]] = []
    seen: dict[str, int] = {}
    for item in items:
        key = _cursor_key(item, keys)
        marker = json.dumps(key, default=str)
        key.append(seen.get(marker, 0))
        seen[marker] = key[-1] + 1
        full.append(key)
    start, end = 0, len(items)
    if after is not None:
        start = max(start, _position(full, _decode(after, keys), keys, after=True))
    if before is not None:
        end = min(end, _position(full, _decode(before, keys), keys, after=False))
    if first is None and last is None:
        first = context.settings.page_size
    if first is not None:
        end = min(end, start + first)
    if last is not None:
        start = max(start, end - last)
    window = [(_encode(full[i], keys), items[i]) for i in range(start, max(start, end))]
    info = relay.PageInfo(
        has_next_page=end < len(items), has_previous_page=start > 0,
        start_cursor=window[0][0] if window else None,
        end_cursor=window[-1][0] if window else None)
    return window, info


def _position(full: list[list[Any]], key: list[Any], keys: Sequence[SortKey], *,
              after: bool) -> int:
    """Where a page starts after (ends before) the item with cursor key ``key``: at that
    item if it is still there, else where it would be."""
    for i, other in enumerate(full):
        order = _compare(other, key, keys)
        if order == 0:
            return i + 1 if after else i
        if order > 0:
            return i
    return len(full)


def needs_props(info: strawberry.Info, tables: Sequence[NodeTable]) -> bool:
    """Whether the query selects a property of the listed nodes (``edges { node { ... } }``)
    beyond their id and key: if not, they are made from their ids, without a database
    query (a list of callers' keys costs one query, not two)."""
    names = _names(tables)
    return any(_selects(node.selections, names)
               for field in info.selected_fields if isinstance(field, SelectedField)
               for edges in _children(field.selections, "edges")
               for node in _children(edges.selections, "node"))


def _selected(info: strawberry.Info, name: str) -> Iterator[SelectedField]:
    """The fields selected inside ``name`` (``edges``) of the current field."""
    for field in info.selected_fields:
        if isinstance(field, SelectedField):
            for inner in _children(field.selections, name):
                yield from _children(inner.selections, None)


def _children(selections: list[Any], name: str | None) -> Iterator[SelectedField]:
    for s in selections:
        if isinstance(s, SelectedField):
            if name is None or s.name == name:
                yield s
        else:  # fragments
            yield from _children(s.selections, name)


def _names(tables: Sequence[NodeTable]) -> set[str]:
    return {_camel(p.name) for t in tables for p in t.columns
            if p.name not in _HIDDEN and p.name != "id"}


def _selects(selections: list[Any], names: set[str]) -> bool:
    for s in selections:
        if isinstance(s, SelectedField):
            if s.name in names:
                return True
        else:
            table = next((t for t in _TABLES if t.name == s.type_condition), None)
            if _selects(s.selections, _names([table]) if table else names):
                return True
    return False


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


def _connection_resolver(owner: NodeTable, rel, forward: bool, field: str, edge: type,
                         connection: type):
    default_current = rel is not SUPERSEDES
    others = other_tables(rel, forward, owner.name)
    where = f"{owner.name}.{_camel(field)}"
    edge_props = {_camel(p.name): p.name for p in (*rel.props, *COMMON_PROPS)}

    async def resolve(root, info: strawberry.Info,
                      first: Annotated[int | None, _arg("the first N (default 20, max 100)")]
                      = None,
                      after: Annotated[str | None, _arg("after this cursor")] = None,
                      last: Annotated[int | None, _arg("the last N")] = None,
                      before: Annotated[str | None, _arg("before this cursor")] = None,
                      current: Annotated[bool | None, _arg(
                          "only what is true now (default: true, false on supersedes; "
                          "false when asOf or knownAt is given)")] = None,
                      as_of: Annotated[datetime | None, _arg("true at this valid time")] = None,
                      known_at: Annotated[datetime | None,
                                          _arg("as recorded at this time")] = None,
                      kind: Annotated[str | None, _arg("the other end's kind")] = None,
                      language: Annotated[str | None, _arg("the other end's language")] = None,
                      path: Annotated[str | None, _arg("the other end's path glob "
                                                       "(*, **, ?)")] = None,
                      community: Annotated[str | None,
                                           _arg("the other end is in this community (id)")]
                      = None,
                      since: Annotated[datetime | None, _arg(
                          "the other end's time is at or after this (committedAt of a "
                          "commit, startedAt of a session, else validFrom)")] = None,
                      until: Annotated[datetime | None, _arg(
                          "the other end's time is before this")] = None,
                      order_by: Annotated[list[OrderBy] | None, _arg(
                          "sort keys, first one first (default: by the other end's key)")]
                      = None):
        context: Context = info.context
        deadline.check()  # one connection per node of the level above: thousands a request
        if current is None:  # a time travel asks for the past, not for what is true now
            current = default_current and as_of is None and known_at is None
        keys = sort_keys(order_by, others, rel, where)
        filters = {"current": current, "as_of": as_of, "known_at": known_at, "kind": kind,
                   "language": language, "community": community, "since": since,
                   "until": until, "path_regex": glob_pattern(path) if path else None,
                   "order": tuple(sorted({k.prop for k in keys if not k.on_edge
                                          and k.prop != "id"})) or None}
        columns = {k.prop for k in keys if k.on_edge} | {
            edge_props[f.name] for f in _selected(info, "edges") if f.name in edge_props}
        key = EdgeKey(rel.name, forward, owner.name, root.key,
                      tuple(sorted((k, v) for k, v in filters.items() if v is not None)),
                      tuple(sorted(columns)))
        items = sort_items(await context.edge_loader.load(key), keys)
        window, page_info = page(items, first=first, after=after, last=last, before=before,
                                 context=context, keys=keys)
        if needs_props(info, others):
            nodes = await context.node_loader.load_many([(i["_table"], i["_id"])
                                                         for _, i in window])
        else:  # only ids asked for: an edge never dangles, so the node exists
            nodes = [{"id": i["_id"]} for _, i in window]
        edges = []
        for (cursor, item), props in zip(window, nodes, strict=True):
            if props is None:
                continue
            edges.append(edge(cursor=cursor, node=make_node(item["_table"], props),
                              **{k: item.get(k) for k in edge.__annotations__
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
                resolver = _connection_resolver(table, rel, forward, field, edge, connection)
                ends = ", ".join(t.name for t in other_tables(rel, forward, table.name))
                setattr(cls, field, strawberry.field(
                    resolver=resolver, description=f"{rel.name} "
                    f"{'to' if forward else 'from'} {ends}: {rel.doc}"))
                cls.__annotations__[field] = connection
        if table.name in (FILE.name, SYMBOL.name):  # about it or in scope of it
            connection, field = entries_field(classes[ENTRY.name], table.name)
            cls.entries = field
            cls.__annotations__["entries"] = connection
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
