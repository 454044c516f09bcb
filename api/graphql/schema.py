"""The GraphQL schema and its guards: depth, aliases, tokens, an estimated cost, a time limit
per request (in :class:`~api.graphql.context.Context`), and errors that say what went wrong
without leaking internals.

Error shape: every error has ``extensions.code``; errors of ours (``schema.errors``) keep
their message and add ``suggestion``; anything unexpected becomes "internal error" with the
request id, and is logged with its traceback under that id.
"""

import logging
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import strawberry
from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    IntValueNode,
    OperationDefinitionNode,
    SelectionSetNode,
    VariableNode,
)
from strawberry.extensions import (
    AddValidationRules,
    MaskErrors,
    MaxAliasesLimiter,
    MaxTokensLimiter,
    ParserCache,
    QueryDepthLimiter,
    SchemaExtension,
    ValidationCache,
)
from strawberry.schema.config import StrawberryConfig

from api.graphql.conditional import GraphVersion
from api.graphql.context import Settings
from api.graphql.mutations import Mutation
from api.graphql.nodes import NODE_TYPES
from api.graphql.root import Query
from api.graphql.times import UtcDateTime
from schema import AuthError, PermissionDeniedError, VgdbError

__all__ = ["build_schema", "estimate_cost"]

log = logging.getLogger("vgdb.api")


class _Schema(strawberry.Schema):
    def process_errors(self, errors: list[GraphQLError],
                       execution_context: Any = None) -> None:
        """Strawberry logs every error as plain text; ours are answers to the client (bad
        queries) or already logged as JSON with the request id (internal errors)."""


def build_schema(settings: Settings | None = None) -> strawberry.Schema:
    settings = settings or Settings()
    # The limits' validation rules are made once: the validation cache is keyed by the
    # document and the rule classes, and the limiters make a new class per instance.
    rules = [*QueryDepthLimiter(max_depth=settings.max_depth).validation_rules,
             *MaxAliasesLimiter(max_alias_count=settings.max_aliases).validation_rules]
    return _Schema(
        query=Query, mutation=Mutation, types=list(NODE_TYPES.values()),
        config=StrawberryConfig(scalar_map={datetime: UtcDateTime}),
        extensions=[  # factories: a fresh extension per request
            # Agents send the same query texts with other variables: parsing and
            # validating them once saves a few ms a request (LRU of 256 texts). The cache
            # comes first: it sets the validation errors, which the auth and cost checks
            # below then replace with theirs.
            lambda: MaxTokensLimiter(max_token_count=settings.max_tokens),
            lambda: _ParserCache(maxsize=256),
            lambda: AddValidationRules(rules),
            lambda: ValidationCache(maxsize=256),
            lambda: _Auth(settings),
            lambda: _CostLimiter(settings),
            _Trimmed,
            GraphVersion,
            _Errors,
        ])


class _ParserCache(ParserCache):
    """ParserCache, but a syntax error is left to strawberry's own parse, which reports it
    as a GraphQL error (raised in the extension it would skip the error handling)."""

    def on_parse(self) -> Iterator[None]:
        try:
            yield from super().on_parse()
        except GraphQLError:
            self.execution_context.graphql_document = None
            yield


# --------------------------------------------------------------------------------- errors
class _Errors(MaskErrors):
    """Our errors keep their message (plus code and suggestion); GraphQL's own (syntax,
    validation, limits) keep theirs; anything else is masked and logged."""

    def __init__(self) -> None:
        super().__init__(should_mask_error=_unexpected, error_message="internal error")

    def anonymise_error(self, error: GraphQLError) -> GraphQLError:
        request_id = getattr(self.execution_context.context, "request_id", "?")
        log.error("internal error in request %s at %s", request_id, error.path,
                  exc_info=error.original_error, extra={"request_id": request_id})
        return GraphQLError(f"internal error (request id {request_id})", nodes=error.nodes,
                            source=error.source, positions=error.positions, path=error.path,
                            extensions={"code": "INTERNAL", "request_id": request_id})

    def _process_errors(self, errors: list[GraphQLError]) -> list[GraphQLError]:
        out = []
        for error in super()._process_errors(errors):
            original = error.original_error
            if isinstance(original, VgdbError):
                error.extensions = {**(error.extensions or {}), "code": original.code,
                                    **({"suggestion": original.suggestion}
                                       if original.suggestion else {})}
            elif not (error.extensions or {}).get("code"):
                error.extensions = {**(error.extensions or {}), "code": "BAD_REQUEST"}
            out.append(error)
        return out


def _unexpected(error: GraphQLError) -> bool:
    original = error.original_error
    return original is not None and not isinstance(original, (VgdbError, GraphQLError))


class _Trimmed(SchemaExtension):
    """Says in ``extensions.trimmed`` what ``maxTokens`` left out, and where."""

    def get_results(self) -> dict[str, Any]:
        trimmed = getattr(self.execution_context.context, "trimmed", None)
        return {"trimmed": trimmed} if trimmed else {}


# ----------------------------------------------------------------------------------- auth
class _Auth(SchemaExtension):
    """Reading needs the read scope (or anonymous reading enabled), mutations the write
    scope; checked before anything runs."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        settings = getattr(context.context, "settings", self.settings)
        error = _auth_error(context.context, context.operation_type.value, settings)
        if error is not None:
            context.pre_execution_errors = [GraphQLError(
                error.message, extensions={"code": error.code,
                                           "suggestion": error.suggestion})]
        yield


def _auth_error(context: Any, operation: str, settings: Settings) -> VgdbError | None:
    needed = "write" if operation == "mutation" else "read"
    if getattr(context, "auth_error", None) is not None:
        return context.auth_error
    token = getattr(context, "token", None)
    if token is None:
        if needed == "read" and settings.allow_anonymous:
            return None
        return AuthError(f"this server needs an API token to {needed}",
                         suggestion="send `Authorization: Bearer <token>` (create one with "
                                    f"`vgdb token create NAME --scope {needed}`)")
    if not token.allows(needed):
        return PermissionDeniedError(
            f"API token {token.id} ({token.name}) has scope {token.scope}; this needs "
            f"{needed}", suggestion=f"use a token with the {needed} scope")
    return None


# ----------------------------------------------------------------------------------- cost
class _CostLimiter(SchemaExtension):
    """Refuses, before running it, a query whose estimated result size is too large: every
    list multiplies what is below it by its page size (``first``/``last``, else the
    default)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        document = context.graphql_document
        if document is not None:
            cost = estimate_cost(document, context.variables or {},
                                 default_page=self.settings.page_size)
            if cost > self.settings.max_cost:
                context.pre_execution_errors = [GraphQLError(
                    f"query too expensive: about {cost:,} objects (limit "
                    f"{self.settings.max_cost:,}); ask for smaller pages or fewer nested "
                    "lists", extensions={"code": "TOO_EXPENSIVE", "cost": cost})]
        yield


def estimate_cost(document: Any, variables: dict[str, Any], *, default_page: int) -> int:
    fragments = {d.name.value: d for d in document.definitions
                 if isinstance(d, FragmentDefinitionNode)}
    total = 0
    for definition in document.definitions:
        if isinstance(definition, OperationDefinitionNode):
            total += _cost(definition.selection_set, 1, fragments, variables, default_page,
                           set())
    return total


def _cost(selection_set: SelectionSetNode | None, multiplier: int, fragments: dict,
          variables: dict[str, Any], default_page: int, seen: set[str]) -> int:
    if selection_set is None:
        return 0
    total = 0
    for selection in selection_set.selections:
        if isinstance(selection, FieldNode):
            if selection.selection_set is None:
                continue
            inner = multiplier
            names = {s.name.value for s in selection.selection_set.selections
                     if isinstance(s, FieldNode)}
            if "edges" in names or "nodes" in names:
                inner = multiplier * _page(selection, variables, default_page)
            total += inner + _cost(selection.selection_set, inner, fragments, variables,
                                   default_page, seen)
        elif isinstance(selection, InlineFragmentNode):
            total += _cost(selection.selection_set, multiplier, fragments, variables,
                           default_page, seen)
        elif isinstance(selection, FragmentSpreadNode):
            name = selection.name.value
            if name in fragments and name not in seen:
                total += _cost(fragments[name].selection_set, multiplier, fragments,
                               variables, default_page, seen | {name})
    return total


def _page(field: FieldNode, variables: dict[str, Any], default_page: int) -> int:
    for argument in field.arguments or ():
        if argument.name.value in ("first", "last"):
            value = argument.value
            if isinstance(value, IntValueNode):
                return max(1, int(value.value))
            if isinstance(value, VariableNode):
                given = variables.get(value.name.value)
                if isinstance(given, int):
                    return max(1, given)
    return default_page
