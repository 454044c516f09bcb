"""Embeddings: the :class:`Embedder` protocol, the default static model shipped in the
package, and the texts embedded per node type.

``graphdb`` holds them (not ``ingest``, as DESIGN §1 first placed them) because both the vector
store here and ``queries`` (which embeds query text) need the default embedder, and neither may
import ``ingest``. The encoder is still a pure function: texts in, vectors out.
"""

from graphdb.embed.embedder import (
    Embedder,
    EmbeddingModelError,
    MiniLMEmbedder,
    default_embedder,
    preload_default_embedder,
)
from graphdb.embed.static import DEFAULT_MODEL_DIR, DEFAULT_MODEL_NAME, StaticEmbedder
from graphdb.embed.text import entry_text, paper_text, split_identifiers, symbol_text

__all__ = [
    "DEFAULT_MODEL_DIR", "DEFAULT_MODEL_NAME", "Embedder", "EmbeddingModelError",
    "MiniLMEmbedder", "StaticEmbedder", "default_embedder", "entry_text", "paper_text",
    "preload_default_embedder",
    "split_identifiers", "symbol_text",
]
