"""``python -m api.graphql`` prints the schema's SDL (committed as api/schema.graphql)."""

from api.graphql import build_schema

print(build_schema().as_str())
