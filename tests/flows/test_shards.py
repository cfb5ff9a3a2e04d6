"""Where shard work runs: the runner setting is checked before any work; results come in order with few shards
submitted ahead; a failing build stops its workers."""

from __future__ import annotations

import functools
import multiprocessing
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.process import BaseProcess

import pytest

from gopat.flows.shards import AHEAD_PER_SLOT, ShardPool, build_runner, check_runner

SHARD_SECONDS = 120


@pytest.mark.parametrize("runner", ["", "Dask", "cluster:8786", "8786", "localhost:8786"])
def test_unknown_runner_is_refused_before_any_work(runner: str) -> None:
    with pytest.raises(ValueError, match="runner must be 'local', 'dask' or a Dask scheduler address"):
        check_runner(runner)


@pytest.mark.parametrize("runner", ["local", "dask", "tcp://10.0.0.5:8786", "tls://scheduler:8786"])
def test_known_runners_are_accepted(runner: str) -> None:
    assert check_runner(runner) == runner


def test_local_results_come_in_call_order_with_at_most_two_shards_a_worker_submitted_ahead() -> None:
    taken, read, ahead = 0, 0, []

    def calls() -> Iterator[Callable[[], int]]:
        nonlocal taken
        for n in range(30):
            taken += 1
            ahead.append(taken - read)
            yield functools.partial(pow, n, 3)

    results = []
    with build_runner(workers=2) as runner, runner.phase() as pool:
        for result in pool.results(calls()):
            read += 1
            results.append(result)
    assert results == [n**3 for n in range(30)]
    assert max(ahead) == AHEAD_PER_SLOT * 2 == pool.slots * AHEAD_PER_SLOT


def test_a_reader_that_stops_early_cancels_the_shards_not_started() -> None:
    started: list[int] = []
    gate = threading.Event()

    def shard(n: int) -> int:
        started.append(n)
        if n == 1:
            gate.wait(timeout=30)
        return n

    with ThreadPoolExecutor(max_workers=1) as executor:  # 2 slots on 1 thread: shards 2 and 3 wait in its queue
        results = ShardPool(executor, slots=2).results(functools.partial(shard, n) for n in range(10))
        assert next(results) == 0
        results.close()
        gate.set()
    assert started[0] == 0 and set(started) <= {0, 1}  # 1 may have started before the reader stopped


def test_a_build_that_fails_terminates_its_local_workers_at_once_instead_of_waiting_for_their_shards() -> None:
    start = time.monotonic()
    workers: list[BaseProcess] = []
    with pytest.raises(KeyboardInterrupt):
        _interrupt_a_running_shard(workers)
    assert time.monotonic() - start < SHARD_SECONDS / 2
    assert len(workers) == 1 and not workers[0].is_alive() and workers[0].exitcode is not None


def _interrupt_a_running_shard(workers: list[BaseProcess]) -> None:
    """Raise KeyboardInterrupt, as the signal handlers of a cancelled build do (flows/cancel.py), while a local
    worker runs a long shard; `workers` gets the pool's processes."""
    with build_runner(workers=1) as runner, runner.phase() as pool:
        future = pool.executor.submit(time.sleep, SHARD_SECONDS)
        deadline = time.monotonic() + 60
        while not future.running() and time.monotonic() < deadline:
            time.sleep(0.05)
        workers += multiprocessing.active_children()
        assert future.running()
        raise KeyboardInterrupt
