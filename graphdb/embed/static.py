"""The run-time encoder of a static (model2vec-format) embedding model: numpy + tokenizers.

A static model holds one vector per vocabulary token; a text's vector is the mean of its
tokens' vectors, L2-normalised. That is all model2vec's ``StaticModel.encode`` does at
inference, so we do it here in a few lines instead of depending on the ``model2vec`` package at
run time: its import pulls joblib, jinja2 and the Hugging Face hub client, and its
``from_pretrained`` is written around hub downloads, which fail offline. The build script checks
that both give the same vectors.
"""

from __future__ import annotations

import hashlib
import json
import statistics
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

__all__ = ["DEFAULT_MODEL_DIR", "DEFAULT_MODEL_NAME", "StaticEmbedder"]

DEFAULT_MODEL_NAME = "minilm-l6-v2-static256"
#: The model shipped in the package (built by ``python -m graphdb.embed.build_model``).
DEFAULT_MODEL_DIR = Path(__file__).resolve().parent / "models" / DEFAULT_MODEL_NAME


class StaticEmbedder:
    """Mean of per-token vectors from a model2vec-format directory (tokenizer.json,
    model.safetensors, config.json). ~tens of thousands of texts/s on one core.

    ``model_id`` is the directory name plus a digest of the weights, so vectors made by a
    rebuilt model with other weights never mix with the old ones.
    """

    def __init__(self, path: str | Path = DEFAULT_MODEL_DIR) -> None:
        path = Path(path)
        weights = path / "model.safetensors"
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
        raw = load_file(str(weights))
        # float16 on disk halves the size; compute in float32 (exact means, fast BLAS)
        self._table = raw["embeddings"].astype(np.float32)
        if "weights" in raw or "mappings" in raw:
            raise ValueError(f"{path}: vocabulary-quantized models are not supported")
        self.dim: int = int(self._table.shape[1])
        self.max_length: int | None = config.get("max_length", 512)
        self._tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        vocab = self._tokenizer.get_vocab()
        self._median_token_length = int(statistics.median(len(t) for t in vocab))
        unk = getattr(self._tokenizer.model, "unk_token", None)
        self._unk: int | None = None if unk is None else self._tokenizer.token_to_id(unk)
        if self.max_length is not None:
            self._tokenizer.enable_truncation(self.max_length)
        digest = hashlib.blake2b(weights.read_bytes(), digest_size=6).hexdigest()
        self.model_id: str = f"{path.name}@{digest}"

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """The vocabulary ids whose vectors :meth:`embed` averages for each text."""
        texts = list(texts)
        if self.max_length is not None:  # as model2vec: cut very long texts before tokenizing
            limit = self.max_length * self._median_token_length
            texts = [t[:limit] for t in texts]
        encodings = self._tokenizer.encode_batch_fast(texts, add_special_tokens=False)
        if self._unk is None:
            return [enc.ids for enc in encodings]
        return [[t for t in enc.ids if t != self._unk] for enc in encodings]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of ``texts``: float32, shape (len(texts), dim), L2-normalised (a text with
        no known token gets the zero vector)."""
        ids = self.token_ids(texts)
        out = np.zeros((len(ids), self.dim), dtype=np.float32)
        buckets: dict[int, list[int]] = defaultdict(list)
        for i, row in enumerate(ids):
            if row:
                buckets[len(row)].append(i)
        for indices in buckets.values():  # one gather per length: no Python loop per token
            matrix = np.array([ids[i] for i in indices], dtype=np.int64)
            out[indices] = self._table[matrix].mean(axis=1)
        out /= np.linalg.norm(out, axis=1, keepdims=True) + 1e-32
        return out
