"""parse_games on the hostile files of ../shared/hostile: each outcome and header read by hand."""

from pathlib import Path

import pytest

from gopat.transforms.games.errors import RejectError
from gopat.transforms.games.parsing import parse_games
from tests.transforms.games.parsed import SNAKE, check_invariants, only, reason

# --- hostile files -------------------------------------------------------------------------

# file -> ("reject", reason) or (trees, moves in the first tree, flags that must be present)
HOSTILE = {
    "crafted_empty.sgf": ("reject", "empty_file"),
    "crafted_whitespace_only.sgf": ("reject", "empty_file"),
    "crafted_html_error_page.sgf": ("reject", "not_sgf"),
    "crafted_not_sgf_aaa.sgf": ("reject", "not_sgf"),
    "crafted_semicolons_only.sgf": ("reject", "not_sgf"),
    "sabaki_inline_no_parens.sgf": ("reject", "not_sgf"),
    "crafted_unescaped_bracket_in_value.sgf": ("reject", "parse_error"),
    "gogui_verbose-property-names.sgf": ("reject", "parse_error"),
    "katago_inline_branching_whitespace.sgf": ("reject", "parse_error"),
    "derived_truncated_mid_property.sgf": ("reject", "truncated"),
    "derived_truncated_mid_utf8_char.sgf": ("reject", "truncated"),
    "katago_inline_giant_37x37.sgf": ("reject", "board_too_large"),
    "sgfmill_sz27.sgf": ("reject", "board_too_large"),
    "sgfmill_sz26_edge_moves.sgf": ("reject", "board_too_large"),
    "sgfmill_sz_nonnumeric.sgf": ("reject", "bad_board_size"),
    "katago_inline_rect_17x3.sgf": ("reject", "board_not_square"),
    "katago_inline_rect_9x17_passes.sgf": ("reject", "board_not_square"),
    "gogui_size-after-invalid-points.sgf": ("reject", "setup_off_board"),
    "katago_cornermoves.sgf": (1, 4, set()),
    "derived_extra_close_paren.sgf": (1, 4, set()),
    "derived_leading_newline.sgf": (1, 4, set()),
    "derived_nul_bytes.sgf": (1, 4, set()),
    "derived_missing_final_paren.sgf": (1, 4, {"repaired_missing_close"}),
    "sgfmill_truncated_variation.sgf": (1, 3, {"repaired_missing_close"}),
    "sabaki_inline_missing_root_semicolon.sgf": (1, 2, {"repaired_missing_semicolon"}),
    "sabaki_nihon-kiin.sgf": (1, 8, {"repaired_missing_semicolon"}),
    "sabaki_inline_nodes_outside_tree.sgf": (
        1, 2, {"repaired_missing_paren", "repaired_missing_close"}
    ),
    "sabaki_inline_empty_variations.sgf": (1, 2, {"repaired_empty_variation"}),
    "sgfmill_empty_variation.sgf": (1, 1, {"repaired_empty_variation"}),
    "crafted_deep_nesting_50000.sgf": (1, 50000, set()),
    "crafted_huge_comment_2MiB.sgf": (1, 3, set()),
    "gogui_ff4_ex.sgf": (2, 13, set()),
    "sgfmill_collection_with_junk.sgf": (2, 1, set()),
    "crafted_backslash_before_close_collection.sgf": (4, 1, set()),
    "libsgfc_deep-game-tree.sgf": (5, 0, {"no_moves"}),
    "libsgfc_compressed-point-list.sgf": (1, 0, {"skipped_trees", "setup_merged", "no_moves"}),
    "crafted_18x18_ss_pass.sgf": (1, 2, {"move_off_board"}),
    "crafted_offboard_move_19x19.sgf": (1, 1, {"move_off_board"}),
    "gogui_invalidmove.sgf": (1, 2, {"move_off_board"}),
    "gogui_human-readable.sgf": (1, 0, {"move_malformed", "no_moves"}),
    "crafted_whitespace_pass.sgf": (1, 5, {"whitespace_pass"}),
    "katago_inline_multimove_nodes.sgf": (1, 0, {"multiple_moves_in_node"}),
    "sgfmill_setup_after_root.sgf": (1, 1, {"setup_in_main_line"}),
    "katago_foxlike.sgf": (1, 2, {"setup_merged"}),
    "crafted_fox_km50_ha2.sgf": (1, 2, {"setup_merged"}),
    "crafted_occupied_point_19x19.sgf": (1, 5, set()),
    "katago_inline_suicide.sgf": (1, 1, set()),
    "katago_inline_white_twice.sgf": (1, 10, set()),
    "sgfmill_sample_tt_pass_9x9.sgf": (1, 4, set()),
    "sabaki_utf8bom.sgf": (1, 164, {"bom"}),
    "sabaki_utf16le.sgf": (1, 164, {"bom"}),
    "libsgfc_encoding-utf16-nobom.sgf": (1, 0, {"utf16_no_bom"}),
    "crafted_bom_utf8_with_CA_latin1.sgf": (1, 1, {"bom", "ca_mismatch"}),
    "crafted_ca_gb2312_but_utf8.sgf": (1, 3, {"ca_mismatch"}),
    "crafted_ca_utf8_but_gbk.sgf": (1, 2, {"ca_mismatch"}),
    "sgfmill_empty_CA.sgf": (1, 0, {"ca_unknown"}),
    "sgfmill_unknown_encoding.sgf": (1, 0, {"ca_unknown"}),
}


@pytest.mark.parametrize(("name", "expected"), sorted(HOSTILE.items()))
def test_hostile_file_outcome(hostile_dir: Path, name: str, expected: tuple) -> None:
    data = (hostile_dir / "files" / name).read_bytes()
    if expected[0] == "reject":
        assert reason(data) == expected[1]
        return
    trees, moves, flags = expected
    records = parse_games(data)
    assert len(records) == trees
    assert len(records[0].moves) == moves
    assert flags <= set(records[0].flags)


# file -> (header, value), values read by hand from the file's bytes and the README
HOSTILE_NAMES = {
    "crafted_gbk_no_ca.sgf": ("PB", "聂卫平"),
    "crafted_ca_utf8_but_gbk.sgf": ("PB", "聂卫平"),
    "crafted_ca_gb2312_but_utf8.sgf": ("PB", "柯洁"),
    "crafted_empty_KM_chinese_result.sgf": ("RE", "白胜43.5目"),
    "crafted_bom_utf8_with_CA_latin1.sgf": ("PB", "Müller"),
    "sabaki_chinese.sgf": ("PB", "古力"),
    "sabaki_japanese.sgf": ("PB", "井山 裕太"),
    "sabaki_korean.sgf": ("PB", "이세돌"),
    "sabaki_utf16le.sgf": ("PB", "Kitani Minoru"),
    "crafted_fox_km375.sgf": ("KM", "375"),
}


@pytest.mark.parametrize(("name", "expected"), sorted(HOSTILE_NAMES.items()))
def test_hostile_header_text(hostile_dir: Path, name: str, expected: tuple[str, str]) -> None:
    key, value = expected
    assert parse_games((hostile_dir / "files" / name).read_bytes())[0].headers[key] == value


def test_every_hostile_file_parses_or_rejects(hostile_dir: Path) -> None:
    files = sorted((hostile_dir / "files").iterdir())
    assert len(files) > 90
    outcomes = {}
    for path in files:
        try:
            records = parse_games(path.read_bytes())
        except RejectError as exc:
            assert SNAKE.match(exc.reason) and str(exc)  # noqa: PT017 - a reject is one allowed outcome
            outcomes[path.name] = exc.reason
        else:
            check_invariants(records)
            outcomes[path.name] = "ok"
    assert set(HOSTILE) <= set(outcomes)
    assert sum(v == "ok" for v in outcomes.values()) > 70


def test_empty_km_is_none(hostile_dir: Path) -> None:
    record = only((hostile_dir / "files" / "crafted_empty_KM_chinese_result.sgf").read_bytes())
    assert record.headers["KM"] is None  # KM[] is absent information, not ""
