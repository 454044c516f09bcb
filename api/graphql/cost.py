"""The estimated cost of a GraphQL operation, refused before anything runs when too large.

Cost counts the objects an answer can hold, walking the operation with the schema's types
(so inline fragments, named fragments and type conditions are seen as what they select):

- an object field counts once per object above it; a list field multiplies by its size:
  ``edges``/``nodes`` of a connection by the connection's ``first``/``last`` (default: the
  page size); ``nodes(ids:)`` by its number of ids (capped at ``max_ids``); the lists of an
  ``impact`` answer by its ``limit``, ``search``'s by ``k``, ``similar``'s by
  ``kPerDomain`` (the schema's defaults when not given); any other list by the page size;
- work that is not an answer adds its own estimate: ``impact`` and ``affectedTests`` walk
  ``targets x depth x FANOUT`` edges (a git diff counts as ``DIFF_TARGETS`` targets, depth is
  capped at :data:`queries.impact.MAX_DEPTH`), ``search`` ``k x (1 + near)``,
  ``sourceText`` one per ``LINES_PER_UNIT`` lines, ``status`` ``STATUS_WORK`` (it walks
  the trees), the admin ``backup``, ``exportGraph`` and ``removeRepository``
  ``ADMIN_WORK`` (a pass over the whole database: a token with a lower ``--max-cost`` may
  not run them).

Whether a field is a list is the schema's answer, never its name: a field called ``edges``
or ``nodes`` that returns one object counts once.

The same :func:`work` prices MCP's tools, so both surfaces refuse the same requests with the
same error (:class:`CostLimitError`).

Hand-written: graphql-core's ``TypeInfo`` visitor would give the types, but not the
multiplication down the tree, which is the whole model; strawberry has no cost limiter.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLList,
    GraphQLNonNull,
    GraphQLSchema,
    InlineFragmentNode,
    IntValueNode,
    ListValueNode,
    OperationDefinitionNode,
    SelectionSetNode,
    VariableNode,
    get_named_type,
)

from queries.impact import MAX_DEPTH
from schema import QueryError

__all__ = ["ADMIN_WORK", "DIFF_TARGETS", "FANOUT", "LINES_PER_UNIT", "STATUS_WORK",
           "CostLimitError", "estimate_cost", "work"]

FANOUT = 20  # edges an impact walk is assumed to follow per target and hop
DIFF_TARGETS = 50  # targets a git diff (repo + base) is assumed to change
LINES_PER_UNIT = 100  # lines of sourceText counted as one object
STATUS_WORK = 100  # the status of every repository: git calls and a walk of each tree
ADMIN_WORK = 1_000  # backup, exportGraph, removeRepository: the whole database
_ADMIN = frozenset({"backup", "exportGraph", "export_graph", "removeRepository",
                    "remove_repository"})
_SIZE_ARGS = {"impact": "limit", "search": "k", "similar": "kPerDomain"}


class CostLimitError(QueryError):
    """An operation estimated over its limit (or a ``nodes`` list over its cap)."""

    code = "TOO_EXPENSIVE"

    def __init__(self, message: str, *, cost: int, limit: int) -> None:
        super().__init__(message, suggestion="ask for smaller pages, fewer nested lists, "
                                             "fewer targets or a lower depth")
        self.cost = cost
        self.limit = limit

    @property
    def extensions(self) -> dict[str, Any]:
        return {"code": self.code, "cost": self.cost, "limit": self.limit,
                "suggestion": self.suggestion}


def too_expensive(cost: int, limit: int) -> CostLimitError:
    return CostLimitError(f"query too expensive: about {cost:,} objects (limit {limit:,}); "
                          "ask for smaller pages or fewer nested lists", cost=cost,
                          limit=limit)


def work(field: str, args: Mapping[str, Any]) -> int:
    """The estimated work of a root field beyond its answer (0 for most)."""
    if field in ("impact", "affectedTests", "affected_tests"):
        targets = args.get("targets")
        count = _count(targets) if targets is not None else DIFF_TARGETS
        default = 3 if field == "impact" else 5
        depth = args.get("depth")
        depth = default if not isinstance(depth, int) else max(0, min(depth, MAX_DEPTH))
        return count * max(depth, 1) * FANOUT
    if field == "search":
        k = args.get("k")
        return (k if isinstance(k, int) else 10) * (1 + _count(args.get("near") or ()))
    if field in ("sourceText", "source_text"):
        lines = args.get("maxLines", args.get("max_lines"))
        return -(-max(lines, 1) // LINES_PER_UNIT) if isinstance(lines, int) else 1
    if field == "status":
        return STATUS_WORK
    if field in _ADMIN:
        return ADMIN_WORK
    return 0


def estimate_cost(schema: GraphQLSchema, document: Any, variables: Mapping[str, Any], *,
                  page_size: int, max_ids: int) -> int:
    """The operation's estimated cost; raises :class:`CostLimitError` for a ``nodes`` list
    longer than ``max_ids``."""
    walk = _Walk(schema, document, variables, page_size, max_ids)
    total = 0
    for definition in document.definitions:
        if isinstance(definition, OperationDefinitionNode):
            root = schema.get_root_type(definition.operation)
            total += walk.cost(definition.selection_set, root, 1, page_size, set())
    return total


def _count(value: Any) -> int:
    if isinstance(value, (list, tuple)):
        return len(value)
    return 0 if value is None else 1  # a single value stands for a list of one


class _Walk:
    def __init__(self, schema: GraphQLSchema, document: Any, variables: Mapping[str, Any],
                 page_size: int, max_ids: int) -> None:
        self.schema = schema
        self.variables = variables
        self.page_size = page_size
        self.max_ids = max_ids
        self.roots = {t for t in (schema.query_type, schema.mutation_type) if t is not None}
        self.fragments = {d.name.value: d for d in document.definitions
                          if isinstance(d, FragmentDefinitionNode)}

    def cost(self, selections: SelectionSetNode | None, parent: Any, multiplier: int,
             page: int, seen: set[str]) -> int:
        """Objects under ``selections`` on ``parent`` (a named type), ``multiplier`` of them
        above; ``page``: the size of a list directly under ``parent``."""
        if selections is None:
            return 0
        total = 0
        for node in selections.selections:
            if isinstance(node, FieldNode):
                total += self.field(node, parent, multiplier, page, seen)
            elif isinstance(node, InlineFragmentNode):
                inner = (self.schema.get_type(node.type_condition.name.value)
                         if node.type_condition else parent)
                total += self.cost(node.selection_set, inner or parent, multiplier, page, seen)
            elif isinstance(node, FragmentSpreadNode):
                name = node.name.value
                fragment = self.fragments.get(name)
                if fragment is not None and name not in seen:  # cycles: validation's job
                    inner = self.schema.get_type(fragment.type_condition.name.value)
                    total += self.cost(fragment.selection_set, inner or parent, multiplier,
                                       page, seen | {name})
        return total

    def field(self, node: FieldNode, parent: Any, multiplier: int, page: int,
              seen: set[str]) -> int:
        name = node.name.value
        fields = getattr(parent, "fields", None) or {}
        definition = fields.get(name)
        if definition is None or name.startswith("__"):
            return 0  # unknown fields (validation refuses them); introspection
        args = self.arguments(node, definition)
        # work is a root field's (Query.status, Mutation.backup), never a field of the same
        # name below (Entry.status is a string)
        extra = work(name, args) if parent in self.roots else 0
        if node.selection_set is None:  # a scalar: only the work behind it (a JSON answer)
            return multiplier * extra
        asked = next((max(1, args[key]) for key in ("first", "last", _SIZE_ARGS.get(name))
                      if key and isinstance(args.get(key), int)), None)
        size, below = 1, asked or self.page_size  # a connection's page: its edges' size
        if _is_list(definition.type):  # a list by its own size argument, else its page
            size, below = asked or page, self.page_size
            if name == "nodes" and "ids" in args:
                size = _count(args["ids"])
                if size > self.max_ids:
                    raise CostLimitError(f"nodes takes at most {self.max_ids} ids, not "
                                         f"{size:,}", cost=size, limit=self.max_ids)
        count = multiplier * size
        named = get_named_type(definition.type)
        return (count + multiplier * extra
                + self.cost(node.selection_set, named, count, below, seen))

    def arguments(self, node: FieldNode, definition: Any) -> dict[str, Any]:
        """The field's arguments as given (variables resolved), else the schema's defaults;
        lists only as far as their length matters."""
        out: dict[str, Any] = {}
        for name, arg in definition.args.items():
            if arg.default_value is not None and not _is_undefined(arg.default_value):
                out[name] = arg.default_value
        for argument in node.arguments or ():
            value = argument.value
            if isinstance(value, IntValueNode):
                out[argument.name.value] = int(value.value)
            elif isinstance(value, ListValueNode):
                out[argument.name.value] = [None] * len(value.values)
            elif isinstance(value, VariableNode):
                out[argument.name.value] = self.variables.get(value.name.value)
            else:
                out[argument.name.value] = True  # a scalar given inline
        return out


def _is_list(type_: Any) -> bool:
    while isinstance(type_, GraphQLNonNull):
        type_ = type_.of_type
    return isinstance(type_, GraphQLList)


def _is_undefined(value: Any) -> bool:
    from graphql.pyutils import Undefined

    return value is Undefined
