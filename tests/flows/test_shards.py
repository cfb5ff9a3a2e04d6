"""Where shard work runs: the runner setting is checked before any work."""

from __future__ import annotations

import pytest

from gopat.flows.shards import check_runner


@pytest.mark.parametrize("runner", ["", "Dask", "cluster:8786", "8786", "localhost:8786"])
def test_unknown_runner_is_refused_before_any_work(runner: str) -> None:
    with pytest.raises(ValueError, match="runner must be 'local', 'dask' or a Dask scheduler address"):
        check_runner(runner)


@pytest.mark.parametrize("runner", ["local", "dask", "tcp://10.0.0.5:8786", "tls://scheduler:8786"])
def test_known_runners_are_accepted(runner: str) -> None:
    assert check_runner(runner) == runner
