"""Duplicate detection for entries: a normalized hash, then trigram similarity.

Two entries are duplicates when they have the same kind, category and repository and either
the same normalized hash (:func:`entry_hash`) or a trigram similarity (:func:`similarity`,
Jaccard [1]_ over character trigrams as PostgreSQL's ``pg_trgm`` computes it) of at least
:data:`THRESHOLD`. :class:`DedupIndex` finds them without comparing every pair: two sets
that reach a Jaccard threshold t differ in few tokens, so cut into more partitions than
that they agree exactly on one (the pigeonhole/partition filter, based on PartEnum [2]_), and
only entries that agree with a new one on a whole partition are compared. (Prefix filtering,
the first version, counted posting lists that grow with the index: on texts over a small
trigram alphabet its searches cost time proportional to the number of entries.)

References
----------
.. [1] P. Jaccard, "The distribution of the flora in the alpine zone", New Phytologist
   11(2):37-50, 1912. doi:10.1111/j.1469-8137.1912.tb05611.x
.. [2] A. Arasu, V. Ganti, R. Kaushik, "Efficient exact set-similarity joins", Proceedings
   of the 32nd International Conference on Very Large Data Bases (VLDB), 2006.
"""

from __future__ import annotations

import bisect
import hashlib
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache, reduce
from operator import or_

__all__ = [
    "THRESHOLD", "DedupIndex", "entry_hash", "entry_key", "mask_of", "normalize_text", "similarity",
    "trigram_mask", "trigrams",
]

#: Trigram similarity at or above which two entries are the same entry.
THRESHOLD = 0.9

#: A word: a run of word characters (what is left once punctuation is dropped and
#: whitespace folded).
_WORD = re.compile(r"\w+")
#: ASCII characters that are not word characters (``\w`` on ASCII text is [A-Za-z0-9_])
_ASCII_GAPS = {c: " " for c in range(128) if not (chr(c).isalnum() or chr(c) == "_")}


def _words(text: str) -> list[str]:
    """The words of ``text`` lower-cased: ``_WORD.findall(text.lower())``, faster on ASCII
    text (the usual case)."""
    low = text.lower()
    if low.isascii():
        return low.translate(_ASCII_GAPS).split()
    return _WORD.findall(low)


def normalize_text(text: str) -> str:
    """Lower case, punctuation dropped, whitespace folded: what dedup compares."""
    return " ".join(_words(text))


def entry_hash(kind: str, category: str, title: str, content: str) -> str:
    """blake2b-128 of the normalized kind, category, title and content."""
    return _hash_words(kind, category, _words(title), _words(content))


def _hash_words(kind: str, category: str, title: list[str], content: list[str]) -> str:
    key = "\x1f".join((kind, category.strip().lower(), " ".join(title), " ".join(content)))
    return hashlib.blake2b(key.encode("utf-8"), digest_size=16).hexdigest()


def entry_key(kind: str, category: str, title: str, content: str) -> tuple[str, int]:
    """:func:`entry_hash` and :func:`trigram_mask` of ``title + "\\n" + content`` at once
    (the words are found once for both)."""
    words_title, words_content = _words(title), _words(content)
    return (_hash_words(kind, category, words_title, words_content),
            _words_mask(words_title + words_content))


#: Trigram sets are held as bitmasks (Python ints): bit ``_BIT[t]`` stands for trigram t.
#: Bits are given out on first sight and never change, so masks stay comparable for the life
#: of the process; the universe of trigrams is small (tens of thousands), so is each mask.
_BIT: dict[str, int] = {}
class _WordMasks(dict[str, int]):
    """word -> mask; a word not seen yet is made (and kept) on lookup, so the masks of a
    text's words are looked up in one C-level ``map``."""

    def __missing__(self, word: str) -> int:
        return _word_mask(word)


#: word -> the mask of its padded trigrams; texts repeat words, so most lookups hit (bounded:
#: cleared when full)
_WORD_MASK = _WordMasks()
_WORD_CACHE_MAX = 200_000


def _word_mask(word: str) -> int:
    p, bits, mask = f"  {word} ", _BIT, 0
    for i in range(len(p) - 2):
        t = p[i:i + 3]
        bit = bits.get(t)
        if bit is None:
            bit = bits[t] = len(bits)
        mask |= 1 << bit
    if len(_WORD_MASK) >= _WORD_CACHE_MAX:
        _WORD_MASK.clear()
    _WORD_MASK[word] = mask
    return mask


def trigram_mask(text: str) -> int:
    """:func:`trigrams` of ``text`` as a bitmask (what :class:`DedupIndex` stores)."""
    # the words of normalize_text(text): runs of word characters of the lower-cased text
    return _words_mask(_words(text))


def _words_mask(words: list[str]) -> int:
    return reduce(or_, map(_WORD_MASK.__getitem__, words), 0)


def mask_of(tokens: frozenset[str]) -> int:
    """A trigram set (:func:`trigrams`) as a bitmask."""
    bits, mask = _BIT, 0
    for t in tokens:
        bit = bits.get(t)
        if bit is None:
            bit = bits[t] = len(bits)
        mask |= 1 << bit
    return mask


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


def _jaccard_mask(x: int, nx: int, y: int, ny: int) -> float:
    """:func:`_jaccard` of two masks with ``nx`` and ``ny`` bits set (the same float)."""
    if not nx and not ny:
        return 1.0
    inter = (x & y).bit_count()
    return inter / (nx + ny - inter)


@lru_cache(maxsize=4096)
def _partitions(n: int, threshold: float) -> int:
    """How many partitions a set of ``n`` tokens is cut into, so that any set within the
    threshold of it agrees with it on one whole partition: a pair reaching Jaccard t differs
    in at most ``floor(min(|x|, |y|) * (1 - t) / t)`` tokens, and a pigeon cannot sit in every
    one of d + 1 holes. Rounded up to a coarse grid, so sets of close sizes share schemes."""
    need = math.floor(n * (1 - threshold) / threshold + 1e-6) + 1
    k = _GRID[-1]
    while k < need:  # long texts, low thresholds
        _GRID.append(max(k + 1, math.ceil(k * 1.25)))
        k = _GRID[-1]
    return _GRID[bisect.bisect_left(_GRID, need)]


_GRID = [1, 2, 3, 4, 5, 6, 8, 10, 13, 17, 22, 28, 35, 44, 55, 69, 87, 109, 137]


@lru_cache(maxsize=4096)
def _schemes(n: int, threshold: float) -> tuple[int, ...]:
    """The partition counts a set of ``n`` tokens is indexed under: those of every size of
    set that can reach the threshold with it (``t * n`` to ``n / t``)."""
    lo = _partitions(max(0, math.ceil(threshold * n - 1e-6)), threshold)
    hi = _partitions(math.floor(n / threshold + 1e-6), threshold)
    return tuple(_GRID[_GRID.index(lo):_GRID.index(hi) + 1])
#: k -> (bits covered, the k partition masks, a salt per partition)
_PARTS: dict[int, tuple[int, list[int], list[int]]] = {}


def _partition_masks(k: int) -> tuple[list[int], list[int]]:
    """The masks of the k partitions (bit i is in partition i % k), covering every bit given
    out so far (re-made, wider, when trigrams were added: a partition's bits below the old
    width are unchanged, so keys made before stay valid)."""
    found = _PARTS.get(k)
    if found is None or found[0] < len(_BIT):
        width = max(1024, 2 * len(_BIT))
        reps = -(-width // k)
        unit = ((1 << (k * reps)) - 1) // ((1 << k) - 1)  # bits 0, k, 2k, ...
        found = _PARTS[k] = (k * reps, [unit << p for p in range(k)],
                             [(k * 0xC2B2AE3D27D4EB4F) ^ (p + 1) * 0x9E3779B97F4A7C15
                              for p in range(k)])
    return found[1], found[2]


@dataclass
class DedupIndex:
    """The current entries of one group (kind, category, repository), searchable by hash
    and by trigram similarity. Entries can be removed (when superseded).

    Candidates are found by the pigeonhole principle (the partition filter of PartEnum,
    Arasu et al. 2006, and of "pkwise"/PassJoin): tokens are split into ``k`` partitions by
    their hash; two sets that reach the threshold differ in fewer than ``k`` tokens
    (:func:`_partitions`), so they hold exactly the same tokens in at least one partition.
    Each entry is indexed by (k, partition, xor of its token hashes in that partition) for
    every ``k`` a set of a compatible size would query with; a search looks up its own ``k``
    keys and verifies the few entries found by their exact Jaccard. It never misses a pair
    (tested against brute force) and does work per search independent of the index size.
    Among equally similar entries, the one indexed first wins.
    """

    threshold: float = THRESHOLD
    _by_hash: dict[str, str] = field(default_factory=dict)
    #: entry -> (trigram mask, its number of trigrams)
    _sets: dict[str, tuple[int, int]] = field(default_factory=dict)
    _seq: dict[str, int] = field(default_factory=dict)
    #: partition key -> the entry (or entries) holding it
    _parts: dict[int, str | list[str]] = field(default_factory=dict)
    _hash_of: dict[str, str] = field(default_factory=dict)
    _memo: tuple[int, int, list[int]] | None = None

    def _keys(self, mask: int, k: int) -> list[int]:
        """One key per partition: the hash of the mask's bits in that partition (bits
        ``i`` with ``i % k == p``), mixed with k and p (a collision only adds a candidate,
        which is then verified). The last search's keys are kept: the entry it was made for
        is usually added next."""
        memo = self._memo
        if memo is not None and memo[0] == mask and memo[1] == k:
            return memo[2]
        parts, salts = _partition_masks(k)
        keys = [hash(mask & m) ^ salt for m, salt in zip(parts, salts, strict=True)]
        self._memo = (mask, k, keys)
        return keys

    def add(self, entry: str, hash_: str, tokens: frozenset[str] | int) -> None:
        """Index ``entry`` with its hash and trigrams (:func:`trigrams` of its text, or
        :func:`trigram_mask`)."""
        mask = tokens if isinstance(tokens, int) else mask_of(tokens)
        n = mask.bit_count()
        self._by_hash.setdefault(hash_, entry)
        self._hash_of[entry] = hash_
        self._sets[entry] = (mask, n)
        self._seq.setdefault(entry, len(self._seq))
        t = self.threshold
        parts = self._parts
        for k in _schemes(n, t):
            for key in self._keys(mask, k):
                found = parts.setdefault(key, entry)  # most keys hold one entry: no list
                if found is not entry:
                    if found.__class__ is str:
                        parts[key] = [found, entry]
                    else:
                        found.append(entry)

    def remove(self, entry: str) -> None:
        self._sets.pop(entry, None)
        hash_ = self._hash_of.pop(entry, None)
        if hash_ is not None and self._by_hash.get(hash_) == entry:
            del self._by_hash[hash_]

    def find(self, hash_: str, tokens: frozenset[str] | int, *,
             exclude: frozenset[str] = frozenset()) -> tuple[str, float] | None:
        """The existing entry that an entry with this hash and these trigrams duplicates,
        with its similarity, or None."""
        hit = self._by_hash.get(hash_)
        if hit is not None and hit not in exclude and hit in self._sets:
            return hit, 1.0
        mask = tokens if isinstance(tokens, int) else mask_of(tokens)
        n, t = mask.bit_count(), self.threshold
        lo, hi = t * n - 1e-9, n / t + 1e-9
        parts, sets, seen = self._parts, self._sets, set()
        best: tuple[str, float] | None = None
        # the keys held (a C-level set intersection: most are not); the order candidates are
        # looked at does not matter (the best is the most similar, then the first indexed)
        for key in parts.keys() & self._keys(mask, _partitions(n, t)):
            found = parts[key]
            for entry in ((found,) if found.__class__ is str else found):
                if entry in seen:
                    continue
                seen.add(entry)
                other = sets.get(entry)
                if other is None or entry in exclude or not lo <= other[1] <= hi:
                    continue
                score = _jaccard_mask(mask, n, other[0], other[1])
                if score >= t and (best is None or score > best[1] or (
                        score == best[1] and self._seq[entry] < self._seq[best[0]])):
                    best = (entry, score)
        return best
