"""What is embedded for each node type: a deliberate, documented choice (docs/search.md).

- Symbol: its kind, qualified name and signature with identifiers split into words
  (``parse_header_line``, ``HTTPServer`` -> ``parse header line``, ``http server``), its
  docstring, and the words of its file path. Code names are how people describe code, but a
  subword tokenizer cuts ``getHeaderLine`` into pieces that mean little; split words match the
  words of a question. A module (qualname ``<module>``) stands for its file: path words and
  the module docstring (File nodes are not embedded separately).
- Entry (decision, failure, ...): kind, title, content, and a failure's error and approach.
- Paper: title and abstract.

The content hash of this text is what the vector cache is keyed by: a node whose text did not
change is never embedded again, and a change of recipe here re-embeds only what it changes.
"""

from __future__ import annotations

import functools
import re

from schema import MODULE_QUALNAME

__all__ = ["entry_text", "paper_text", "split_identifiers", "symbol_text"]

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CAMEL = re.compile(r"[A-Z]+s(?![a-z])|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
#: Keywords and conventions of declarations that say nothing about what the code does.
_NOISE = frozenset({
    "def", "async", "class", "self", "cls", "fn", "func", "function", "pub", "public",
    "private", "protected", "static", "final", "const", "let", "var", "return", "void",
    "export", "default", "impl", "struct", "interface", "type", "args", "kwargs", "none",
})
_MAX_DOC = 2000


def split_identifiers(text: str) -> str:
    """``text`` with each identifier replaced by its words, lower-cased:
    ``"def getHeaderLine(raw_bytes)"`` -> ``"def get header line(raw bytes)"``."""
    return _IDENT.sub(lambda m: " ".join(_CAMEL.findall(m.group(0))).lower(), text)


@functools.lru_cache(maxsize=1 << 16)
def _words(text: str) -> str:
    # cached: names, signatures and above all path words repeat across a file's symbols
    return " ".join(w for w in re.findall(r"[a-z0-9]+", split_identifiers(text))
                    if w not in _NOISE)


@functools.lru_cache(maxsize=1 << 14)
def _path_words(path: str) -> str:
    stem = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    return _words(stem.replace("/", " ").replace("__init__", ""))


def symbol_text(*, kind: str, qualname: str, signature: str = "", docstring: str = "",
                path: str = "") -> str:
    """The text embedded for a Symbol (``path``: its file's path in the repository)."""
    doc = docstring.strip()[:_MAX_DOC]
    if qualname == MODULE_QUALNAME:
        parts = ["module", _path_words(path), doc]
    else:
        parts = [kind, _words(qualname.split("~", 1)[0]), _words(signature), doc,
                 _path_words(path)]
    return ". ".join(p for p in parts if p)


def entry_text(*, kind: str, title: str, content: str = "", error: str = "",
               approach: str = "") -> str:
    """The text embedded for an Entry."""
    return ". ".join(p.strip() for p in (kind, title, content, error, approach) if p.strip())


def paper_text(*, title: str, abstract: str = "") -> str:
    """The text embedded for a Paper."""
    return ". ".join(p.strip() for p in (title, abstract) if p.strip())
