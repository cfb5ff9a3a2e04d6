"""Fixtures for transform tests: small real files in tests/transforms/games/files/."""

from pathlib import Path

import pytest

FILES = Path(__file__).parent / "files"


@pytest.fixture(scope="session")
def files_dir() -> Path:
    """Small hand-made SGF fixtures."""
    return FILES
