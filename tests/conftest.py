"""Fixtures shared by every test: the read-only data in ../shared, and each test's own environment."""

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

import gopat.cli.main  # noqa: F401 - its environment defaults (telemetry off, server start-up time) hold for every test

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The read-only ../shared folder beside the repository."""
    assert SHARED.is_dir(), f"{SHARED} is missing: clone the repository beside shared/"
    return SHARED


@pytest.fixture(scope="session")
def hostile_dir(shared_dir: Path) -> Path:
    """Broken SGF files (files/) and dangerous archives (archives/)."""
    return shared_dir / "hostile"


@pytest.fixture(scope="session")
def tiny_archive(shared_dir: Path) -> Path:
    """200 real professional games, a subset of pro-sample."""
    return shared_dir / "corpus" / "tiny.tar.gz"


@pytest.fixture(autouse=True)
def _environment() -> Iterator[None]:
    """The environment variables as the test found them, after it: a command run in-process (`main([...])`) sets
    variables for the flow it starts (cli/commands/__init__.py console_warnings_only), which must not reach the
    processes that later tests start."""
    saved = dict(os.environ)
    yield
    if os.environ != saved:
        os.environ.clear()
        os.environ.update(saved)
