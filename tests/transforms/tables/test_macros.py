"""The macros of the derived columns against the Python that draws and counts the same keys, and a slow reference."""

from __future__ import annotations

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gopat.transforms.patterns import render
from gopat.transforms.patterns.families import FAMILIES
from gopat.transforms.patterns.keys import key_string
from gopat.transforms.tables.columns import sgf_points
from gopat.transforms.tables.macros import install_macros
from tests.transforms.patterns.test_render import family_keys, slow_text


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    install_macros(connection)
    return connection


@settings(max_examples=80, deadline=None)
@given(family_keys())
def test_diagrams_and_stones_of_keys_match_python(con: duckdb.DuckDBPyConnection, case: tuple[str, list[int]]) -> None:
    family, keys = case
    texts = [key_string(key, FAMILIES[family].layout.n_digits) for key in keys]
    got = con.execute("SELECT pattern_diagram(?, k), pattern_stones(?, k) FROM unnest(?) WITH ORDINALITY t(k, i) "
                      "ORDER BY i", [family, family, texts]).fetchall()
    assert [diagram for diagram, _ in got] == [slow_text(family, key) for key in keys]
    assert [stones for _, stones in got] == render.stones(family, keys).tolist()


@st.composite
def templates(draw: st.DrawFn) -> tuple[str, str]:
    family = draw(st.sampled_from(["sq3", "dia13", "sq5", "blk4"]))
    n = len(FAMILIES[family].layout.points)
    cells = draw(st.lists(st.sampled_from("0123?xo"), min_size=n, max_size=n))
    return family, draw(st.sampled_from("12")) + "".join(cells)


@settings(max_examples=80, deadline=None)
@given(templates())
def test_diagrams_of_templates_match_python(con: duckdb.DuckDBPyConnection, case: tuple[str, str]) -> None:
    family, template = case
    assert con.execute("SELECT pattern_diagram(?, ?)", [family, template]).fetchone() == (
        render.pattern_text(family, template),)


def test_a_diagram_drawn_by_hand(con: duckdb.DuckDBPyConnection) -> None:
    assert con.execute("SELECT pattern_diagram('sq3', '2012003333')").fetchone() == (
        "White to move\n.XO\n..#\n###",)


def test_sgf_points_match_python(con: duckdb.DuckDBPyConnection) -> None:
    rows = [0, 3, 18, 24, None]
    cols = [0, 15, 18, 2, None]
    got = con.execute("SELECT sgf_point(r, c) FROM (SELECT unnest(?) AS r, unnest(?) AS c)", [rows, cols]).fetchall()
    assert [point for (point,) in got] == ["aa", "pd", "ss", "cy", None] == sgf_points(rows, cols).to_list()
