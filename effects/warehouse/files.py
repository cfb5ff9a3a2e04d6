"""Durable file operations of the warehouse: removal by rename, fsync of files and folders, digests of folders;
paths in SQL."""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
from pathlib import Path

from gopat.effects.warehouse.fetch import sha256_file


def quote(text: str | Path) -> str:
    """A path or text as a SQL string literal, only where DuckDB takes no bind parameter: a view's definition and
    a comment.

    The catalog's views keep their Parquet paths as text (docs/releases.md#catalog); everywhere else a path
    is a parameter.
    """
    return "'" + str(text).replace("'", "''") + "'"


def remove(path: Path) -> None:
    """Delete a file or folder; a folder is first renamed to a hidden .trash-* name so it vanishes at once."""
    if path.is_dir() and not path.is_symlink():
        trash = path if path.name.startswith(".trash-") else path.with_name(f".trash-{path.name}-{os.getpid()}")
        if trash != path:
            os.replace(path, trash)
        shutil.rmtree(trash, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def link(source: Path, path: Path) -> None:
    """Hard-link `source` as `path`, or copy it where `path` is on another filesystem (a mount of releases/)."""
    try:
        os.link(source, path)
    except OSError as error:
        if error.errno != errno.EXDEV:
            raise
        shutil.copyfile(source, path)


def fsync_tree(folder: Path) -> None:
    """fsync every file and folder under ``folder``, then ``folder`` (docs/releases.md#crash-safety)."""
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            with path.open("rb") as fh:
                os.fsync(fh.fileno())
    for path in sorted(p for p in folder.rglob("*") if p.is_dir()):
        fsync_dir(path)
    fsync_dir(folder)


def fsync_dir(folder: Path) -> None:
    """fsync a folder, so that the renames and new names in it are durable."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def tree_files(folder: Path) -> list[Path]:
    """Every file under ``folder``, sorted by its path relative to ``folder`` (as posix text)."""
    return sorted((path for path in folder.rglob("*") if path.is_file()), key=lambda path: _relative(path, folder))


def tree_bytes(folder: Path) -> int:
    """The total bytes of the files under ``folder``."""
    return sum(path.stat().st_size for path in tree_files(folder))


def tree_digest(folder: Path) -> tuple[str, int]:
    """The sha256 (hex) of a folder's files and their total bytes: a run's ``sha256`` and ``bytes``.

    The digest is over ``<relative path>\\0<file sha256>\\n`` of every file, in `tree_files` order, so it depends
    on the files' names and bytes only, not on their times (docs/releases.md#complete-counts).
    """
    digest, total = hashlib.sha256(), 0
    for path in tree_files(folder):
        digest.update(f"{_relative(path, folder)}\0{sha256_file(path)}\n".encode())
        total += path.stat().st_size
    return digest.hexdigest(), total


def _relative(path: Path, folder: Path) -> str:
    return path.relative_to(folder).as_posix()
