"""Where pure extraction tasks run: the local process pool, a Dask cluster or a Ray cluster,
behind one small interface (docs/executors.md says why Dask is the one tested and installed).

``get_executor(url)`` takes ``local`` (the default process pool), ``dask://local`` (a Dask
LocalCluster started here), ``dask://HOST:PORT`` (a running Dask scheduler), ``ray://local``
(``ray.init`` of a local Ray), ``ray://auto`` (the Ray cluster this machine belongs to) or
``ray://HOST:PORT`` (Ray Client, which needs ``ray[client]``).

Every executor maps a function over items and yields ``(item, result)`` pairs as they finish,
the result being the exception when the task failed: a task that raises, or whose worker
process dies under it (``os._exit``, a segfault in native code, the out-of-memory killer:
:class:`WorkerCrashError`), is that item's failure and the others go on. The function and
items must be picklable (a module-level function such as
:func:`ingest.shards.extract_shards`); the engine is imported only when asked for.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from ingest.pool import process_pool
from schema import IngestError

__all__ = ["DaskExecutor", "Executor", "LocalExecutor", "RayExecutor", "WorkerCrashError",
           "get_executor"]

#: seconds a local cluster may take to start its workers (each imports the extractors; on a
#: loaded machine that takes far longer than Dask's default 30 s)
_START_TIMEOUT = 180

T = TypeVar("T")
R = TypeVar("R")
Outcome = tuple[T, Any]


class WorkerCrashError(IngestError):
    """The worker process died while running this task; the worker was replaced and the other
    tasks went on."""

    code = "WORKER_CRASH"

    def __init__(self, message: str, *, item: object = None) -> None:
        super().__init__(message, suggestion="a parser crash (native code) or a worker "
                                             "killed for memory; the other items were done")
        self.item = item


class Executor:
    """Runs ``fn(item)`` for many items somewhere; use as a context manager or ``close()``."""

    url: str = ""
    #: worker processes (or cores) the executor had when it started
    workers: int = 0
    #: seconds it took to start (or connect to) the engine
    start_seconds: float = 0.0

    def map_unordered(self, fn: Callable[[T], R],
                      items: Iterable[T]) -> Iterator[tuple[T, R | BaseException]]:
        """``(item, fn(item))`` in completion order; a failure is ``(item, exception)``."""
        raise NotImplementedError

    def close(self) -> None:
        """Stop what this executor started (a cluster it started, its pool)."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.url} workers={self.workers}>"


def get_executor(url: str = "local", *, workers: int | None = None) -> Executor:
    """The executor for ``url`` (see the module docstring); ``workers`` sizes what is started
    here (default: one per core), and is ignored when connecting to a running cluster."""
    import time

    start = time.perf_counter()
    scheme, _, rest = url.partition("://")
    executor: Executor
    if url in ("", "local") or (scheme == "local" and not rest):
        executor = LocalExecutor(workers)
    elif scheme == "dask" and rest:
        executor = DaskExecutor(rest, workers=workers)
    elif scheme == "ray" and rest:
        executor = RayExecutor(rest, workers=workers)
    else:
        raise IngestError(f"unknown executor {url!r}",
                          suggestion="use local, dask://local, dask://HOST:PORT, ray://local, "
                                     "ray://auto or ray://HOST:PORT")
    executor.url = url
    executor.start_seconds = time.perf_counter() - start
    return executor


def _engine_missing(name: str, extra: str, exc: ImportError) -> IngestError:
    return IngestError(f"the {name} executor needs {name}, which is not installed ({exc})",
                       suggestion=f"pip install 'vectorgraphdb[{extra}]' (see constraints.txt "
                                  "for the pinned versions)")


# ------------------------------------------------------------------------------ local
class LocalExecutor(Executor):
    """The process pool of :func:`ingest.pool.process_pool` (spawned workers that die with
    this process). After a crash, the items the broken pool lost run again one at a time in a
    fresh process, so only the item that crashes its worker fails."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or os.cpu_count() or 1
        self._pool: ProcessPoolExecutor | None = None

    def map_unordered(self, fn: Callable[[T], R],
                      items: Iterable[T]) -> Iterator[tuple[T, R | BaseException]]:
        pending: dict[Future, T] = {}
        lost: list[T] = []
        self._pool = self._pool or process_pool(self.workers)
        for item in items:
            try:
                pending[self._pool.submit(fn, item)] = item
            except BrokenProcessPool:  # a worker died while the batch was being submitted
                lost.append(item)
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                item = pending.pop(future)
                try:
                    yield item, future.result()
                except BrokenProcessPool:
                    lost.append(item)
                except Exception as exc:
                    yield item, exc
        if lost:
            self._pool.shutdown(wait=False)
            self._pool = None
            yield from self._alone(fn, lost)

    def _alone(self, fn: Callable[[T], R],
               items: list[T]) -> Iterator[tuple[T, R | BaseException]]:
        pool: ProcessPoolExecutor | None = None
        try:
            for item in items:
                pool = pool or process_pool(1)
                try:
                    yield item, pool.submit(fn, item).result()
                except BrokenProcessPool:
                    yield item, WorkerCrashError(
                        f"the worker process died running {fn.__name__}({item!r})", item=item)
                    pool.shutdown(wait=False)
                    pool = None
                except Exception as exc:
                    yield item, exc
        finally:
            if pool is not None:
                pool.shutdown()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None


# ------------------------------------------------------------------------------ dask
class DaskExecutor(Executor):
    """A ``distributed.Client`` on a LocalCluster started here (``local``) or on a running
    scheduler (``HOST:PORT``). Local workers are processes with one thread each (the
    extractors hold the GIL) under a nanny that restarts a worker that dies, and with
    ``allowed-failures`` 0 a task on a dying worker fails at once (``KilledWorker``) instead of
    being retried on, and killing, other workers. Such tasks then run again one at a time: the
    one that kills its worker alone is reported as :class:`WorkerCrashError`."""

    def __init__(self, address: str, *, workers: int | None = None) -> None:
        try:
            import dask
            from distributed import Client, LocalCluster
        except ImportError as exc:
            raise _engine_missing("dask", "dask", exc) from exc
        self._cluster = None
        if address == "local":
            self.workers = workers or os.cpu_count() or 1
            # one task in flight per worker thread: a dying worker takes down only its own
            # task, which then fails at once instead of being retried on the next worker
            # (and no statistical profiler sampling the extractors' stacks every 10 ms)
            with dask.config.set({"distributed.scheduler.allowed-failures": 0,
                                  "distributed.scheduler.worker-saturation": 1.0,
                                  "distributed.worker.profile.enabled": False}):
                self._cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1,
                                             processes=True, dashboard_address=None,
                                             silence_logs=50,  # logging.CRITICAL
                                             timeout=_START_TIMEOUT)
                self._client = Client(self._cluster, set_as_default=False)
        else:
            target = address if "://" in address else f"tcp://{address}"
            try:
                self._client = Client(target, set_as_default=False, timeout=30)
            except OSError as exc:
                raise IngestError(f"cannot reach the Dask scheduler at {target}: {exc}",
                                  suggestion="start it (dask scheduler) or use dask://local"
                                  ) from exc
            self.workers = sum(w.get("nthreads", 1) for w in
                               self._client.scheduler_info()["workers"].values())

    def map_unordered(self, fn: Callable[[T], R],
                      items: Iterable[T]) -> Iterator[tuple[T, R | BaseException]]:
        from distributed import as_completed
        from distributed.scheduler import KilledWorker

        futures = {}
        lost: list[T] = []
        for item in items:
            futures[self._client.submit(fn, item, pure=False)] = item
        for future in as_completed(list(futures), loop=self._client.loop):
            item = futures.pop(future)
            try:
                yield item, future.result()
            except KilledWorker:
                lost.append(item)
            except Exception as exc:
                yield item, exc
            finally:
                future.release()
        # a dying worker takes down every task the scheduler had placed on it; run those
        # again one at a time, so only the task that kills its worker alone fails
        for item in lost:
            future = self._client.submit(fn, item, pure=False)
            try:
                yield item, future.result()
            except KilledWorker as exc:
                yield item, WorkerCrashError(
                    f"the Dask worker died running {getattr(fn, '__name__', fn)}({item!r}): "
                    f"{exc}", item=item)
            except Exception as exc:
                yield item, exc
            finally:
                future.release()

    def close(self) -> None:
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()


# ------------------------------------------------------------------------------ ray
class RayExecutor(Executor):
    """Ray tasks with ``max_retries=0`` (a task that kills its worker fails once, as
    :class:`WorkerCrashError`; Ray starts a new worker for the next task). ``local`` starts
    Ray here with ``workers`` CPUs and stops it on close."""

    def __init__(self, address: str, *, workers: int | None = None) -> None:
        try:
            import ray
        except ImportError as exc:
            raise _engine_missing("ray", "bench", exc) from exc
        self._ray = ray
        self._started = False
        if address == "local":
            self.workers = workers or os.cpu_count() or 1
            ray.init(num_cpus=self.workers, include_dashboard=False, log_to_driver=False,
                     configure_logging=False)
            self._started = True
        else:
            ray.init(address="auto" if address == "auto" else f"ray://{address}",
                     log_to_driver=False)
            self.workers = int(ray.cluster_resources().get("CPU", 1))

    def map_unordered(self, fn: Callable[[T], R],
                      items: Iterable[T]) -> Iterator[tuple[T, R | BaseException]]:
        ray = self._ray
        from ray.exceptions import RayTaskError, WorkerCrashedError

        remote = ray.remote(num_cpus=1, max_retries=0)(fn)
        refs = {}
        for item in items:
            refs[remote.remote(item)] = item
        while refs:
            done, _ = ray.wait(list(refs), num_returns=1)
            for ref in done:
                item = refs.pop(ref)
                try:
                    yield item, ray.get(ref)
                except WorkerCrashedError as exc:
                    yield item, WorkerCrashError(
                        f"the Ray worker died running {getattr(fn, '__name__', fn)}({item!r})"
                        f": {exc}", item=item)
                except RayTaskError as exc:  # the task raised: hand back its own exception
                    cause = exc.cause if isinstance(exc.cause, BaseException) else exc
                    yield item, cause
                except Exception as exc:
                    yield item, exc

    def close(self) -> None:
        if self._started:
            self._ray.shutdown()
            self._started = False
