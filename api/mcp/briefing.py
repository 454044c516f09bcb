"""The ``briefing`` tool, registered only where ``queries.briefing`` exists (it is built on
another branch): ``queries.briefing(store, *, files=(), symbols=(), globs=(), task=None,
tier="standard", max_tokens=None, as_of=None)``, and ``if_changed_since`` when it takes it.

The answer is the briefing's packed text (already within its token budget, every item with
its id) and the graph version to poll with.
"""

import inspect
from collections.abc import Mapping
from typing import Any

__all__ = ["briefing_tool"]


def briefing_tool() -> Any:
    """The tool, or None when this build has no ``queries.briefing``."""
    import queries

    fn = getattr(queries, "briefing", None)
    if not callable(fn):
        return None
    from api.mcp.tools import READ, McpTool, _list, _obj, _s

    conditional = "if_changed_since" in inspect.signature(fn).parameters
    props: dict[str, Any] = {
        "files": _list("file paths"), "symbols": _list("symbols: path#qualname or ids"),
        "globs": _list("path globs"), "task": _s("what you are about to do"),
        "tier": {"enum": ["micro", "standard", "full"],
                 "description": "~60 / 500 / 2,000 tokens (default standard)"},
        "max_tokens": {"type": "integer", "minimum": 20, "maximum": 20_000,
                       "description": "budget instead of the tier's"}}
    if conditional:
        props["if_changed_since"] = {"type": "integer", "description": (
            "graph_version of an earlier answer: NOT_MODIFIED if nothing it read changed")}

    def run(store: Any, a: Mapping[str, Any]) -> dict[str, Any]:
        options: dict[str, Any] = {
            "files": tuple(a.get("files") or ()), "symbols": tuple(a.get("symbols") or ()),
            "globs": tuple(a.get("globs") or ()), "task": a.get("task"),
            "tier": a.get("tier", "standard"), "max_tokens": a.get("max_tokens")}
        if conditional and a.get("if_changed_since") is not None:
            options["if_changed_since"] = a["if_changed_since"]
        found = fn(store, **options)
        text = getattr(found, "text", None)
        if text is None:  # e.g. a NOT_MODIFIED answer
            return found.to_dict() if hasattr(found, "to_dict") else {"answer": str(found)}
        return {"text": text, "graph_version": getattr(found, "graph_version", None)}

    return McpTool("briefing", "What to know before touching files, symbols, globs or a "
                   "task: decisions and patterns in force, failures and fixes, others' "
                   "intents, recent commits, tests, dependents, papers, stale facts; packed "
                   "to a token budget, each item with its id.",
                   _obj([], **props), READ, run)
