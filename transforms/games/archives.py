"""Safe in-memory reading of archive members (tar, zip, folders, single SGF files)."""

import bz2
import gzip
import lzma
import os
import posixpath
import re
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, cast

from gopat.transforms.games.errors import RejectError

_CHUNK = 1 << 16
# The compression ratio is judged only once this many bytes have been produced: small members
# and tar padding compress far better than 200:1 without being bombs.
_RATIO_FLOOR = 1 << 20
_TAIL_KEEP = 1 << 15

_GZIP, _BZIP2, _XZ = b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00"
_ZIP = (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")
_SGF_START = re.compile(rb"\s*[(;]")
_PATH_SEPARATORS = re.compile(r"[\\/]")


@dataclass(frozen=True, slots=True)
class Limits:
    """Caps applied while reading: member size, total size, compression ratio, member count."""

    max_member_bytes: int = 16 * 2**20
    max_total_bytes: int = 4 * 2**30
    max_ratio: float = 200.0
    max_members: int = 1_000_000


@dataclass(frozen=True, slots=True)
class Member:
    """One SGF member read into memory."""

    name: str
    data: bytes


@dataclass(frozen=True, slots=True)
class MemberReject:
    """A member that was not read (name ``""``: the whole archive, from this point on)."""

    name: str
    reason: str
    message: str


class _Stop(Exception):
    """The container cannot be read further; becomes a MemberReject with name ''."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def _looks_like_sgf(head: bytes) -> bool:
    """First significant character is '(' or ';' (after a BOM; UTF-16 NULs ignored)."""
    head = head.replace(b"\x00", b"")
    for bom in (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff"):
        head = head.removeprefix(bom)
    return bool(_SGF_START.match(head))


def _is_tar_header(head: bytes) -> bool:
    if head[257:262] == b"ustar":
        return True
    try:
        tarfile.TarInfo.frombuf(head[: tarfile.BLOCKSIZE], "utf-8", "surrogateescape")
    except tarfile.HeaderError:
        return False
    return True


def archive_kind(path: Path) -> str:
    """Return ``'tar'``, ``'zip'``, ``'dir'`` or ``'sgf'``, decided by content, not by name.

    gzip / bzip2 / xz streams and ustar (or checksum-valid) headers are ``tar``; zip local,
    empty-archive or spanning signatures are ``zip``; a file named ``*.sgf`` or whose first
    significant character is ``(`` or ``;`` is ``sgf``.

    Raises
    ------
    RejectError
        ``empty_archive`` for an empty file, ``not_an_archive`` for anything else.
    """
    if path.is_dir():
        return "dir"
    with path.open("rb") as file:
        head = file.read(tarfile.BLOCKSIZE)
    if head.startswith((_GZIP, _BZIP2, _XZ)):
        return "tar"
    if head.startswith(_ZIP):
        return "zip"
    if len(head) == tarfile.BLOCKSIZE and _is_tar_header(head):
        return "tar"
    if path.name.lower().endswith(".sgf") or _looks_like_sgf(head):
        return "sgf"
    if not head:
        raise RejectError("empty_archive", f"{path.name} is empty")
    raise RejectError("not_an_archive", f"{path.name} is not a tar, zip or SGF file")


def _name_problem(name: str) -> str | None:
    if not name or "\x00" in name:
        return "bad_name"
    if name.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", name):
        return "absolute_path"
    if ".." in _PATH_SEPARATORS.split(name):
        return "path_traversal"
    return None


class _Gate:
    """Per-archive bookkeeping: member count, names seen, and total bytes: those of the members
    read, and for tar streams also those of every entry skipped (they are decompressed too).
    """

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.members = 0
        self.total = 0
        self.seen: set[str] = set()

    def screen(self, name: str, kind: str, size: int) -> MemberReject | None:
        """Checks before reading: count, name, type, suffix, duplicate, declared size.

        ``kind`` is 'file', 'link' or 'special'. Raises _Stop past the member count.
        """
        limits = self.limits
        self.members += 1
        if self.members > limits.max_members:
            raise _Stop("too_many_members", f"more than {limits.max_members} members")
        problem = _name_problem(name)
        if problem is not None:
            return MemberReject(name, problem, f"unsafe member name {name!r}")
        if kind == "link":
            return MemberReject(name, "link", "links are not read")
        if kind != "file":
            return MemberReject(name, "special_file", "not a regular file")
        if not name.lower().endswith(".sgf"):
            return MemberReject(name, "not_sgf_member", "name does not end in .sgf")
        key = posixpath.normpath(name)
        if key in self.seen:
            return MemberReject(name, "duplicate_name", "an earlier member has this name")
        self.seen.add(key)
        if size > limits.max_member_bytes:
            return MemberReject(
                name, "member_too_large", f"{size} bytes > {limits.max_member_bytes}"
            )
        return None

    def charge(self, size: int) -> None:
        """Count ``size`` bytes towards the total; raise _Stop past ``max_total_bytes``."""
        self.total += size
        if self.total > self.limits.max_total_bytes:
            raise _Stop("total_too_large", f"more than {self.limits.max_total_bytes} bytes")


class _Counting:
    """Raw file wrapper counting the compressed bytes read."""

    def __init__(self, file: BinaryIO) -> None:
        self.file = file
        self.consumed = 0

    def read(self, size: int = -1) -> bytes:
        data = self.file.read(size)
        self.consumed += len(data)
        return data


class _Limited:
    """Decompressed stream that stops past the compression ratio.

    Keeps the last bytes delivered so the block where tarfile stopped can be inspected.
    """

    def __init__(self, inner: BinaryIO, counting: _Counting | None, limits: Limits) -> None:
        self.inner = inner
        self.counting = counting
        self.limits = limits
        self.produced = 0
        self.tail = b""

    def read(self, size: int = -1) -> bytes:
        data = self.inner.read(size if size >= 0 else _CHUNK)
        self.produced += len(data)
        if (
            self.counting is not None
            and self.produced > _RATIO_FLOOR
            and self.produced > self.limits.max_ratio * max(self.counting.consumed, 1)
        ):
            raise _Stop(
                "ratio_exceeded",
                f"{self.produced} bytes from {self.counting.consumed} compressed bytes",
            )
        self.tail = (self.tail + data)[-_TAIL_KEEP:]
        return data

    def block_at(self, offset: int) -> bytes | None:
        """The (up to 512) delivered bytes at ``offset``, or None if no longer kept."""
        start = self.produced - len(self.tail)
        if offset < start:
            return None
        return self.tail[offset - start : offset - start + tarfile.BLOCKSIZE]


def _decompressed(raw: BinaryIO) -> tuple[BinaryIO, _Counting | None]:
    magic = raw.read(6)
    raw.seek(0)
    counting = _Counting(raw)
    source = cast(BinaryIO, counting)  # duck-typed: the decompressors only call read()
    if magic.startswith(_GZIP):
        return cast(BinaryIO, gzip.GzipFile(fileobj=source, mode="rb")), counting
    if magic.startswith(_BZIP2):
        return cast(BinaryIO, bz2.BZ2File(source)), counting
    if magic.startswith(_XZ):
        return cast(BinaryIO, lzma.LZMAFile(source)), counting
    return raw, None


def _tar_kind(info: tarfile.TarInfo) -> str:
    if info.islnk() or info.issym():
        return "link"
    if info.isreg() and not info.issparse():
        return "file"
    return "special"


def _tar_end_problem(stream: _Limited, offset: int) -> _Stop | None:
    """tarfile stops silently at a short or invalid header after the first: check the block."""
    block = stream.block_at(offset)
    if block is None:
        return None
    if len(block) < tarfile.BLOCKSIZE:
        return _Stop("truncated_archive", f"archive ends inside the header at byte {offset}")
    if block.strip(b"\x00"):
        return _Stop("corrupt_archive", f"invalid tar header at byte {offset}")
    return None


def _tar(path: Path, limits: Limits) -> Iterator[Member | MemberReject]:
    gate = _Gate(limits)
    with path.open("rb") as raw:
        inner, counting = _decompressed(raw)
        stream = _Limited(inner, counting, limits)
        try:
            with tarfile.open(
                fileobj=cast(BinaryIO, stream), mode="r|", encoding="utf-8", errors="replace"
            ) as archive:
                for info in archive:
                    if info.isdir():
                        continue
                    gate.charge(info.size)
                    reject = gate.screen(info.name, _tar_kind(info), info.size)
                    if reject is not None:
                        yield reject
                        continue
                    member = archive.extractfile(info)
                    assert member is not None  # regular files always have data
                    yield Member(info.name, member.read())
                end = _tar_end_problem(stream, archive.offset)
                if end is not None:
                    raise end
        except _Stop as stop:
            yield MemberReject("", stop.reason, str(stop))
            return
        except (tarfile.TarError, EOFError, OSError, zlib.error, lzma.LZMAError) as exc:
            message = str(exc) or type(exc).__name__
            truncated = isinstance(exc, EOFError) or "unexpected end" in message
            if message == "empty file":
                yield MemberReject("", "empty_archive", "archive has no members")
            else:
                reason = "truncated_archive" if truncated else "corrupt_archive"
                yield MemberReject("", reason, message)
            return
    if gate.members == 0:
        yield MemberReject("", "empty_archive", "archive has no members")


def _zip_kind(info: zipfile.ZipInfo) -> str:
    file_type = stat.S_IFMT(info.external_attr >> 16)
    if file_type == stat.S_IFLNK:
        return "link"
    if file_type in (0, stat.S_IFREG):
        return "file"
    return "special"


def _zip_member(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, limits: Limits
) -> Member | MemberReject:
    """Read one member in chunks, counting what the decompressor actually produces."""
    name = info.filename
    if info.flag_bits & 0x1:
        return MemberReject(name, "encrypted_member", "encrypted members are not read")
    if info.file_size > _RATIO_FLOOR and info.file_size > limits.max_ratio * max(
        info.compress_size, 1
    ):
        return MemberReject(
            name, "ratio_exceeded", f"{info.file_size} bytes from {info.compress_size}"
        )
    chunks: list[bytes] = []
    produced = 0
    try:
        with archive.open(info) as member:
            while chunk := member.read(_CHUNK):
                produced += len(chunk)
                if produced > limits.max_member_bytes:
                    return MemberReject(
                        name, "member_too_large", f"more than {limits.max_member_bytes} bytes"
                    )
                if produced > _RATIO_FLOOR and produced > limits.max_ratio * max(
                    info.compress_size, 1
                ):
                    return MemberReject(
                        name, "ratio_exceeded", f"{produced} bytes from {info.compress_size}"
                    )
                chunks.append(chunk)
    except zipfile.BadZipFile as exc:
        reason = "crc_mismatch" if "CRC" in str(exc) else "corrupt_member"
        return MemberReject(name, reason, str(exc))
    except NotImplementedError as exc:
        return MemberReject(name, "unsupported_compression", str(exc))
    except (zlib.error, lzma.LZMAError, EOFError, OSError, ValueError) as exc:
        return MemberReject(name, "corrupt_member", str(exc) or type(exc).__name__)
    return Member(name, b"".join(chunks))


def _zip(path: Path, limits: Limits) -> Iterator[Member | MemberReject]:
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        with path.open("rb") as file:
            local_header = file.read(4) == _ZIP[0]
        reason = "truncated_archive" if local_header else "corrupt_archive"
        yield MemberReject("", reason, str(exc))
        return
    gate = _Gate(limits)
    with archive:
        try:
            for info in archive.infolist():
                if info.is_dir() or stat.S_ISDIR(info.external_attr >> 16):
                    continue
                reject = gate.screen(info.filename, _zip_kind(info), info.file_size)
                if reject is not None:
                    yield reject
                    continue
                gate.charge(info.file_size)
                yield _zip_member(archive, info, limits)
        except _Stop as stop:
            yield MemberReject("", stop.reason, str(stop))
            return
    if gate.members == 0:
        yield MemberReject("", "empty_archive", "archive has no members")


def _read_file(path: Path, name: str, limits: Limits) -> Member | MemberReject:
    """Read a regular file, never more than the member cap (+1 byte to detect excess)."""
    try:
        with path.open("rb") as file:
            data = file.read(limits.max_member_bytes + 1)
    except OSError as exc:
        return MemberReject(name, "unreadable_member", str(exc))
    if len(data) > limits.max_member_bytes:
        return MemberReject(name, "member_too_large", f"more than {limits.max_member_bytes} bytes")
    return Member(name, data)


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


def _folder(root: Path, limits: Limits) -> Iterator[Member | MemberReject]:
    gate = _Gate(limits)
    try:
        for name, kind in _folder_entries(root):
            if kind == "unreadable":
                yield MemberReject(name, "unreadable_member", "folder cannot be listed")
                continue
            size = (root / name).lstat().st_size if kind == "file" else 0
            reject = gate.screen(name, kind, size)
            if reject is not None:
                yield reject
                continue
            gate.charge(size)
            yield _read_file(root / name, name, limits)
    except _Stop as stop:
        yield MemberReject("", stop.reason, str(stop))
        return
    if gate.members == 0:
        yield MemberReject("", "empty_archive", "folder has no files")


def iter_members(path: Path, *, limits: Limits = Limits()) -> Iterator[Member | MemberReject]:
    """Yield every member of an archive, folder or single SGF file, read in memory.

    Order: archive order; folders sorted by relative path (links are never followed). Members
    are regular files named ``*.sgf``; every other non-directory entry is a MemberReject
    (``not_sgf_member``, ``link``, ``special_file``, ``path_traversal``, ``absolute_path``,
    ``bad_name``, ``duplicate_name`` for a later member with an earlier member's normalised
    name, ``member_too_large``, ``ratio_exceeded``, ``crc_mismatch``, ``corrupt_member``,
    ``encrypted_member``, ``unsupported_compression``, ``unreadable_member``), so files in =
    members + rejects. Tar streams are decompressed here in bounded chunks: a bomb stops the
    archive once its output passes ``max_ratio`` times the compressed bytes read (judged after
    1 MiB) or ``max_total_bytes``. When the container itself fails, a MemberReject with name
    ``""`` follows the members read so far (``corrupt_archive``, ``truncated_archive``,
    ``ratio_exceeded``, ``total_too_large``, ``too_many_members``, ``not_an_archive``,
    ``empty_archive`` also for a valid archive or folder without any file). A single SGF file
    is one member named after the file, whatever its suffix. A missing path raises OSError.
    """
    try:
        kind = archive_kind(path)
    except RejectError as exc:
        yield MemberReject("", exc.reason, str(exc))
        return
    if kind == "tar":
        yield from _tar(path, limits)
    elif kind == "zip":
        yield from _zip(path, limits)
    elif kind == "dir":
        yield from _folder(path, limits)
    else:
        yield _read_file(path, path.name, limits)
