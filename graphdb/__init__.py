"""Storage: the LadybugDB graph and its directory (lock, manifest, API tokens, vector and
keyword indexes), read queries, write transactions, bulk loads and embeddings. The only package
that imports the graph engine (``ladybug``; ``kuzu`` only to migrate old databases),
``hnswlib`` and ``tantivy``.

The embedding and vector names load on first use (PEP 562): they pull in numpy, tokenizers
and hnswlib, which most commands (an incremental ingest, a query) never need.
"""

from importlib import import_module
from typing import Any

from graphdb.academic import (
    PaperLoad,
    ReferenceLoad,
    read_paper_index,
    read_papers,
    write_papers,
    write_references,
)
from graphdb.engine import ensure_space, is_disk_full
from graphdb.faults import FAILPOINTS, INDEX_FAILPOINTS, STORE_FAILPOINTS, failpoint
from graphdb.history import HistoryLoad, load_history
from graphdb.loader import (
    STRUCTURAL,
    CodeLoad,
    load_code,
    load_code_group,
    load_rows,
    mark_uncommitted,
    touch_files,
)
from graphdb.readonly import check_read_only
from graphdb.sessions import (
    SessionContext,
    SessionNeeds,
    SessionWrite,
    read_context,
    write_sessions,
)
from graphdb.store import DEFAULT_DB, Store, Transaction

_LAZY = {
    "Embedder": "graphdb.embed", "EmbeddingModelError": "graphdb.embed",
    "default_embedder": "graphdb.embed",
    **{name: "graphdb.vectors" for name in (
        "EMBEDDED_TABLES", "HNSW", "EmbedSummary", "HnswParams", "TableEmbed", "VectorHit",
        "embed_graph", "embed_nodes", "missing_vectors", "nearest", "stored_vectors",
        "vector_status")},
    **{name: "graphdb.keyword" for name in (
        "KEYWORD_FIELDS", "KeywordHit", "KeywordState", "KeywordUnavailableError", "bm25",
        "ensure_keyword", "index_nodes", "keyword_terms", "sync")},
    **{name: "graphdb.findable" for name in ("Findable", "findable", "make_searchable")},
}

__all__ = [
    "DEFAULT_DB", "FAILPOINTS", "INDEX_FAILPOINTS", "STORE_FAILPOINTS", "STRUCTURAL", "CodeLoad",
    "HistoryLoad", "PaperLoad", "ReferenceLoad", "SessionContext", "SessionNeeds", "SessionWrite",
    "Store", "Transaction", "check_read_only", "ensure_space", "failpoint", "is_disk_full",
    "load_code", "load_code_group", "load_history", "load_rows", "mark_uncommitted",
    "read_context", "read_paper_index", "read_papers", "touch_files", "write_papers",
    "write_references", "write_sessions", *_LAZY,
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'graphdb' has no attribute {name!r}")
