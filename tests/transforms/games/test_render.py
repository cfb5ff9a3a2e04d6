"""Whole-board diagrams: points, positions and sequences, terminal text and SVG."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from gopat.transforms.games import render as boards
from gopat.transforms.games.render import Mark

NS = "{http://www.w3.org/2000/svg}"


def _svg(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == f"{NS}svg"
    return root


def _classed(root: ET.Element, tag: str, css_class: str) -> list[ET.Element]:
    return [e for e in root.iter(f"{NS}{tag}") if css_class in e.get("class", "").split()]


def test_points_positions_and_sequences() -> None:
    assert boards.sgf_point("pd") == (3, 15)
    assert boards.point_name(3, 15) == "Q16"
    assert boards.point_name(18, 0) == "A1"
    assert boards.point_name(0, 8) == "J19"  # no I column
    assert boards.position_stones("B:cd dq|W:pd") == [(1, 3, 2), (1, 16, 3), (2, 3, 15)]
    assert boards.position_stones("B:|W:") == []
    stones, labels = boards.sequence_stones("pd dd qp")
    assert stones == [(1, 3, 15), (2, 3, 3), (1, 15, 16)]
    assert labels == {(3, 15): "1", (3, 3): "2", (15, 16): "3"}
    for bad in ("p", "PD", "zz", "p1"):
        with pytest.raises(ValueError, match=r"SGF point|an SGF point is two letters"):
            boards.sgf_point(bad)
    with pytest.raises(ValueError, match="a position is 'B:<points>\\|W:<points>'"):
        boards.position_stones("cd dq")
    with pytest.raises(ValueError, match=r"is off a 19x19 board"):
        boards.point_name(19, 0)


def test_board_text_hand_checked() -> None:
    text = boards.board_text(9, [(1, 2, 2), (2, 6, 6), (1, 0, 8)], marks=[Mark(4, 4, "a"), Mark(8, 0, "b")])
    assert text == "\n".join([
        "   A B C D E F G H J",
        " 9 . . . . . . . . X 9",
        " 8 . . . . . . . . . 8",
        " 7 . . X . . . + . . 7",
        " 6 . . . . . . . . . 6",
        " 5 . . . . a . . . . 5",
        " 4 . . . . . . . . . 4",
        " 3 . . + . . . O . . 3",
        " 2 . . . . . . . . . 2",
        " 1 b . . . . . . . . 1",
        "   A B C D E F G H J",
    ])
    with pytest.raises(ValueError, match=r"is not \(1\|2, row, col\) on a 9x9 board"):
        boards.board_text(9, [(1, 9, 0)])
    with pytest.raises(ValueError, match=r"is not \(1\|2, row, col\) on a 9x9 board"):
        boards.board_text(9, [(3, 0, 0)])
    with pytest.raises(ValueError, match=r"is off the board"):
        boards.board_text(9, marks=[Mark(0, 9, "a")])


def test_star_points() -> None:
    assert boards.star_points(19) == [(r, c) for r in (3, 9, 15) for c in (3, 9, 15)]
    assert boards.star_points(13) == [(3, 3), (3, 9), (6, 6), (9, 3), (9, 9)]
    assert boards.star_points(9) == [(2, 2), (2, 6), (4, 4), (6, 2), (6, 6)]
    assert boards.star_points(5) == []


def test_board_svg_elements() -> None:
    stones, labels = boards.sequence_stones("pd dd qp dp")
    cell = 20
    root = _svg(boards.board_svg(19, stones, labels=labels, cell=cell,
                                 marks=[Mark(2, 2, "A", href="#n1", tooltip="B C17"), Mark(16, 16, "B")]))
    margin = cell * 1.2

    def spot(e: ET.Element) -> tuple[int, int]:
        return int((float(e.get("cy")) - margin) / cell), int((float(e.get("cx")) - margin) / cell)

    assert sorted(spot(e) for e in _classed(root, "circle", "black")) == [(3, 15), (15, 16)]
    assert sorted(spot(e) for e in _classed(root, "circle", "white")) == [(3, 3), (15, 3)]
    assert sorted(e.text for e in _classed(root, "text", "label")) == ["1", "2", "3", "4"]
    assert len(_classed(root, "circle", "star")) == 9
    (coordinates,) = _classed(root, "g", "coord")
    assert [e.text for e in coordinates][:3] == ["A", "B", "C"] and len(coordinates) == 38
    (link,) = _classed(root, "a", "mark")
    assert link.get("href") == "#n1" and link.find(f"{NS}title").text == "B C17"
    assert len(_classed(root, "g", "mark")) == 1
    assert "diagram" in root.get("class").split() and "board" in root.get("class").split()
