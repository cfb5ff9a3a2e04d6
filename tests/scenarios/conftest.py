"""Scenario fixtures: a Prefect test harness or a live Prefect server, build subprocesses' environment, a warehouse."""

from __future__ import annotations

import os
import subprocess
import urllib.request
from collections.abc import Iterator

import pytest
from prefect.settings import PREFECT_API_URL, temporary_settings
from prefect.testing.utilities import prefect_test_harness

from tests.scenarios.builds import Warehouse, base_warehouse
from tests.scenarios.services import BIN, REPO, free_port, stop, wait_for


@pytest.fixture(scope="package")
def prefect_harness() -> Iterator[None]:
    """A temporary Prefect API and database for the scenarios, stopped after them: its server's threads must not
    run during other tests (Hypothesis flags any use of the global `random`). As tests/flows/conftest.py has it."""
    with prefect_test_harness(server_startup_timeout=120):
        yield


@pytest.fixture(scope="module")
def gopat_env(prefect_harness: None, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Environment of the build subprocesses: the session's Prefect API, a private PREFECT_HOME, no faults."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GOPAT_FAULT", "PREFECT_"))}
    env["PREFECT_API_URL"] = PREFECT_API_URL.value()
    env["PREFECT_HOME"] = str(tmp_path_factory.mktemp("prefect-home"))
    env["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
    return env


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    """A warehouse with one published release: the "previous release" of the crash and cancellation scenarios."""
    return base_warehouse(tmp_path_factory.mktemp("base"))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """`prefect server start` on a free loopback port with its own PREFECT_HOME; yields the client env."""
    home = tmp_path_factory.mktemp("prefect-home")
    port = free_port()
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "PREFECT_HOME": str(home),
        "PREFECT_API_URL": f"http://127.0.0.1:{port}/api",
        "PREFECT_WORKER_QUERY_SECONDS": "1",
        "PREFECT_RUNNER_POLL_FREQUENCY": "1",
        # The scheduler visits deployments every 60 s by default; a test schedule due in seconds
        # needs it to look sooner (the service and its queries are the same).
        "PREFECT_SERVER_SERVICES_SCHEDULER_LOOP_SECONDS": "2",
    }
    # Telemetry stays off by the repository's defaults alone (pyproject.toml [tool.prefect]).
    for name in ("PREFECT_SERVER_ANALYTICS_ENABLED", "DO_NOT_TRACK"):
        env.pop(name, None)
    log = home / "server.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [str(BIN / "prefect"), "server", "start", "--host", "127.0.0.1", "--port", str(port), "--no-ui"],
            cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )
    try:
        health = f"{env['PREFECT_API_URL']}/health"
        wait_for("prefect server", lambda: urllib.request.urlopen(health, timeout=2).read(),
                 timeout=180, process=process, log=log)
        with temporary_settings(updates={PREFECT_API_URL: env["PREFECT_API_URL"]}):
            yield env
    finally:
        stop(process)
