"""Don't-care templates of a square family as a GNU Go pattern database (docs/patterns.md#gnu-go-export)."""

from __future__ import annotations

import duckdb
import numpy as np

from gopat.transforms.analytics.loader import sql_text
from gopat.transforms.patterns.families import FAMILIES
from gopat.transforms.patterns.templates import template_group

# value(v) is a minimum move value in points: v = VALUE_SCALE x chosen / occurrence, at most VALUE_SCALE
# (docs/patterns.md#gnu-go-export).
VALUE_SCALE = 40
# What an absolute template symbol is for each colour to move: O the mover's stone, X the opponent's.
_RELATIVE = {
    "1": {"0": ".", "1": "O", "2": "X", "?": "?", "x": "o", "o": "x"},
    "2": {"0": ".", "1": "X", "2": "O", "?": "?", "x": "x", "o": "o"},
}
_COLOUR = {"1": "BLACK", "2": "WHITE"}


def export_gnugo(con: duckdb.DuckDBPyConnection, *, family: str = "sq3", symmetry: int = 8) -> str:
    """The templates of one square family and symmetry as a GNU Go pattern database, most occurrences first.

    The file starts with ``attribute_map general`` (``value`` is a minimum move value); each template is a
    ``Pattern`` block: a comment with its counts, the diagram relative to the player to move, the colon line
    ``:8,-,value(v)`` and, under 8 symmetries, a constraint ``;color==BLACK`` (or ``WHITE``) that keeps it to
    the colour it was counted for. Templates with no stone are left out (GNU Go anchors a pattern at a stone)
    and counted in the header. Reads ``dont_care_templates``.
    """
    template_group(family, symmetry)
    cells, size = _square_cells(family)
    con.execute("SET VARIABLE template_family = ?", [family])
    con.execute("SET VARIABLE template_symmetry = ?", [symmetry])
    rows = con.execute(sql_text("queries/dont_care_templates_gnugo")).fetchall()
    blocks: list[str] = []
    left_out, left_out_chosen = 0, 0
    for rank, (template, occurrence, chosen, patterns) in enumerate(rows, start=1):
        diagram = gnugo_diagram(template, cells=cells, size=size)
        if not any(ch in "OX" for line in diagram for ch in line):
            left_out += 1
            left_out_chosen += chosen
            continue
        value = VALUE_SCALE * chosen / occurrence
        block = [
            f"Pattern {family}_{symmetry}_{rank}",
            f"# {chosen}/{occurrence} chosen/occurrence, covers {patterns} patterns, template {template}",
            "", *diagram, "", f":8,-,value({value:.2f})", "",
        ]
        if symmetry == 8:
            block += [*diagram, "", f";color=={_COLOUR[template[0]]}", ""]
        blocks.append("\n".join(block))
    total_chosen = sum(row[2] for row in rows)
    share = f"{left_out_chosen / total_chosen:.1%}" if total_chosen else "0%"
    colours = ("each template holds for the colour to move it was counted for: a constraint ;color==BLACK or WHITE"
               if symmetry == 8 else "templates under 16 symmetries hold for either colour to move")
    header = [
        f"# Don't-care templates of pattern family {family} ({symmetry} symmetries), Go pattern warehouse.",
        "# A GNU Go pattern database; compile it as GNU Go compiles patterns.db: mkpat -b PREFIX -i FILE -o FILE.c",
        "# O player to move, X opponent, . empty, * the move, o O or empty, x X or empty, ? any point on the board.",
        f"# value(v): v = {VALUE_SCALE} x chosen / occurrence (summed over the concrete patterns a template covers).",
        f"# Colours: {colours}.",
        f"# Left out: {left_out} of {len(rows)} templates hold no stone (GNU Go anchors a pattern at a stone); "
        f"chosen {left_out_chosen} of {total_chosen} ({share}).",
        "",
        "attribute_map general",
        "",
        "",
    ]
    return "\n".join(header) + "\n\n".join(blocks)


def _square_cells(family: str) -> tuple[np.ndarray, int]:
    """(row, col) of each layout point of a square family, and the side; ValueError for other shapes."""
    points = np.array(FAMILIES[family].layout.points)
    cells = np.round(points - points.min(axis=0)).astype(np.int64)
    size = int(np.sqrt(len(points)))
    if size * size != len(points) or cells.max() != size - 1:
        raise ValueError(f"GNU Go patterns are rectangles: family {family} is not a square")
    return cells, size


def gnugo_diagram(template: str, *, cells: np.ndarray, size: int) -> list[str]:
    """The lines of a square template's GNU Go diagram, relative to the player to move (``template[0]``).

    Off-board rows and columns become one edge line each side (``-``, ``|``, corners ``+``); the centre is
    ``*``. ValueError when the off-board cells are not whole rows and columns at the border.
    """
    grid = [[""] * size for _ in range(size)]
    for (r, c), symbol in zip(cells.tolist(), template[1:], strict=True):
        grid[r][c] = symbol
    off_rows = [r for r in range(size) if all(cell == "3" for cell in grid[r])]
    off_cols = [c for c in range(size) if all(row[c] == "3" for row in grid)]
    rows = [r for r in range(size) if r not in off_rows]
    cols = [c for c in range(size) if c not in off_cols]
    consistent = (
        rows == list(range(rows[0], rows[-1] + 1)) and cols == list(range(cols[0], cols[-1] + 1))
        and all(grid[r][c] != "3" for r in rows for c in cols)
    ) if rows and cols else False
    centre = size // 2
    if not consistent or grid[centre][centre] != "0":
        raise ValueError(f"template {template}: the off-board cells are not an edge, or the centre is not empty")
    relative = _RELATIVE[template[0]]
    west, east = "|" if cols[0] > 0 else "", "|" if cols[-1] < size - 1 else ""
    edge = ("+" if west else "") + "-" * len(cols) + ("+" if east else "")
    lines = [edge] if rows[0] > 0 else []
    for r in rows:
        cells_text = "".join("*" if (r, c) == (centre, centre) else relative[grid[r][c]] for c in cols)
        lines.append(west + cells_text + east)
    return lines + ([edge] if rows[-1] < size - 1 else [])
