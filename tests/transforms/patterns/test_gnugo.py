"""Don't-care templates in GNU Go's pattern-database syntax."""

from __future__ import annotations

import duckdb

from gopat.transforms.patterns.gnugo import export_gnugo
from gopat.transforms.patterns.templates import build_dont_care_templates
from tests.transforms.analytics import analytics_oracles as O


def _templates_from(keys: list[str], family: str = "sq3") -> duckdb.DuckDBPyConnection:
    """A connection whose pattern_stats holds the canonical forms of `keys` (8 symmetries), built templates."""
    perms = O.square_perms(3)
    rows = {(8, O.canonical(key, perms, False)): (1000 + i, 10 + i) for i, key in enumerate(keys)}
    con = duckdb.connect()
    O.pattern_stats_table(con, rows, family)
    build_dont_care_templates(con, families=[family], min_occurrence=1)
    return con


def test_gnugo_export_blocks() -> None:
    # the centre is the candidate; a corner stone of either colour or none -> one '?' corner;
    # White to move, an edge column, a corner cell empty or white -> 'o' = the mover's stone or empty
    con = _templates_from(["1000000000", "1000000001", "1000000002", "2333000000", "2333000200"])
    assert con.execute("SELECT template, patterns, occurrence, chosen FROM dont_care_templates").fetchall() == [
        ("100000000?", 3, 3003, 33),
        ("2003003o03", 2, 2007, 27),
    ]
    text = export_gnugo(con)
    blocks = text.split("Pattern ")[1:]
    assert blocks == [
        "sq3_8_1\n# 33/3003 chosen/occurrence, covers 3 patterns, template 100000000?\n\n...\n.*.\n..?\n\n"
        ":8,-,value(33)\n\n",
        "sq3_8_2\n# 27/2007 chosen/occurrence, covers 2 patterns, template 2003003o03\n\n..|\n.*|\no.|\n\n"
        ":8,-,value(27)\n",
    ]
    assert text.startswith("# ") and export_gnugo(con, top=1).count("Pattern ") == 1


def test_gnugo_export_relative_colours_and_corner() -> None:
    # Black to move: a white stone or empty is 'x' (the opponent or empty) in GNU Go's view
    con = _templates_from(["1333000000", "1333000200", "1333300300", "1333300301", "1333300302"])
    text = export_gnugo(con)
    assert "\n..|\n.*|\nx.|\n" in text
    assert "\n|.?\n|*.\n+--\n" in text
    diagrams = dict(con.execute("SELECT template, diagram FROM dont_care_templates").fetchall())
    assert diagrams == {
        "1003003o03": "Black to move\n..#\n..#\no.#",
        "130?300333": "Black to move\n#.?\n#..\n###",
    }
