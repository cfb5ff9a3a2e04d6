"""Durable file operations of the warehouse: removal by rename, fsync of files and folders, paths in SQL."""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def quote(path: Path) -> str:
    """A path as a SQL string literal."""
    return "'" + str(path).replace("'", "''") + "'"


def remove(path: Path) -> None:
    """Delete a file or folder; a folder is first renamed to a hidden .trash-* name so it vanishes at once."""
    if path.is_dir() and not path.is_symlink():
        trash = path if path.name.startswith(".trash-") else path.with_name(f".trash-{path.name}-{os.getpid()}")
        if trash != path:
            os.replace(path, trash)
        shutil.rmtree(trash, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def fsync_tree(folder: Path) -> None:
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            with path.open("rb") as fh:
                os.fsync(fh.fileno())
    for path in sorted(p for p in folder.rglob("*") if p.is_dir()):
        fsync_dir(path)
    fsync_dir(folder)


def fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
