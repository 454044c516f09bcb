"""Text and Markdown renderings of impact and supersession results (JSON is ``to_dict``).

Kept apart from ``api/cli.py`` so the commands stay thin: they parse, call ``queries`` and
hand the result here.
"""

from __future__ import annotations

from typing import Any

__all__ = ["impact_markdown", "impact_text", "supersession_text"]

_ROWS = 50


def _short(node_id: str) -> str:
    """``sym:repo/pkg/mod.py#f`` -> ``pkg/mod.py#f``; ``file:repo/pkg/mod.py`` -> ``pkg/mod.py``."""
    for prefix in ("sym:", "file:"):
        if node_id.startswith(prefix):
            rest = node_id[len(prefix):]
            return rest.split("/", 1)[1] if "/" in rest else rest
    return node_id


def _path(node: Any) -> str:
    """The explaining path with short names: ``core.py#helper <-CALLS- sub.py#Child.go``."""
    if not node.via:
        return "(target)" if node.distance == 0 else ""
    steps = [_short(node.via[0].dst)]
    for e in node.via:
        how = f"{e.kind} {e.resolution} {e.confidence:.2f}".replace("  ", " ")
        steps.append(f"<-[{how}]- {_short(e.src)}")
    return " ".join(steps)


def _changes_lines(result: Any) -> list[str]:
    c = result.changes
    if c is None:
        return []
    head = c.head[:12] if c.head else "working tree"
    lines = [f"changes {c.base[:12]}..{head} in {c.repo}: {len(c.files)} files, "
             f"{len(c.symbols)} symbols"]
    lines += [f"  {status:<9} {path}" for path, status in c.files[:_ROWS]]
    lines += [f"  {s.change:<9} {_short(s.id)}" + ("" if s.in_graph else "  (not in graph)")
              for s in c.symbols[:_ROWS]]
    return lines


def impact_text(result: Any, *, rows: int = _ROWS) -> str:
    """A terminal report: changes, ranked symbols and files with their paths, tests, and the
    communities, entries and papers touched; notes last."""
    out = [f"impact of {len(result.targets)} target(s) at depth {result.depth}: "
           f"{len(result.symbols)} symbols, {len(result.files)} files, "
           f"{len(result.tests)} tests to run"]
    out += _changes_lines(result)
    if result.symbols:
        out.append("symbols (score, distance, path):")
        out += [f"  {n.score:.3f} {n.distance} {_short(n.id)}  {_path(n)}"
                for n in result.symbols[:rows]]
    if result.files:
        out.append("files:")
        out += [f"  {n.score:.3f} {n.distance} {n.path}" for n in result.files[:rows]]
    if result.tests:
        out.append("tests to run:")
        out += [f"  {t.node_id}  ({t.reason}, {t.score:.3f})"
                + (f"  [{t.evidence}] {t.why}" if t.why else "") for t in result.tests]
    if result.communities:
        out.append("communities:")
        out += [f"  {c.id} {c.name} (level {c.level}): {len(c.members)} impacted"
                for c in result.communities]
    if result.entries:
        out.append("decisions, failures, patterns, intents:")
        for e in result.entries:
            state = "current" if e.current else "superseded by " + (
                ", ".join(e.superseded_by) or "?")
            out.append(f"  {e.display_id or e.id} {e.kind} ({state}): {e.title}")
    if result.papers:
        out.append("papers:")
        out += [f"  {p.id} ({p.relation}): {p.title}" for p in result.papers]
    out += [f"note: {n}" for n in result.notes]
    if len(result.symbols) > rows:
        out.append(f"note: {len(result.symbols) - rows} more symbols (use --format json)")
    return "\n".join(out) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def impact_markdown(result: Any, *, rows: int = _ROWS) -> str:
    """GitHub-flavoured Markdown, for a pull-request comment or a job summary."""
    out = ["## Change impact", "",
           f"{len(result.symbols)} symbols and {len(result.files)} files impacted "
           f"(depth {result.depth}); **{len(result.tests)} tests to run**.", ""]
    c = result.changes
    if c is not None:
        out += [f"Changes `{c.base[:12]}..{c.head[:12] if c.head else 'working tree'}`: "
                + ", ".join(f"`{p}` ({s})" for p, s in c.files[:rows]), ""]
    if result.symbols:
        out += ["| score | hops | symbol | why |", "|---:|---:|---|---|"]
        out += [f"| {n.score:.3f} | {n.distance} | `{_cell(_short(n.id))}` | "
                f"{_cell(_path(n))} |" for n in result.symbols[:rows]]
        out.append("")
    if result.tests:
        counts: dict[str, int] = {}
        for t in result.tests:
            counts[t.evidence] = counts.get(t.evidence, 0) + 1
        out += ["<details><summary>Tests to run ("
                + ", ".join(f"{n} by {e}" for e, n in sorted(counts.items()))
                + ")</summary>", "", "| test | evidence | why |", "|---|---|---|"]
        out += [f"| `{_cell(t.node_id)}` | {t.evidence} | {_cell(t.why)} |"
                for t in result.tests]
        out += ["", "</details>", ""]
    if result.communities:
        out += ["**Communities:** " + ", ".join(f"{_cell(x.name or x.id)} ({len(x.members)})"
                                                for x in result.communities), ""]
    if result.entries:
        out += ["| entry | kind | state | title |", "|---|---|---|---|"]
        out += [f"| {e.display_id or e.id} | {e.kind} | "
                f"{'current' if e.current else 'superseded'} | {_cell(e.title)} |"
                for e in result.entries]
        out.append("")
    if result.papers:
        out += [f"- {_cell(p.title or p.id)} ({p.relation})" for p in result.papers]
        out.append("")
    out += [f"> {_cell(n)}" for n in result.notes]
    return "\n".join(out).rstrip() + "\n"


def supersession_text(result: Any) -> str:
    """Versions oldest first, with the edge that replaced each and the current one marked."""
    out = [f"{result.node} ({result.table}): {len(result.versions)} versions, current: "
           + (", ".join(result.current) or "none")]
    by_older: dict[str, list[Any]] = {}
    for e in result.edges:
        by_older.setdefault(e.older, []).append(e)
    for v in result.versions:
        mark = "*" if v.current else ("@" if v.valid_at and result.as_of else " ")
        when = f"{v.valid_from:%Y-%m-%d %H:%M}" if v.valid_from else "?"
        label = v.display_id if v.table == "Entry" and v.display_id else v.id
        out.append(f"{mark} {when}  {label}  {v.status}  {v.name}")
        for e in by_older.get(v.id, []):
            at = f"{e.at:%Y-%m-%d %H:%M}" if e.at else "?"
            out.append(f"      replaced by {e.newer} at {at}: {e.reason}"
                       + (f" ({e.evidence})" if e.evidence else ""))
    if result.as_of is not None:
        out.append(f"valid at {result.as_of}: " + (", ".join(result.at) or "none"))
    out += [f"note: {n}" for n in result.notes]
    return "\n".join(out) + "\n"
