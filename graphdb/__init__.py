"""Storage: the Kuzu graph and its directory (lock, manifest), read queries, write
transactions and bulk loads. The only package that imports ``kuzu`` (and later ``hnswlib``)."""

from graphdb.faults import FAILPOINTS, failpoint
from graphdb.history import HistoryLoad, load_history
from graphdb.loader import STRUCTURAL, CodeLoad, load_code, mark_uncommitted, touch_files
from graphdb.readonly import check_read_only
from graphdb.sessions import (
    SessionContext,
    SessionNeeds,
    SessionWrite,
    read_context,
    write_sessions,
)
from graphdb.store import DEFAULT_DB, Store, Transaction

__all__ = [
    "DEFAULT_DB",
    "FAILPOINTS",
    "STRUCTURAL",
    "CodeLoad",
    "HistoryLoad",
    "Store",
    "Transaction",
    "check_read_only",
    "failpoint",
    "load_code",
    "load_history",
    "mark_uncommitted",
    "touch_files",
]
__all__ += ["SessionContext", "SessionNeeds", "SessionWrite", "read_context", "write_sessions"]
from graphdb.embed import Embedder, EmbeddingModelError, default_embedder  # noqa: E402
from graphdb.vectors import (  # noqa: E402
    EMBEDDED_TABLES,
    HNSW,
    EmbedSummary,
    HnswParams,
    TableEmbed,
    VectorHit,
    embed_graph,
    nearest,
    vector_status,
)

__all__ += ["EMBEDDED_TABLES", "HNSW", "EmbedSummary", "Embedder", "EmbeddingModelError",
            "HnswParams", "TableEmbed", "VectorHit", "default_embedder", "embed_graph",
            "nearest", "vector_status"]
from graphdb.academic import (  # noqa: E402
    PaperLoad,
    ReferenceLoad,
    read_paper_index,
    read_papers,
    write_papers,
    write_references,
)

__all__ += ["PaperLoad", "ReferenceLoad", "read_paper_index", "read_papers", "write_papers",
            "write_references"]
