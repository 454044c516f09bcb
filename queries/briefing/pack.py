"""Packing a briefing into its token budget by priority.

Sections are ranked (:data:`PRIORITY`: what is in force first, what is merely nearby last)
and so are the items inside each. A section shows at most its tier's ``per_section`` items;
beyond that, and wherever the budget cuts it, one line says how many more there are and which
call returns them. Packing fills sections in rank order, so a low-priority section is dropped
whole (and named in the closing ``left out`` line) before a higher one loses an item; a
smaller item of a lower section still goes in where it fits. Every line is counted with the
real tokenizer (:mod:`queries.briefing.tokens`), and the whole text is counted again at the
end: the answer never exceeds the budget.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from queries.briefing.model import BriefingItem, BriefingSection

__all__ = ["PRIORITY", "TITLES", "Packed", "pack"]

#: sections, most important first
PRIORITY = ("decisions", "stale", "failures", "intents", "tests", "dependents", "commits",
            "papers", "dependencies", "community")
TITLES = {"decisions": "decisions", "stale": "stale (code changed since)",
          "failures": "failures", "intents": "others' intents", "tests": "tests",
          "dependents": "used by", "commits": "recent commits", "papers": "papers",
          "dependencies": "uses", "community": "community"}


@dataclass(frozen=True, slots=True)
class Packed:
    text: str
    tokens: int
    sections: tuple[BriefingSection, ...]
    left_out: tuple[str, ...]


def _clip(line: str, width: int) -> str:
    return line if len(line) <= width else line[:width - 3].rstrip() + "..."


def pack(header: str, found: Mapping[str, Sequence[BriefingItem]],
         follow_up: Mapping[str, str], *, budget: int, per_section: int, width: int,
         count: Callable[[str], int], full_tier: bool = False) -> Packed:
    """The items of ``found`` that fit ``budget`` tokens, by :data:`PRIORITY`."""
    names = [n for n in PRIORITY if found.get(n)]
    shown = dict.fromkeys(names, 0)
    cache: dict[str, int] = {}

    def cost(line: str) -> int:
        if line not in cache:
            cache[line] = count(line + "\n")
        return cache[line]

    def lines(shown: Mapping[str, int], compact: bool = False) -> list[str]:
        out = [header]
        dropped = []
        for name in names:
            k, total = shown[name], len(found[name])
            if not k:
                dropped.append(f"{TITLES[name].split(' (')[0]} {total}")
                continue
            out.append(f"{TITLES[name]}:")
            out += [_clip(f"- {item.text}", width) for item in found[name][:k]]
            if k < total:
                out.append(f"  +{total - k} more: {follow_up[name]}")
        if dropped:
            hint = "" if full_tier else " (ask tier FULL)"
            what = f"{len(dropped)} sections" if compact else ", ".join(dropped)
            out.append(f"left out: {what}{hint}")
        return out

    def size(shown: Mapping[str, int]) -> tuple[int, bool]:
        """Tokens of the rendering, and whether it takes the compact 'left out' line."""
        full = sum(cost(line) for line in lines(shown))
        if full <= budget:
            return full, False
        return sum(cost(line) for line in lines(shown, True)), True

    def fits(shown: Mapping[str, int]) -> bool:
        return size(shown)[0] <= budget

    for name in names:  # rank order: a section is filled before the next one starts
        limit = min(per_section, len(found[name]))
        while shown[name] < limit:
            trial = {**shown, name: shown[name] + 1}
            if not fits(trial):
                break
            shown = trial
    text = "\n".join(lines(shown, size(shown)[1]))
    while count(text) > budget and any(shown.values()):  # never over: drop the last added
        last = next(n for n in reversed(names) if shown[n])
        shown[last] -= 1
        text = "\n".join(lines(shown, size(shown)[1]))
    while count(text) > budget and text.count("\n"):  # the header alone is too long
        text = text.rsplit("\n", 1)[0]
    if count(text) > budget:
        text = header[:max(0, budget * 2)]
        while text and count(text) > budget:
            text = text[:-4]
    sections = tuple(BriefingSection(n, tuple(found[n][:shown[n]]), len(found[n]) - shown[n],
                                     follow_up[n]) for n in names if shown[n])
    left = tuple(n for n in names if not shown[n])
    return Packed(text, count(text), sections, left)
