"""A source whose server is down: retried with backoff, then the run fails clearly and publishes nothing."""

from __future__ import annotations

import itertools
import socket
from pathlib import Path
from uuid import UUID

import pytest
from prefect import get_client
from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId, TaskRunFilter

from gopat.effects.warehouse.layout import Layout
from gopat.flows.deployments import FETCH_ATTEMPTS, scheduled_build

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("prefect_harness")]
BACKOFF = (1, 4, 10)  # gopat.flows.build.fetch_source's retry delays, in seconds


def _dead_url() -> str:
    """An http URL on 127.0.0.1 where nothing listens (a port just bound and released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/pro-sample.tar.gz"


def _fetch_task_run_states(flow_run_id: UUID) -> list:
    """The state history of the fetch_source task run of a run (the build runs in it, not in a subflow)."""
    with get_client(sync_client=True) as client:
        runs = client.read_task_runs(
            flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[flow_run_id])), task_run_filter=TaskRunFilter()
        )
        (fetch,) = [run for run in runs if run.task_key.startswith("fetch_source")]
        assert fetch.run_count == FETCH_ATTEMPTS
        return sorted(client.read_task_run_states(fetch.id), key=lambda state: state.timestamp)


def test_unreachable_source_is_retried_with_backoff_then_fails_without_publishing(tmp_path: Path) -> None:
    url = _dead_url()
    sources = tmp_path / "sources.toml"
    sources.write_text(f'[[source]]\nname = "mirror"\nurl = "{url}"\n')
    warehouse = tmp_path / "warehouse"

    state = scheduled_build(sources_file=str(sources), warehouse=str(warehouse), return_state=True)

    assert state.is_failed()
    assert "SourceUnavailable" in state.message
    assert f"mirror ({url})" in state.message
    assert f"failed after {FETCH_ATTEMPTS} attempts" in state.message
    assert "Connection refused" in state.message
    assert "nothing was published" in state.message
    states = _fetch_task_run_states(state.state_details.flow_run_id)
    starts = [s.timestamp for s in states if s.name in ("Running", "Retrying")]
    assert len(starts) == FETCH_ATTEMPTS
    waits = [(later - earlier).total_seconds() for earlier, later in itertools.pairwise(starts)]
    assert all(wait >= delay for wait, delay in zip(waits, BACKOFF, strict=True)), waits
    assert waits == sorted(waits)
    assert states[-1].is_failed()
    layout = Layout(warehouse)
    assert not layout.current_file.exists()
    assert not layout.releases.exists() or not any(layout.releases.iterdir())
    assert list(layout.raw.glob("*")) == []
