"""The shipped static embedder and the texts embedded per node type."""

from __future__ import annotations

import hashlib
import re

import numpy as np
from safetensors.numpy import load_file

from graphdb.embed import (
    DEFAULT_MODEL_DIR,
    Embedder,
    StaticEmbedder,
    default_embedder,
    entry_text,
    paper_text,
    split_identifiers,
    symbol_text,
)


def test_default_embedder_shape_dtype_norm_and_id() -> None:
    e = default_embedder()
    assert isinstance(e, Embedder)
    assert e.dim == 256
    digest = hashlib.blake2b((DEFAULT_MODEL_DIR / "model.safetensors").read_bytes(),
                             digest_size=6).hexdigest()
    assert e.model_id == f"minilm-l6-v2-static256@{digest}"
    v = e.embed(["open a file for reading", "def parse_header(line)"])
    assert v.shape == (2, 256)
    assert v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), [1.0, 1.0], rtol=1e-5)
    assert e.embed([]).shape == (0, 256)


def test_embedding_is_deterministic_and_independent_of_the_batch() -> None:
    e = default_embedder()
    texts = ["read the whole file", "compute a square root", "x" * 5000, ""]
    a = e.embed(texts)
    b = StaticEmbedder().embed(list(reversed(texts)))[::-1]
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(e.embed([texts[1]])[0], a[1])
    assert not a[3].any()  # nothing to embed: the zero vector


def test_word_by_word_means_equal_whole_text_tokenization() -> None:
    """embed() tokenizes each distinct word once; its vectors must be those of one tokenizer
    call per text (token_ids), on accents, CJK, Unicode spaces, control characters, unknown
    words, a word past WordPiece's 100 characters and a text past the 512-token truncation."""
    e = default_embedder()
    texts = ["héllo wörld ÉCOLE naïve", "日本語のテキスト and code", "a\u00a0b\u2003c d",
             "tab\there\nnew\r\nline", "\x00ctrl\x1fword\ufffd end", "zzqqxxj unknownish",
             "y" * 150 + " tail", "token " * 700, "parse_header_line(raw_bytes) -> dict",
             "", "   ", "same words same words"]
    table = load_file(str(DEFAULT_MODEL_DIR / "model.safetensors"))["embeddings"]
    table = table.astype(np.float32)
    expected = np.zeros((len(texts), e.dim), dtype=np.float32)
    for i, ids in enumerate(e.token_ids(texts)):
        if ids:
            expected[i] = table[ids].mean(axis=0)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True) + 1e-32
    got = e.embed(texts)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-6)
    assert not got[9].any() and not got[10].any()
    assert len(e.token_ids([texts[7]])[0]) == 512  # the truncation was exercised


def test_embedding_is_semantic() -> None:
    """Not a hashing trick: paraphrases share no word with the query, yet rank first."""
    e = default_embedder()
    q = e.embed(["delete a directory and everything inside it"])[0]
    docs = e.embed(["remove folder tree recursively", "compute the square root of a number",
                    "send an email message over smtp"])
    assert [int(i) for i in np.argsort(-(docs @ q))] == [0, 2, 1]


def test_shipped_model_files_match_their_provenance() -> None:
    """The checksums in PROVENANCE.md are those of the files shipped beside it."""
    text = (DEFAULT_MODEL_DIR / "PROVENANCE.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| (\S+) \| [\d,]+ \| `([0-9a-f]{64})` \|$", text, re.M))
    assert set(rows) == {"tokenizer.json", "model.safetensors", "config.json"}
    for name, sha in rows.items():
        assert hashlib.sha256((DEFAULT_MODEL_DIR / name).read_bytes()).hexdigest() == sha
    assert "Apache License" in (DEFAULT_MODEL_DIR / "LICENSE").read_text(encoding="utf-8")


def test_split_identifiers() -> None:
    assert split_identifiers("def getHeaderLine(raw_bytes, HTTPServer, URLs, x2)") == \
        "def get header line(raw bytes, http server, urls, x 2)"
    assert split_identifiers("Return the list of lines.") == "return the list of lines."


def test_texts_per_node_type() -> None:
    assert symbol_text(kind="method", qualname="Parser.parse_header_line",
                       signature="def parse_header_line(self, line: str) -> tuple[str, str]:",
                       docstring="Parse one header line.", path="email/feedparser.py") == (
        "method. parser parse header line. parse header line line str tuple str str. "
        "Parse one header line.. email feedparser")
    assert symbol_text(kind="function", qualname="f~2", signature="def f():", path="a.py") == \
        "function. f. f. a"
    assert symbol_text(kind="module", qualname="<module>", docstring="JSON decoder.",
                       path="json/decoder.py") == "module. json decoder. JSON decoder."
    assert entry_text(kind="decision", title="Keep vectors outside Kuzu",
                      content="hnswlib files in the db directory") == \
        "decision. Keep vectors outside Kuzu. hnswlib files in the db directory"
    assert paper_text(title="HNSW", abstract=" Graphs for search. ") == \
        "HNSW. Graphs for search."
