"""Tar streams (plain, gzip, bzip2, xz) read member by member in memory, in bounded chunks."""

from __future__ import annotations

import bz2
import gzip
import lzma
import tarfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, cast

from gopat.transforms.games.member_names import escaped_name
from gopat.transforms.games.members import Gate, Limits, Member, MemberReject, Stop, member

CHUNK = 1 << 16
# The compression ratio is judged only once this many bytes have been produced: small members
# and tar padding compress far better than 200:1 without being bombs.
RATIO_FLOOR = 1 << 20
_TAIL_KEEP = 1 << 15

GZIP, BZIP2, XZ = b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00"


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
        data = self.inner.read(size if size >= 0 else CHUNK)
        self.produced += len(data)
        if (
            self.counting is not None
            and self.produced > RATIO_FLOOR
            and self.produced > self.limits.max_ratio * max(self.counting.consumed, 1)
        ):
            raise Stop(
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
    if magic.startswith(GZIP):
        return cast(BinaryIO, gzip.GzipFile(fileobj=source, mode="rb")), counting
    if magic.startswith(BZIP2):
        return cast(BinaryIO, bz2.BZ2File(source)), counting
    if magic.startswith(XZ):
        return cast(BinaryIO, lzma.LZMAFile(source)), counting
    return raw, None


def is_tar_header(head: bytes) -> bool:
    """A ustar magic, or a header block whose checksum is valid."""
    if head[257:262] == b"ustar":
        return True
    try:
        tarfile.TarInfo.frombuf(head[: tarfile.BLOCKSIZE], "utf-8", "surrogateescape")
    except tarfile.HeaderError:
        return False
    return True


def _tar_kind(info: tarfile.TarInfo) -> str:
    if info.islnk() or info.issym():
        return "link"
    if info.isreg() and not info.issparse():
        return "file"
    return "special"


def _tar_end_problem(stream: _Limited, offset: int) -> Stop | None:
    """tarfile stops silently at a short or invalid header after the first: check the block."""
    block = stream.block_at(offset)
    if block is None:
        return None
    if len(block) < tarfile.BLOCKSIZE:
        return Stop("truncated_archive", f"archive ends inside the header at byte {offset}")
    if block.strip(b"\x00"):
        return Stop("corrupt_archive", f"invalid tar header at byte {offset}")
    return None


def read_tar(path: Path, limits: Limits) -> Iterator[Member | MemberReject]:
    """Members of a tar stream; names decoded as UTF-8 or guessed (docs/releases.md#member-names)."""
    gate = Gate(limits)
    with path.open("rb") as raw:
        inner, counting = _decompressed(raw)
        stream = _Limited(inner, counting, limits)
        try:
            with tarfile.open(
                fileobj=cast(BinaryIO, stream), mode="r|", encoding="utf-8", errors="surrogateescape"
            ) as archive:
                for info in archive:
                    if info.isdir():
                        continue
                    gate.charge(info.size)
                    name = escaped_name(info.name)
                    reject = gate.screen(name, _tar_kind(info), info.size)
                    if reject is not None:
                        yield reject
                        continue
                    data = archive.extractfile(info)
                    assert data is not None  # regular files always have data
                    yield member(name, data.read())
                end = _tar_end_problem(stream, archive.offset)
                if end is not None:
                    raise end
        except Stop as stop:
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
