"""Parse the files an ingest reads: in a process pool past a few files, each file of a chunk
whose worker died retried alone."""

from __future__ import annotations

import os
import threading
import warnings
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from graphdb import failpoint
from ingest.pool import pool_starts, process_pool
from ingest.worker import FileResult, ParseTask, parse_file, parse_many
from schema import ParseStatus

__all__ = ["POOL_MIN_FILES", "EarlyParse", "parse_tasks", "plan_chunks", "start_parse"]

#: Below this many files to parse, a process pool costs more than it saves.
POOL_MIN_FILES = 24

Progress = Callable[[str, int, int], None]


class EarlyParse:
    """Files handed to a process pool before the ingest asks for them (a cold ingest starts
    parsing while it creates the database): :func:`parse_tasks` takes the results over when
    it is asked for exactly these tasks, and :meth:`close` drops them otherwise."""

    def __init__(self, tasks: list[ParseTask], workers: int) -> None:
        self.tasks = list(tasks)
        #: the walk the tasks came from, for the ingest to reuse (``ingest.pipeline``)
        self.listing: object | None = None
        self._pool: ProcessPoolExecutor | None = None
        self._futures: list = []
        # the first worker waits for the fork server to finish importing the extractors:
        # started from a thread, so this process goes on (creates the database) meanwhile
        self._starting = threading.Thread(target=self._start, args=(workers,),
                                          name="vgdb-early-parse", daemon=True)
        self._starting.start()

    def _start(self, workers: int) -> None:
        pool = None
        try:
            pool = process_pool(workers)
            self._futures = [(chunk, pool.submit(parse_many, chunk))
                             for chunk in plan_chunks(self.tasks, workers)]
            self._pool = pool
        except Exception:  # no pool: the ingest parses the files itself
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)

    def take(self, tasks: list[ParseTask]) -> tuple[ProcessPoolExecutor, list] | None:
        """The pool and its pending chunks if ``tasks`` are the ones started, else None
        (and the early work is dropped)."""
        self._starting.join()
        if self._pool is None or tasks != self.tasks:
            self.close()
            return None
        pool, futures, self._pool = self._pool, self._futures, None
        return pool, futures

    def close(self) -> None:
        """Stop the early work, if it was not taken over."""
        self._starting.join()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def start_parse(tasks: list[ParseTask], *, workers: int | None) -> EarlyParse | None:
    """Start parsing ``tasks`` in a process pool now, or None where :func:`parse_tasks`
    would parse them in this process."""
    n_workers = workers if workers is not None else (os.cpu_count() or 1)
    if len(tasks) < POOL_MIN_FILES or n_workers <= 1:
        return None
    return EarlyParse(tasks, n_workers)


def parse_tasks(tasks: list[ParseTask], *, workers: int | None,
                progress: Progress | None, early: EarlyParse | None = None) -> list[FileResult]:
    """Parse in a process pool; a worker that dies is replaced and its files retried alone.
    ``early``: the same tasks already started (:func:`start_parse`), whose results are
    taken over (any other tasks are parsed anew)."""
    total = len(tasks)
    if progress:
        progress("parse", 0, total)
    started = early.take(tasks) if early is not None else None
    n_workers = workers if workers is not None else (os.cpu_count() or 1)
    if started is None and (total < POOL_MIN_FILES or n_workers <= 1):
        results = []
        for i, task in enumerate(tasks):
            results.append(parse_file(task))
            if progress:
                progress("parse", i + 1, total)
            if i + 1 >= total // 2:
                failpoint("mid-parse")
        return results
    if started is None:
        pool = process_pool(n_workers)
        futures = [(chunk, pool.submit(parse_many, chunk))
                   for chunk in plan_chunks(tasks, n_workers)]
    else:
        pool, futures = started
    results: list[FileResult] = []
    retry: list[ParseTask] = []
    with pool:
        for chunk, future in futures:
            try:
                results.extend(future.result())
            except BrokenProcessPool:
                retry.extend(chunk)
            if progress:
                progress("parse", len(results) + len(retry), total)
            if len(results) >= total // 2:
                failpoint("mid-parse")
    results.extend(_retry_alone(retry))
    order = {task.path: i for i, task in enumerate(tasks)}
    results.sort(key=lambda result: order[result.path])  # the chunks' order is by size
    return results


def plan_chunks(tasks: list[ParseTask], workers: int) -> list[list[ParseTask]]:
    """The tasks in chunks for the pool, largest files first, each chunk a share of the bytes
    still to hand out (guided self-scheduling): big chunks while there is much left, single
    small files at the end, so no worker sits idle while another finishes a big chunk (in
    path order, 16 files a chunk, the last one could hold a 200 KB module)."""
    sized = sorted(((_size(t), i) for i, t in enumerate(tasks)), reverse=True)
    left = sum(size for size, _ in sized)
    chunks: list[list[ParseTask]] = []
    chunk: list[ParseTask] = []
    budget = 0
    for size, i in sized:
        if not chunk:
            budget = max(left // (_SHARES * workers), _MIN_CHUNK_BYTES)
        chunk.append(tasks[i])
        budget -= size
        left -= size
        if budget <= 0 or len(chunk) >= _CHUNK_MAX:
            chunks.append(chunk)
            chunk = []
    if chunk:
        chunks.append(chunk)
    return chunks


#: each chunk gets 1 / (_SHARES x workers) of the bytes not yet handed out
_SHARES = 4
#: ... but at least this many bytes (~15 ms of a worker's time on Python source)
_MIN_CHUNK_BYTES = 64 * 1024
#: and at most this many files (a chunk of tiny files is still one result to wait for)
_CHUNK_MAX = 64


def _size(task: ParseTask) -> int:
    if task.size >= 0:  # the walk's
        return task.size
    try:
        return os.stat(task.abs_path).st_size
    except OSError:  # the worker reports it
        return 0


def _retry_alone(tasks: list[ParseTask]) -> list[FileResult]:
    """Each file of a crashed chunk on its own, so one bad file cannot sink the others.

    The pool is replaced only after a crash: one new process per crash, not per file. When no
    worker can start at all, the files are parsed in this process instead.
    """
    if tasks and not pool_starts():
        warnings.warn("parse workers cannot start (is the calling script missing an "
                      "`if __name__ == '__main__':` guard?); parsing in this process",
                      RuntimeWarning, stacklevel=3)
        return [parse_file(t) for t in tasks]
    out: list[FileResult] = []
    pool: ProcessPoolExecutor | None = None
    try:
        for task in tasks:
            pool = pool or process_pool(1)
            try:
                out.append(pool.submit(parse_file, task).result())
            except BrokenProcessPool:
                out.append(FileResult(task.path, task.language, 0, "", ParseStatus.ERROR,
                                      "the parser process crashed on this file", None))
                pool.shutdown(wait=False)
                pool = None
    finally:
        if pool is not None:
            pool.shutdown()
    return out

