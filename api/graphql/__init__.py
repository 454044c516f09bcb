"""The GraphQL surface (strawberry): node types generated from ``schema``, the root queries
over ``queries/``, and the HTTP server (``vgdb serve``). See docs/api.md."""

from api.graphql.context import Context, Settings
from api.graphql.schema import build_schema
from api.graphql.server import create_app, serve

__all__ = ["Context", "Settings", "build_schema", "create_app", "serve"]
