"""Duplicate detection for entries: a normalized hash, then trigram similarity.

Two entries are duplicates when they have the same kind, category and repository and either
the same normalized hash (:func:`entry_hash`) or a trigram similarity (:func:`similarity`,
Jaccard over character trigrams as PostgreSQL's ``pg_trgm`` computes it) of at least
:data:`THRESHOLD`. :class:`DedupIndex` finds them without comparing every pair: with a
Jaccard threshold t, two sets that reach it share their ``l`` smallest common tokens within
the first ``n - ceil(t * n) + l`` tokens of each (prefix filtering, Chaudhuri et al. 2006;
the l-prefix scheme, Wang et al. 2012), so only entries sharing ``l`` of those tokens are
compared.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

__all__ = [
    "THRESHOLD", "DedupIndex", "entry_hash", "normalize_text", "similarity", "token_order",
    "trigrams",
]

#: Trigram similarity at or above which two entries are the same entry.
THRESHOLD = 0.9

_NON_WORD = re.compile(r"[^\w]+")


def normalize_text(text: str) -> str:
    """Lower case, punctuation dropped, whitespace folded: what dedup compares."""
    return " ".join(_NON_WORD.sub(" ", text.lower()).split())


def entry_hash(kind: str, category: str, title: str, content: str) -> str:
    """blake2b-128 of the normalized kind, category, title and content."""
    key = "\x1f".join((kind, category.strip().lower(), normalize_text(title),
                       normalize_text(content)))
    return hashlib.blake2b(key.encode("utf-8"), digest_size=16).hexdigest()


def trigrams(text: str) -> frozenset[str]:
    """pg_trgm's trigrams of normalized ``text``: each word padded with two spaces in front
    and one behind."""
    return frozenset({p[i:i + 3] for p in (f"  {w} " for w in normalize_text(text).split())
                      for i in range(len(p) - 2)})


def similarity(a: str, b: str) -> float:
    """Jaccard similarity of the trigram sets of ``a`` and ``b`` (1.0 for two empty texts)."""
    return _jaccard(trigrams(a), trigrams(b))


def _jaccard(x: frozenset[str], y: frozenset[str]) -> float:
    if not x and not y:
        return 1.0
    inter = len(x & y)
    return inter / (len(x) + len(y) - inter)


def token_order(texts: Iterable[frozenset[str]]) -> dict[str, int]:
    """A rank per token, rarest first over ``texts``: prefixes of rare tokens keep the
    candidate lists short (any fixed order keeps prefix filtering exact)."""
    df: dict[str, int] = {}
    for tokens in texts:
        for t in tokens:
            df[t] = df.get(t, 0) + 1
    return {t: n for n, t in enumerate(sorted(df, key=lambda t: (df[t], t)))}


#: At most this many prefix tokens must be shared by a candidate (the l-prefix scheme of Wang,
#: Li and Feng, "Can we beat the prefix filtering?", SIGMOD 2012): a set x indexes its first
#: ``|x| - ceil(t|x|) + l(x)`` tokens, l(x) = min(_SHARED, ceil(t|x|)); two sets that reach
#: the threshold share at least min(l(x), l(y)) tokens of those prefixes (their smallest
#: common tokens), so candidates sharing fewer are never compared.
_SHARED = 8


@dataclass
class DedupIndex:
    """The current entries of one group (kind, category, repository), searchable by hash
    and by trigram similarity. Entries can be removed (when superseded).

    ``order`` (from :func:`token_order`) ranks tokens; tokens it lacks are ranked on first
    sight, so the order never changes while the index is in use.
    """

    threshold: float = THRESHOLD
    order: dict[str, int] = field(default_factory=dict)
    _by_hash: dict[str, str] = field(default_factory=dict)
    _sets: dict[str, frozenset[str]] = field(default_factory=dict)
    _postings: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    _hash_of: dict[str, str] = field(default_factory=dict)
    _unseen: int = -1

    def _prefix(self, tokens: frozenset[str]) -> list[str]:
        order = self.order
        for t in tokens:
            if t not in order:
                order[t] = self._unseen
                self._unseen -= 1
        n = len(tokens)
        size = n - self._overlap(n) + self._shared(n)
        return sorted(tokens, key=order.__getitem__)[:size]

    def _overlap(self, n: int) -> int:
        """Least overlap with a set of size >= n that reaches the threshold."""
        return math.ceil(self.threshold * n - 1e-9)

    def _shared(self, n: int) -> int:
        return min(_SHARED, self._overlap(n))

    def add(self, entry: str, hash_: str, tokens: frozenset[str]) -> None:
        """Index ``entry`` with its hash and trigrams (:func:`trigrams` of its text)."""
        self._by_hash.setdefault(hash_, entry)
        self._hash_of[entry] = hash_
        self._sets[entry] = tokens
        for token in self._prefix(tokens):
            self._postings[token].append(entry)

    def remove(self, entry: str) -> None:
        self._sets.pop(entry, None)
        hash_ = self._hash_of.pop(entry, None)
        if hash_ is not None and self._by_hash.get(hash_) == entry:
            del self._by_hash[hash_]

    def find(self, hash_: str, tokens: frozenset[str], *,
             exclude: frozenset[str] = frozenset()) -> tuple[str, float] | None:
        """The existing entry that an entry with this hash and these trigrams duplicates,
        with its similarity, or None."""
        hit = self._by_hash.get(hash_)
        if hit is not None and hit not in exclude and hit in self._sets:
            return hit, 1.0
        shared: Counter[str] = Counter()
        for token in self._prefix(tokens):
            posting = self._postings.get(token)
            if posting:
                shared.update(posting)  # counted in C
        best: tuple[str, float] | None = None
        n = len(tokens)
        lo, hi = self.threshold * n, n / self.threshold
        mine = self._shared(n)
        floor = min(mine, self._shared(math.ceil(lo - 1e-9)))  # least l(y) in the size range
        for entry, count in shared.items():
            if count < floor or entry in exclude:
                continue
            other = self._sets.get(entry)
            if other is None or not lo - 1e-9 <= len(other) <= hi + 1e-9:
                continue
            if count < min(mine, self._shared(len(other))):
                continue
            score = _jaccard(tokens, other)
            if score >= self.threshold and (best is None or score > best[1]):
                best = (entry, score)
        return best
