"""The keyword and embedding steps of an ingest, split for :mod:`graphdb.forked`: each is
read from the graph in this process (``start_*``), computed here or in a forked child
(``compute``), then written or recorded here (``finish``), the database's only writer.

:func:`fork_steps` decides how many children: with other work for this process (the
communities step), one child runs the steps one after the other, so that two processes
share the two cores this is written for; without, one child per step. Steps smaller than
:data:`FORK_MIN` are computed in process (a one-file update: a fork would cost more than it
saves), and so is any step whose child failed.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any

from graphdb.forked import Forked, ForkedError, can_fork, start_forked
from graphdb.keyword import (
    KEYWORD_FIELDS,
    KeywordPlan,
    ensure_keyword,
    finish_sync,
    plan_sync,
    sync_nodes,
    unmark_stale,
    write_plan,
)
from graphdb.store import Store
from schema import SYMBOL

__all__ = ["FORK_MIN", "Children", "EmbedStep", "KeywordStep", "fork_steps",
           "start_embedding", "start_keyword"]

#: a derived step with fewer documents or texts than this runs in process (no fork);
#: ``VGDB_FORK_MIN`` sets it for a process (the tests force small steps through a fork)
FORK_MIN = int(os.environ.get("VGDB_FORK_MIN") or 2000)


@dataclass
class KeywordStep:
    """The keyword sync, read (``plans``), or done at once (``done``: a few symbols)."""

    name = "keyword"
    plans: list[KeywordPlan] = field(default_factory=list)
    done: dict[str, Any] | None = None

    @property
    def work(self) -> int:
        return sum(p.work for p in self.plans)

    def compute(self, *, again: bool = False) -> list[int]:
        return [write_plan(p, again=again) for p in self.plans if p.work]

    def finish(self, store: Store, computed: Any | None, *, forked: bool = False
               ) -> dict[str, Any]:
        """``forked``: a child had the step (``computed`` None: it failed, maybe after its
        tantivy commit, so the documents are written again as replacements)."""
        if self.done is not None:
            return self.done
        if computed is None:
            self.compute(again=forked)
        return finish_sync(store, self.plans)


def start_keyword(store: Store, symbols: list[str] | None, few: int) -> KeywordStep:
    """Read what the keyword sync writes; with at most ``few`` ``symbols`` (the only nodes
    changed), sync them at once instead (cost in the symbols)."""
    if symbols is not None and len(symbols) <= few:
        done = {SYMBOL.name: sync_nodes(store, SYMBOL.name, symbols)}
        others = [t for t in KEYWORD_FIELDS if t != SYMBOL.name]
        unmark_stale(store, others)
        ensure_keyword(store, tables=others)  # an index never built yet is built now
        return KeywordStep(done=done)
    return KeywordStep(plan_sync(store))


@dataclass
class EmbedStep:
    """The embedding, read: a ``graphdb.vectors.EmbedPlan``, or the ``EmbedSummary`` of an
    update whose texts are all stored already."""

    name = "embed"
    plan: Any = None

    @property
    def work(self) -> int:
        return int(getattr(self.plan, "work", 0))

    def compute(self, progress: Any = None) -> Any:
        from graphdb.vectors import compute_embedding

        return compute_embedding(self.plan, progress)

    def finish(self, computed: Any | None, progress: Any = None) -> dict[str, Any]:
        from graphdb.vectors import EmbedSummary, commit_embedding

        if isinstance(self.plan, EmbedSummary):
            return self.plan.to_dict()
        return commit_embedding(self.plan, computed if computed is not None
                                else self.compute(progress)).to_dict()


def start_embedding(store: Store, ids: dict[str, list[str]] | None) -> EmbedStep:
    """Read what the embedding computes (of the nodes ``ids`` only, when given)."""
    from graphdb.vectors import plan_embedding

    return EmbedStep(plan_embedding(store, ids=ids))


@dataclass
class Children:
    """The forked children computing some steps: :meth:`result` per step, or None when the
    step is to be computed in process (not forked, or its child failed)."""

    forks: dict[str, Forked] = field(default_factory=dict)  # step name -> its child
    results: dict[str, Any] = field(default_factory=dict)
    #: seconds each forked step computed in its child
    seconds: dict[str, float] = field(default_factory=dict)

    def forked(self, step: str) -> bool:
        return step in self.forks

    def result(self, step: str) -> Any | None:
        child = self.forks.get(step)
        if child is None:
            return None
        if step not in self.results:
            try:
                done = child.result()
            except ForkedError:
                done = {}
            for name in [n for n, c in self.forks.items() if c is child]:
                value = done.get(name)
                self.results[name] = None if value is None else value[0]
                if value is not None:
                    self.seconds[name] = round(value[1], 3)
        return self.results[step]

    def close(self) -> None:
        for child in {id(c): c for c in self.forks.values()}.values():
            child.close()


def fork_steps(steps: list[Any], *, together: bool) -> Children:
    """Fork the steps of at least :data:`FORK_MIN` work: in one child (``together``) or one
    each."""
    big = [s for s in steps if s.work >= FORK_MIN]
    children = Children()
    if not big or not can_fork():
        return children
    groups = [big] if together else [[s] for s in big]
    for group in groups:
        try:
            child = start_forked("+".join(s.name for s in group), _compute, group)
        except OSError:  # no process to be had now: computed here
            continue
        children.forks.update((s.name, child) for s in group)
    return children


def _compute(steps: list[Any]) -> dict[str, tuple[Any, float]]:
    """In the child: each step's result and the seconds it took."""
    out = {}
    for step in steps:
        t0 = time.perf_counter()
        value = step.compute()
        out[step.name] = (value, time.perf_counter() - t0)
    return out
