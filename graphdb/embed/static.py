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
import re
import statistics
from collections.abc import Sequence
from pathlib import Path

import numpy as np

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
        # imported with the model: an update with nothing to embed never loads one
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

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
        """The vocabulary ids whose vectors :meth:`embed` averages for each text (the
        reference: one tokenizer call per text, as model2vec; :meth:`embed` computes the same
        means by words)."""
        encodings = self._tokenizer.encode_batch_fast(self._cut(texts), add_special_tokens=False)
        if self._unk is None:
            return [enc.ids for enc in encodings]
        return [[t for t in enc.ids if t != self._unk] for enc in encodings]

    def _cut(self, texts: Sequence[str]) -> list[str]:
        if self.max_length is None:
            return list(texts)
        limit = self.max_length * self._median_token_length  # as model2vec: before tokenizing
        return [t[:limit] for t in texts]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of ``texts``: float32, shape (len(texts), dim), L2-normalised (a text with
        no known token gets the zero vector).

        The texts are cut at ASCII whitespace and each distinct word is tokenized once: the
        tokenizer (BERT normalizer and pre-tokenizer, WordPiece) treats whitespace as a word
        boundary and works word by word, so a text's tokens are its words' tokens in order.
        Code texts repeat their words (names, path words, docstring prose) and a cold ingest
        embeds tens of thousands of them: tokenizing each text whole was most of the time.
        The means are then taken in numpy, with no Python work per token.
        """
        cut = self._cut(texts)
        words_of = [_WORD.findall(t) for t in cut]
        vocab: dict[str, int] = {}
        codes = np.fromiter((vocab.setdefault(w, len(vocab))
                             for ws in words_of for w in ws), dtype=np.int64)
        per_text = np.fromiter(map(len, words_of), dtype=np.int64, count=len(words_of))
        tokens, starts, lengths = self._word_tokens(list(vocab))
        # expand each word occurrence to its tokens: one flat array of token ids per text
        occ_len = lengths[codes]
        token_ends = np.concatenate(([0], np.cumsum(occ_len)))
        word_ends = np.concatenate(([0], np.cumsum(per_text)))
        text_tokens = token_ends[word_ends[1:]] - token_ends[word_ends[:-1]]
        flat = tokens[np.repeat(starts[codes] - _starts(occ_len), occ_len)
                      + np.arange(int(occ_len.sum()))]
        text_of = np.repeat(np.arange(len(cut)), text_tokens)
        keep = np.ones(flat.size, dtype=bool)
        if self.max_length is not None:  # the tokenizer's truncation, before unknowns go
            position = np.arange(flat.size) - np.repeat(_starts(text_tokens), text_tokens)
            keep &= position < self.max_length
        if self._unk is not None:
            keep &= flat != self._unk
        return self._means(flat[keep], text_of[keep], len(cut))

    def _word_tokens(self, words: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every word's token ids (unknown ones included) concatenated, with each word's
        start and length in that array."""
        encodings = self._tokenizer.encode_batch_fast(words, add_special_tokens=False)
        lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64,
                              count=len(encodings))
        tokens = np.fromiter((t for e in encodings for t in e.ids), dtype=np.int64,
                             count=int(lengths.sum()))
        return tokens, _starts(lengths), lengths

    def _means(self, tokens: np.ndarray, text_of: np.ndarray, n: int) -> np.ndarray:
        """Mean token vector per text (``tokens`` grouped by text, in order), L2-normalised.

        Texts of the same token count are averaged together as one (texts, length, dim)
        gather: a reduction numpy vectorises, where a segment sum over a flat token array
        (``add.reduceat`` along rows) costs a call per row. At most ~64K tokens per gather."""
        out = np.zeros((n, self.dim), dtype=np.float32)
        lengths = np.bincount(text_of, minlength=n)
        starts = _starts(lengths)
        for length in np.unique(lengths[lengths > 0]):
            rows = np.flatnonzero(lengths == length)
            step = max(1, _SLICE_TOKENS // int(length))
            for lo in range(0, rows.size, step):
                part = rows[lo:lo + step]
                matrix = tokens[starts[part][:, None] + np.arange(length)]
                out[part] = self._table[matrix].mean(axis=1)
        out /= np.linalg.norm(out, axis=1, keepdims=True) + 1e-32
        return out


#: What the tokenizer's pre-tokenizer always splits at (Unicode whitespace beyond ASCII is
#: left inside the words: the tokenizer splits it there itself).
_WORD = re.compile(r"[^ \t\n\r]+")
_SLICE_TOKENS = 1 << 16


def _starts(lengths: np.ndarray) -> np.ndarray:
    """Start offsets of consecutive segments of these lengths."""
    out = np.zeros(lengths.size, dtype=np.int64)
    np.cumsum(lengths[:-1], out=out[1:])
    return out
