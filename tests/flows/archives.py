"""Archives for the flow tests: tiny.tar.gz's members, and .tar.gz files written from (name, bytes) pairs."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path


def tiny_members(tiny_archive: Path) -> list[tuple[str, bytes]]:
    """(name, bytes) of every file of the archive, in archive order."""
    with tarfile.open(tiny_archive) as tar:
        return [(m.name, tar.extractfile(m).read()) for m in tar.getmembers() if m.isfile()]


def write_archive(path: Path, members: list[tuple[str, bytes]]) -> Path:
    """Write `members` as the .tar.gz `path`, in order; returns `path`."""
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path
