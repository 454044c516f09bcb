"""How a community is named: its shared directory and its most distinctive identifier
words (tf-idf with communities as documents), or its dominant members."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from schema import MODULE_QUALNAME

if TYPE_CHECKING:
    from queries.communities.graph import CommunityGraph

__all__ = ["common_prefix", "community_name", "distinctive_terms", "file_stem",
           "identifier_words", "short_name"]

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_STOP = frozenset((
    "the", "and", "for", "from", "with", "into", "get", "set", "has", "new", "init", "main",
    "self", "cls", "test", "tests", "util", "utils", "helper", "helpers", "base", "impl",
    "internal", "private", "module", "object", "args", "kwargs", "value", "values", "data",
    "item", "items", "name", "names", "type", "types", "run", "make"))


def identifier_words(names: Sequence[str]) -> tuple[str, ...]:
    """Identifier words (snake_case and camelCase split, lower-cased, 3+ letters)."""
    out = []
    for name in names:
        for word in _WORD.findall(name or ""):
            w = word.lower()
            if len(w) >= 3 and w not in _STOP and not w.isdigit():
                out.append(w)
    return tuple(out)


def file_stem(path: str) -> str:
    base = path.rsplit("/", 1)[-1]
    return base.split(".", 1)[0]


def distinctive_terms(cg: CommunityGraph, members: Mapping[int, Sequence[int]]
           ) -> dict[int, tuple[str, ...]]:
    """Most distinctive words of each community: frequency inside times inverse frequency
    across communities (tf-idf with communities as documents)."""
    counts = {c: Counter(w for i in nodes for w in set(cg.words[i]))
              for c, nodes in members.items()} if cg.words else {}
    df = Counter(w for counter in counts.values() for w in counter)
    total = len(members)
    out = {}
    for c, counter in counts.items():
        scored = sorted(((n * math.log(1 + total / df[w]), w) for w, n in counter.items()
                         if n >= 2 or len(members[c]) == 1), key=lambda t: (-t[0], t[1]))
        out[c] = tuple(w for _, w in scored[:3])
    return out


def common_prefix(paths: Sequence[str], share: float = 0.6) -> str:
    """Deepest directory holding at least ``share`` of the paths ('' for the root)."""
    counts: Counter[str] = Counter()
    for path in paths:
        parts = path.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            counts["/".join(parts[:depth]) + "/"] += 1
    needed = share * len(paths)
    best = ""
    for directory, n in counts.items():
        if n >= needed and (len(directory) > len(best)
                            or (len(directory) == len(best) and directory < best)):
            best = directory
    return best


def short_name(node_id: str) -> str:
    """``sym:r/a/b.py#C.f`` -> ``C.f``; ``file:r/a/b.py`` -> ``b.py``."""
    path, _, qualname = node_id.partition("#")
    if qualname and qualname != MODULE_QUALNAME:
        return qualname
    return path.rsplit("/", 1)[-1]


def community_name(prefix: str, paths: Sequence[str], terms: Sequence[str],
                   top: Sequence[str]) -> str:
    """``<where> · <what>``: the shared directory (or the two commonest ones) and the most
    distinctive words (or the dominant members)."""
    if len(paths) == 1:
        return f"{prefix}{top[0]}" if top else prefix
    where = prefix
    if not where:
        dirs = Counter(p.rsplit("/", 1)[0] + "/" if "/" in p else "./" for p in paths)
        where = "+".join(d for d, _ in sorted(dirs.items(), key=lambda t: (-t[1], t[0]))[:2])
    what = ", ".join(terms) if terms else ", ".join(top[:2])
    return f"{where} · {what}" if what else where
