"""Zip archives read member by member in memory, counting what the decompressor produces."""

from __future__ import annotations

import lzma
import stat
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path

from gopat.transforms.games.member_names import MemberName, zip_name
from gopat.transforms.games.members import Gate, Limits, Member, MemberReject, Stop, member, member_reject
from gopat.transforms.games.tar_members import CHUNK, RATIO_FLOOR

ZIP = (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")


def _zip_kind(info: zipfile.ZipInfo) -> str:
    file_type = stat.S_IFMT(info.external_attr >> 16)
    if file_type == stat.S_IFLNK:
        return "link"
    if file_type in (0, stat.S_IFREG):
        return "file"
    return "special"


def _zip_member(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, name: MemberName, limits: Limits
) -> Member | MemberReject:
    """Read one member in chunks, counting what the decompressor actually produces."""
    if info.flag_bits & 0x1:
        return member_reject(name, "encrypted_member", "encrypted members are not read")
    if info.file_size > RATIO_FLOOR and info.file_size > limits.max_ratio * max(info.compress_size, 1):
        return member_reject(name, "ratio_exceeded", f"{info.file_size} bytes from {info.compress_size}")
    chunks: list[bytes] = []
    produced = 0
    try:
        with archive.open(info) as data:
            while chunk := data.read(CHUNK):
                produced += len(chunk)
                if produced > limits.max_member_bytes:
                    return member_reject(name, "member_too_large", f"more than {limits.max_member_bytes} bytes")
                if produced > RATIO_FLOOR and produced > limits.max_ratio * max(info.compress_size, 1):
                    return member_reject(name, "ratio_exceeded", f"{produced} bytes from {info.compress_size}")
                chunks.append(chunk)
    except zipfile.BadZipFile as exc:
        reason = "crc_mismatch" if "CRC" in str(exc) else "corrupt_member"
        return member_reject(name, reason, str(exc))
    except NotImplementedError as exc:
        return member_reject(name, "unsupported_compression", str(exc))
    except (zlib.error, lzma.LZMAError, EOFError, OSError, ValueError) as exc:
        return member_reject(name, "corrupt_member", str(exc) or type(exc).__name__)
    return member(name, b"".join(chunks))


def read_zip(path: Path, limits: Limits) -> Iterator[Member | MemberReject]:
    """Members of a zip archive; names decoded by the UTF-8 flag or guessed (docs/releases.md#member-names)."""
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError) as exc:  # a "version needed" > 6.3
        with path.open("rb") as file:
            local_header = file.read(4) == ZIP[0]
        truncated = local_header and not isinstance(exc, NotImplementedError)
        reason = "truncated_archive" if truncated else "corrupt_archive"
        yield MemberReject("", reason, str(exc))
        return
    gate = Gate(limits)
    with archive:
        try:
            for info in archive.infolist():
                if info.is_dir() or stat.S_ISDIR(info.external_attr >> 16):
                    continue
                name = zip_name(info.orig_filename, info.flag_bits)
                reject = gate.screen(name, _zip_kind(info), info.file_size)
                if reject is not None:
                    yield reject
                    continue
                gate.charge(info.file_size)
                yield _zip_member(archive, info, name, limits)
        except Stop as stop:
            yield MemberReject("", stop.reason, str(stop))
            return
    if gate.members == 0:
        yield MemberReject("", "empty_archive", "archive has no members")
