"""VectorGraphDB for analysts: open a database, get polars frames and networkx/igraph graphs.

>>> import vectorgraphdb
>>> with vectorgraphdb.open(".vgdb") as g:                      # doctest: +SKIP
...     g.cypher("MATCH (x:File) RETURN x.path AS path, x.loc AS loc ORDER BY loc DESC LIMIT 5")
...     g.table("Symbol", kind="class", limit=100)
...     nx_graph = g.to_networkx(repo="myproject", edges=["IMPORTS"], max_nodes=5_000)

A layer like ``api``: it reads through ``graphdb`` and ``queries`` and never imports the
database engine itself. See docs/analyst.md.
"""

from vectorgraphdb.frames import to_frame
from vectorgraphdb.graph import TABLE_LIMIT, Graph, open
from vectorgraphdb.subgraph import (
    DOMAINS,
    LimitWarning,
    Subgraph,
    SubgraphTooLargeError,
    select_subgraph,
)

__all__ = ["DOMAINS", "TABLE_LIMIT", "Graph", "LimitWarning", "Subgraph",
           "SubgraphTooLargeError", "open", "select_subgraph", "to_frame"]
