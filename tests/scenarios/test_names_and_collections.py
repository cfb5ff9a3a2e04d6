"""A real build (`gopat build`) of archives with legacy-encoded member names and a collection file with a
broken game tree: the published games and rejects tables carry the decoded names, their raw bytes, the
rejected tree, and the manifest's two ingest equations hold (docs/releases.md#ingest-contract)."""

from __future__ import annotations

import io
import json
import tarfile
import zipfile
from pathlib import Path

import duckdb
import pytest

from gopat.cli.main import main
from gopat.effects.warehouse.layout import Layout, current_version

OPENING = "B[pd];W[dp];B[pq];W[dd];B[qk];W[nc];B[pf];W[pb];B[qc];W[kc];"  # shared, so fuseki has a line


def game(player: str, moves: str) -> bytes:
    """A small 19x19 game record: the opening, then ``moves``."""
    return f"(;GM[1]FF[4]CA[UTF-8]SZ[19]PB[{player}]PW[W];{OPENING}{moves})\n".encode()


GAMES = {
    "棋谱/2019/柯洁-朴廷桓.sgf": ("gbk", game("柯洁", "B[jj];W[jk];B[jl]")),
    "棋譜/本因坊戦.sgf": ("shift_jis", game("井山", "B[kj];W[kk];B[kl]")),
    "기보/이세돌.sgf": ("euc_kr", game("이세돌", "B[lj];W[lk];B[ll]")),
}
# a collection: tree 1 is cut inside a value, trees 0 and 2 are games
COLLECTION = game("first", "B[cc];W[dd]") + b"(;GM[1]FF[4]SZ[19];B[ee];W[f" + b"\n" + game("third", "B[gg]")


def legacy_zip(path: Path, members: list[tuple[bytes, bytes]], utf8: list[tuple[str, bytes]]) -> None:
    """A zip whose first members have raw names without the UTF-8 flag (written through ASCII placeholders of
    the same length, replaced in the local and central headers), then members with flagged UTF-8 names."""
    placeholders = [f"{i}_".encode().ljust(len(raw), b"#") for i, (raw, _) in enumerate(members)]
    with zipfile.ZipFile(path, "w") as archive:
        for placeholder, (_, data) in zip(placeholders, members, strict=True):
            archive.writestr(placeholder.decode(), data)
        for name, data in utf8:
            archive.writestr(name, data)
    content = path.read_bytes()
    for placeholder, (raw, _) in zip(placeholders, members, strict=True):
        assert content.count(placeholder) == 2
        content = content.replace(placeholder, raw)
    path.write_bytes(content)


@pytest.mark.slow
@pytest.mark.usefixtures("prefect_harness")
def test_build_publishes_name_bytes_and_rejected_trees(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    legacy = [(name.encode(codec), data) for name, (codec, data) in GAMES.items()]
    readme = "棋谱/说明.txt".encode("gbk")
    legacy_zip(
        tmp_path / "legacy.zip",
        [*legacy, (readme, b"not a game")],
        [("棋谱/utf8/古力.sgf", game("古力", "B[qq]")), ("collection.sgf", COLLECTION)],
    )
    tar_name = "기보/조훈현.sgf".encode("euc_kr")
    with tarfile.open(tmp_path / "legacy.tar.gz", "w:gz", format=tarfile.GNU_FORMAT) as tar:
        info = tarfile.TarInfo(tar_name.decode("utf-8", "surrogateescape"))
        data = game("조훈현", "B[jj]")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    warehouse = tmp_path / "wh"
    code = main(["build", "--source", str(tmp_path / "legacy.zip"), "--source", str(tmp_path / "legacy.tar.gz"),
                 "--warehouse", str(warehouse), "--workers", "1", "--families", "d12"])
    assert code == 0
    out = capsys.readouterr().out
    assert "files in 7 = ingested 6 + rejected 1; trees in 8 = games 7 + duplicates 0 + rejected 1 (holds)" in out

    layout = Layout(warehouse)
    version = current_version(layout)
    assert version is not None
    folder = layout.release_dir(version)
    ingest = json.loads((folder / "manifest.json").read_text())["ingest"]
    assert ingest == {"files_in": 7, "files_ingested": 6, "files_rejected": 1, "games": 7, "duplicates": 0,
                      "trees_in": 8, "trees_rejected": 1}
    con = duckdb.connect()
    games = con.execute(
        "SELECT member, member_raw, member_name_guessed, tree_index, pb FROM read_parquet(?) "
        "ORDER BY member, tree_index",
        [str(folder / "games.parquet")],
    ).fetchall()
    expected = [
        *((name, name.encode(codec).hex(), True, 0, None) for name, (codec, _) in GAMES.items()),
        ("collection.sgf", None, False, 0, "first"),
        ("collection.sgf", None, False, 2, "third"),
        ("棋谱/utf8/古力.sgf", None, False, 0, "古力"),
        ("기보/조훈현.sgf", tar_name.hex(), True, 0, "조훈현"),
    ]
    players = {"棋谱/2019/柯洁-朴廷桓.sgf": "柯洁", "棋譜/本因坊戦.sgf": "井山", "기보/이세돌.sgf": "이세돌"}
    expected = [(m, r, g, t, p if p is not None else players[m]) for m, r, g, t, p in expected]
    assert games == sorted(expected, key=lambda row: (row[0], row[3]))
    rejects = con.execute(
        "SELECT member, member_raw, member_name_guessed, tree_index, reason FROM read_parquet(?) ORDER BY ALL",
        [str(folder / "rejects.parquet")],
    ).fetchall()
    assert rejects == [
        ("collection.sgf", None, False, 1, "truncated"),
        ("棋谱/说明.txt", readme.hex(), True, None, "not_sgf_member"),
    ]
