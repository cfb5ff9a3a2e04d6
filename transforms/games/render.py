"""Whole-board diagrams (positions, opening sequences, suggestions) as SVG and terminal text, and the
SVG pieces that pattern diagrams share (stones, labels, the document)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from html import escape

from gopat.transforms.games.board import BLACK, WHITE

COLUMN_LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"  # Go board columns, no I
BOARD_FILL, LINE, EDGE_LINE = "#dcb35c", "#3b2f1e", "#1b140b"
CANDIDATE = "#d62728"
_FONT = "font-family=\"DejaVu Sans, Arial, sans-serif\""


@dataclass(frozen=True, slots=True)
class Mark:
    """A labelled point on a board: ``label`` drawn on it, optional link ``href`` and ``tooltip``."""

    row: int
    col: int
    label: str
    href: str | None = None
    tooltip: str | None = None


def svg_stone(x: float, y: float, radius: float, colour: int, css_class: str = "stone") -> str:
    fill, stroke, name = ("#111", "#000", "black") if colour == BLACK else ("#f8f8f8", "#222", "white")
    return (f'<circle cx="{x:g}" cy="{y:g}" r="{radius:g}" fill="{fill}" stroke="{stroke}" stroke-width="1" '
            f'class="{css_class} {name}"/>')


def svg_text(
    x: float, y: float, size: float, text: str, colour: str, *, bold: bool = False, css_class: str = ""
) -> str:
    weight = ' font-weight="bold"' if bold else ""
    kind = f' class="{css_class}"' if css_class else ""
    return (f'<text x="{x:g}" y="{y:g}" font-size="{size:g}"{weight} fill="{colour}" text-anchor="middle" '
            f'dominant-baseline="central"{kind}>{escape(text)}</text>')


def svg_image(width: float, height: float, css_class: str, title: str, parts: list[str], *, extra: str = "") -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="{css_class}"{extra} width="{width:g}" height="{height:g}" '
            f'viewBox="0 0 {width:g} {height:g}" role="img" {_FONT}><title>{escape(title)}</title>'
            f'{"".join(parts)}</svg>')


def sgf_point(point: str, *, size: int = 19) -> tuple[int, int]:
    """(row, col) of an SGF point such as ``'pd'`` (column letter first; row 0 at the top)."""
    if not isinstance(point, str) or len(point) != 2 or not point.isascii() or not point.isalpha():
        raise ValueError(f"an SGF point is two letters, got {point!r}")
    col, row = (ord(ch) - ord("a") for ch in point.lower())
    if point != point.lower() or not (0 <= row < size and 0 <= col < size):
        raise ValueError(f"SGF point {point!r} is off a {size}x{size} board")
    return row, col


def point_name(row: int, col: int, *, size: int = 19) -> str:
    """The usual board coordinate of (row, col): column letter without I, row counted from the bottom."""
    if not (0 <= row < size and 0 <= col < size) or size > len(COLUMN_LETTERS):
        raise ValueError(f"({row}, {col}) is off a {size}x{size} board")
    return f"{COLUMN_LETTERS[col]}{size - row}"


def position_stones(position: str, *, size: int = 19) -> list[tuple[int, int, int]]:
    """Stones ``(colour, row, col)`` of a position text ``'B:cd dq|W:pd'`` (tables fuseki, opening_tree)."""
    black, sep, white = position.partition("|")
    if not sep or not black.startswith("B:") or not white.startswith("W:"):
        raise ValueError(f"a position is 'B:<points>|W:<points>', got {position!r}")
    return [
        (colour, *sgf_point(point, size=size))
        for colour, points in ((BLACK, black[2:]), (WHITE, white[2:]))
        for point in points.split()
    ]


def sequence_stones(sequence: str, *, size: int = 19) -> tuple[list[tuple[int, int, int]], dict[tuple[int, int], str]]:
    """Stones of a move sequence ``'pd dd qp'`` (Black first, colours alternating) and their move numbers.

    A point played twice keeps its last stone and number (no captures are resolved).
    """
    stones: dict[tuple[int, int], int] = {}
    labels: dict[tuple[int, int], str] = {}
    for number, point in enumerate(sequence.split(), start=1):
        spot = sgf_point(point, size=size)
        stones[spot] = BLACK if number % 2 else WHITE
        labels[spot] = str(number)
    return [(colour, r, c) for (r, c), colour in stones.items()], labels


def _check_board(
    size: int, stones: Iterable[tuple[int, int, int]], marks: Sequence[Mark]
) -> list[tuple[int, int, int]]:
    if isinstance(size, bool) or not isinstance(size, int) or not 2 <= size <= len(COLUMN_LETTERS):
        raise ValueError(f"board size must be an int in 2..{len(COLUMN_LETTERS)}, got {size!r}")
    checked = []
    for colour, row, col in stones:
        if colour not in (BLACK, WHITE) or not (0 <= row < size and 0 <= col < size):
            raise ValueError(f"stone {(colour, row, col)!r} is not (1|2, row, col) on a {size}x{size} board")
        checked.append((int(colour), int(row), int(col)))
    for mark in marks:
        if not (0 <= mark.row < size and 0 <= mark.col < size):
            raise ValueError(f"mark {mark.label!r} at ({mark.row}, {mark.col}) is off the board")
    return checked


def star_points(size: int) -> list[tuple[int, int]]:
    """The hoshi of a board from 7x7: the 4-4 points (3-3 below 13x13), the centre of odd boards
    and, from 15x15, the middle of each side."""
    if size < 7:
        return []
    edge = 3 if size >= 13 else 2
    corners = (edge, size - 1 - edge)
    points = {(r, c) for r in corners for c in corners}
    if size % 2:
        middle = size // 2
        points.add((middle, middle))
        if size >= 15:
            points |= {(middle, c) for c in corners} | {(r, middle) for r in corners}
    return sorted(points)


def board_svg(
    size: int,
    stones: Iterable[tuple[int, int, int]] = (),
    *,
    labels: Mapping[tuple[int, int], str] | None = None,
    marks: Sequence[Mark] = (),
    cell: int = 20,
    coordinates: bool = True,
    title: str = "",
) -> str:
    """SVG of a whole board (class ``diagram board``): grid, star points, stones, labels, marks.

    ``stones`` are ``(colour, row, col)``; ``labels`` writes text on stones (move numbers);
    ``marks`` are letters on points (a link when ``href`` is set, class ``mark``).
    """
    stones = _check_board(size, stones, marks)
    margin = cell * 1.2 if coordinates else cell * 0.6
    extent = (size - 1) * cell + 2 * margin

    def at(index: int) -> float:
        return margin + index * cell

    far = at(size - 1)
    grid = "".join(f"M{margin:g} {at(i):g}H{far:g}M{at(i):g} {margin:g}V{far:g}" for i in range(size))
    parts = [
        f'<rect width="{extent:g}" height="{extent:g}" fill="{BOARD_FILL}"/>',
        f'<path d="{grid}" stroke="{LINE}" stroke-width="1" fill="none"/>',
        f'<rect x="{margin:g}" y="{margin:g}" width="{far - margin:g}" height="{far - margin:g}" fill="none" '
        f'stroke="{EDGE_LINE}" stroke-width="2"/>',
    ]
    parts += [f'<circle cx="{at(c):g}" cy="{at(r):g}" r="{cell * 0.12:g}" fill="{LINE}" class="star"/>'
              for r, c in star_points(size)]
    if coordinates:
        edge = margin - cell * 0.8
        coords = [(at(i), edge, COLUMN_LETTERS[i]) for i in range(size)]
        coords += [(edge, at(i), str(size - i)) for i in range(size)]
        parts.append(f'<g class="coord" font-size="{cell * 0.45:g}" fill="#333" text-anchor="middle" '
                     'dominant-baseline="central">'
                     + "".join(f'<text x="{x:g}" y="{y:g}">{label}</text>' for x, y, label in coords) + "</g>")
    labels = labels or {}
    for colour, r, c in stones:
        parts.append(svg_stone(at(c), at(r), cell * 0.47, colour))
        if (r, c) in labels:
            parts.append(svg_text(at(c), at(r), cell * (0.5 if len(labels[r, c]) < 3 else 0.38), labels[r, c],
                               "#fff" if colour == BLACK else "#000", css_class="label"))
    for mark in marks:
        x, y = at(mark.col), at(mark.row)
        shape = (f'<circle cx="{x:g}" cy="{y:g}" r="{cell * 0.42:g}" fill="#fff7e0" stroke="{CANDIDATE}" '
                 f'stroke-width="1.5"/>' + svg_text(x, y, cell * 0.5, mark.label, CANDIDATE, bold=True))
        tip = f"<title>{escape(mark.tooltip)}</title>" if mark.tooltip else ""
        if mark.href is not None:
            parts.append(f'<a href="{escape(mark.href)}" class="mark">{tip}{shape}</a>')
        else:
            parts.append(f'<g class="mark">{tip}{shape}</g>')
    return svg_image(extent, extent, "diagram board", title or f"{size}x{size} board", parts)


def board_text(size: int, stones: Iterable[tuple[int, int, int]] = (), *, marks: Sequence[Mark] = ()) -> str:
    """Terminal text of a whole board: ``X`` black, ``O`` white, ``+`` star points, marks by their
    label's first character, column letters above and below, row numbers (1 at the bottom) beside."""
    stones = _check_board(size, stones, marks)
    grid = [["."] * size for _ in range(size)]
    for r, c in star_points(size):
        grid[r][c] = "+"
    for colour, r, c in stones:
        grid[r][c] = "X" if colour == BLACK else "O"
    for mark in marks:
        grid[mark.row][mark.col] = (mark.label or "*")[0]
    letters = "   " + " ".join(COLUMN_LETTERS[:size])
    rows = [f"{size - r:>2} {' '.join(grid[r])} {size - r:<2}".rstrip() for r in range(size)]
    return "\n".join([letters, *rows, letters])
