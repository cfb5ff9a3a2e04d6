"""Safe in-memory reading of archive members (tar, zip, folders, single SGF files): the entry module.

The readers are one module each (``tar_members``, ``zip_members``, ``folder_members``); the
screening and limits are in ``members``, the decoding of member names in ``member_names``.
"""

import re
import tarfile
from collections.abc import Iterator
from pathlib import Path

from gopat.transforms.games.errors import RejectError
from gopat.transforms.games.folder_members import read_file, read_folder
from gopat.transforms.games.member_names import escaped_name
from gopat.transforms.games.members import Limits, Member, MemberReject
from gopat.transforms.games.tar_members import BZIP2, GZIP, XZ, is_tar_header, read_tar
from gopat.transforms.games.zip_members import ZIP, read_zip

__all__ = ["Limits", "Member", "MemberReject", "archive_kind", "iter_members"]

_SGF_START = re.compile(rb"\s*[(;]")
_DEFAULT_LIMITS = Limits()


def _looks_like_sgf(head: bytes) -> bool:
    """First significant character is '(' or ';' (after a BOM; UTF-16 NULs ignored)."""
    head = head.replace(b"\x00", b"")
    for bom in (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff"):
        head = head.removeprefix(bom)
    return bool(_SGF_START.match(head))


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
    if head.startswith((GZIP, BZIP2, XZ)):
        return "tar"
    if head.startswith(ZIP):
        return "zip"
    if len(head) == tarfile.BLOCKSIZE and is_tar_header(head):
        return "tar"
    if path.name.lower().endswith(".sgf") or _looks_like_sgf(head):
        return "sgf"
    if not head:
        raise RejectError("empty_archive", f"{path.name} is empty")
    raise RejectError("not_an_archive", f"{path.name} is not a tar, zip or SGF file")


def iter_members(path: Path, *, limits: Limits = _DEFAULT_LIMITS) -> Iterator[Member | MemberReject]:
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
    Names that are not UTF-8 are decoded by the rule of docs/releases.md#member-names, with
    their raw bytes (hex) in ``name_raw``.
    """
    try:
        kind = archive_kind(path)
    except RejectError as exc:
        yield MemberReject("", exc.reason, str(exc))
        return
    if kind == "tar":
        yield from read_tar(path, limits)
    elif kind == "zip":
        yield from read_zip(path, limits)
    elif kind == "dir":
        yield from read_folder(path, limits)
    else:
        yield read_file(path, escaped_name(path.name), limits)
