"""Fixtures shared by every test: the read-only data in ../shared."""

from pathlib import Path

import pytest

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
