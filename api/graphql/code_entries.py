"""``entries`` on File and Symbol: the decisions, failures, patterns and other entries that
apply to the code, each edge marked with its relation — ``about`` (an ABOUT edge names it)
or ``in scope: <glob>`` (the entry's scope covers its file). ``subjectOf`` lists ABOUT edges
only; this field is the one that treats scope as a relation (DESIGN §5), as impact and
provenance do. A level of a query is one batched call (``Context.entries_loader``).
"""

from datetime import datetime
from typing import Annotated, Any

import strawberry
from strawberry import relay

from api.graphql.context import Context

__all__ = ["entries_field"]

_ABOUT = ("`about` (an ABOUT edge names this code) or `in scope: <glob>` (the glob of the "
          "entry's scope covers this code's file)")


def _arg(description: str) -> Any:
    return strawberry.argument(description=description)


def entries_field(entry: type, owner: str) -> tuple[type, Any]:
    """The connection type and field of ``owner.entries`` (``entry``: the Entry type)."""
    edge = strawberry.type(type(f"{owner}EntriesEdge", (), {
        "__annotations__": {"cursor": str, "node": entry, "relation": str, "status": str,
                            "current": bool, "source": str, "confidence": float},
        "relation": strawberry.field(description=_ABOUT),
        "status": strawberry.field(description="the entry's status at asOf (now) as "
                                               "recorded at knownAt (now)"),
        "current": strawberry.field(description="in force at asOf (now)"),
        "source": strawberry.field(description="the ABOUT edge's source (the entry's own "
                                               "for a scope)"),
    }), description=f"An entry that applies to the {owner.lower()}, and how.")
    connection = strawberry.type(type(f"{owner}EntriesConnection", (), {"__annotations__": {
        "edges": list[edge], "page_info": relay.PageInfo, "total_count": int}}),
        description=f"{owner}.entries: the entries about it or in scope of it.")

    async def resolve(root: Any, info: strawberry.Info,
                      first: Annotated[int | None, _arg("the first N (default 20, max 100)")]
                      = None,
                      after: Annotated[str | None, _arg("after this cursor")] = None,
                      last: Annotated[int | None, _arg("the last N")] = None,
                      before: Annotated[str | None, _arg("before this cursor")] = None,
                      kind: Annotated[str | None, _arg("decision, failure, pattern, ...")]
                      = None,
                      current: Annotated[bool | None, _arg(
                          "only entries in force now (default: true; false when asOf or "
                          "knownAt is given)")] = None,
                      as_of: Annotated[datetime | None, _arg(
                          "in force at this valid time, with the status then")] = None,
                      known_at: Annotated[datetime | None, _arg(
                          "as recorded at this time: later supersessions do not count")]
                      = None) -> Any:
        from api.graphql.nodes import SortKey, make_node, needs_props, page, sort_items
        from schema import ENTRY

        context: Context = info.context
        if current is None:
            current = as_of is None and known_at is None
        filters = tuple(sorted((k, v) for k, v in (
            ("kind", kind), ("current", current), ("as_of", as_of), ("known_at", known_at))
            if v is not None))
        applied = await context.entries_loader.load((root.key, filters))
        items = sort_items([{"_id": a.id, "_n_valid_from": a.valid_from, "applied": a}
                            for a in applied], (SortKey(False, "valid_from", True),))
        window, page_info = page(items, first=first, after=after, last=last, before=before,
                                 context=context, keys=(SortKey(False, "valid_from", True),))
        if needs_props(info, [ENTRY]):
            found = await context.node_loader.load_many([(ENTRY.name, i["_id"])
                                                         for _, i in window])
        else:
            found = [{"id": i["_id"]} for _, i in window]
        edges = []
        for (cursor, item), props in zip(window, found, strict=True):
            if props is None:
                continue
            a = item["applied"]
            node = make_node(ENTRY.name, props)
            if "status" in props:  # as it was then
                node.status, node.valid_to = a.status, a.valid_to
            edges.append(edge(cursor=cursor, node=node, relation=a.relation, status=a.status,
                              current=a.current, source=a.source, confidence=a.confidence))
        return connection(edges=edges, page_info=page_info, total_count=len(items))

    resolve.__annotations__["return"] = connection
    return connection, strawberry.field(
        resolver=resolve, description="Entries that apply to this code, newest first: "
        "linked by ABOUT or covered by their scope globs, each edge with its relation ("
        + _ABOUT + ").")
