"""What reading an archive yields (members, rejects) and the per-archive screening and limits."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from gopat.transforms.games.member_names import MemberName

_PATH_SEPARATORS = re.compile(r"[\\/]")


@dataclass(frozen=True, slots=True)
class Limits:
    """Caps applied while reading: member size, total size, compression ratio, member count."""

    max_member_bytes: int = 16 * 2**20
    max_total_bytes: int = 4 * 2**30
    max_ratio: float = 200.0
    max_members: int = 1_000_000


@dataclass(frozen=True, slots=True)
class _Named:
    """What reading an archive yields under a member's name: ``name_raw`` is the hex of the name's bytes when they are
    not UTF-8 and ``name_guessed`` says the encoding of ``name`` was guessed (docs/releases.md#member-names)."""

    name: str
    name_raw: str | None = field(default=None, kw_only=True)
    name_guessed: bool = field(default=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class Member(_Named):
    """One SGF member read into memory."""

    data: bytes


@dataclass(frozen=True, slots=True)
class MemberReject(_Named):
    """A member that was not read (name ``""``: the whole archive, from this point on)."""

    reason: str
    message: str


def member(name: MemberName, data: bytes) -> Member:
    """A Member under a decoded name."""
    return Member(name.name, data, name_raw=name.raw, name_guessed=name.guessed)


def member_reject(name: MemberName, reason: str, message: str) -> MemberReject:
    """A MemberReject under a decoded name."""
    return MemberReject(name.name, reason, message, name_raw=name.raw, name_guessed=name.guessed)


class Stop(Exception):
    """The container cannot be read further; becomes a MemberReject with name ''."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def _name_problem(name: str) -> str | None:
    if "\x00" in name:
        return "bad_name"
    if name.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", name):
        return "absolute_path"
    if ".." in _PATH_SEPARATORS.split(name):
        return "path_traversal"
    return None


class Gate:
    """Per-archive bookkeeping: member count, names seen, and total bytes: those of the members
    read, and for tar streams also those of every entry skipped (they are decompressed too).
    """

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.members = 0
        self.total = 0
        self.seen: set[str] = set()

    def screen(self, name: MemberName, kind: str, size: int) -> MemberReject | None:
        """Checks before reading: count, name, type, suffix, duplicate, declared size.

        ``kind`` is 'file', 'link' or 'special'. Raises Stop past the member count.
        """
        limits = self.limits
        self.members += 1
        if self.members > limits.max_members:
            raise Stop("too_many_members", f"more than {limits.max_members} members")
        text = name.name
        if not text:  # member '' stands for the whole source in `rejects` (docs/releases.md#ingest-contract)
            return member_reject(MemberName(f"(member {self.members} without a name)", name.raw, name.guessed),
                                 "bad_name", "empty member name")
        problem = _name_problem(text)
        if problem is not None:
            return member_reject(name, problem, f"unsafe member name {text!r}")
        if kind == "link":
            return member_reject(name, "link", "links are not read")
        if kind != "file":
            return member_reject(name, "special_file", "not a regular file")
        if not text.lower().endswith(".sgf"):
            return member_reject(name, "not_sgf_member", "name does not end in .sgf")
        key = posixpath.normpath(text)
        if key in self.seen:
            return member_reject(name, "duplicate_name", "an earlier member has this name")
        self.seen.add(key)
        if size > limits.max_member_bytes:
            return member_reject(name, "member_too_large", f"{size} bytes > {limits.max_member_bytes}")
        return None

    def charge(self, size: int) -> None:
        """Count ``size`` bytes towards the total; raise Stop past ``max_total_bytes``."""
        self.total += size
        if self.total > self.limits.max_total_bytes:
            raise Stop("total_too_large", f"more than {self.limits.max_total_bytes} bytes")
