"""The keyword index's documents and their writing: schema, analyzer, a node's text and
digest, and one tantivy commit of upserts and deletes (:func:`write_documents`).

Apart from :mod:`graphdb.keyword` (which decides what to write and records the state) so
that the writing can run in a forked child (:mod:`graphdb.forked`): nothing here touches
the graph or polars; the rows come in as plain tuples.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import struct
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import tantivy

from graphdb.faults import failpoint

__all__ = ["ANALYZER", "SCHEMA", "analyzer", "checksums_ok", "digest", "document_text",
           "open_index", "write_documents"]

#: the name the text field's analyzer is registered under in every index
ANALYZER = "vgdb"
_HEAP = 64_000_000
_FOOTER_MAGIC = 1337
_WORD = re.compile(r"[A-Za-z0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def analyzer() -> tantivy.TextAnalyzer:
    """Runs of letters and digits, lower-cased, English stop words dropped, stemmed."""
    return (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
            .filter(tantivy.Filter.remove_long(40)).filter(tantivy.Filter.lowercase())
            .filter(tantivy.Filter.stopword("english"))
            .filter(tantivy.Filter.stemmer("english")).build())


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw")
    builder.add_text_field("text", tokenizer_name=ANALYZER)
    builder.add_integer_field("digest", fast=True)
    return builder.build()


SCHEMA = _schema()


@functools.lru_cache(maxsize=1 << 16)
def _extra(raw: str) -> tuple[str, ...]:
    # cached: identifiers repeat across a repository's symbols (a name, its qualname, its
    # signature's types); the stdlib's 26K symbols hold ~500K words, ~60K distinct
    parts = _CAMEL.findall(raw)
    return tuple(parts) if len(parts) > 1 else ()


def document_text(values: Iterable[Any]) -> str:
    """The indexed text of a node: its fields, plus the words of its camelCase identifiers."""
    text = "\n".join(str(v) for v in values if v)
    extra = [part for raw in _WORD.findall(text) for part in _extra(raw)]
    return f"{text}\n{' '.join(extra)}" if extra else text


def digest(values: Iterable[Any]) -> int:
    """63-bit hash of a node's indexed fields (a fast field: what a sync compares)."""
    h = hashlib.blake2b("\x1f".join("" if v is None else str(v) for v in values).encode(),
                        digest_size=8)
    return int.from_bytes(h.digest(), "big") >> 1  # fits tantivy's i64


def open_index(path: Path) -> tantivy.Index:
    """The index at ``path`` (existing), its analyzer registered."""
    index = tantivy.Index(SCHEMA, path=str(path), reuse=True)
    index.register_tokenizer(ANALYZER, analyzer())
    return index


def write_documents(index: tantivy.Index, rows: Sequence[tuple[Any, ...]],
                    delete: Iterable[str], *, empty: bool = False) -> int:
    """Delete ``delete`` and upsert ``rows`` -- ``(id, digest or None, *fields)``, the
    digest computed here when None -- in one tantivy commit; the index's document count
    after it. ``empty``: the index holds no document yet (no older copy to delete first)."""
    writer = index.writer(heap_size=_HEAP, num_threads=1)
    try:
        for node in delete:
            writer.delete_documents_by_term("id", node)
        for node, known, *fields in rows:
            if not empty:
                writer.delete_documents_by_term("id", node)
            doc = tantivy.Document(id=node, text=document_text(fields))
            doc.add_integer("digest", digest(fields) if known is None else known)
            writer.add_document(doc)
        failpoint("keyword-before-commit")
        writer.commit()
        failpoint("keyword-after-commit")
    except BaseException:
        writer.rollback()
        raise
    finally:
        del writer  # releases tantivy's writer lock
    index.reload()
    return index.searcher().num_docs


def checksums_ok(path: Path) -> bool:
    """Every file of the committed segments is present and matches its CRC-32 footer."""
    try:
        meta = json.loads((path / "meta.json").read_text(encoding="utf-8"))
        for seg in meta["segments"]:
            stem = seg["segment_id"].replace("-", "")
            files = [f for f in path.iterdir() if f.name.startswith(stem + ".")]
            if not {"idx", "term", "store"} <= {f.name.rsplit(".", 1)[1] for f in files}:
                return False
            for f in files:
                data = f.read_bytes()
                size, magic = struct.unpack("<II", data[-8:])
                footer = json.loads(data[-8 - size:-8])
                if magic != _FOOTER_MAGIC or zlib.crc32(data[:-8 - size]) != footer["crc"]:
                    return False
    except (OSError, ValueError, KeyError, TypeError, struct.error):
        return False
    return True
