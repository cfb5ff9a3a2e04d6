"""iter_members / archive_kind: hostile archives, the tiny corpus, archives built in tmp_path."""

import gzip
import io
import os
import stat
import tarfile
import time
import tracemalloc
import warnings
import zipfile
from pathlib import Path

import pytest

from gopat.transforms.games.archives import Limits, Member, MemberReject, archive_kind, iter_members
from gopat.transforms.games.errors import RejectError

GAME = b"(;GM[1]FF[4]SZ[19];B[pd];W[dd])\n"


DEFAULT_LIMITS = Limits()


def outcome(path: Path, limits: Limits = DEFAULT_LIMITS) -> list[tuple[str, str | int]]:
    """(name, reason) for rejects, (name, byte count) for members, in yield order."""
    return [
        (m.name, m.reason) if isinstance(m, MemberReject) else (m.name, len(m.data))
        for m in iter_members(path, limits=limits)
    ]


def add_tar(archive: tarfile.TarFile, name: str, data: bytes = GAME, **fields: object) -> None:
    info = tarfile.TarInfo(name)
    for key, value in fields.items():
        setattr(info, key, value)
    info.size = len(data) if info.isreg() else 0
    archive.addfile(info, io.BytesIO(data) if info.isreg() else None)


# --- hostile archives ----------------------------------------------------------------------

HOSTILE = {
    "empty.zip": [("", "empty_archive")],
    "not_an_archive.zip": [("", "not_an_archive")],
    "plain_tar_named.tar.gz": [("games/ok.sgf", 114)],
    "sgf_named.zip": [("sgf_named.zip", 114)],
    "tar_bomb_1GiB.tar.bz2": [("bomb.sgf", "member_too_large"), ("", "ratio_exceeded")],
    "tar_traversal.tar.gz": [
        ("games/ok.sgf", 114),
        ("../tar_evil.sgf", "path_traversal"),
        ("/tmp/tar_absolute.sgf", "absolute_path"),
        ("games/fifo.sgf", "special_file"),
        ("games/dev.sgf", "special_file"),
        ("games/setuid.sgf", 114),
    ],
    "valid_empty.zip": [("", "empty_archive")],
    "zip_bomb_deflate_1GiB.zip": [("bomb.sgf", "member_too_large")],
    "zip_bomb_lying_size.zip": [("small_looking.sgf", "crc_mismatch")],
    "zip_corrupt_crc.zip": [
        ("games/katago_cornermoves.sgf", "crc_mismatch"),
        ("games/rooklift_unicode.sgf", 116),
        ("games/gogui_ff4_ex.sgf", 4948),
    ],
    "zip_duplicate_names.zip": [("games/game.sgf", 114), ("games/game.sgf", "duplicate_name")],
    "zip_path_traversal.zip": [
        ("games/ok.sgf", 114),
        ("../evil.sgf", "path_traversal"),
        ("games/../../../../tmp/evil_deep.sgf", "path_traversal"),
        ("/tmp/evil_absolute.sgf", "absolute_path"),
        ("games\\..\\..\\evil_backslash.sgf", "path_traversal"),
    ],
    "zip_truncated.zip": [("", "truncated_archive")],
}


@pytest.mark.parametrize(("name", "expected"), sorted(HOSTILE.items()))
def test_hostile_archive(hostile_dir: Path, name: str, expected: list) -> None:
    assert outcome(hostile_dir / "archives" / name) == expected


def test_every_hostile_archive_is_covered(hostile_dir: Path) -> None:
    assert {p.name for p in (hostile_dir / "archives").iterdir()} == set(HOSTILE)


@pytest.mark.parametrize("name", ["tar_bomb_1GiB.tar.bz2", "zip_bomb_deflate_1GiB.zip"])
def test_bombs_are_stopped_early(hostile_dir: Path, name: str) -> None:
    tracemalloc.start()
    start = time.perf_counter()
    try:
        results = list(iter_members(hostile_dir / "archives" / name))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - start < 5
    assert peak < 32 * 2**20
    assert not any(isinstance(r, Member) for r in results)


def test_lying_zip_header_never_yields_more_than_declared(hostile_dir: Path) -> None:
    (reject,) = iter_members(hostile_dir / "archives" / "zip_bomb_lying_size.zip")
    assert isinstance(reject, MemberReject) and "CRC" in reject.message


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("plain_tar_named.tar.gz", "tar"),
        ("tar_bomb_1GiB.tar.bz2", "tar"),
        ("tar_traversal.tar.gz", "tar"),
        ("sgf_named.zip", "sgf"),
        ("zip_truncated.zip", "zip"),
        ("valid_empty.zip", "zip"),
    ],
)
def test_archive_kind_of_hostile_files(hostile_dir: Path, name: str, kind: str) -> None:
    assert archive_kind(hostile_dir / "archives" / name) == kind


@pytest.mark.parametrize(
    ("name", "reason"), [("empty.zip", "empty_archive"), ("not_an_archive.zip", "not_an_archive")]
)
def test_archive_kind_rejects(hostile_dir: Path, name: str, reason: str) -> None:
    with pytest.raises(RejectError) as caught:
        archive_kind(hostile_dir / "archives" / name)
    assert caught.value.reason == reason


# --- tiny corpus ---------------------------------------------------------------------------


def test_tiny_has_200_sgf_members_with_their_bytes(tiny_archive: Path) -> None:
    members = list(iter_members(tiny_archive))
    assert len(members) == 200 and all(isinstance(m, Member) for m in members)
    with tarfile.open(tiny_archive) as archive:
        expected = {
            i.name: archive.extractfile(i).read()
            for i in archive.getmembers()
            if i.isfile()
        }
    assert [m.name for m in members] == list(expected)
    assert all(m.data == expected[m.name] for m in members)
    assert sum(len(m.data) for m in members) == 316_600


# --- archives built here -------------------------------------------------------------------


def test_tar_with_every_kind_of_entry(tmp_path: Path) -> None:
    path = tmp_path / "mixed.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        add_tar(archive, "games", type=tarfile.DIRTYPE)
        add_tar(archive, "games/a.sgf")
        add_tar(archive, "games/B.SGF", GAME * 2)
        add_tar(archive, "games/readme.txt", b"hello")
        add_tar(archive, "../up.sgf")
        add_tar(archive, "games/../../up2.sgf")
        add_tar(archive, "/etc/abs.sgf")
        add_tar(archive, "C:/windows.sgf")
        add_tar(archive, "games/sym.sgf", type=tarfile.SYMTYPE, linkname="/etc/passwd")
        add_tar(archive, "games/hard.sgf", type=tarfile.LNKTYPE, linkname="games/a.sgf")
        add_tar(archive, "games/fifo.sgf", type=tarfile.FIFOTYPE)
        add_tar(archive, "games/chr.sgf", type=tarfile.CHRTYPE, devmajor=1, devminor=3)
        add_tar(archive, "games/blk.sgf", type=tarfile.BLKTYPE, devmajor=8, devminor=0)
        add_tar(archive, "games/a.sgf", b"(;B[aa])")
        add_tar(archive, "./games/a.sgf", b"(;B[bb])")
        add_tar(archive, "games/c.sgf", b"(;W[cc])", mode=0o4755)
    assert outcome(path) == [
        ("games/a.sgf", len(GAME)),
        ("games/B.SGF", 2 * len(GAME)),
        ("games/readme.txt", "not_sgf_member"),
        ("../up.sgf", "path_traversal"),
        ("games/../../up2.sgf", "path_traversal"),
        ("/etc/abs.sgf", "absolute_path"),
        ("C:/windows.sgf", "absolute_path"),
        ("games/sym.sgf", "link"),
        ("games/hard.sgf", "link"),
        ("games/fifo.sgf", "special_file"),
        ("games/chr.sgf", "special_file"),
        ("games/blk.sgf", "special_file"),
        ("games/a.sgf", "duplicate_name"),
        ("./games/a.sgf", "duplicate_name"),
        ("games/c.sgf", 8),
    ]


def test_zip_with_every_kind_of_entry(tmp_path: Path) -> None:
    path = tmp_path / "mixed.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("games/", b"")
        archive.writestr("games/a.sgf", GAME)
        archive.writestr(zipfile.ZipInfo("games/stored.sgf"), GAME * 3)
        archive.writestr("games/notes.md", b"# notes")
        archive.writestr("../up.sgf", GAME)
        archive.writestr("/abs.sgf", GAME)
        archive.writestr("games\\..\\..\\win.sgf", GAME)
        link = zipfile.ZipInfo("games/link.sgf")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, b"/etc/passwd")
        fifo = zipfile.ZipInfo("games/fifo.sgf")
        fifo.external_attr = (stat.S_IFIFO | 0o644) << 16
        archive.writestr(fifo, b"")
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "Duplicate name", UserWarning)
            archive.writestr("games/a.sgf", b"(;B[aa])")
    assert outcome(path) == [
        ("games/a.sgf", len(GAME)),
        ("games/stored.sgf", 3 * len(GAME)),
        ("games/notes.md", "not_sgf_member"),
        ("../up.sgf", "path_traversal"),
        ("/abs.sgf", "absolute_path"),
        ("games\\..\\..\\win.sgf", "path_traversal"),
        ("games/link.sgf", "link"),
        ("games/fifo.sgf", "special_file"),
        ("games/a.sgf", "duplicate_name"),
    ]
    members = [m for m in iter_members(path) if isinstance(m, Member)]
    assert [m.data for m in members] == [GAME, GAME * 3]


def test_a_member_without_a_name_is_not_taken_for_the_whole_source(tmp_path: Path) -> None:
    """`rejects.member` '' means the whole source (docs/releases.md#reject-reasons); an empty name gets a label."""
    path = tmp_path / "unnamed.tar"
    with tarfile.open(path, "w") as archive:
        add_tar(archive, "a.sgf")
        add_tar(archive, "")
    items = list(iter_members(path))
    assert outcome(path) == [("a.sgf", len(GAME)), ("(member 2 without a name)", "bad_name")]
    assert all(item.name for item in items)


@pytest.mark.parametrize("suffix", ["tar", "tar.gz", "tar.bz2", "tar.xz", "zip", "dir"])
def test_member_count_limit(tmp_path: Path, suffix: str) -> None:
    names = [f"g/{i}.sgf" for i in range(5)]
    path = build(tmp_path, suffix, {n: GAME for n in names})
    assert outcome(path, Limits(max_members=3)) == [
        *[(n, len(GAME)) for n in names[:3]],
        ("", "too_many_members"),
    ]
    assert outcome(path, Limits(max_members=5)) == [(n, len(GAME)) for n in names]


@pytest.mark.parametrize("suffix", ["tar", "tar.gz", "tar.bz2", "tar.xz", "zip", "dir"])
def test_member_and_total_size_limits(tmp_path: Path, suffix: str) -> None:
    files = {"g/a.sgf": GAME, "g/b.sgf": GAME * 10, "g/c.sgf": GAME, "g/d.sgf": GAME}
    path = build(tmp_path, suffix, files)
    limit = len(GAME) * 5
    assert outcome(path, Limits(max_member_bytes=limit)) == [
        ("g/a.sgf", len(GAME)),
        ("g/b.sgf", "member_too_large"),
        ("g/c.sgf", len(GAME)),
        ("g/d.sgf", len(GAME)),
    ]
    assert outcome(path, Limits(max_total_bytes=len(GAME) * 11 + 5)) == [
        ("g/a.sgf", len(GAME)),
        ("g/b.sgf", 10 * len(GAME)),
        ("", "total_too_large"),
    ]


@pytest.mark.parametrize("suffix", ["tar.gz", "tar.bz2", "tar.xz", "zip"])
def test_compression_ratio_limit(tmp_path: Path, suffix: str) -> None:
    bomb = b"(;C[" + b"a" * (4 * 2**20) + b"])"
    path = build(tmp_path, suffix, {"g/ok.sgf": GAME, "g/bomb.sgf": bomb, "g/after.sgf": GAME})
    results = outcome(path, Limits(max_member_bytes=2**23))
    assert results[0] == ("g/ok.sgf", len(GAME))
    assert ("g/bomb.sgf", "ratio_exceeded") in results or results[-1] == ("", "ratio_exceeded")
    assert not any(name == "g/bomb.sgf" and isinstance(size, int) for name, size in results)
    permissive = Limits(max_member_bytes=2**23, max_ratio=1e6)
    assert outcome(path, permissive) == [
        ("g/ok.sgf", len(GAME)),
        ("g/bomb.sgf", len(bomb)),
        ("g/after.sgf", len(GAME)),
    ]


def build(tmp_path: Path, suffix: str, files: dict[str, bytes]) -> Path:
    """An archive (or folder) holding ``files`` in this order."""
    path = tmp_path / f"built.{suffix}"
    if suffix == "dir":
        for name, data in files.items():
            (path / name).parent.mkdir(parents=True, exist_ok=True)
            (path / name).write_bytes(data)
    elif suffix == "zip":
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, data in files.items():
                archive.writestr(name, data)
    else:
        mode = "w:" + suffix.removeprefix("tar").removeprefix(".")
        with tarfile.open(path, mode) as archive:
            for name, data in files.items():
                add_tar(archive, name, data)
    return path


def test_truncated_and_corrupt_tars(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        add_tar(archive, "a.sgf", GAME)
        add_tar(archive, "b.sgf", GAME * 40)
    whole = buffer.getvalue()
    second_header = 512 + 512
    cases = {
        "mid_data.tar": (whole[: second_header + 512 + 100], "truncated_archive"),
        "mid_header.tar": (whole[: second_header + 200], "truncated_archive"),
        "at_header.tar": (whole[:second_header], "truncated_archive"),
        "garbage.tar": (whole[:second_header] + b"garbage!" * 64 + bytes(1024), "corrupt_archive"),
    }
    for name, (data, reason) in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        assert outcome(path) == [("a.sgf", len(GAME)), ("", reason)], name
        gz = tmp_path / (name + ".gz")
        gz.write_bytes(gzip.compress(data))
        assert outcome(gz) == [("a.sgf", len(GAME)), ("", reason)], name
    cut = tmp_path / "cut.tar.gz"
    cut.write_bytes(gzip.compress(whole)[:-40])
    assert outcome(cut)[-1] == ("", "truncated_archive")
    noise = tmp_path / "noise.tar.gz"
    noise.write_bytes(b"\x1f\x8b" + bytes(300))
    assert outcome(noise)[-1][1] == "corrupt_archive"


def test_valid_empty_tar_and_folder(tmp_path: Path) -> None:
    path = tmp_path / "empty.tar"
    with tarfile.open(path, "w") as archive:
        add_tar(archive, "only_a_folder", type=tarfile.DIRTYPE)
    assert outcome(path) == [("", "empty_archive")]
    (tmp_path / "nothing" / "inside").mkdir(parents=True)
    assert outcome(tmp_path / "nothing") == [("", "empty_archive")]


def test_folder_walk_is_sorted_and_never_follows_links(tmp_path: Path) -> None:
    root = tmp_path / "games"
    for name in ["b/2.sgf", "a/z.sgf", "a-b/1.sgf", "top.SGF", "a/notes.txt"]:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(GAME)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.sgf").write_bytes(GAME)
    (root / "a" / "link.sgf").symlink_to(outside / "secret.sgf")
    (root / "linked_dir").symlink_to(outside, target_is_directory=True)
    os.mkfifo(root / "b" / "pipe.sgf")
    assert outcome(root) == [
        ("a-b/1.sgf", len(GAME)),
        ("a/link.sgf", "link"),
        ("a/notes.txt", "not_sgf_member"),
        ("a/z.sgf", len(GAME)),
        ("b/2.sgf", len(GAME)),
        ("b/pipe.sgf", "special_file"),
        ("linked_dir", "link"),
        ("top.SGF", len(GAME)),
    ]


def test_single_sgf_file(tmp_path: Path) -> None:
    path = tmp_path / "one.sgf"
    path.write_bytes(GAME)
    assert archive_kind(path) == "sgf"
    assert list(iter_members(path)) == [Member("one.sgf", GAME)]
    assert outcome(path, Limits(max_member_bytes=10)) == [("one.sgf", "member_too_large")]
    empty = tmp_path / "empty.sgf"
    empty.write_bytes(b"")
    assert list(iter_members(empty)) == [Member("empty.sgf", b"")]


def test_kind_is_decided_by_content_not_name(tmp_path: Path) -> None:
    files = {"x/a.sgf": GAME}
    for real, fake in [
        ("zip", "games.tar.gz"),
        ("tar.xz", "games.zip"),
        ("tar.bz2", "games.tgz"),
        ("tar", "games.sgf"),
        ("tar.gz", "games"),
    ]:
        folder = tmp_path / real.replace(".", "_")
        folder.mkdir()
        renamed = build(folder, real, files).rename(folder / fake)
        assert archive_kind(renamed) == ("zip" if real == "zip" else "tar")
        assert outcome(renamed) == [("x/a.sgf", len(GAME))]
    bare = tmp_path / "game.tar.gz"
    bare.write_bytes(b"\n  " + GAME)
    assert archive_kind(bare) == "sgf"
    assert outcome(bare) == [("game.tar.gz", len(GAME) + 3)]


def test_a_zip_asking_for_an_unknown_version_is_one_reject(tmp_path: Path) -> None:
    """Found by the fuzzing campaign (tests/fuzz): zipfile raises NotImplementedError on "version needed" 11.0."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("a.sgf", b"(;GM[1];B[aa])")
    data = bytearray(buffer.getvalue())
    data[data.index(b"PK\x01\x02") + 6] = 110
    path = tmp_path / "new.zip"
    path.write_bytes(bytes(data))
    (item,) = list(iter_members(path))
    assert isinstance(item, MemberReject) and item.reason == "corrupt_archive" and "version" in item.message
