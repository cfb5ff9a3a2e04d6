"""Diagrams of pattern keys and templates: text against a slow reference, SVG by its parsed elements; stone counts."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gopat.transforms.patterns import render
from gopat.transforms.patterns.families import FAMILIES
from gopat.transforms.patterns.keys import decode, key_string, parse_key
from gopat.transforms.patterns.render import pattern_text, stones

NS = "{http://www.w3.org/2000/svg}"
FAMILY_NAMES = sorted(FAMILIES)


def slow_text(family: str, key: int) -> str:
    """Reference text diagram, one character at a time from the decoded digits."""
    layout = FAMILIES[family].layout
    digits = decode(key, layout.n_digits)
    rows = [r for r, _ in layout.points]
    cols = [c for _, c in layout.points]
    height, width = int(max(rows) - min(rows)) + 1, int(max(cols) - min(cols)) + 1
    planes = []
    for plane, name in enumerate(layout.planes):
        grid = [[" "] * width for _ in range(height)]
        for j, (r, c) in enumerate(layout.points):
            digit = digits[1 + plane * len(layout.points) + j]
            grid[int(r - min(rows))][int(c - min(cols))] = ".XO#"[digit] if name == "stone" else str(digit)
        planes.append(grid)
    lines = ["  ".join("".join(grid[r]) for grid in planes).rstrip() for r in range(height)]
    return "\n".join([("Black" if digits[0] == 1 else "White") + " to move", *lines])


@st.composite
def family_keys(draw: st.DrawFn) -> tuple[str, list[int]]:
    family = draw(st.sampled_from(FAMILY_NAMES))
    n = FAMILIES[family].layout.n_digits
    cells = st.integers(0, 4 ** (n - 1) - 1)
    keys = draw(st.lists(st.tuples(st.sampled_from([1, 2]), cells), min_size=1, max_size=20))
    return family, [(colour << (2 * (n - 1))) | rest for colour, rest in keys]


@settings(max_examples=80, deadline=None)
@given(family_keys())
def test_text_of_keys_matches_the_slow_reference(case: tuple[str, list[int]]) -> None:
    family, keys = case
    n = FAMILIES[family].layout.n_digits
    vectorised = render.pattern_texts(family, np.array(keys, dtype=np.int64))
    assert vectorised.tolist() == [slow_text(family, key) for key in keys]
    assert [render.pattern_text(family, key_string(key, n)) for key in keys] == vectorised.tolist()


def test_hand_checked_texts() -> None:
    seed = parse_key("110000020000013000003000003")
    assert render.pattern_text("d12", seed) == "\n".join([
        "Black to move",
        "  X      3",
        " ...    000",
        "..O..  00300",
        " ...    000",
        "  X      3",
    ])
    assert render.pattern_text("dia13", "2x00000o00000?") == "White to move\n  x\n ...\n..o..\n ...\n  ?"
    # BLOCK4_POINTS: the first digit is A-1 at (0, 0), the last D-4 at (2, 1)
    assert render.pattern_text("blk4", "1" + "1" + "0" * 14 + "2") == "Black to move\nX...\n....\n.O..\n...."


@pytest.mark.parametrize(("family", "pattern", "message"), [
    ("sq3", 0, "not a sq3 key"),
    ("sq3", parse_key("3000000000"), "not a sq3 key"),
    ("sq3", -1, "not a sq3 key"),
    ("sq3", "100000000", "not a sq3 key or template"),
    ("sq3", "10000000000", "not a sq3 key or template"),
    ("sq3", "3000000000", "not a sq3 key or template"),
    ("sq3", "100000000z", "not a sq3 key or template"),
    ("sq3", "10000000é0", "symbols"),
    ("d12", "1" + "0" * 13 + "?" + "0" * 12, "not a d12 key or template"),
    ("nope", "1000000000", "unknown pattern family"),
])
def test_bad_patterns_are_value_errors(family: str, pattern: str | int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        render.pattern_text(family, pattern)
    with pytest.raises(ValueError, match=message):
        render.pattern_svg(family, pattern)


def test_empty_input_gives_no_texts() -> None:
    assert render.pattern_texts("sq3", np.zeros(0, dtype=np.int64)).tolist() == []
    assert render.pattern_texts("sq3", []).tolist() == []


def _svg(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == f"{NS}svg"
    return root


def _classed(root: ET.Element, tag: str, css_class: str) -> list[ET.Element]:
    return [e for e in root.iter(f"{NS}{tag}") if css_class in e.get("class", "").split()]


def _cell_of(element: ET.Element, cell: int, top: int, x: str = "cx", y: str = "cy") -> tuple[int, int]:
    """Grid (row, col) of an element centred on a point, from the documented geometry."""
    pad = cell // 2
    col = (float(element.get(x)) - pad - cell / 2) / cell
    row = (float(element.get(y)) - top - pad - cell / 2) / cell
    assert col == int(col) and row == int(row)
    return int(row), int(col)


@settings(max_examples=40, deadline=None)
@given(family_keys())
def test_pattern_svg_draws_each_cell_where_the_layout_puts_it(case: tuple[str, list[int]]) -> None:
    family, keys = case
    layout = FAMILIES[family].layout
    n_points = len(layout.points)
    rmin = min(r for r, _ in layout.points)
    cmin = min(c for _, c in layout.points)
    cell, top = 28, round(28 * 0.9)
    for key in keys:
        digits = decode(key, layout.n_digits)
        root = _svg(render.pattern_svg(family, key, cell=cell))
        stones = list(zip(layout.points, digits[1:], strict=False))  # the stone digits; a liberty plane follows
        expected = {colour: sorted((int(r - rmin), int(c - cmin)) for (r, c), d in stones if d == value)
                    for colour, value in (("black", 1), ("white", 2), ("off-board", 3))}
        for colour in ("black", "white"):
            drawn = sorted(_cell_of(e, cell, top) for e in _classed(root, "circle", colour)
                           if "stone" in e.get("class"))
            assert drawn == expected[colour]
        off = sorted(_cell_of(e, cell, top, "x", "y") for e in _classed(root, "rect", "off-board")
                     for e in [_shift(e, cell)])
        assert off == expected["off-board"]
        assert len(_classed(root, "rect", "on-board")) == n_points - len(off)
        assert _classed(root, "circle", "to-move")[0].get("class").endswith("black" if digits[0] == 1 else "white")
        liberties = [e.text for e in _classed(root, "text", "liberties")]
        if "liberty" in layout.planes:
            assert sorted(liberties) == sorted(str(digits[1 + n_points + j]) for j in range(n_points)
                                               if digits[1 + j] in (1, 2))
        else:
            assert liberties == []
        assert root.get("data-pattern") == key_string(key, layout.n_digits)


def _shift(rect: ET.Element, cell: int) -> ET.Element:
    """A copy of a cell rectangle with x, y moved from its corner to its centre."""
    copy = ET.Element(rect.tag, dict(rect.attrib))
    copy.set("x", str(float(rect.get("x")) + cell / 2))
    copy.set("y", str(float(rect.get("y")) + cell / 2))
    return copy


def test_candidate_and_last_move_marks() -> None:
    cell, top = 28, round(28 * 0.9)
    sq3 = _svg(render.pattern_svg("sq3", "2333300302", cell=cell))
    (mark,) = _classed(sq3, "rect", "candidate")
    assert _cell_of(_shift_mark(mark, cell), cell, top, "x", "y") == (1, 1)
    blk4 = _svg(render.pattern_svg("blk4", "1" + "0000" + "0000" + "0000" + "0001", cell=cell))
    # BLOCK4_POINTS order: A-4 is (1, 1) (empty), B-4 (1, 2), C-4 (2, 2), D-4 (2, 1) is the last digit (black)
    marks = sorted(_cell_of(_shift_mark(m, cell), cell, top, "x", "y") for m in _classed(blk4, "rect", "candidate"))
    assert marks == [(1, 1), (1, 2), (2, 2)]
    d12 = _svg(render.pattern_svg("d12", "110000020000013000003000003", cell=cell))
    assert _classed(d12, "rect", "candidate") == []
    assert _cell_of(_classed(d12, "circle", "last-move")[0], cell, top) == (2, 2)


def _shift_mark(rect: ET.Element, cell: int) -> ET.Element:
    copy = ET.Element(rect.tag, dict(rect.attrib))
    copy.set("x", str(float(rect.get("x")) + float(rect.get("width")) / 2))
    copy.set("y", str(float(rect.get("y")) + float(rect.get("height")) / 2))
    return copy


def test_edges_stubs_and_wildcards() -> None:
    cell, top, pad = 28, round(28 * 0.9), 14
    # top-left corner of the board: off-board row 0 and column 0; the edge runs along row 1 and column 1
    root = _svg(render.pattern_svg("sq3", "1333300300", cell=cell))
    (edge,) = _classed(root, "path", "edge")
    first_line = pad + cell + cell / 2
    for segment in edge.get("d").split("M")[1:]:
        start, step = segment.split("l")
        x, y = (float(v) for v in start.split())
        dx, dy = (float(v) for v in step.split())
        assert (dy == 0 and y == top + first_line) or (dx == 0 and x == first_line)
    assert len(_classed(root, "path", "stubs")) == 1  # towards row 3 and column 3, outside the 3x3
    # a template: wildcards are dashed circles with their symbol, never stones
    root = _svg(render.pattern_svg("dia13", "1?00x000000o00"))
    assert sorted(e.text for e in _classed(root, "text", "wildcard-symbol")) == ["?", "o", "x"]
    assert len(_classed(root, "circle", "wildcard")) == 3
    assert _classed(root, "circle", "stone") == []


def test_stones_and_diagram():
    example = parse_key("110000020000013000003000003")
    assert stones("d12", np.array([example, 1 << 52])).tolist() == [3, 0]  # its diagram: test_render.py
    assert pattern_text("sq3", parse_key("2" "333" "310" "302")) == "White to move\n###\n#X.\n#.O"
    assert stones("sq3", np.array([parse_key("2" "333" "310" "302")])).tolist() == [2]
    with pytest.raises(ValueError, match=r"is not a sq3 key"):
        pattern_text("sq3", parse_key("0" "000" "000" "000"))
