"""Stable community numbers across detections: a new community takes the number of the
stored one it overlaps most."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["Matched", "match_communities"]


@dataclass(frozen=True)
class Matched:
    """New communities under stable numbers: ``numbers[c]`` is the stable number of new
    community c; ``moved`` the nodes whose stable community changed, as (node, old, new)."""

    numbers: tuple[int, ...]
    moved: tuple[tuple[str, int, int], ...]


def match_communities(ids: Sequence[str], membership: Sequence[int],
                      previous: Mapping[str, int]) -> Matched:
    """Keep community numbers across runs: each new community takes the number of the old one
    it overlaps most (by Jaccard index, best pairs first, one to one); the others get numbers
    never used before. ``previous`` maps node id -> stable number from the last run."""
    new_sets: dict[int, set[str]] = {}
    for node, community in zip(ids, membership, strict=True):
        new_sets.setdefault(community, set()).add(node)
    old_sets: dict[int, set[str]] = {}
    for node, number in previous.items():
        old_sets.setdefault(number, set()).add(node)
    pairs = []
    for c, members in new_sets.items():
        for number in {previous[n] for n in members if n in previous}:
            old = old_sets[number]
            shared = len(members & old)
            pairs.append((-shared / len(members | old), c, number))
    numbers: dict[int, int] = {}
    taken: set[int] = set()
    for _, c, number in sorted(pairs):
        if c not in numbers and number not in taken:
            numbers[c] = number
            taken.add(number)
    fresh = max(old_sets, default=-1) + 1
    for c in sorted(new_sets):
        if c not in numbers:
            numbers[c] = fresh
            fresh += 1
    moved = tuple(sorted((node, previous[node], numbers[c])
                         for node, c in zip(ids, membership, strict=True)
                         if node in previous and previous[node] != numbers[c]))
    return Matched(tuple(numbers[c] for c in range(max(new_sets, default=-1) + 1)), moved)
