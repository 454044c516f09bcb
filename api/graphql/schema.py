"""The GraphQL schema and its guards: depth, aliases, tokens, an estimated cost, a time limit
per request (in :class:`~api.graphql.context.Context`), and errors that say what went wrong
without leaking internals.

Error shape: every error has ``extensions.code``; errors of ours (``schema.errors``) keep
their message and add ``suggestion``; anything unexpected becomes "internal error" with the
request id, and is logged with its traceback under that id.
"""

import inspect
import logging
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import strawberry
from graphql import (
    FieldNode,
    GraphQLError,
    GraphQLNonNull,
    GraphQLSchema,
    ValidationRule,
    get_named_type,
    is_introspection_type,
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
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

from api.graphql import cost as cost_model
from api.graphql.conditional import GraphVersion
from api.graphql.context import Settings
from api.graphql.cost import CostLimitError, too_expensive
from api.graphql.mutations import Mutation
from api.graphql.nodes import NODE_TYPES
from api.graphql.root import Query
from api.graphql.times import UtcDateTime
from graphdb import deadline
from graphdb.deadline import DeadlineExceededError
from schema import AuthError, PermissionDeniedError, VgdbError

__all__ = ["build_schema", "estimate_cost"]

log = logging.getLogger("vgdb.api")


class _DeadlineExecution(StrawberryGraphQLCoreExecutionContext):
    """Checks the deadline before each field, before graphql-core converts its arguments
    (about 0.1 ms a connection field: thousands of them past the deadline overran it by
    seconds); a passed deadline fails the field, and the rest of its list, at once."""

    late = False  # a field failed for the deadline already

    def execute_field(self, parent_type: Any, source: Any, fields: Any, path: Any,
                      *args: Any, **kwargs: Any) -> Any:
        if path.prev is not None:  # a root field's error escapes the field error handling
            deadline.check()       # (root resolvers check themselves)
        return super().execute_field(parent_type, source, fields, path, *args, **kwargs)

    def handle_field_error(self, raw_error: Exception, return_type: Any, *args: Any) -> None:
        """The first field past the deadline is the request's one error (see _Deadline);
        the thousands after it are dropped unlocated (locating one costs ~0.1 ms)."""
        if not isinstance(getattr(raw_error, "original_error", None) or raw_error,
                          DeadlineExceededError):
            super().handle_field_error(raw_error, return_type, *args)
        elif not self.late:
            super().handle_field_error(raw_error, return_type, *args)
            self.late = True  # collected (a non-null field raised it to its parent instead)
        elif isinstance(return_type, GraphQLNonNull):
            raise raw_error


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
             *MaxAliasesLimiter(max_alias_count=settings.max_aliases).validation_rules,
             *(() if settings.introspects else (_NoIntrospection,))]
    return _Schema(
        query=Query, mutation=Mutation, types=list(NODE_TYPES.values()),
        execution_context_class=_DeadlineExecution,
        config=StrawberryConfig(scalar_map={datetime: UtcDateTime}),
        extensions=[  # factories: a fresh extension per request
            # Agents send the same query texts with other variables: parsing and
            # validating them once saves a few ms a request (LRU of 256 texts). The cache
            # comes first: it sets the validation errors, which the auth and cost checks
            # below then replace with theirs.
            lambda: _Deadline(settings),
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


class _NoIntrospection(ValidationRule):
    """Introspection off (``Settings.introspection``): graphql-core's
    NoSchemaIntrospectionCustomRule, with our error code."""

    def enter_field(self, node: FieldNode, *_: Any) -> None:
        type_ = get_named_type(self.context.get_type())
        if node.name.value in ("__schema", "__type") and type_ is not None \
                and is_introspection_type(type_):
            self.report_error(GraphQLError(
                f"GraphQL introspection is not allowed on this server ({node.name.value})",
                node, extensions={"code": "INTROSPECTION_DISABLED",
                                  "suggestion": "the schema is api/schema.graphql; the "
                                                "server's operator can start it with "
                                                "--introspection"}))


# ------------------------------------------------------------------------------- deadline
class _Deadline(SchemaExtension):
    """The request's deadline (:mod:`graphdb.deadline`) around the operation — the HTTP
    server sets one earlier for the whole request, this one covers direct executions — and
    one error for a request that ran out of time, not one per unfinished field."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def resolve(self, _next: Any, root: Any, info: Any, *args: Any, **kwargs: Any) -> Any:
        """Checks the deadline again when an async resolver starts: graphql-core starts
        thousands of them in one turn of the event loop, and strawberry converts each
        one's arguments (~0.1 ms) before our code runs."""
        if not inspect.iscoroutinefunction(_next):
            return _next(root, info, *args, **kwargs)

        async def checked() -> Any:
            deadline.check()
            return await _next(root, info, *args, **kwargs)

        return checked()

    def on_operation(self) -> Iterator[None]:
        settings = getattr(self.execution_context.context, "settings", self.settings)
        with deadline.within(settings.timeout):
            yield

    def on_execute(self) -> Iterator[None]:
        yield
        result = self.execution_context.result
        if result is not None and result.errors:
            late = [e for e in result.errors
                    if isinstance(e.original_error, DeadlineExceededError)]
            if late:
                first, original = late[0], late[0].original_error
                first.extensions = {**(first.extensions or {}), "code": original.code,
                                    "suggestion": original.suggestion}
                result.data = None
                result.errors = [first]


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
            response = getattr(context.context, "response", None)
            if response is not None:  # GraphQL over HTTP: the status says it too
                if isinstance(error, PermissionDeniedError):
                    response.status_code = 403
                else:
                    response.status_code = 401
                    response.headers["www-authenticate"] = "Bearer"
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
    """Refuses, before running it, an operation whose estimated cost is over the limit
    (:mod:`api.graphql.cost`: every selection, fragments included, every list and the work
    arguments of impact, affectedTests and search)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        document = context.graphql_document
        if document is not None and not context.pre_execution_errors:
            settings = getattr(context.context, "settings", self.settings)
            limit = getattr(context.context, "max_cost", None) or settings.max_cost
            try:
                cost = estimate_cost(context.schema._schema,  # strawberry's GraphQLSchema
                                     document, context.variables or {}, settings=settings)
                if cost > limit:
                    raise too_expensive(cost, limit)
            except CostLimitError as exc:
                context.pre_execution_errors = [GraphQLError(exc.message,
                                                             extensions=exc.extensions)]
        yield


def estimate_cost(schema: GraphQLSchema, document: Any, variables: dict[str, Any], *,
                  settings: Settings) -> int:
    """The estimated cost of ``document`` (see :mod:`api.graphql.cost`)."""
    return cost_model.estimate_cost(schema, document, variables, page_size=settings.page_size,
                              max_ids=settings.max_ids)
