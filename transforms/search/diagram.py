"""The ASCII diagram of `gopat search`: cells, wildcards and drawn board edges (docs/search.md)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Cell codes; `ALLOWED[code, value]` says whether a board value (0 empty, 1 black, 2 white) satisfies it.
EMPTY, BLACK, WHITE, ANY, BLACK_OR_EMPTY, WHITE_OR_EMPTY = range(6)
CELL_CODES = {".": EMPTY, "X": BLACK, "O": WHITE, "?": ANY, "x": BLACK_OR_EMPTY, "o": WHITE_OR_EMPTY}
CELL_CHARS = {code: char for char, code in CELL_CODES.items()}
ALLOWED = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1], [1, 1, 0], [1, 0, 1]], dtype=np.int8)
SWAPPED = np.array([EMPTY, WHITE, BLACK, ANY, WHITE_OR_EMPTY, BLACK_OR_EMPTY], dtype=np.int8)
EDGE_CHARS = "|-+"


@dataclass(frozen=True, slots=True)
class Pattern:
    """A parsed diagram: `cells` (rows x columns of cell codes) and which sides are the board's edge."""

    cells: np.ndarray
    top: bool
    bottom: bool
    left: bool
    right: bool

    @property
    def shape(self) -> tuple[int, int]:
        rows, cols = self.cells.shape
        return int(rows), int(cols)


def parse_diagram(text: str, *, name: str) -> Pattern:
    """Parse a diagram; a bad one raises ValueError naming `name` and the reason, in one line.

    Spaces between cells are ignored, so `. X O` and `.XO` are the same row; blank lines before and
    after the diagram are ignored.
    """
    lines = [line.replace(" ", "").replace("\t", "") for line in text.splitlines()]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    if not lines:
        raise ValueError(f"{name}: the diagram is empty")
    if "" in lines:
        raise ValueError(f"{name}: blank line inside the diagram (line {lines.index('') + 1})")
    top = _is_edge_row(lines[0])
    bottom = len(lines) > 1 and _is_edge_row(lines[-1])
    rows = lines[1 if top else 0:len(lines) - 1 if bottom else len(lines)]
    if not rows:
        raise ValueError(f"{name}: the diagram has edge rows but no cells")
    first = 2 if top else 1
    left = rows[0].startswith("|")
    right = len(rows[0]) > 1 and rows[0].endswith("|")
    cells = [_cell_row(row, left=left, right=right, name=name, line=first + i) for i, row in enumerate(rows)]
    width = len(cells[0])
    for i, row in enumerate(cells):
        if len(row) != width:
            raise ValueError(f"{name}: line {first + i} has {len(row)} cells, line {first} has {width} (ragged rows)")
    for line, edge in ((1, lines[0] if top else None), (len(lines), lines[-1] if bottom else None)):
        if edge is not None:
            _check_edge_row(edge, width=width, left=left, right=right, name=name, line=line)
    grid = np.array(cells, dtype=np.int8)
    if not ((grid == BLACK) | (grid == WHITE)).any():
        raise ValueError(f"{name}: the pattern needs at least one stone (X or O)")
    return Pattern(cells=grid, top=top, bottom=bottom, left=left, right=right)


def _is_edge_row(line: str) -> bool:
    return set(line) <= set("-+") and "-" in line


def _cell_row(row: str, *, left: bool, right: bool, name: str, line: int) -> list[int]:
    if row.startswith("|") != left or (len(row) > 1 and row.endswith("|")) != right:
        raise ValueError(f"{name}: line {line}: the left and right edges (|) must be drawn on every row or none")
    inner = row[1 if left else 0:len(row) - 1 if right else len(row)]
    codes = []
    for char in inner:
        if char in EDGE_CHARS:
            raise ValueError(f"{name}: line {line}: edge mark {char!r} inside the pattern "
                             "(edges are the first or last row or column)")
        if char not in CELL_CODES:
            raise ValueError(f"{name}: line {line}: unknown character {char!r} (cells are . X O ? x o)")
        codes.append(CELL_CODES[char])
    if not codes:
        raise ValueError(f"{name}: line {line} has no cells")
    return codes


def _check_edge_row(edge: str, *, width: int, left: bool, right: bool, name: str, line: int) -> None:
    expected = ("+" if left else "") + "-" * width + ("+" if right else "")
    if edge != expected:
        raise ValueError(f"{name}: line {line}: edge row {edge!r} does not fit the cells, expected {expected!r} "
                         "(+ at a corner where two edges meet)")


def diagram_text(pattern: Pattern, *, labels: dict[tuple[int, int], str] | None = None) -> str:
    """The diagram as text with its edges, cells replaced by `labels` where given (continuations)."""
    labels = labels or {}
    rows, cols = pattern.shape
    body = []
    for r in range(rows):
        cells = "".join(labels.get((r, c), CELL_CHARS[int(pattern.cells[r, c])]) for c in range(cols))
        body.append(("|" if pattern.left else "") + cells + ("|" if pattern.right else ""))
    edge = ("+" if pattern.left else "") + "-" * cols + ("+" if pattern.right else "")
    return "\n".join(([edge] if pattern.top else []) + body + ([edge] if pattern.bottom else []))
