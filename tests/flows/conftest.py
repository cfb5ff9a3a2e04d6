"""Fixtures for flow tests: a Prefect test harness and a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from prefect.testing.utilities import prefect_test_harness

from tests.effects.warehouse.releases import layout  # noqa: F401 - the shared fixture, for the tests here


@pytest.fixture(scope="package")
def prefect_harness() -> Iterator[None]:
    """A temporary Prefect API and database for the flow tests, stopped after them: its server's
    threads must not run during other tests (Hypothesis flags any use of the global `random`)."""
    with prefect_test_harness(server_startup_timeout=120):
        yield


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """Keep test output clean."""


@pytest.fixture(scope="session")
def http_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Folder served by `http_url`; tests link or copy files into it."""
    return tmp_path_factory.mktemp("http-root")


@pytest.fixture(scope="session")
def http_url(http_root: Path) -> Iterator[str]:
    """Base URL of a real HTTP server on 127.0.0.1 serving `http_root`."""
    handler = functools.partial(_QuietHandler, directory=str(http_root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
