"""Member names: the guessing rule on real GBK, Shift-JIS, EUC-KR bytes, through zip, tar and folders."""

from __future__ import annotations

import io
import os
import tarfile
import zipfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from gopat.transforms.games.archives import Member, MemberReject, iter_members
from gopat.transforms.games.member_names import MemberName, decode_name, escaped_name, zip_name

GAME = b"(;GM[1]FF[4]SZ[19];B[pd];W[dd])\n"
# (name, the encoding a Chinese, Japanese or Korean Windows archiver writes it in)
LEGACY = [
    ("棋谱/2019/柯洁-朴廷桓.sgf", "gbk"),
    ("棋譜/本因坊戦.sgf", "shift_jis"),
    ("기보/이세돌.sgf", "euc_kr"),
]


def legacy_zip(path: Path, names: list[bytes], utf8: tuple[str, ...] = ()) -> None:
    """A zip whose members have the given raw names and no UTF-8 flag, then flagged UTF-8 names.

    zipfile writes a non-ASCII name as UTF-8 with the flag set, so each raw name is written as an
    ASCII placeholder of the same length, whose two copies (local header, central directory) are
    then replaced by the raw bytes; the flag stays clear and the CRCs (of the data) stay valid.
    """
    placeholders = [f"{index}_".encode().ljust(len(raw), b"#") for index, raw in enumerate(names)]
    with zipfile.ZipFile(path, "w") as archive:
        for placeholder in placeholders:
            archive.writestr(placeholder.decode(), GAME)
        for name in utf8:
            archive.writestr(name, GAME)
    data = path.read_bytes()
    for placeholder, raw in zip(placeholders, names, strict=True):
        assert data.count(placeholder) == 2
        data = data.replace(placeholder, raw)
    path.write_bytes(data)


def test_zip_names_without_utf8_flag_are_guessed(tmp_path: Path) -> None:
    path = tmp_path / "legacy.zip"
    raws = [name.encode(codec) for name, codec in LEGACY]
    legacy_zip(path, [*raws, b"ascii/plain.sgf"], utf8=("棋谱/utf8.sgf",))
    with zipfile.ZipFile(path) as archive:  # the archive really stores the raw bytes, flag clear
        assert [info.flag_bits & 0x800 for info in archive.infolist()] == [0, 0, 0, 0, 0x800]
        assert archive.infolist()[0].orig_filename == raws[0].decode("cp437")
    members = list(iter_members(path))
    assert members == [
        *(Member(name, GAME, name_raw=raw.hex(), name_guessed=True)
          for (name, _), raw in zip(LEGACY, raws, strict=True)),
        Member("ascii/plain.sgf", GAME),
        Member("棋谱/utf8.sgf", GAME),
    ]


def test_guessed_names_of_rejected_members_keep_their_bytes(tmp_path: Path) -> None:
    path = tmp_path / "legacy.zip"
    text, sgf = "棋谱/说明.txt".encode("gbk"), "棋谱/说明.sgf".encode("gbk")
    legacy_zip(path, [text, sgf, sgf])
    assert list(iter_members(path)) == [
        MemberReject("棋谱/说明.txt", "not_sgf_member", "name does not end in .sgf", name_raw=text.hex(),
                     name_guessed=True),
        Member("棋谱/说明.sgf", GAME, name_raw=sgf.hex(), name_guessed=True),
        MemberReject("棋谱/说明.sgf", "duplicate_name", "an earlier member has this name", name_raw=sgf.hex(),
                     name_guessed=True),
    ]


def test_tar_names_that_are_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "legacy.tar.gz"
    raws = [name.encode(codec) for name, codec in LEGACY]
    with tarfile.open(path, "w:gz", format=tarfile.GNU_FORMAT, encoding="utf-8", errors="surrogateescape") as tar:
        for raw in [*raws, "기보/utf8.sgf".encode()]:
            info = tarfile.TarInfo(raw.decode("utf-8", "surrogateescape"))
            info.size = len(GAME)
            tar.addfile(info, io.BytesIO(GAME))
    with tarfile.open(path, encoding="latin-1") as tar:  # the header holds the raw bytes
        assert [name.encode("latin-1") for name in tar.getnames()] == [*raws, "기보/utf8.sgf".encode()]
    assert list(iter_members(path)) == [
        *(Member(name, GAME, name_raw=raw.hex(), name_guessed=True)
          for (name, _), raw in zip(LEGACY, raws, strict=True)),
        Member("기보/utf8.sgf", GAME),
    ]


def test_folder_and_single_file_names_that_are_not_utf8(tmp_path: Path) -> None:
    raw = "棋谱".encode("gbk")
    folder = tmp_path / "games"
    os.makedirs(os.fsencode(folder) + b"/" + raw)
    Path(os.fsdecode(os.fsencode(folder) + b"/" + raw + b"/a.sgf")).write_bytes(GAME)
    assert list(iter_members(folder)) == [
        Member("棋谱/a.sgf", GAME, name_raw=(raw + b"/a.sgf").hex(), name_guessed=True)]
    single = Path(os.fsdecode(os.fsencode(tmp_path) + b"/" + raw + b".sgf"))
    single.write_bytes(GAME)
    assert list(iter_members(single)) == [Member("棋谱.sgf", GAME, name_raw=(raw + b".sgf").hex(), name_guessed=True)]


def test_the_rule_on_names_of_each_script() -> None:
    korean = "이창호.sgf".encode("euc_kr")
    assert decode_name(korean) == MemberName("이창호.sgf", korean.hex(), True)
    assert decode_name("박정환.sgf".encode("cp949")).name == "박정환.sgf"
    assert decode_name("聂卫平.sgf".encode("gbk")).name == "聂卫平.sgf"
    assert decode_name("囲碁.sgf".encode("cp932")).name == "囲碁.sgf"
    # UTF-8 bytes are never guessed; bytes no candidate reads as its script fall back to cp437
    assert decode_name("기보.sgf".encode()) == MemberName("기보.sgf")
    assert decode_name(b"caf\xe9.sgf") == MemberName("caf\u0398.sgf", "636166e92e736766", True)
    # what zipfile gives for GBK bytes without the flag: cp437 mojibake (the example)
    assert zip_name("\u255e\u03c3\u255e\u256b.sgf", 0) == MemberName("棋谱.sgf", "c6e5c6d72e736766", True)
    assert zip_name("棋谱.sgf", 0x800) == MemberName("棋谱.sgf")
    assert escaped_name("plain.sgf") == MemberName("plain.sgf")


@given(st.binary(max_size=64))
def test_any_bytes_decode_and_the_raw_hex_round_trips(raw: bytes) -> None:
    decoded = decode_name(raw)
    assert isinstance(decoded.name, str)
    decoded.name.encode("utf-8")  # a real string: no lone surrogates
    if decoded.raw is None:
        assert not decoded.guessed and decoded.name.encode("utf-8") == raw
    else:
        assert decoded.guessed and bytes.fromhex(decoded.raw) == raw
    assert zip_name(raw.decode("cp437"), 0) == decoded
    assert escaped_name(raw.decode("utf-8", "surrogateescape")) == decoded
