"""Where a build's per-shard work runs (local processes or a Dask cluster), and the work shipped there.

The `runner` setting (a parameter of the build flow and of the deployments in prefect.yaml) picks
the executor:

- ``"local"`` (default): a spawn `ProcessPoolExecutor` of `workers` processes on this machine;
- ``"dask"``: a temporary Dask `LocalCluster` of `workers` single-threaded processes;
- a Dask scheduler address (``"tcp://host:8786"``, ``tls://``...): an existing Dask cluster, which the build
  tries to reach for CONNECT_SECONDS before it stops with one line (Dask itself would try for 30 s).

Both Dask forms go through prefect-dask's `DaskTaskRunner` (it creates or connects to the cluster
and closes it), and the shard functions run on its Dask client's `concurrent.futures` executor as
plain functions, not as Prefect tasks: a Prefect task on a Dask worker needs a Prefect API, and
without a server each worker would start a temporary one of its own. So Dask workers need no
Prefect API access, only this package installed at the same code version. The local default is a
plain process pool: no cluster to start.

Shard functions (effects/shard_work.py, effects/pattern_parts.py) take member bytes or paths, write their files to
the build's stage and return counts, so the workers need the stage at the same path as the flow (on one machine,
or a shared filesystem); the build reads results in submission order, so the release is the same, byte for
byte, whatever the runner and the number of workers. A build opens one pool and runs all its shards on it.
`ShardPool.results` keeps at most AHEAD_PER_SLOT shards a worker thread submitted and unread: a Dask client
pickles a call's arguments when it is submitted, so submitting every shard at once would hold every member of
the build twice (here and on the cluster).
"""

from __future__ import annotations

import contextlib
import contextvars
import multiprocessing
import os
import signal
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

LOCAL, DASK = "local", "dask"
SCHEDULER_SCHEMES = ("tcp://", "tls://", "ucx://", "ws://", "wss://")
AHEAD_PER_SLOT = 2  # shards submitted and unread per worker thread: one running, one queued behind it
CONNECT_SECONDS = 10  # how long a build tries to reach a scheduler address (Dask's own default is 30 s)

T = TypeVar("T")


@dataclass(frozen=True)
class ShardPool:
    """An executor of shard work and the number of shards it runs at once (its worker threads)."""

    executor: Executor
    slots: int

    def results(self, calls: Iterable[Callable[[], T]]) -> Iterator[T]:
        """The results of `calls` (picklable, e.g. `functools.partial` of a module function) in their order.

        `calls` is consumed lazily: a call is submitted when fewer than AHEAD_PER_SLOT x slots are
        submitted and unread. Calls still pending when the reader stops are cancelled.
        """
        pending: deque[Future[T]] = deque()
        try:
            for call in calls:
                pending.append(self.executor.submit(call))
                if len(pending) >= AHEAD_PER_SLOT * self.slots:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()


def check_runner(runner: str) -> str:
    """`runner` itself when it is 'local', 'dask' or a Dask scheduler address; else ValueError."""
    if runner in (LOCAL, DASK) or runner.startswith(SCHEDULER_SCHEMES):
        return runner
    raise ValueError(f"runner must be 'local', 'dask' or a Dask scheduler address like tcp://host:8786, got {runner!r}")


@dataclass(frozen=True)
class Runner:
    """A build's runner: the worker pool of each of its phases (ingest, extraction, parts).

    A Dask cluster is reached (or a temporary one started) once for the whole build and serves every
    phase; local worker processes are started for each phase and stopped after it, because a process
    keeps most of the memory a phase used (about 0.6 GB after extracting 1,000 games), which the
    next phase would hold beside its own (docs/scaling.md#one-way-data-flow).
    """

    workers: int
    cluster: ShardPool | None = None

    @property
    def slots(self) -> int:
        """How many shards a phase runs at once."""
        return self.cluster.slots if self.cluster is not None else self.workers

    @contextlib.contextmanager
    def phase(self) -> Iterator[ShardPool]:
        """The pool of one phase: the cluster's, or `workers` new local processes."""
        if self.cluster is not None:
            yield self.cluster
            return
        pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=ignore_sigint)
        try:
            yield ShardPool(pool, self.workers)
        except BaseException:
            stop_pool(pool)
            raise
        pool.shutdown()


@contextlib.contextmanager
def build_runner(*, workers: int, runner: str = LOCAL) -> Iterator[Runner]:
    """The runner named by `runner` (see the module docstring) for one build.

    `workers` is the number of local processes ('local', 'dask'); a scheduler address brings its
    own workers, whose threads, counted when the cluster is reached, are the pool's slots.
    """
    if check_runner(runner) == LOCAL:
        yield Runner(workers)
        return
    with _dask_pool(workers=workers, runner=runner) as cluster:
        yield Runner(workers, cluster)


@contextlib.contextmanager
def _dask_pool(*, workers: int, runner: str) -> Iterator[ShardPool]:
    """The executor of a temporary local Dask cluster of `workers` processes ('dask') or of the cluster at a
    scheduler address, with its worker threads as slots."""
    if runner == DASK:
        # The temporary cluster's processes (spawned: they inherit the environment) log errors only. Its
        # warnings are not news to the user: a cancelled build's shards end with a CancelledError warning
        # that would print after the one line (flows/cancel.py). A value already set wins.
        os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "error")
    from prefect_dask.task_runners import (
        DaskTaskRunner,  # here: importing distributed costs seconds in every local worker
    )

    if runner == DASK:
        task_runner = DaskTaskRunner(cluster_kwargs={
            "n_workers": workers, "threads_per_worker": 1, "processes": True,
            "host": "127.0.0.1", "dashboard_address": "127.0.0.1:0",
        })
    else:
        task_runner = DaskTaskRunner(address=runner, client_kwargs={"timeout": CONNECT_SECONDS})
    with task_runner:
        try:
            # Dask starts the client on its event loop's thread in a copy of the caller's context variables; an
            # empty context keeps the calling Prefect task's run context (and its DuckDB connection) out of it.
            client = contextvars.Context().run(lambda: task_runner.client)  # distributed is untyped
        except OSError as error:
            raise OSError(f"cannot connect to the Dask scheduler at {runner} (tried for {CONNECT_SECONDS} s): "
                          f"{_reason(error)}") from error
        slots = workers if runner == DASK else max(1, sum(client.nthreads().values()))  # type: ignore[no-untyped-call]
        yield ShardPool(client.get_executor(pure=False), slots)  # type: ignore[no-untyped-call]


def _reason(error: BaseException) -> str:
    """Why a connection failed: the system's reason at the root of `error` (Dask retries until its timeout and
    then raises its own error from the last attempt's), else `error` itself (an attempt that timed out)."""
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, OSError) and cause.strerror:
            return str(cause.strerror)
        cause = cause.__cause__ or cause.__context__
    return str(error)


def ignore_sigint() -> None:
    """Initializer of local workers: Ctrl-C reaches the whole process group, and the build stops its workers itself
    (flows/cancel.py), so a worker prints no KeyboardInterrupt of its own."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Drop the pool's queued shards and terminate its workers at once, not after the shards they are running."""
    processes = list((pool._processes or {}).values())  # the executor has no public way to stop its workers
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(timeout=5)
        if process.exitcode is None:
            process.kill()
    # Last: the executor's own thread also reaps the workers, and only after it is done does every
    # worker report its exit code (a shutdown that did not wait lost that race once under load).
    pool.shutdown(wait=True, cancel_futures=True)
