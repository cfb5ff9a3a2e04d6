"""Don't-care templates of a square family in GNU Go's pattern-database syntax (``patterns.db``)."""

from __future__ import annotations

import duckdb
import numpy as np

from gopat.transforms.analytics.loader import positive, sql_text
from gopat.transforms.patterns.families import FAMILIES
from gopat.transforms.patterns.templates import template_group


def export_gnugo(
    con: duckdb.DuckDBPyConnection, *, family: str = "sq3", symmetry: int = 8, top: int | None = None
) -> str:
    """The templates of one square family in GNU Go's pattern-database syntax (``patterns.db``).

    One ``Pattern`` block per template, most occurrences first (``top`` blocks, all when None):
    a comment with the counts, the diagram relative to the player to move (``O`` mover, ``X``
    opponent, ``.`` empty, ``*`` the move, ``o`` O or empty, ``x`` X or empty, ``?`` any point
    on the board; off-board rows and columns drawn as the edge ``-``, ``|``, corner ``+``) and the
    colon line ``:8,-,value(chosen)`` (all 8 orientations tried). Reads ``dont_care_templates``.
    """
    template_group(family, symmetry)
    layout = FAMILIES[family].layout
    points = np.array(layout.points)
    cells = np.round(points - points.min(axis=0)).astype(int)
    size = int(np.sqrt(len(points)))
    if size * size != len(points) or cells.max() != size - 1:
        raise ValueError(f"GNU Go patterns are rectangles: family {family} is not a square")
    if top is not None:
        positive("top", top)
    con.execute("SET VARIABLE template_family = ?", [family])
    con.execute("SET VARIABLE template_symmetry = ?", [symmetry])
    con.execute("SET VARIABLE template_top = ?", [top])
    rows = con.execute(sql_text("dont_care_templates__gnugo")).fetchall()
    lines = [
        f"# Don't-care templates of pattern family {family} ({symmetry} symmetries), Go pattern warehouse.",
        "# O player to move, X opponent, . empty, * the move, o O or empty, x X or empty, ? any point;",
        "# occurrence and chosen are the summed counts of the concrete patterns a template covers.",
        "",
    ]
    centre = size // 2
    for rank, (template, occurrence, chosen, patterns) in enumerate(rows, start=1):
        grid = [[""] * size for _ in range(size)]
        for (r, c), symbol in zip(cells, template[1:], strict=False):
            grid[r][c] = symbol
        lines += [
            f"Pattern {family}_{symmetry}_{rank}",
            f"# {chosen}/{occurrence} chosen/occurrence, covers {patterns} patterns, template {template}",
            "",
            *("".join(_gnugo_cell(grid, r, c, template[0], centre) for c in range(size)) for r in range(size)),
            "",
            f":8,-,value({chosen})",
            "",
        ]
    return "\n".join(lines)


def _gnugo_cell(grid: list[list[str]], r: int, c: int, mover: str, centre: int) -> str:
    """One cell of a GNU Go diagram (absolute colours of the template made relative to the mover)."""
    symbol = grid[r][c]
    if symbol == "3":
        edge_row = all(cell == "3" for cell in grid[r])
        edge_col = all(row[c] == "3" for row in grid)
        return "+" if edge_row and edge_col else "-" if edge_row else "|"
    if (r, c) == (centre, centre):
        return "*"
    own, other = ("1", "2") if mover == "1" else ("2", "1")
    own_or_empty = "x" if mover == "1" else "o"
    return {"0": ".", own: "O", other: "X", "?": "?", own_or_empty: "o"}.get(symbol, "x")
