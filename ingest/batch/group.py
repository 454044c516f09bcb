"""The batch's writer: repositories new to the graph are loaded in groups, one transaction
(one COPY per table) per group, sized by rows.

A commit costs more as the tables it writes into grow, whatever its rows (measured in
``benchmarks/commit_growth.py``: at 10M CALLS a 29K-row repository commits at 161 µs per
row, a group of ten at 29), so loading one repository per transaction makes every new
repository dearer than the last. Here each arriving shard is staged (walked, parsed,
resolved: :func:`ingest.pipeline.stage_repository`); fresh loads wait in the group until it
holds :data:`GROUP_ROWS` rows (``VGDB_BATCH_GROUP_ROWS``, ``--group-rows``) or the shards
run out, then go in together (:func:`graphdb.load_code_group`). A repository already in
the graph (an update) is loaded alone, as ``vgdb ingest`` would.

The group grows with the graph (:func:`group_target`): part of a commit's cost is paid once
per transaction and grows with the tables (the engine's COMMIT, and the graph file's
digest after it: RESULTS.md, "Groups that grow with the graph"), so a fixed group size
makes the cost per row climb as the graph grows. A group of at least :data:`GROUP_GROWTH`
of the rows already in the graph keeps that part a bounded share of the cost per row, up
to :data:`GROUP_MAX_ROWS` (the group's staged frames are held in memory until its commit).

Resumable per repository as before: every member is ``running`` in the status file until
its group committed and was made searchable, then ``done``. A kill before the commit loses
the group and nothing else (the transaction never committed), and the rerun redoes exactly
those repositories; a kill after it redoes them as no-op updates. A group whose load fails
(not a full disk) is loaded again one repository at a time, so one bad repository still
fails alone.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from graphdb import Store, failpoint, load_code, load_code_group, load_rows
from ingest.pipeline import (
    IngestOptions,
    Progress,
    StagedIngest,
    finish_repository,
    sync_searchable,
)
from schema import FILE, VgdbError

__all__ = ["GROUP_GROWTH", "GROUP_MAX_ROWS", "GROUP_ROWS", "LOAD_ERRORS", "REOPEN_GROUPS",
           "GroupWriter", "Member", "graph_rows", "group_growth", "group_max_rows",
           "group_rows", "group_target", "release_free_memory", "reopen_groups",
           "reopen_store"]

#: what a repository's load may raise that fails it alone (anything else stops the batch)
LOAD_ERRORS = (VgdbError, OSError, RuntimeError, ValueError)

#: rows (nodes + edges) per group transaction: past ~300K rows the cost per row no longer
#: falls (commit_growth.py: a 29K-row commit 48 µs/row, 293K rows 14 µs/row at 252K CALLS)
GROUP_ROWS = 300_000

#: a group holds at least this share of the rows (nodes + edges) already in the graph: at
#: 11.5-13.7M edges 0.9-1.1M rows, committed at 1.18x (median of 4 interleaved rounds;
#: 0.48-1.73x) the cost per row of a 300K-row group at 108K edges, where fixed 300K-row
#: groups had cost 2.3x (RESULTS.md, "Groups that grow with the graph")
GROUP_GROWTH = 0.06

#: the most rows a grown group holds: its staged repositories wait in memory until the
#: commit (groups of 0.9-1.0M rows at 11.5-12.9M edges: the process peaked at 6.7 GiB with
#: a 4 GiB buffer pool); reached at 25M rows in the graph (~20M edges)
GROUP_MAX_ROWS = 1_500_000

#: groups between two reopenings of the database in a batch: the engine keeps ~110 MiB per
#: ~300K-row group committed that only closing returns (RESULTS.md, "Grouped loader past
#: 10M"); a reopening costs a close and an open (~1-3 s at 10M edges)
REOPEN_GROUPS = 5

AfterIngest = Callable[[Store, dict[str, Any]], dict[str, Any]]


def release_free_memory() -> bool:
    """Give the C heap's free pages back to the system (glibc ``malloc_trim``); False where
    there is no glibc.

    A group's frames, the engine's COPY buffers and the keyword sync free hundreds of MiB
    that glibc keeps in its arenas: measured on the synthetic graph (RESULTS.md, "Grouped
    loader past 10M"), 3 groups left 1.5 GiB resident, of which ``malloc_trim`` returned
    0.35 GiB; over 27 groups the process reached 8.8 GiB."""
    name = ctypes.util.find_library("c")
    if not name:
        return False
    try:
        trim = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):
        return False
    trim(0)
    return True


def reopen_store(store: Store) -> Store:
    """``store`` with its engine closed and opened again, the directory lock kept (what
    :attr:`GroupWriter.reopen` does between groups)."""
    store.restart()
    return store


def reopen_groups(value: int | None = None) -> int:
    """Groups between reopenings: ``value``, else ``VGDB_BATCH_REOPEN_GROUPS``, else
    :data:`REOPEN_GROUPS` (0: never)."""
    if value is None:
        value = int(os.environ.get("VGDB_BATCH_REOPEN_GROUPS", REOPEN_GROUPS))
    if value < 0:
        raise ValueError(f"the groups between reopenings cannot be negative, not {value}")
    return value


def group_rows(value: int | None = None) -> int:
    """The group size in rows: ``value``, else ``VGDB_BATCH_GROUP_ROWS``, else the default
    (1 loads every repository in its own transaction)."""
    if value is None:
        value = int(os.environ.get("VGDB_BATCH_GROUP_ROWS", GROUP_ROWS))
    if value < 1:
        raise ValueError(f"the group size must be at least one row, not {value}")
    return value


def group_growth(value: float | None = None) -> float:
    """The share of the graph's rows a group holds at least: ``value``, else
    ``VGDB_BATCH_GROUP_GROWTH``, else :data:`GROUP_GROWTH` (0: a fixed group size)."""
    if value is None:
        value = float(os.environ.get("VGDB_BATCH_GROUP_GROWTH", GROUP_GROWTH))
    if not 0 <= value <= 1:
        raise ValueError(f"the group growth is a share of the graph's rows between 0 and 1, "
                         f"not {value}")
    return value


def group_max_rows(value: int | None = None) -> int:
    """The most rows a grown group holds: ``value``, else ``VGDB_BATCH_GROUP_MAX_ROWS``,
    else :data:`GROUP_MAX_ROWS`."""
    if value is None:
        value = int(os.environ.get("VGDB_BATCH_GROUP_MAX_ROWS", GROUP_MAX_ROWS))
    if value < 1:
        raise ValueError(f"the largest group must hold at least one row, not {value}")
    return value


def group_target(rows: int, graph: int, growth: float, max_rows: int) -> int:
    """Rows at which a group is committed: ``growth`` of the ``graph``'s rows (rounded up),
    but never fewer than ``rows`` nor more than ``max_rows`` (unless ``rows`` is larger);
    ``rows`` 1 keeps one repository per transaction whatever the graph."""
    if rows <= 1:
        return 1
    return max(rows, min(max_rows, math.ceil(growth * graph)))


def graph_rows(store: Store) -> int:
    """Nodes plus edges in the graph (what :func:`group_target` grows with); two counts,
    0.6 s at 11M edges."""
    nodes = store.cypher("MATCH (n) RETURN count(*)").item()
    edges = store.cypher("MATCH ()-[e]->() RETURN count(*)").item()
    return int(nodes) + int(edges)


@dataclass
class Member:
    """One staged repository waiting for (or done with) its group's commit."""

    name: str
    staged: StagedIngest
    options: IngestOptions
    started: float
    data: dict[str, Any] = field(default_factory=dict)
    error: BaseException | None = None


@dataclass
class GroupWriter:
    """Loads staged repositories, grouping the fresh ones; ``done`` and ``failed`` are
    called for each member once its fate is known. A failure for which ``disk_full`` is
    True stops the writer (``stopped``): every pending member fails with it.

    A group is committed at :attr:`target_rows`: ``max_rows``, or with ``growth`` set,
    :func:`group_target` of the rows in the graph (``graph_rows`` when the writer starts,
    plus every row it commits)."""

    store: Store
    max_rows: int
    done: Callable[[Member], None]
    failed: Callable[[Member, BaseException], None]
    disk_full: Callable[[BaseException], bool]
    progress: Progress | None = None
    after_ingest: AfterIngest | None = None
    pending: list[Member] = field(default_factory=list)
    rows: int = 0
    #: (members, rows, seconds of the load transaction) of every group committed
    groups: list[tuple[int, int, float]] = field(default_factory=list)
    stopped: bool = False
    #: close and open the database again after every this many groups (0: never), with
    #: ``reopen`` (see :func:`reopen_store`): the engine keeps memory per committed group
    #: that only closing returns (RESULTS.md, "Grouped loader past 10M")
    reopen_every: int = 0
    reopen: Callable[[Store], Store] | None = None
    #: rows (nodes + edges) in the graph: counted by the caller, grown by each commit
    graph_rows: int = 0
    #: the share of ``graph_rows`` a group holds at least (0: always ``max_rows``)
    growth: float = 0.0
    #: the most rows a grown group holds
    growth_max_rows: int = GROUP_MAX_ROWS

    @property
    def target_rows(self) -> int:
        """Rows at which the pending group is committed."""
        return group_target(self.max_rows, self.graph_rows, self.growth,
                            self.growth_max_rows)

    def add(self, member: Member) -> None:
        """Take one staged repository: loaded alone when it is not fresh, else grouped."""
        load = member.staged.load
        if load is None or not load.fresh:
            self._alone(member)
            return
        self.pending.append(member)
        self.rows += load_rows(load)
        if self.rows >= self.target_rows:
            self.flush()

    def flush(self) -> None:
        """Commit the pending group (if any), then finish its members."""
        members, rows = self.pending, self.rows
        self.pending, self.rows = [], 0
        if not members:
            return
        t0 = time.perf_counter()
        try:
            load_code_group(self.store, [m.staged.load for m in members])
        except LOAD_ERRORS as exc:
            if len(members) == 1 or self.disk_full(exc) or self._committed(members[0]):
                # committed although the engine raised (its post-commit checkpoint ran out of
                # buffer pool at 6.5M edges, RESULTS.md): the rerun finishes them as updates
                self._fail_all(members, exc)
                return
            # one member may be at fault: each alone, so the others still load
            for member in members:
                if not self.stopped:
                    self._alone(member)
                else:
                    self._fail_all([member], exc)
            return
        self.groups.append((len(members), rows, time.perf_counter() - t0))
        self.graph_rows += rows
        for member in members:
            member.staged.loaded(self.store)
        self._finish(members)
        if self.reopen is not None and self.reopen_every \
                and len(self.groups) % self.reopen_every == 0:
            self.store = self.reopen(self.store)
        release_free_memory()

    def _committed(self, member: Member) -> bool:
        """Whether the member's files are in the graph (its group did commit)."""
        try:
            return bool(self.store.cypher(
                f"MATCH (f:{FILE.name}) WHERE f.repo = $r RETURN count(*)",
                {"r": member.name}).item())
        except LOAD_ERRORS:
            return True  # the store cannot answer: loading again would not help

    def _alone(self, member: Member) -> None:
        try:
            load = member.staged.load
            if load is not None:
                load_code(self.store, load)
                member.staged.loaded(self.store)
                if load.fresh:
                    self.graph_rows += load_rows(load)
        except LOAD_ERRORS as exc:
            self._fail_all([member], exc)
            return
        self._finish([member])

    def _fail_all(self, members: list[Member], exc: BaseException) -> None:
        self.stopped = self.stopped or self.disk_full(exc)
        for member in members:
            self.failed(member, exc)

    def _finish(self, members: list[Member]) -> None:
        """Links, history, papers per member; one index sync for all; then each is done."""
        finished = []
        for member in members:
            try:
                finish_repository(self.store, member.staged, options=member.options,
                                  progress=self.progress, searchable=False, compact=False)
                finished.append(member)
            except LOAD_ERRORS as exc:
                self._fail_all([member], exc)
        members = finished
        if not members:
            return
        failpoint("batch-group-finished")
        try:
            search = sync_searchable(self.store, [m.staged for m in members],
                                     embed=all(m.options.embed for m in members),
                                     progress=self.progress)
        except LOAD_ERRORS as exc:
            self._fail_all(members, exc)
            return
        seconds = search.pop("seconds")
        for member in members:
            summary = member.staged.summary
            summary.search = dict(search)
            summary.seconds.update(seconds)
            member.data = summary.to_dict()
            try:
                if self.after_ingest is not None:
                    member.data["communities"] = self.after_ingest(self.store, member.data)
            except LOAD_ERRORS as exc:
                self._fail_all([member], exc)
                continue
            self.done(member)
