"""The MCP tools: a name, a short exact description, a JSON schema for the input, the scope
it needs, and a function ``(store, arguments) -> answer`` over ``queries/`` or the record
path (:mod:`api.recording`) — the same functions the CLI and GraphQL call.

The list is kept small on purpose (an agent loads it into its context on every turn): one
``record`` tool takes every entry type instead of one tool per type, and each answer is a
compact JSON object with ids to follow up (see :mod:`api.mcp.compact`).
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from api.mcp import compact
from api.recording import record_events
from graphdb import Store
from ingest.sessions.format import OUTCOMES, SESSION_OUTCOMES
from queries import impact, provenance, run_cypher, supersession
from queries.briefing import briefing, briefing_repo
from queries.impact import DEFAULT_MIN_SCORE, DEFAULT_TEST_BUDGET, affected_tests
from queries.provenance import resolve_node
from queries.search import search
from queries.versions import unchanged_since
from schema import NODE_TABLES, REL_TABLES, REPOSITORY, NodeNotFoundError, QueryError

__all__ = ["READ", "TOOLS", "WRITE", "McpTool", "tool_table"]

READ, WRITE = "read", "write"
MAX_ROWS = 200  # rows of a cypher answer
DEFAULT_TOKENS = 2_000  # budget of a read answer unless the call sets max_tokens
MAX_TOKENS = 20_000


@dataclass(frozen=True)
class McpTool:
    name: str
    description: str
    schema: dict[str, Any]
    scope: str  # read | write
    run: Callable[[Store, Mapping[str, Any]], dict[str, Any]]


def _s(description: str, **more: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, **more}


def _list(description: str) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string"}, "description": description}


_TOKENS = {"type": "integer", "minimum": 100, "maximum": MAX_TOKENS,
           "description": f"answer budget in tokens (default {DEFAULT_TOKENS})"}
_TARGETS = _list("symbol or file ids, or path#qualname / path")


def _obj(required: list[str], **props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required,
            "additionalProperties": False}


# ---------------------------------------------------------------------------------- read
def _search(store: Store, a: Mapping[str, Any]) -> dict[str, Any]:
    return compact.search_answer(search(store, a["query"], k=a.get("k", 10),
                                        tables=a.get("tables"), path=a.get("path")))


def _impact(store: Store, a: Mapping[str, Any]) -> dict[str, Any]:
    return compact.impact_answer(impact(store, list(a["targets"]), depth=a.get("depth", 2),
                                        limit=a.get("limit", 50)))


def _affected_tests(store: Store, a: Mapping[str, Any]) -> dict[str, Any]:
    if bool(a.get("targets")) == bool(a.get("base")):
        raise QueryError("pass targets, or repo and base (a git revision), not both")
    if a.get("base"):
        what: Any = _diff(store, a.get("repo"), a["base"], a.get("head"))
    else:
        what = list(a["targets"])
    spread = {k: a[k] for k in ("depth", "budget", "min_score") if a.get(k) is not None}
    return compact.tests_answer(affected_tests(store, what, repo=a.get("repo"), **spread))


def _diff(store: Store, repo: str | None, base: str, head: str | None) -> Any:
    """The change set of base..head (or the working tree) in ``repo``'s ingested tree."""
    from ingest.history.diff import diff_changes

    if not repo:
        raise QueryError("a diff needs the repository: pass repo with base")
    rows = store.cypher(f"MATCH (r:{REPOSITORY.name}) WHERE r.name = $r RETURN r.root AS root",
                        {"r": repo})
    if rows.is_empty():
        raise NodeNotFoundError(f"no repository named {repo!r}", node_id=f"repo:{repo}")
    return diff_changes(Path(rows["root"][0]), base=base, head=head)


def _provenance(store: Store, a: Mapping[str, Any]) -> dict[str, Any]:
    return compact.provenance_answer(provenance(store, a["node"]))


def _supersession(store: Store, a: Mapping[str, Any]) -> dict[str, Any]:
    return compact.supersession_answer(supersession(store, a["node"]))


_PUBLIC = [t for t in NODE_TABLES if not t.internal]


def _node(store: Store, a: Mapping[str, Any]) -> dict[str, Any]:
    ref = a["id"]
    try:
        node_id = resolve_node(store, ref)
    except NodeNotFoundError:
        node_id = ref  # commit:, paper:, session:, community: ... ids are looked up as given
    for table in _PUBLIC:
        rows = store.cypher(f"MATCH (n:{table.name}) WHERE n.id = $id RETURN n.*",
                            {"id": node_id})
        if rows.height:
            props = {k.removeprefix("n."): v for k, v in rows.to_dicts()[0].items()}
            break
    else:
        raise NodeNotFoundError(f"nothing in the graph is named {ref!r}", node_id=ref,
                                suggestion="pass an id from another answer, a display id "
                                           "(DEC-3), path#qualname or a path")
    edges: dict[str, dict[str, int]] = {"out": {}, "in": {}}
    for way, pattern in (("out", "(n)-[r]->()"), ("in", "()-[r]->(n)")):
        rows = store.cypher(f"MATCH {pattern} WHERE n.id = $id AND r.valid_to IS NULL "
                            "RETURN label(r) AS kind, count(*) AS n ORDER BY kind",
                            {"id": node_id})
        edges[way] = dict(zip(rows["kind"].to_list(), rows["n"].to_list(), strict=True))
    return compact.node_answer(table.name, props, edges)


def _cypher(store: Store, a: Mapping[str, Any]) -> dict[str, Any]:
    frame = run_cypher(store, a["query"], a.get("params"))
    rows = frame.head(MAX_ROWS).rows()
    return {"columns": frame.columns, "rows": [list(r) for r in rows],
            **({"truncated": f"{frame.height} rows, first {MAX_ROWS} shown"}
               if frame.height > MAX_ROWS else {})}


# --------------------------------------------------------------------------------- write
def _start_session(store: Store, a: Mapping[str, Any]) -> dict[str, Any]:
    from ingest.sessions.record import Recorder

    recorder = Recorder(store, session=a.get("session"), title=a.get("title", ""),
                        agent=a.get("agent", ""), model=a.get("model", ""),
                        repo=a.get("repo", ""))
    recorder.start_session()
    return {"session": recorder.session}


def _end_session(store: Store, a: Mapping[str, Any]) -> dict[str, Any]:
    from ingest.sessions.record import Recorder

    Recorder(store, session=a["session"]).end_session(a.get("summary", ""),
                                                      a.get("outcome", ""))
    return {"session": a["session"], "ended": True}


_RECORD_FIELDS = ("title", "content", "scope", "supersedes", "reason", "symbols", "files",
                  "commits", "papers", "error", "resolution", "outcome", "expires_at")


def _record(store: Store, a: Mapping[str, Any]) -> dict[str, Any]:
    event: dict[str, Any] = {"type": a["type"], "id": a.get("key"),
                             **{f: a.get(f) for f in _RECORD_FIELDS}}
    if a.get("failure"):
        event["resolves"] = [a["failure"]]
    [(result, intents)] = record_events(store, a["session"], [event])
    answer: dict[str, Any] = {"id": result.id or None, "display_id": result.display_id or None,
                              "kind": result.kind}
    if result.merged:
        answer["merged"] = f"into an existing near-duplicate (similarity {result.similarity:.2f})"
    if result.unresolved:
        answer["unresolved"] = list(result.unresolved)
    if result.warnings:
        answer["warnings"] = list(result.warnings)
    if intents:
        answer["intents"] = [{"id": i.display_id or i.id, "title": i.title,
                              "session": i.session, "scope": list(i.scope)} for i in intents]
    return answer


_RECORD_TYPES = ["decision", "pattern", "failure", "resolution", "outcome", "insight",
                 "note", "intent"]


def _briefing(store: Store, a: Mapping[str, Any]) -> dict[str, Any]:
    """The packed text (within its budget, every item with its id) and the version to poll
    with; with ``if_changed_since`` and nothing it reads written since: NOT_MODIFIED."""
    targets = {"files": tuple(a.get("files") or ()), "symbols": tuple(a.get("symbols") or ()),
               "globs": tuple(a.get("globs") or ()), "task": a.get("task")}
    if unchanged_since(store, a.get("if_changed_since"),
                       repo=briefing_repo(store, **targets)):
        return {"not_modified": True, "graph_version": store.graph_version()}
    found = briefing(store, **targets, tier=a.get("tier", "standard"),
                     max_tokens=a.get("max_tokens"), session=a.get("session"))
    return {"text": found.text, "graph_version": found.graph_version}


_BRIEFING = McpTool(
    "briefing", "What to know before touching files, symbols, globs or a task: decisions "
    "and patterns in force, failures and fixes, others' intents, recent commits, tests, "
    "dependents, papers, stale facts; packed to a token budget, each item with its id.",
    _obj([], files=_list("file paths"), symbols=_list("symbols: path#qualname or ids"),
         globs=_list("path globs"), task=_s("what you are about to do"),
         tier={"enum": ["micro", "standard", "full"],
               "description": "~60 / 500 / 2,000 tokens (default standard)"},
         max_tokens={"type": "integer", "minimum": 20, "maximum": MAX_TOKENS,
                     "description": "budget instead of the tier's"},
         session=_s("your session id (its own intents are not listed as others')"),
         if_changed_since={"type": "integer", "description": "graph_version of an earlier "
                           "answer: not_modified if nothing it read changed"}),
    READ, _briefing)


def tool_table() -> list[McpTool]:
    """Every tool, read tools first."""
    nodes = ", ".join(t.name for t in _PUBLIC)
    rels = ", ".join(r.name for r in REL_TABLES)
    tools = [
        McpTool("search", "Hybrid keyword+vector search over code symbols, recorded "
                "decisions/failures/patterns/notes and papers. Hits: id, kind, name, score; "
                "superseded hits name their replacement.",
                _obj(["query"], query=_s("words or identifiers"),
                     k={"type": "integer", "minimum": 1, "maximum": 100,
                        "description": "hits (default 10)"},
                     tables={"type": "array", "items": {"enum": ["Symbol", "Entry", "Paper"]},
                             "description": "only these tables"},
                     path=_s("only code under this glob (** any depth)"),
                     max_tokens=_TOKENS), READ, _search),
        McpTool("impact", "What depends on the targets: symbols and files ranked, each with "
                "its distance and the edge that reached it (via: KIND from-id), tests to run, "
                "decisions/patterns/failures and papers about them.",
                _obj(["targets"], targets=_TARGETS,
                     depth={"type": "integer", "minimum": 0, "maximum": 10,
                            "description": "hops (default 2)"},
                     limit={"type": "integer", "minimum": 1, "maximum": 500,
                            "description": "symbols and files (default 50)"},
                     max_tokens=_TOKENS), READ, _impact),
        McpTool("affected_tests", "Tests to run for the targets, or for repo's git diff "
                "base..head (head omitted: the working tree): runner ids with evidence "
                "(coverage, static, rule).",
                _obj([], targets=_TARGETS, repo=_s("repository name (with base)"),
                     base=_s("git revision to diff from"), head=_s("git revision to diff to"),
                     depth={"type": "integer", "minimum": 0, "maximum": 10,
                            "description": "fixed path length in hops (default: spread by "
                                           "budget and min_score, as the CLI)"},
                     budget={"type": "number", "exclusiveMinimum": 0, "maximum": 1,
                             "description": "without depth: stop spreading past this share "
                                            f"of the tests (default {DEFAULT_TEST_BUDGET})"},
                     min_score={"type": "number", "minimum": 0, "maximum": 1,
                                "description": "without depth: do not follow a path scoring "
                                               f"below this (default {DEFAULT_MIN_SCORE})"},
                     max_tokens=_TOKENS), READ, _affected_tests),
        McpTool("provenance", "Where a symbol, file or entry came from: introducing and "
                "last commits (newest first), renames, sessions, decisions and papers.",
                _obj(["node"], node=_s("id, display id (DEC-3), path#qualname or path"),
                     max_tokens=_TOKENS), READ, _provenance),
        McpTool("supersession", "The supersession chain of an entry, symbol or paper: "
                "versions, which is current, and why each was replaced.",
                _obj(["node"], node=_s("id, display id (DEC-3) or path#qualname"),
                     max_tokens=_TOKENS), READ, _supersession),
        McpTool("node", "One node's properties and edge counts by kind.",
                _obj(["id"], id=_s("any id (sym:, file:, entry:, commit:, paper:...), display "
                                   "id, path#qualname or path"),
                     max_tokens=_TOKENS), READ, _node),
        McpTool("cypher", f"Read-only Cypher (Kuzu dialect); writes are refused. At most "
                f"{MAX_ROWS} rows. Nodes: {nodes}. Edges: {rels}. Current facts: "
                "valid_to IS NULL.",
                _obj(["query"], query=_s("the query"),
                     params={"type": "object", "description": "$parameters"},
                     max_tokens=_TOKENS), READ, _cypher),
        McpTool("start_session", "Open a working session for records; returns its id.",
                _obj([], session=_s("id to use (default: a new one)"), title=_s("what it is "
                     "for"), agent=_s("agent name"), model=_s("model"), repo=_s("repository")),
                WRITE, _start_session),
        McpTool("record", "Record in a session: decision, pattern, insight, note, intent "
                "(title), failure (error), resolution (failure, title), outcome (resolution, "
                "outcome). A conflict with an active entry or a link to nothing is refused "
                "with what to do.",
                _obj(["session", "type"], session=_s("session id"),
                     type={"enum": _RECORD_TYPES},
                     title=_s("one line"), content=_s("details"),
                     scope=_list("paths or globs it applies to"),
                     supersedes=_list("active entries it replaces (DEC-3, ids)"),
                     reason=_s("why it supersedes"),
                     symbols=_list("symbols it is about"), files=_list("files it is about"),
                     commits=_list("commit shas"), papers=_list("DOIs, arXiv ids or titles"),
                     error=_s("failure: the error"), failure=_s("resolution: the failure"),
                     resolution=_s("outcome: the resolution"),
                     outcome={"enum": list(OUTCOMES), "description": "resolution, outcome"},
                     expires_at=_s("intent: ISO time it lapses"),
                     key=_s("its name in the session, for later records")),
                WRITE, _record),
        McpTool("end_session", "Close a session with its summary and outcome.",
                _obj(["session"], session=_s("session id"), summary=_s("what was done"),
                     outcome={"enum": list(SESSION_OUTCOMES)}), WRITE,
                _end_session),
    ]
    return [_BRIEFING, *tools]


TOOLS: dict[str, McpTool] = {t.name: t for t in tool_table()}
