"""One call before touching code: what applies to it from code, history and papers, packed
to a token budget by priority (DESIGN §5).

    b = briefing(store, files=["graphdb/store.py"], tier="standard")
    print(b.text)            # the packed answer, b.tokens <= b.max_tokens (cl100k_base)
    b.section("decisions")   # the same items with their ids, for a follow-up call

Modules: :mod:`~queries.briefing.gather` (the sections, each from the query that answers it
alone), :mod:`~queries.briefing.pack` (priorities and the budget),
:mod:`~queries.briefing.tokens` (the tokenizer), :mod:`~queries.briefing.model` (results).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from graphdb import Store
from queries.briefing.gather import Code, contained, expand_globs, gather
from queries.briefing.model import TIERS, Briefing, BriefingItem, BriefingSection, Tier
from queries.briefing.pack import PRIORITY, pack
from queries.briefing.tokens import count_tokens, tokenizer_name
from queries.provenance import resolve_node
from queries.scope import code_paths
from schema import NodeNotFoundError, QueryError

__all__ = ["PRIORITY", "TIERS", "Briefing", "BriefingItem", "BriefingSection", "Tier",
           "briefing", "briefing_repo", "count_tokens", "tokenizer_name"]

#: the smallest budget a briefing is packed into
MIN_TOKENS = 20
#: the largest (about a tenth of a large context window)
MAX_TOKENS = 20_000
#: code hits of the task text that become targets when none are given
TASK_TARGETS = 3


def briefing(store: Store, *, files: Sequence[str] = (), symbols: Sequence[str] = (),
             globs: Sequence[str] = (), task: str | None = None, tier: str = "standard",
             max_tokens: int | None = None, as_of: datetime | None = None,
             session: str | None = None) -> Briefing:
    """What to know before changing ``files``, ``symbols`` and the files under ``globs``.

    Parameters
    ----------
    files, symbols
        Paths or ids (``graphdb/store.py``, ``file:<repo>/<path>``, ``pkg/mod.py#C.m``,
        ``sym:...``).
    globs
        Path globs (``graphdb/**``): the current files they cover, and the decisions and
        intents scoped to overlapping globs.
    task
        What the agent is about to do; with no targets, hybrid search picks the code it
        names (the best :data:`TASK_TARGETS` symbols).
    tier
        ``micro`` | ``standard`` | ``full``: about 60 / 500 / 2,000 tokens, and how many
        items a section shows before ``+N more``.
    max_tokens
        The budget, instead of the tier's (cl100k_base tokens of ``Briefing.text``).
    as_of
        Brief from the graph as it was valid then (default: now).
    session
        The asking session: its own intents are not reported as others'.

    Returns
    -------
    Briefing
        ``text`` within the budget; ``sections`` with each item's id; ``left_out`` sections
        the budget dropped; ``graph_version`` to poll with (``ifChangedSince``).
    """
    chosen = TIERS.get(tier.lower())
    if chosen is None:
        raise QueryError(f"unknown tier {tier!r}: choose micro, standard or full")
    budget = chosen.tokens if max_tokens is None else max_tokens
    if not MIN_TOKENS <= budget <= MAX_TOKENS:
        raise QueryError(f"max_tokens must be between {MIN_TOKENS} and {MAX_TOKENS:,}, "
                         f"not {budget}")
    version = store.graph_version()
    code = _targets(store, files, symbols, globs, task)
    found = gather(store, code, as_of=as_of, session=session)
    names = [code.label(i) for i in code.ids[:4]]
    more = f" +{len(code.ids) - 4}" if len(code.ids) > 4 else ""
    header = f"briefing {', '.join(names) or ', '.join(globs) or 'nothing'}{more}"
    if task:
        header += f" (task: {task[:80]})"
    packed = pack(header, found.sections, found.follow_up, budget=budget,
                  per_section=chosen.per_section, width=chosen.width,
                  count=count_tokens,
                  full_tier=chosen.name == "full" and max_tokens is None)
    return Briefing(targets=tuple(code.ids), tier=chosen.name, max_tokens=budget,
                    tokens=packed.tokens, tokenizer=tokenizer_name(), graph_version=version,
                    text=packed.text, sections=packed.sections, left_out=packed.left_out,
                    notes=tuple(found.notes))


def _targets(store: Store, files: Sequence[str], symbols: Sequence[str],
             globs: Sequence[str], task: str | None) -> Code:
    ids: list[str] = []
    bad: list[str] = []
    for ref, prefix in [*((f, "file:") for f in files), *((s, "sym:") for s in symbols)]:
        try:
            nid = resolve_node(store, ref.strip().removeprefix("./"))
        except NodeNotFoundError as exc:
            bad.append(f"{ref} ({exc.message})" if "ambiguous" in exc.message else ref)
            continue
        if not nid.startswith(prefix):
            bad.append(f"{ref} (not a {'file' if prefix == 'file:' else 'symbol'})")
        elif nid not in ids:
            ids.append(nid)
    paths = code_paths(store, ids)
    bad += [i for i in ids if i not in paths]
    if bad:
        raise NodeNotFoundError(f"unknown targets: {', '.join(bad)}", node_id=bad[0],
                                suggestion="pass paths (pkg/mod.py), symbols (pkg/mod.py#f) "
                                           "or their ids")
    from_globs, notes = expand_globs(store, globs)
    ids += [i for i in from_globs if i not in ids]
    if not ids and not globs:
        if not task:
            raise QueryError("a briefing needs files, symbols, globs or a task")
        from queries.search import search

        hits = search(store, task, k=10, tables=["Symbol"]).hits
        ids = list(dict.fromkeys(h.id for h in hits))[:TASK_TARGETS]
        notes.append(f"targets found by searching the task: {len(ids)} symbols")
    code = Code(ids, code_paths(store, ids), list(globs), notes=notes)
    code.inner = contained(store, [i for i in ids if i.startswith("file:")])
    return code


def briefing_repo(store: Store, *, files: Sequence[str] = (), symbols: Sequence[str] = (),
                  globs: Sequence[str] = (), task: str | None = None) -> str | None:
    """The one repository a briefing of these targets reads (its conditional reads follow
    that repository's graph version), or None: globs or a task text may reach any
    repository, and so may targets that do not all resolve into one."""
    if globs or (task and not files and not symbols) or not (files or symbols):
        return None
    try:
        code = _targets(store, files, symbols, (), None)
    except (NodeNotFoundError, QueryError):
        return None
    return code.repos[0] if len(code.repos) == 1 else None
