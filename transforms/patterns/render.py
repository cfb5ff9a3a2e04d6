"""Diagrams of pattern keys and templates (SVG and terminal text), and the stone counts of keys."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

import numpy as np

from gopat.transforms.games.board import BLACK, WHITE
from gopat.transforms.games.render import (
    BOARD_FILL,
    CANDIDATE,
    EDGE_LINE,
    LINE,
    svg_image,
    svg_stone,
    svg_text,
)
from gopat.transforms.kernels import kernel
from gopat.transforms.patterns.families import FAMILIES, Family

# A pattern is a key (int) or its text: the colour to move ('1' black, '2' white), then one symbol
# per layout point and plane. Stone-plane symbols: digits 0 empty, 1 black, 2 white, 3 off-board
# and, in don't-care templates, '?' (empty, black or white), 'x' (black or empty), 'o' (white or
# empty); liberty-plane symbols are the digits 0..3.
# The wildcards in ASCII order, so that code order = character order (see patterns/templates.py).
SYMBOLS = "0123?ox"
STONE_CHARS = ".XO#?ox"  # terminal text of each symbol in the stone plane
LIBERTY_CHARS = "0123"
_CODE_OF_BYTE = np.full(256, 255, dtype=np.uint8)
_CODE_OF_BYTE[np.frombuffer(SYMBOLS.encode(), dtype=np.uint8)] = np.arange(len(SYMBOLS), dtype=np.uint8)
_WILDCARD = 4  # codes >= this are wildcards
_OFF_FILL = "#a8a8a8"
_LAST_MOVE, _WILD = "#d62728", "#6a3d9a"


def _family(family: str) -> Family:
    if family not in FAMILIES:
        raise ValueError(f"unknown pattern family {family!r}; known: {sorted(FAMILIES)}")
    return FAMILIES[family]


def _grid_cells(family: Family) -> np.ndarray:
    """(row, col) of each layout point in the family's diagram grid, origin at the top left."""
    points = np.array(family.layout.points)
    cells: np.ndarray = np.round(points - points.min(axis=0)).astype(np.int64)
    return cells


def _keys(family: str, values: np.ndarray) -> np.ndarray:
    """1-D integer `values` as int64 keys of `family` (n digits, the first 1 or 2); else ValueError."""
    keys = values.astype(np.int64, copy=False)
    colours = keys >> (2 * (_family(family).layout.n_digits - 1))
    bad = (colours < 1) | (colours > 2)
    if bad.any():
        raise ValueError(f"{keys[bad][0]} is not a {family} key")
    return keys


def _codes(family: str, patterns: np.ndarray | Sequence[str | int]) -> tuple[np.ndarray, np.ndarray]:
    """Colour to move (1 or 2) and symbol codes (indices into :data:`SYMBOLS`) of each pattern.

    ``patterns`` are int keys or texts; returns arrays of shape (N,) and (N, n_digits - 1).
    """
    layout = _family(family).layout
    n = layout.n_digits
    values = np.asarray(patterns)
    if values.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros((0, n - 1), dtype=np.uint8)
    values = values.ravel()
    if values.dtype.kind in "iu":
        keys = _keys(family, values)
        shifts = np.arange(2 * (n - 1), -1, -2, dtype=np.int64)
        codes = ((keys[:, None] >> shifts) & 3).astype(np.uint8)
        return codes[:, 0].astype(np.int64), codes[:, 1:]
    if values.dtype.kind not in "UO" or (values.dtype.kind == "O" and not all(isinstance(v, str) for v in values)):
        raise ValueError(f"patterns are int keys or key/template texts, got {values.dtype}")
    texts = values.astype(str)
    try:
        raw = np.frombuffer(texts.astype(f"S{n}").tobytes(), dtype=np.uint8).reshape(-1, n)
    except UnicodeEncodeError:
        raise ValueError(f"{family} patterns are texts of the symbols {SYMBOLS!r}") from None
    codes = _CODE_OF_BYTE[raw]
    stone_plane = np.arange(1, n) <= len(layout.points)
    bad = (
        (np.char.str_len(texts) != n)
        | ~np.isin(codes[:, 0], (1, 2))
        | (codes == 255).any(axis=1)
        | ((codes[:, 1:] >= _WILDCARD) & ~stone_plane).any(axis=1)
    )
    if bad.any():
        raise ValueError(f"{texts[bad][0]!r} is not a {family} key or template ({n} symbols of {SYMBOLS!r})")
    return codes[:, 0].astype(np.int64), codes[:, 1:]


def pattern_texts(family: str, patterns: np.ndarray | Sequence[str | int]) -> np.ndarray:
    """Terminal diagrams of many keys or templates: the colour to move, then rows of ``.XO#?ox``.

    ``#`` is off the board; a liberty plane (d12) is drawn beside the stones as digits
    (docs/patterns.md#diagrams). Vectorised: every pattern of a family has the same text layout, so the characters are
    written into a fixed-width byte matrix (millions of keys a second).
    """
    text = pattern_text_matrix(family, patterns)
    return text.view(f"S{text.shape[1]}").ravel().astype(str)


def pattern_text_matrix(family: str, patterns: np.ndarray | Sequence[str | int]) -> np.ndarray:
    """The diagrams of :func:`pattern_texts` as a (patterns, characters) uint8 matrix of ASCII codes."""
    template, slots = _text_template(_family(family))
    values = np.asarray(patterns)
    if values.dtype.kind in "iu":  # keys: compiled, no (keys, digits) temporaries
        return digit_text_matrix(
            _keys(family, values.ravel()), template=template.encode(),
            colour_words=(b"?????", b"Black", b"White", b"?????"),
            slots=[slot for slot, _ in slots], alphabets=[alphabet[:4] for _, alphabet in slots],
        )
    colours, codes = _codes(family, patterns)
    text = np.tile(np.frombuffer(template.encode(), dtype=np.uint8), (len(colours), 1))
    black, white = np.frombuffer(b"Black", np.uint8), np.frombuffer(b"White", np.uint8)
    text[:, :5] = np.where((colours == 1)[:, None], black, white)
    for digit, (slot, alphabet) in enumerate(slots):
        text[:, slot] = np.frombuffer(alphabet, dtype=np.uint8)[codes[:, digit]]
    return np.ascontiguousarray(text)


def digit_text_matrix(
    keys: np.ndarray,
    *,
    template: bytes,
    colour_words: Sequence[bytes],
    slots: Sequence[int],
    alphabets: Sequence[bytes],
) -> np.ndarray:
    """Fixed-width texts of int64 base-4 keys as a (keys, len(template)) uint8 matrix of ASCII codes.

    Each row is `template` with the key's first digit (the colour) written as ``colour_words[digit]``
    at offset 0 and every following digit ``d`` as ``alphabets[d][digit]`` at ``slots[d]``.
    """
    words = np.array([np.frombuffer(word, dtype=np.uint8) for word in colour_words], dtype=np.uint8)
    table = np.array([np.frombuffer(a, dtype=np.uint8) for a in alphabets], dtype=np.uint8).reshape(-1, 4)
    return _digit_text(
        np.ascontiguousarray(keys, dtype=np.int64), np.frombuffer(template, dtype=np.uint8), words,
        np.array(slots, dtype=np.int64), table,
    )


@kernel(cache=True, nogil=True)
def _digit_text(
    keys: np.ndarray, template: np.ndarray, words: np.ndarray, slots: np.ndarray, alphabets: np.ndarray
) -> np.ndarray:
    out = np.empty((keys.size, template.size), dtype=np.uint8)
    n_digits = slots.size + 1
    for row in range(keys.size):  # byte loops: numba's row slice assignments cost more than the bytes
        key = keys[row]
        for i in range(template.size):
            out[row, i] = template[i]
        word = (key >> (2 * (n_digits - 1))) & 3
        for i in range(words.shape[1]):
            out[row, i] = words[word, i]
        for digit in range(n_digits - 1):
            out[row, slots[digit]] = alphabets[digit, (key >> (2 * (n_digits - 2 - digit))) & 3]
    return out


def pattern_text(family: str, pattern: str | int) -> str:
    """Terminal diagram of one key or template; see :func:`pattern_texts`."""
    return str(pattern_texts(family, [pattern])[0])


def diagram_cells(family: str) -> list[int]:
    """The diagram of a family's keys as positions (from 1) in the key's symbols after the colour to move, then a
    space and a line break: one per character after the diagram's first line (the SQL macro pattern_diagram,
    transforms/analytics/sql/macros/columns.sql, draws a key from it)."""
    template, slots = _text_template(_family(family))
    symbol = {offset: digit + 1 for digit, (offset, _) in enumerate(slots)}
    space, line_break = len(slots) + 1, len(slots) + 2
    body = template.index("\n") + 1
    return [symbol.get(i, space if char == " " else line_break) for i, char in enumerate(template) if i >= body]


def _text_template(family: Family) -> tuple[str, list[tuple[int, bytes]]]:
    """A family's text diagram with placeholders, and per symbol after the colour its offset and alphabet."""
    layout = family.layout
    cells = _grid_cells(family)
    height, width = cells.max(axis=0) + 1
    grids = [[[" "] * width for _ in range(height)] for _ in layout.planes]
    for grid in grids:
        for r, c in cells:
            grid[r][c] = "?"
    lines = ["  ".join("".join(grid[r]) for grid in grids).rstrip() for r in range(height)]
    header = "Black to move"
    starts = np.cumsum([len(header) + 1] + [len(line) + 1 for line in lines])
    slots = []
    for plane, name in enumerate(layout.planes):
        # one character per symbol code; wildcards are rejected in a liberty plane, "???" only pads
        alphabet = (STONE_CHARS if name == "stone" else LIBERTY_CHARS + "???").encode()
        for r, c in cells:
            slots.append((int(starts[r] + plane * (width + 2) + c), alphabet))
    return "\n".join([header, *lines]), slots


def _marks(family: Family, codes: np.ndarray) -> tuple[list[int], int | None]:
    """Layout points to mark: the empty candidate points, and the last move (d12: the centre) or None."""
    candidates = family.geometry.candidates.tolist()
    if family.anchor == "last_move":
        return [], int(np.setdiff1d(np.arange(len(family.layout.points)), candidates)[0])
    return [int(i) for i in candidates if codes[i] == 0], None


def pattern_svg(family: str, pattern: str | int, *, cell: int = 28, caption: bool = True, title: str = "") -> str:
    """SVG diagram of one key or template (class ``diagram pattern``).

    Board cells on a wood background with grid lines (solid between points of the layout, a short
    faint stub towards points outside it, thicker along the board's edge), off-board cells grey,
    stones black and white with their liberty count when the family has a liberty plane, wildcards
    as dashed purple circles with their symbol, candidate points in a red square and the last
    move (d12) as a red ring. ``caption`` adds "Black/White to move" above; ``title`` is the tooltip.
    """
    fam = _family(family)
    colours, codes = _codes(family, [pattern])
    n_points = len(fam.layout.points)
    stone_codes = codes[0, :n_points]
    liberties = codes[0, n_points:] if "liberty" in fam.layout.planes else None
    cells = _grid_cells(fam)
    height, width = (int(v) for v in cells.max(axis=0) + 1)
    state = {(int(r), int(c)): int(code) for (r, c), code in zip(cells, stone_codes, strict=True)}
    top = round(cell * 0.9) if caption else 0
    pad = cell // 2
    size_w, size_h = width * cell + 2 * pad, height * cell + 2 * pad + top

    def xy(r: int, c: int) -> tuple[float, float]:
        return pad + c * cell + cell / 2, top + pad + r * cell + cell / 2

    parts = []
    for (r, c), code in state.items():
        x, y = xy(r, c)
        fill, kind = (_OFF_FILL, "off-board") if code == 3 else (BOARD_FILL, "on-board")
        parts.append(f'<rect x="{x - cell / 2:g}" y="{y - cell / 2:g}" width="{cell}" height="{cell}" fill="{fill}" '
                     f'class="{kind}"/>')
    lines: list[str] = []
    edges: list[str] = []
    stubs: list[str] = []
    for (r, c), code in state.items():
        if code == 3:
            continue
        x, y = xy(r, c)
        for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)):
            neighbour = state.get((r + dr, c + dc))
            if neighbour == 3:
                continue
            across = (state.get((r + dc, c + dr)), state.get((r - dc, c - dr)))
            segment = f"M{x:g} {y:g}l{dc * cell / 2:g} {dr * cell / 2:g}"
            (stubs if neighbour is None else edges if 3 in across else lines).append(segment)
    for path, colour, stroke, kind in ((lines, LINE, 1, "lines"), (edges, EDGE_LINE, 2.5, "edge"),
                                       (stubs, "#8c7550", 1, "stubs")):
        if path:
            parts.append(f'<path d="{"".join(path)}" stroke="{colour}" stroke-width="{stroke}" fill="none" '
                         f'class="{kind}"/>')
    radius = cell * 0.46
    for i, ((r, c), code) in enumerate(zip(cells.tolist(), stone_codes.tolist(), strict=True)):
        x, y = xy(r, c)
        if code in (BLACK, WHITE):
            parts.append(svg_stone(x, y, radius, code))
            if liberties is not None:
                parts.append(svg_text(x, y, cell * 0.5, str(int(liberties[i])), "#fff" if code == BLACK else "#000",
                                   css_class="liberties"))
        elif code >= _WILDCARD:
            fill = {"?": "#e8dcf3", "x": "#8a8a8a", "o": "#f7f7f7"}[SYMBOLS[code]]
            parts.append(f'<circle cx="{x:g}" cy="{y:g}" r="{radius * 0.92:g}" fill="{fill}" stroke="{_WILD}" '
                         f'stroke-width="1.6" stroke-dasharray="3 2" class="wildcard"/>')
            parts.append(svg_text(x, y, cell * 0.6, SYMBOLS[code], _WILD, bold=True, css_class="wildcard-symbol"))
    candidates, last = _marks(fam, codes[0])
    for i in candidates:
        x, y = xy(*cells[i].tolist())
        side = cell * 0.56
        parts.append(f'<rect x="{x - side / 2:g}" y="{y - side / 2:g}" width="{side:g}" height="{side:g}" fill="none" '
                     f'stroke="{CANDIDATE}" stroke-width="2.2" class="candidate"/>')
    if last is not None:
        x, y = xy(*cells[last].tolist())
        parts.append(f'<circle cx="{x:g}" cy="{y:g}" r="{radius:g}" fill="none" stroke="{_LAST_MOVE}" '
                     f'stroke-width="2.5" class="last-move"/>')
    if caption:
        mover = int(colours[0])
        parts.append(svg_stone(cell * 0.45, top / 2 + 1, cell * 0.22, mover, "to-move"))
        parts.append(f'<text x="{cell * 0.8:g}" y="{top / 2 + 1:g}" font-size="{cell * 0.42:g}" '
                     f'dominant-baseline="central">{"Black" if mover == BLACK else "White"} to move</text>')
    text = str(int(colours[0])) + "".join(SYMBOLS[code] for code in codes[0])
    return svg_image(size_w, size_h, "diagram pattern", title or f"{family} {text}", parts,
                extra=f' data-family="{escape(family)}" data-pattern="{text}"')


def stones(family: str, keys: np.ndarray) -> np.ndarray:
    """Number of occupied cells (black or white) in the stone plane of each key (int64 array)."""
    layout = FAMILIES[family].layout
    values = np.asarray(keys, dtype=np.int64)
    return _stones(np.ascontiguousarray(values).ravel(), len(layout.points), layout.n_digits).reshape(values.shape)


@kernel(cache=True, nogil=True)
def _stones(keys: np.ndarray, n_cells: int, n_digits: int) -> np.ndarray:
    count = np.zeros(keys.size, dtype=np.int64)
    for row in range(keys.size):
        for cell in range(n_cells):
            digit = (keys[row] >> (2 * (n_digits - 2 - cell))) & 3
            count[row] += (digit == 1) | (digit == 2)
    return count
