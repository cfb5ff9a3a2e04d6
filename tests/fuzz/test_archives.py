"""Fuzzing `iter_members`: hostile names, kinds, limits and damaged containers never crash the reader.

Every item is a safe member or a documented reject, a whole-archive reject comes last, and an
intact archive gives one item per entry written (files in = members + rejects), with the bytes
written.
"""

from __future__ import annotations

import posixpath
import re
import tarfile
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from gopat.transforms.games.archives import Limits, Member, MemberReject, iter_members
from tests.fuzz.strategies import BOMB_BYTES, CI, SMALL_LIMITS, Archive, archives, documented_codes, seed_files

NAME = "archives"
REASONS = documented_codes(iter_members.__doc__)
MAGIC = (b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00", b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")


def inputs(seeds: tuple[bytes, ...]) -> st.SearchStrategy[Archive]:
    """Archives of every supported kind, intact or damaged, with default or small limits."""
    return archives(seeds)


def read(archive: Archive) -> list[Member | MemberReject]:
    """Write the archive to a temporary file and read every item."""
    with tempfile.TemporaryDirectory(prefix="gopat-fuzz-") as folder:
        path = Path(folder) / f"source{archive.suffix}"
        path.write_bytes(archive.data)
        return list(iter_members(path, limits=archive.limits))


def check_item(item: Member | MemberReject, limits: Limits, seen: set[str], *, single: bool) -> None:
    """A reject carries a documented reason; a member has a safe, new .sgf name and bounded bytes.

    A single file is one member named after the file, whatever its name (``iter_members``).
    """
    if isinstance(item, MemberReject):
        assert item.reason in REASONS and item.message, item
        return
    assert isinstance(item, Member), type(item)
    name = item.name
    assert (single or name.lower().endswith(".sgf")) and "\x00" not in name, name
    assert ".." not in re.split(r"[\\/]", name) and not re.match(r"[\\/]|[A-Za-z]:", name), name
    assert posixpath.normpath(name) not in seen, f"duplicate member {name!r}"
    seen.add(posixpath.normpath(name))
    assert len(item.data) <= limits.max_member_bytes, (name, len(item.data))


def container_like(data: bytes) -> bool:
    """Whether a single file could be taken for a compressed stream, a zip or a tar (stdlib's header check)."""
    if data.startswith(MAGIC):
        return True
    try:
        tarfile.TarInfo.frombuf(data[: tarfile.BLOCKSIZE], "utf-8", "surrogateescape")
    except tarfile.HeaderError:
        return False
    return True


def check_intact(archive: Archive, items: list[Member | MemberReject]) -> None:
    """One item per file written; members hold the bytes written under their names."""
    whole = [item for item in items if isinstance(item, MemberReject) and not item.name]
    bomb = any(len(entry.data) >= BOMB_BYTES for entry in archive.entries)
    if whole:
        reason = whole[0].reason
        # an uncompressed tar without entries is only end-of-archive zeros: no header tells it is a tar
        empty = ("empty_archive",) if archive.fmt != "tar" or archive.entries else ("empty_archive", "not_an_archive")
        assert (reason in empty and archive.files == 0) or bomb or archive.limits == SMALL_LIMITS, whole
        return
    assert archive.files > 0, "an archive without files but no empty_archive reject"
    assert len(items) == archive.files, f"files in {archive.files} != members + rejects {len(items)}"
    written: dict[str, bytes] = {}
    for entry in archive.entries:
        if entry.kind == "file" or (entry.kind == "hardlink" and archive.fmt.startswith("zip")):
            written.setdefault(entry.name, entry.data)
    for item in items:
        if isinstance(item, Member):
            assert item.name in written and written[item.name] == item.data, f"bytes of {item.name!r} differ"


def check(archive: Archive) -> list[Member | MemberReject]:
    """Raise AssertionError when an item breaks the contract; returns the items (for the ingest target)."""
    items = read(archive)
    seen: set[str] = set()
    for item in items:
        check_item(item, archive.limits, seen, single=len(items) == 1 and item.name == f"source{archive.suffix}")
    whole = [index for index, item in enumerate(items) if isinstance(item, MemberReject) and not item.name]
    assert whole in ([], [len(items) - 1]), f"whole-archive rejects at {whole} of {len(items)} items"
    if archive.fmt == "sgf" and not container_like(archive.data):
        assert len(items) == 1, f"a single file gave {len(items)} items"
    elif not archive.damage and archive.fmt != "sgf":
        check_intact(archive, items)
    return items


def reproducer(archive: Archive) -> bytes:
    """The archive's bytes to save for a failing input (its limits and suffix go in the report)."""
    return archive.data


@settings(CI, max_examples=250)
@given(data=st.data())
def test_archive_reading_survives_fuzzed_archives(tiny_archive: Path, hostile_dir: Path, data: st.DataObject) -> None:
    archive = data.draw(inputs(seed_files(tiny_archive, hostile_dir)))
    check(archive)
