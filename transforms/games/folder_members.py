"""Folders walked without following links, and single files, read in memory."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from gopat.transforms.games.member_names import MemberName, escaped_name
from gopat.transforms.games.members import Gate, Limits, Member, MemberReject, Stop, member, member_reject


def read_file(path: Path, name: MemberName, limits: Limits) -> Member | MemberReject:
    """Read a regular file, never more than the member cap (+1 byte to detect excess)."""
    try:
        with path.open("rb") as file:
            data = file.read(limits.max_member_bytes + 1)
    except OSError as exc:
        return member_reject(name, "unreadable_member", str(exc))
    if len(data) > limits.max_member_bytes:
        return member_reject(name, "member_too_large", f"more than {limits.max_member_bytes} bytes")
    return member(name, data)


def _folder_entries(root: Path) -> list[tuple[str, str]]:
    """(relative posix path, kind) of everything under ``root`` but directories; no link is
    followed. kind: 'file', 'link', 'special' or 'unreadable' (a folder that cannot be listed).
    """
    entries: list[tuple[str, str]] = []
    pending = [root]
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(folder) as listing:
                children = list(listing)
        except OSError:
            entries.append((Path(folder).relative_to(root).as_posix(), "unreadable"))
            continue
        for entry in children:
            relative = Path(entry.path).relative_to(root).as_posix()
            if entry.is_symlink():
                entries.append((relative, "link"))
            elif entry.is_dir(follow_symlinks=False):
                pending.append(Path(entry.path))
            elif entry.is_file(follow_symlinks=False):
                entries.append((relative, "file"))
            else:
                entries.append((relative, "special"))
    return sorted(entries)


def read_folder(root: Path, limits: Limits) -> Iterator[Member | MemberReject]:
    """Files under ``root``, sorted by relative path; names as the file system gives them
    (non-UTF-8 bytes guessed, docs/releases.md#member-names)."""
    gate = Gate(limits)
    try:
        for relative, kind in _folder_entries(root):
            name = escaped_name(relative)
            if kind == "unreadable":
                yield member_reject(name, "unreadable_member", "folder cannot be listed")
                continue
            size = (root / relative).lstat().st_size if kind == "file" else 0
            reject = gate.screen(name, kind, size)
            if reject is not None:
                yield reject
                continue
            gate.charge(size)
            yield read_file(root / relative, name, limits)
    except Stop as stop:
        yield MemberReject("", stop.reason, str(stop))
        return
    if gate.members == 0:
        yield MemberReject("", "empty_archive", "folder has no files")
