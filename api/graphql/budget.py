"""``maxTokens``: trim a query result to a token budget, for agents that pay per token.

The budget is estimated on the whole result as JSON (4 characters a token, the usual rule of
thumb for English and code), before GraphQL selects fields from it: a selection can only be
smaller, so the estimate errs on the safe side. Lists are cut from their ends, the longest
first, until the result fits; what was cut is reported in the response's
``extensions.trimmed`` and, where the result has one, in its ``notes``.
"""

import dataclasses
import json
from typing import Any

__all__ = ["estimate_tokens", "trim"]

CHARS_PER_TOKEN = 4


def estimate_tokens(value: Any) -> int:
    return len(json.dumps(_plain(value), default=str, separators=(",", ":"))) // CHARS_PER_TOKEN


def trim(value: Any, max_tokens: int) -> tuple[Any, dict[str, int]]:
    """``value`` (a frozen dataclass) with list fields shortened until it fits
    ``max_tokens``; also returns how many items each field lost."""
    if max_tokens <= 0:
        raise ValueError("maxTokens must be positive")
    dropped: dict[str, int] = {}
    lists = {f.name: list(getattr(value, f.name)) for f in dataclasses.fields(value)
             if isinstance(getattr(value, f.name), (tuple, list))}
    current = value
    while estimate_tokens(current) > max_tokens:
        longest = max((name for name in lists if name != "notes" and lists[name]),
                      key=lambda name: len(json.dumps(_plain(lists[name]), default=str)),
                      default=None)
        if longest is None:
            break
        cut = max(1, len(lists[longest]) // 4)
        lists[longest] = lists[longest][:-cut]
        dropped[longest] = dropped.get(longest, 0) + cut
        current = dataclasses.replace(value, **{k: tuple(v) for k, v in lists.items()
                                                if k != "notes"})
    if dropped and "notes" in lists:
        note = (f"trimmed to about {max_tokens} tokens (maxTokens): " +
                ", ".join(f"{n} {name}" for name, n in sorted(dropped.items())) + " left out")
        current = dataclasses.replace(current, notes=(*current.notes, note))
    return current, dropped


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value
