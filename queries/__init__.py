"""The query API shared by the CLI, GraphQL and notebooks: plain functions over a Store,
returning frozen dataclasses (with ``to_dict``) or polars frames."""

from queries.cypher import run_cypher
from queries.overview import Overview, RankedSymbol, repositories, repository_overview

__all__ = ["Overview", "RankedSymbol", "repositories", "repository_overview", "run_cypher"]
