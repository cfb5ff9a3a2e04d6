"""Where shard work runs: the runner setting is checked before any work; a failing build stops its workers."""

from __future__ import annotations

import multiprocessing
import time
from multiprocessing.process import BaseProcess

import pytest

from gopat.flows.shards import check_runner, shard_executor

SHARD_SECONDS = 120


@pytest.mark.parametrize("runner", ["", "Dask", "cluster:8786", "8786", "localhost:8786"])
def test_unknown_runner_is_refused_before_any_work(runner: str) -> None:
    with pytest.raises(ValueError, match="runner must be 'local', 'dask' or a Dask scheduler address"):
        check_runner(runner)


@pytest.mark.parametrize("runner", ["local", "dask", "tcp://10.0.0.5:8786", "tls://scheduler:8786"])
def test_known_runners_are_accepted(runner: str) -> None:
    assert check_runner(runner) == runner


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
    with shard_executor(workers=1) as pool:
        future = pool.submit(time.sleep, SHARD_SECONDS)
        deadline = time.monotonic() + 60
        while not future.running() and time.monotonic() < deadline:
            time.sleep(0.05)
        workers += multiprocessing.active_children()
        assert future.running()
        raise KeyboardInterrupt
