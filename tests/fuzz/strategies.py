"""Generators of hostile inputs built on real structure, shared by tests/fuzz/ and bench/fuzz.py.

SGF files are real records (tiny.tar.gz, the small files of hostile/files) mutated by byte flips,
insertions, truncations, splices, inserted properties, nested variations, huge numbers and other
encodings. Archives are real tar / zip / gzip containers of such files with hostile member names
and kinds, optionally damaged afterwards.
"""

from __future__ import annotations

import bz2
import codecs
import functools
import gzip
import hashlib
import io
import lzma
import re
import tarfile
import warnings
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from gopat.transforms.games.archives import Limits

# CI: reproducible (no database, derandomized), each input within the 5 s.
CI = settings(
    deadline=5000,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
MAX_SGF_BYTES = 1 << 18
SEED_MAX_BYTES = 1 << 16  # hostile files above this (the 300 KB nesting file) are no seeds: too slow per input

TOKENS = (b"(", b")", b";", b"[", b"]", b"\\", b"\\]", b"()", b"(;", b";;", b"[]", b"\x00", b"\r\n", b"\xff\xfe",
          b"\xef\xbb\xbf", b"\x81", b"\xe3\x81", b"B[", b"W[", b"AB[", b":", b" ", b"\t", b"tt", b"zz")
PROPERTIES = (
    b"SZ[0]", b"SZ[1]", b"SZ[2]", b"SZ[25]", b"SZ[26]", b"SZ[27]", b"SZ[52]", b"SZ[-19]", b"SZ[19:13]", b"SZ[9:9]",
    b"SZ[]", b"SZ[ 13 ]", b"SZ[x]", b"SZ[19][9]", b"GM[2]", b"GM[]", b"GM[1]", b"FF[1]", b"FF[4]", b"CA[UTF-8]",
    b"CA[gb2312]", b"CA[Shift_JIS]", b"CA[utf-16]", b"CA[utf-32]", b"CA[unicode-escape]", b"CA[idna]", b"CA[rot13]",
    b"CA[base64]", b"CA[hex]", b"CA[zlib]", b"CA[]", b"CA[\xff\xfe]", b"CA[latin-1]", b"CA[big5]",
    b"KM[1e309]", b"KM[nan]", b"KM[-inf]", b"KM[375]", b"KM[]", b"KM[6.5.5]", b"HA[-1]", b"HA[\xff]", b"HA[\xd9\xa3]",
    b"DT[0000-00-00]", b"DT[\xe4\xba\x8c]", b"RE[B+R]", b"RE[\xe9]", b"PB[\xc0\x80]", b"PW[a\\]b]", b"EV[\\\\]",
    b"AB[aa:ss]", b"AB[aa:zz]", b"AW[ss:aa]", b"AE[aa:ss]", b"AB[]", b"AB[a]", b"AB[aa][aa]", b"AW[aa]", b"AB[:]",
    b"AB[aa:]", b"B[]", b"B[tt]", b"B[zz]", b"B[ss]", b"B[aa][bb]", b"B[ a a ]", b"W[A1]", b"B[aa]W[bb]", b"W[yy]",
    b"B[\xe4\xb8]", b"C[\\]", b"C[\\\\]", b"C[]]", b"C[", b"LB[aa:x]", b"XX[]", b"lowercase[x]",
)
ENCODINGS = ("utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "gb18030", "gbk",
             "shift_jis", "big5", "euc-kr", "iso-8859-1", "cp1252", "koi8-r")
BOMS = (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)
MOVE_NODE = re.compile(rb";\s*[BW]\s*\[")
NAMES = ("../up.sgf", "a/../../up.sgf", "/abs.sgf", "C:/win.sgf", "c:\\win.sgf", "a\\..\\b.sgf", "x.SGF", "x.sgf.txt",
         "notes.txt", "a/./b.sgf", "./c.sgf", "d//e.sgf", "棋譜/対局.sgf", "é.sgf", " .sgf", ".sgf", "\\lead.sgf",
         "a" * 120 + ".sgf", "/".join(["deep"] * 40) + "/g.sgf", "-rf.sgf", "name with spaces.sgf", "\u202egfs.txt")
FORMATS = ("tar", "tar.gz", "tar.bz2", "tar.xz", "zip", "zip-stored", "zip-bzip2", "zip-lzma", "sgf")
KINDS = ("file", "file", "file", "file", "dir", "symlink", "hardlink", "fifo", "chardev")
SMALL_LIMITS = Limits(max_member_bytes=4096, max_total_bytes=20_000, max_ratio=50.0, max_members=6)
BOMB_BYTES = 3 << 20  # a member of zeros this long passes the 1 MiB after which the ratio is judged


@functools.cache
def real_files(tiny_archive: Path) -> tuple[bytes, ...]:
    """The SGF members of tiny.tar.gz, read once."""
    with tarfile.open(tiny_archive) as tar:
        return tuple(
            file.read()
            for member in tar
            if member.isfile() and member.name.endswith(".sgf") and (file := tar.extractfile(member)) is not None
        )


@functools.cache
def seed_files(tiny_archive: Path, hostile_dir: Path) -> tuple[bytes, ...]:
    """The real files and the small files of hostile/files: what the mutations start from."""
    hostile = [p.read_bytes() for p in sorted((hostile_dir / "files").iterdir()) if p.stat().st_size <= SEED_MAX_BYTES]
    return (*real_files(tiny_archive), *hostile)


def documented_codes(doc: str | None, *, after: str = "") -> frozenset[str]:
    """The ``code`` words of a docstring (from the line ``after`` on): the documented reasons or flags."""
    text = doc or ""
    codes = frozenset(re.findall(r"``([a-z][a-z0-9_]*)``", text[text.find(after) :] if after else text))
    if not codes:  # a moved docstring must not make every reason "undocumented" or every check vacuous
        raise ValueError(f"no ``code`` words after {after!r} in the docstring")
    return codes


Draw = st.DrawFn


def _position(draw: Draw, data: bytes) -> int:
    return draw(st.integers(0, len(data)))


def _flip(draw: Draw, data: bytes, seeds: tuple[bytes, ...]) -> bytes:
    if not data:
        return data
    at = draw(st.integers(0, len(data) - 1))
    return data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + data[at + 1 :]


def _insert(draw: Draw, data: bytes, seeds: tuple[bytes, ...]) -> bytes:
    at = _position(draw, data)
    chunk = draw(st.sampled_from(TOKENS) | st.binary(min_size=1, max_size=12))
    return data[:at] + chunk * draw(st.integers(1, 3)) + data[at:]


def _delete(draw: Draw, data: bytes, seeds: tuple[bytes, ...]) -> bytes:
    at = _position(draw, data)
    return data[:at] + data[at + draw(st.integers(1, 64)) :]


def _truncate(draw: Draw, data: bytes, seeds: tuple[bytes, ...]) -> bytes:
    return data[: _position(draw, data)]


def _splice(draw: Draw, data: bytes, seeds: tuple[bytes, ...]) -> bytes:
    other = draw(st.sampled_from(seeds))
    return data[: _position(draw, data)] + other[_position(draw, other) :]


def _duplicate(draw: Draw, data: bytes, seeds: tuple[bytes, ...]) -> bytes:
    start = _position(draw, data)
    end = min(len(data), start + draw(st.integers(1, 256)))
    return data[:end] + data[start:end] * draw(st.integers(1, 4)) + data[end:]


def _property(draw: Draw, data: bytes, seeds: tuple[bytes, ...]) -> bytes:
    """A hostile property after a node's ';' (or anywhere when the file has none)."""
    nodes = [m.start() + 1 for m in re.finditer(rb";", data)] or [_position(draw, data)]
    at = draw(st.sampled_from(nodes))
    name = draw(st.sampled_from((b"SZ", b"KM", b"HA", b"AB", b"B", b"DT", b"CA")))
    value = draw(st.sampled_from(PROPERTIES) | st.integers(1, 5000).map(lambda n: name + b"[" + b"9" * n + b"]"))
    return data[:at] + value + data[at:]


def _nest(draw: Draw, data: bytes, seeds: tuple[bytes, ...]) -> bytes:
    """Every one of the first k move nodes in its own variation (OGS style), or sibling variations."""
    end = data.rfind(b")")
    if end < 0:
        return data
    if draw(st.booleans()):
        sibling = draw(st.sampled_from((b"(;B[aa];W[bb])", b"(;W[tt])", b"(;AB[cc]B[dd])", b"()", b"(;)")))
        return data[:end] + sibling * draw(st.integers(1, 50)) + data[end:]
    starts = [m.start() for m in MOVE_NODE.finditer(data, 0, end)][: draw(st.integers(1, 2000))]
    out, previous = [], 0
    for start in starts:
        out += [data[previous:start], b"("]
        previous = start
    return b"".join(out) + data[previous:end] + b")" * len(starts) + data[end:]


def _reencode(draw: Draw, data: bytes, seeds: tuple[bytes, ...]) -> bytes:
    text = data.decode(draw(st.sampled_from(("utf-8", "gb18030", "latin-1"))), "replace")
    encoded = text.encode(draw(st.sampled_from(ENCODINGS)), "replace")
    return draw(st.sampled_from((b"", *BOMS))) + encoded


def _bom(draw: Draw, data: bytes, seeds: tuple[bytes, ...]) -> bytes:
    return draw(st.sampled_from(BOMS)) + data


def _repeat(draw: Draw, data: bytes, seeds: tuple[bytes, ...]) -> bytes:
    return data * draw(st.integers(2, 4))


MUTATIONS: tuple[Callable[[Draw, bytes, tuple[bytes, ...]], bytes], ...] = (
    _flip, _insert, _delete, _truncate, _splice, _duplicate, _property, _nest, _reencode, _bom, _repeat,
)


@st.composite
def sgf_files(draw: Draw, seeds: tuple[bytes, ...], *, max_mutations: int = 5) -> bytes:
    """A seed file (or random bytes, now and then) after 0..max_mutations mutations, at most 256 KiB."""
    data = draw(st.sampled_from(seeds) | st.binary(max_size=64))
    for _ in range(draw(st.integers(0, max_mutations))):
        data = draw(st.sampled_from(MUTATIONS))(draw, data, seeds)[:MAX_SGF_BYTES]
    return data


@dataclass(frozen=True, slots=True)
class Entry:
    """One archive entry as written: name, kind (see KINDS) and content (files only)."""

    name: str
    kind: str
    data: bytes = b""


@dataclass(frozen=True, slots=True)
class Archive:
    """Bytes of a container, the entries written into it, and how it was damaged afterwards ('' = intact)."""

    data: bytes
    suffix: str
    fmt: str
    entries: tuple[Entry, ...]
    limits: Limits = field(default_factory=Limits)
    damage: str = ""

    def __repr__(self) -> str:
        digest = hashlib.sha1(self.data).hexdigest()[:12]
        listed = ", ".join(f"{e.name!r} {e.kind} {len(e.data)} B" for e in self.entries)
        return (f"Archive({self.fmt} {self.suffix!r}, {len(self.data)} B sha1 {digest}, damage {self.damage!r}, "
                f"{self.limits}, entries [{listed}])")

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))  # Hypothesis prints failing inputs with this: the summary, not megabytes

    @property
    def files(self) -> int:
        """Entries that are not directories: each must come out as one member or one reject."""
        return sum(entry.kind != "dir" for entry in self.entries)


def _tar_info(entry: Entry) -> tarfile.TarInfo:
    info = tarfile.TarInfo(entry.name)
    info.mtime = 1_700_000_000
    if entry.kind == "file":
        info.size = len(entry.data)
    else:
        info.type = {"dir": tarfile.DIRTYPE, "symlink": tarfile.SYMTYPE, "hardlink": tarfile.LNKTYPE,
                     "fifo": tarfile.FIFOTYPE, "chardev": tarfile.CHRTYPE}[entry.kind]
        info.linkname = "../../etc/passwd" if entry.kind == "symlink" else "first.sgf"
    return info


def tar_bytes(entries: tuple[Entry, ...], *, compression: str, tar_format: int) -> bytes:
    """A tar archive of ``entries`` ('' / 'gz' / 'bz2' / 'xz' compression)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tar_format, encoding="utf-8") as tar:
        for entry in entries:
            tar.addfile(_tar_info(entry), io.BytesIO(entry.data) if entry.kind == "file" else None)
    return compress(buffer.getvalue(), compression)


def compress(data: bytes, compression: str) -> bytes:
    """``data`` as a gzip / bzip2 / xz stream ('' leaves it alone)."""
    if compression == "gz":
        return gzip.compress(data, mtime=0)
    if compression == "bz2":
        return bz2.compress(data)
    return lzma.compress(data) if compression == "xz" else data


def zip_bytes(entries: tuple[Entry, ...], *, method: int) -> bytes:
    """A zip archive of ``entries``; links and devices carry their Unix type in the external attributes."""
    modes = {"file": 0o100644, "dir": 0o040755, "symlink": 0o120777, "hardlink": 0o100644, "fifo": 0o010644,
             "chardev": 0o020644}
    buffer = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buffer, "w", compression=method) as archive:
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate names written on purpose
        for entry in entries:
            name = entry.name + "/" if entry.kind == "dir" else entry.name
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = method
            info.external_attr = modes[entry.kind] << 16
            archive.writestr(info, entry.data if entry.kind in ("file", "hardlink") else b"first.sgf")
    return buffer.getvalue()


@st.composite
def entries(draw: Draw, seeds: tuple[bytes, ...], *, max_entries: int, bomb: bool) -> tuple[Entry, ...]:
    """Archive entries: mostly fuzzed SGF files under plain names, with hostile names and kinds mixed in."""
    out: list[Entry] = []
    for index in range(draw(st.integers(0, max_entries))):
        name = draw(
            st.sampled_from((f"games/{index}.sgf", f"g{index}.sgf"))
            | st.sampled_from(NAMES)
            | st.sampled_from([e.name for e in out] or ["first.sgf"])
            | st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), min_size=1, max_size=20)
        ).rstrip("/") or "empty"
        if not name.lower().endswith(".sgf") and draw(st.booleans()):
            name += ".sgf"
        kind = draw(st.sampled_from(KINDS))
        data = draw(sgf_files(seeds, max_mutations=2)) if kind == "file" else b""
        out.append(Entry(name, kind, data))
    if bomb and draw(st.integers(0, 7)) == 0:
        out.insert(draw(st.integers(0, len(out))), Entry("bomb.sgf", "file", b"(" + b"\x00" * BOMB_BYTES))
    return tuple(out)


@st.composite
def archives(draw: Draw, seeds: tuple[bytes, ...], *, max_entries: int = 8, bomb: bool = True) -> Archive:
    """A tar / tar.gz / tar.bz2 / tar.xz / zip / single-file source, intact or damaged, with default or small limits."""
    fmt = draw(st.sampled_from(FORMATS))
    limits = draw(st.sampled_from((Limits(), Limits(), SMALL_LIMITS)))
    if fmt == "sgf":
        content = draw(sgf_files(seeds))
        written: tuple[Entry, ...] = (Entry("game.sgf", "file", content),)
        data, suffix = content, draw(st.sampled_from((".sgf", ".SGF", ".txt", "")))
    else:
        written = draw(entries(seeds, max_entries=max_entries, bomb=bomb))
        if fmt.startswith("tar"):
            compression = fmt.partition(".")[2]
            tar_format = draw(st.sampled_from((tarfile.PAX_FORMAT, tarfile.GNU_FORMAT, tarfile.USTAR_FORMAT)))
            try:
                data = tar_bytes(written, compression=compression, tar_format=tar_format)
            except ValueError:  # ustar cannot hold long names: such an archive is written as pax
                data = tar_bytes(written, compression=compression, tar_format=tarfile.PAX_FORMAT)
            suffix = "." + fmt
        else:
            method = {"zip": zipfile.ZIP_DEFLATED, "zip-stored": zipfile.ZIP_STORED,
                      "zip-bzip2": zipfile.ZIP_BZIP2, "zip-lzma": zipfile.ZIP_LZMA}[fmt]
            data, suffix = zip_bytes(written, method=method), ".zip"
    damage = draw(st.sampled_from(("", "", "bytes", "inner")))
    if damage == "bytes":  # damage the file as stored: compressed stream, zip directory, tar headers
        for _ in range(draw(st.integers(1, 3))):
            data = draw(st.sampled_from((_flip, _insert, _delete, _truncate, _duplicate)))(draw, data, seeds)
    elif damage == "inner" and fmt.startswith("tar."):  # a valid compressed stream of a damaged tar
        inner = compress_inverse(data, fmt.partition(".")[2])
        for _ in range(draw(st.integers(1, 3))):
            inner = draw(st.sampled_from((_flip, _truncate, _duplicate, _delete)))(draw, inner, seeds)
        data = compress(inner, fmt.partition(".")[2])
    else:
        damage = ""
    return Archive(data, suffix, fmt, written, limits, damage)


def compress_inverse(data: bytes, compression: str) -> bytes:
    """The bytes inside a gzip / bzip2 / xz stream."""
    return {"gz": gzip.decompress, "bz2": bz2.decompress, "xz": lzma.decompress}[compression](data)
