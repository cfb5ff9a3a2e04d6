"""Fixtures for the end-to-end scenarios: a Prefect test harness."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from prefect.testing.utilities import prefect_test_harness


@pytest.fixture(scope="package")
def prefect_harness() -> Iterator[None]:
    """A temporary Prefect API and database for the scenarios, stopped after them: its server's threads must not
    run during other tests (Hypothesis flags any use of the global `random`). As tests/flows/conftest.py has it."""
    with prefect_test_harness(server_startup_timeout=120):
        yield
