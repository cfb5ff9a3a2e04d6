"""The diagram parser of `gopat search`: golden diagrams, good and bad, and the text it draws back."""

from __future__ import annotations

import numpy as np
import pytest

from gopat.transforms.search.diagram import BLACK, BLACK_OR_EMPTY, EMPTY, WHITE, diagram_text, parse_diagram


def test_a_corner_with_spaces_between_cells() -> None:
    pattern = parse_diagram("\n+ - - -\n| . . .\n| . X o\n", name="corner.txt")
    assert (pattern.top, pattern.bottom, pattern.left, pattern.right) == (True, False, True, False)
    assert pattern.cells.tolist() == [[EMPTY, EMPTY, EMPTY], [EMPTY, BLACK, 5]]
    assert diagram_text(pattern) == "+---\n|...\n|.Xo"


def test_right_and_bottom_edges_and_labels() -> None:
    pattern = parse_diagram("xO|\nX?|\n--+\n", name="p")
    assert (pattern.top, pattern.bottom, pattern.left, pattern.right) == (False, True, False, True)
    assert np.array_equal(pattern.cells, [[BLACK_OR_EMPTY, WHITE], [BLACK, 3]])
    assert diagram_text(pattern, labels={(1, 1): "A"}) == "xO|\nXA|\n--+"


@pytest.mark.parametrize(("text", "reason"), [
    ("", "the diagram is empty"),
    ("X.\n\n.O\n", "blank line inside the diagram (line 2)"),
    ("..X\n.O\n", "line 2 has 2 cells, line 1 has 3 (ragged rows)"),
    (".|X\n...\n", "line 1: edge mark '|' inside the pattern (edges are the first or last row or column)"),
    ("X-.\n", "line 1: edge mark '-' inside the pattern (edges are the first or last row or column)"),
    ("---\n.X.\n---\n.O.\n", "line 3: edge mark '-' inside the pattern (edges are the first or last row or column)"),
    (".X.\n.Z.\n", "line 2: unknown character 'Z' (cells are . X O ? x o)"),
    ("...\n.?.\n", "the pattern needs at least one stone (X or O)"),
    ("|X.\n.O.\n", "line 2: the left and right edges (|) must be drawn on every row or none"),
    ("----\n|X.\n",
     "line 1: edge row '----' does not fit the cells, expected '+--' (+ at a corner where two edges meet)"),
    ("+--\n", "the diagram has edge rows but no cells"),
])
def test_a_bad_diagram_names_the_file_and_the_reason(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=r"^bad\.txt: ") as error:
        parse_diagram(text, name="bad.txt")
    assert str(error.value) == f"bad.txt: {reason}"
