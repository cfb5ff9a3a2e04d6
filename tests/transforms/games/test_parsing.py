"""parse_games: the tiny corpus against sgfmill, hand-checked boards and files."""

import re
import tarfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from sgfmill import sgf, sgf_grammar, sgf_moves

from gopat.transforms.games.parsing import HEADER_KEYS, GameRecord, parse_games
from tests.transforms.games.parsed import check_invariants, only, reason, sgfmill_reference

# --- tiny corpus ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_files(tiny_archive: Path) -> dict[str, bytes]:
    with tarfile.open(tiny_archive) as archive:
        return {
            info.name: archive.extractfile(info).read()
            for info in archive.getmembers()
            if info.isfile()
        }


def test_tiny_all_parse_and_match_sgfmill(tiny_files: dict[str, bytes]) -> None:
    assert len(tiny_files) == 200
    for name, data in tiny_files.items():
        records = parse_games(data)
        check_invariants(records)
        assert len(records) == 1, name
        record = records[0]
        assert (record.board_size, record.setup, record.moves) == sgfmill_reference(data), name


def test_tiny_headers_match_sgfmill_for_utf8_files(tiny_files: dict[str, bytes]) -> None:
    compared = 0
    for name, data in tiny_files.items():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        root = sgf.Sgf_game.from_bytes(data, override_encoding="utf-8").get_root()
        record = parse_games(data)[0]
        for key in HEADER_KEYS:
            raw = root.get_raw(key) if root.has_property(key) else None
            expected = None if raw is None else sgf_grammar.simpletext_value(raw).decode().strip()
            assert record.headers[key] == (expected or None), (name, key)
            compared += raw is not None
    assert compared > 1300


def test_tiny_ca_utf8_file(tiny_files: dict[str, bytes]) -> None:
    data = tiny_files["tiny/cwi/Toyota/04/S04.sgf"]
    assert b"CA[UTF-8]" in data and b"PW[Vladimiro Gonz\xc3\xa1lez]" in data
    record = only(data)
    assert record.headers["PW"] == "Vladimiro González"
    assert record.headers["PB"] == "Fernando Aguilar"


@pytest.mark.parametrize(
    ("name", "player"),
    [
        ("tiny/cwi/Agon/21/Q07.sgf", "須藤真理子"),
        ("tiny/cwi/Discovery/04/D03.sgf", "髙地祐希"),
        ("tiny/foxwq-pro/Pro/3p/1382618295019999655.sgf", "芈昱廷"),
        ("tiny/foxwq-pro/Pro/7p/1496404214019999638.sgf", "신진서"),
    ],
)
def test_tiny_non_ascii_names(tiny_files: dict[str, bytes], name: str, player: str) -> None:
    data = tiny_files[name]
    assert b"PB[" + player.encode() + b"]" in data
    assert only(data).headers["PB"] == player


def test_tiny_names_valid_as_utf8_in_lossy_fox_files_are_kept(tiny_files: dict[str, bytes]) -> None:
    checked = 0
    for name, data in tiny_files.items():
        if "foxwq" not in name:
            continue
        record = only(data)
        for key in ("PB", "PW"):
            raw = re.search(rb"(?<![A-Z])" + key.encode() + rb"\[([^\]\\]*)\]", data).group(1)
            try:
                expected = raw.decode("utf-8").strip()
            except UnicodeDecodeError:
                continue  # damaged upstream: no exact name to compare with
            assert record.headers[key] == expected, (name, key)
            checked += 1
    assert checked >= 20  # 25 of the 40 Fox names are intact UTF-8


def _seconds(parse: Callable[[bytes], object], files: list[bytes]) -> float:
    start = time.perf_counter()
    for data in files:
        parse(data)
    return time.perf_counter() - start


def _sgfmill_parse(data: bytes) -> None:
    sgf.Sgf_game.from_bytes(data).get_main_sequence()


def test_tiny_throughput_beats_sgfmill(tiny_files: dict[str, bytes]) -> None:
    """parse_games reads the tiny corpus faster than sgfmill's parser, the fastest of 3 runs each, alternated
    so that both see the same load."""
    files = list(tiny_files.values())
    rounds = [(_seconds(parse_games, files), _seconds(_sgfmill_parse, files)) for _ in range(3)]
    ours, theirs = min(r[0] for r in rounds), min(r[1] for r in rounds)
    assert theirs / ours > 1.0, f"parse_games {len(files) / ours:.0f} files/s, sgfmill {len(files) / theirs:.0f}"


# --- hand-made files -----------------------------------------------------------------------


def board_of(record: GameRecord) -> list[str]:
    """ASCII board of setup then moves (no captures: the fixture has none)."""
    rows = [["."] * record.board_size for _ in range(record.board_size)]
    for colour, row, col in record.setup + record.moves:
        if row >= 0:
            rows[row][col] = "XO"[colour - 1]
    return ["".join(r) for r in rows]


def test_ascii_board_5x5(files_dir: Path) -> None:
    record = only((files_dir / "sgf" / "ascii_board_5x5.sgf").read_bytes())
    assert record.board_size == 5 and record.tree_index == 0
    assert record.setup == ((1, 0, 0), (1, 4, 4), (2, 0, 2), (2, 1, 2))
    assert record.moves == (
        (2, 2, 2), (1, 4, 3), (2, -1, -1), (1, -1, -1), (2, 3, 1), (1, 3, 4), (2, 1, 4)
    )
    assert board_of(record) == [
        "X.O..",
        "..O.O",
        "..O..",
        ".O..X",
        "...XX",
    ]
    assert record.headers == {
        "PB": "Black ] player", "PW": "White  player", "BR": None, "WR": None, "DT": None,
        "EV": None, "RE": "W+R", "KM": "0.5", "HA": "2", "RU": None,
    }
    assert record.flags == () and record.encoding == "utf-8"


def test_sgf_letters_map_to_row_from_top_and_column_from_left() -> None:
    record = only(b"(;SZ[19];B[pd];W[dp];B[aa];W[sa];B[as])")
    assert record.moves == ((1, 3, 15), (2, 15, 3), (1, 0, 0), (2, 0, 18), (1, 18, 0))


def test_tt_is_a_pass_only_up_to_19() -> None:
    assert only(b"(;SZ[19];B[tt];W[])").moves == ((1, -1, -1), (2, -1, -1))
    assert only(b"(;SZ[21];B[tt];W[])").moves == ((1, 19, 19), (2, -1, -1))
    record = only(b"(;SZ[9];B[ee];W[tt];B[jj];W[aa])")
    assert record.moves == ((1, 4, 4), (2, -1, -1))
    assert "move_off_board" in record.flags


def test_off_board_and_malformed_moves_end_the_move_list() -> None:
    record = only(b"(;SZ[9];B[ee];W[ff];B[ej];W[aa])")
    assert record.moves == ((1, 4, 4), (2, 5, 5)) and "move_off_board" in record.flags
    record = only(b"(;B[pd];W[Q16];B[dd])")
    assert record.moves == ((1, 3, 15),) and "move_malformed" in record.flags
    record = only(b"(;B[pd];W[PD])")
    assert record.moves == ((1, 3, 15),) and "move_off_board" in record.flags


def test_node_with_black_and_white_ends_the_move_list() -> None:
    record = only(b"(;B[pd];W[dd];B[pp]W[dp];B[qq])")
    assert record.moves == ((1, 3, 15), (2, 3, 3))
    assert "multiple_moves_in_node" in record.flags
    record = only(b"(;B[pd][dd];W[pp])")
    assert record.moves == () and {"multiple_moves_in_node", "no_moves"} <= set(record.flags)


def test_setup_before_the_first_move_is_merged_after_it_stops() -> None:
    record = only(b"(;SZ[9]AB[aa];AB[bb]AW[cc];AE[aa]W[dd];B[ee])")
    assert record.setup == ((1, 1, 1), (2, 2, 2))
    assert record.moves == ((2, 3, 3), (1, 4, 4))
    assert "setup_merged" in record.flags
    record = only(b"(;SZ[9]AB[aa];W[dd];AW[ee];B[ff])")
    assert record.setup == ((1, 0, 0),) and record.moves == ((2, 3, 3),)
    assert "setup_in_main_line" in record.flags


def test_compressed_setup_lists_expand_to_rectangles() -> None:
    record = only(b"(;SZ[9]AB[aa:bc][ii]AW[ca:ca][]HA[2])")
    assert record.setup == (
        (1, 0, 0), (1, 0, 1), (1, 1, 0), (1, 1, 1), (1, 2, 0), (1, 2, 1), (1, 8, 8), (2, 0, 2)
    )
    assert reason(b"(;SZ[9]AB[aa:jj])") == "setup_off_board"


def test_whitespace_and_case_tolerance() -> None:
    record = only(b"(\n; SiZe [9] PlayerBlack[ x ]\r\n;B [ee] ; W[ ]\n)")
    assert record.board_size == 9 and record.headers["PB"] == "x"
    assert record.moves == ((1, 4, 4), (2, -1, -1)) and "whitespace_pass" in record.flags


@pytest.mark.parametrize(
    ("size", "expected"),
    [(b"2", 2), (b" 25 ", 25), (b"19:19", 19), (b"7", 7)],
)
def test_board_sizes_accepted(size: bytes, expected: int) -> None:
    assert only(b"(;SZ[" + size + b"];B[aa])").board_size == expected


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        (b"26", "board_too_large"),
        (b"52", "board_too_large"),
        (b"1", "bad_board_size"),
        (b"0", "bad_board_size"),
        (b"x", "bad_board_size"),
        (b"9:13", "board_not_square"),
    ],
)
def test_board_sizes_rejected(size: bytes, expected: str) -> None:
    assert reason(b"(;SZ[" + size + b"];B[aa])") == expected


def test_two_trees_with_junk(files_dir: Path) -> None:
    first, second = parse_games((files_dir / "sgf" / "two_trees.sgf").read_bytes())
    assert (first.tree_index, first.board_size, first.headers["PB"]) == (0, 9, "first")
    assert first.moves == ((1, 4, 4), (2, 2, 2)) and first.setup == ()
    assert (second.tree_index, second.board_size, second.headers["PB"]) == (1, 13, "second")
    assert second.setup == ((1, 3, 3), (1, 9, 9)) and second.moves == ((2, 6, 6),)


def test_unusable_tree_is_skipped_and_flagged_on_the_others() -> None:
    records = parse_games(b"(;SZ[30];B[aa])(;SZ[9];B[bb])(;GM[2];B[cc])")
    assert [(r.tree_index, r.moves) for r in records] == [(1, ((1, 1, 1),))]
    assert "skipped_trees" in records[0].flags
    assert reason(b"(;GM[3]SZ[9];B[aa])(;SZ[40])") == "not_go"


def test_fox_file_without_leading_paren_is_repaired(files_dir: Path) -> None:
    data = (files_dir / "sgf" / "fox_missing_paren.sgf").read_bytes()
    record = only(data)
    assert record.moves == ((1, 3, 15), (2, 15, 3), (1, 15, 15), (2, 3, 3), (1, 2, 5))
    assert "repaired_missing_paren" in record.flags
    assert record.headers["PB"] == "柯洁" and record.headers["KM"] == "375"
    # the other name lost a byte to '?': it cannot be read exactly and says so
    assert "\ufffd" in record.headers["PW"] and "encoding_lossy" in record.flags
    # sgfmill alone reads only the first variation of such a file
    assert len(sgf_moves.get_setup_and_moves(sgf.Sgf_game.from_bytes(data))[1]) == 2


def test_declared_shift_jis_with_backslash_trail_bytes(files_dir: Path) -> None:
    data = (files_dir / "sgf" / "shift_jis_backslash.sgf").read_bytes()
    assert b"\x95\\\x83\\]" in data  # both characters end in 0x5C, the SGF escape byte
    record = only(data)
    assert record.encoding == "shift_jis"
    assert record.headers["PB"] == "表ソ" and record.headers["PW"] == "井山裕太"
    assert record.moves == ((1, 3, 15), (2, 3, 3))
    # read as bytes, the trail bytes escape the ']' and PB swallows PW
    root = sgf.Sgf_game.from_bytes(data).get_root()
    assert not root.has_property("PW")


def test_utf8_name_inside_a_gbk_file() -> None:
    data = b"(;PB[" + "聂卫平".encode("gbk") + b"]PW[" + "曹薰铉".encode() + b"];B[pd])"
    record = only(data)
    assert record.encoding == "gb18030"
    assert (record.headers["PB"], record.headers["PW"]) == ("聂卫平", "曹薰铉")
    assert "encoding_mixed" in record.flags


def test_duplicate_header_keeps_the_first_value() -> None:
    record = only(b"(;RE[B+R]PB[a]RE[W+0.5];B[aa])")
    assert record.headers["RE"] == "B+R" and "duplicate_header" in record.flags


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"hello world", "not_sgf"),
        (b"(;GM[1]PB[abc", "truncated"),
        (b"(;GM[1];B[aa];W", "truncated"),
        (b"(;B[aa]]junk;W[bb])", "parse_error"),
        (b"(;B[aa](;W[bb])(;W[cc]);B[dd])", "parse_error"),
        (b" \n\t", "empty_file"),
    ],
)
def test_rejects(data: bytes, expected: str) -> None:
    assert reason(data) == expected
