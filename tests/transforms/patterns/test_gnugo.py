"""Don't-care templates as a GNU Go pattern database (docs/patterns.md#gnu-go-export)."""

from __future__ import annotations

import duckdb
import pytest

from gopat.transforms.patterns.gnugo import export_gnugo
from gopat.transforms.patterns.templates import build_dont_care_templates
from tests.transforms.analytics import analytics_oracles as O
from tests.transforms.patterns.gnugo_format import parse_database


def _templates_from(keys: list[str]) -> duckdb.DuckDBPyConnection:
    """A connection whose pattern_stats holds `keys` under 8 and 16 symmetries, with its templates built."""
    perms = O.square_perms(3)
    rows: dict[tuple[int, str], tuple[int, int]] = {}
    for i, key in enumerate(keys):
        for symmetry, swap in ((8, False), (16, True)):
            old = rows.get((symmetry, O.canonical(key, perms, swap)), (0, 0))
            rows[symmetry, O.canonical(key, perms, swap)] = (old[0] + 1000 + i, old[1] + 10 + i)
    con = duckdb.connect()
    O.pattern_stats_table(con, rows, "sq3")
    build_dont_care_templates(con, families=["sq3"], min_occurrence=1)
    return con


def _blocks(text: str) -> list[str]:
    return text.split("\nPattern ")[1:]


def test_a_stoneless_template_is_left_out_and_counted_in_the_header() -> None:
    # the empty square with a corner of any colour: one '?' template, no stone -> left out;
    # White to move by an edge, a corner empty or white: 'o' (the mover's stone or empty), no stone -> left out;
    # Black to move in a corner beside a white stone (X), the cell beside the move any colour: written
    con = _templates_from(["1000000000", "1000000001", "1000000002", "2333000000", "2333000200",
                           "1333300302", "1333300312", "1333300322"])
    text = export_gnugo(con)
    header, patterns = parse_database(text)
    assert header[-1] == ("# Left out: 2 of 3 templates hold no stone (GNU Go anchors a pattern at a stone); "
                          "chosen 60 of 108 (55.6%).")
    assert text.count("\nattribute_map general\n") == 1
    diagram = "X.|\n?*|\n--+\n"
    assert _blocks(text) == [
        f"sq3_8_1\n# 48/3018 chosen/occurrence, covers 3 patterns, template 1203?03333\n\n{diagram}\n"
        f":8,-,value(0.64)\n\n{diagram}\n;color==BLACK\n",
    ]
    assert [(p.name, p.values, p.constraints) for p in patterns] == [("sq3_8_1", {"value": 0.64}, ["color==BLACK"])]


def test_colour_twins_get_constraints_under_8_symmetries_and_merge_under_16() -> None:
    # Black to move beside a black stone, White to move beside a white stone, a far corner any colour:
    # the same GNU Go pattern twice, once per colour
    con = _templates_from(["1010000000", "1010000001", "1010000002", "2020000000", "2020000001", "2020000002"])
    _, eight = parse_database(export_gnugo(con))
    rows = ["...", ".*O", "?.."]
    assert [(p.name, p.rows, p.values, p.constraints) for p in eight] == [
        ("sq3_8_1", rows, {"value": 0.56}, ["color==WHITE"]),  # 40 x 42 / 3012
        ("sq3_8_2", rows, {"value": 0.44}, ["color==BLACK"]),  # 40 x 33 / 3003
    ]
    text = export_gnugo(con, symmetry=16)
    _, sixteen = parse_database(text)
    assert [(p.name, p.rows, p.values, p.constraints) for p in sixteen] == [("sq3_16_1", rows, {"value": 0.5}, [])]
    assert "16 symmetries hold for either colour" in text


def test_edges_and_wildcards_relative_to_the_mover() -> None:
    # Black to move at the right edge beside a black stone (O), a corner white or empty: 'x' for Black
    con = _templates_from(["1003103003", "1003103203"])
    _, patterns = parse_database(export_gnugo(con))
    assert [(p.rows, p.edges) for p in patterns] == [(["..", "O*", "x."], {"east"})]


@pytest.mark.parametrize(("text", "rule"), [
    ("Pattern a\n\n.*O\n\n:8,-,value(2)\n", "value fields need an attribute_map"),
    ("attribute_map general\n\nPattern a\n\n.*O\n\n:8,-,value(71)\n", "outside 0..70"),
    ("Pattern a\n\n.*.\n\n:8,-\n", "an anchor"),
    ("Pattern a\n\n**O\n\n:8,-\n", "exactly one"),
    ("Pattern a\n\n.*O\n..\n\n:8,-\n", "rectangle"),
    ("Pattern a\n\n|.*O\n...\n\n:8,-\n", "every row or none"),
    ("Pattern a\n\n.*O|\n...|\n---\n\n:8,-\n", "east edge"),
    ("Pattern a\n\n.*O\n--\n\n:8,-\n", "one '-' per column"),
    ("Pattern a\n\n.*O\n\n:8,-\n\nPattern a\n\nO*.\n\n:8,-\n", "unique"),
    ("Pattern a\n\n.*O\n\n:8,q\n", "classification"),
    ("Pattern a\n\n.*O\n\n:8,-\n\n;color==BLACK\n", "constraint diagram"),
    ("Pattern a\n\n.*O\n\n:8,-\n\n.*X\n\n;color==BLACK\n", "as in the diagram"),
    ("Pattern a\n\n.*O\n\n:8,-\n\nPattern b\n\nattribute_map general\n", "after the first pattern"),
])
def test_the_checker_rejects_each_broken_rule(text: str, rule: str) -> None:
    with pytest.raises(AssertionError, match=rule):
        parse_database(text)
