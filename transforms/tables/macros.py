"""The DuckDB macros that compute a release's derived columns (transforms/analytics/sql/macros/columns.sql),
installed in a connection or an attached database."""

from __future__ import annotations

import duckdb

from gopat.transforms.analytics.loader import sql_text
from gopat.transforms.checks import identifier
from gopat.transforms.patterns.families import FAMILIES
from gopat.transforms.patterns.render import diagram_cells


def layout_macros() -> list[str]:
    """The macros that macros/columns.sql draws with, literals of the family registry: pattern_stone_cells(family), the
    cells of a family's stone plane, and pattern_diagram_cells(family), the cells of its diagram
    (transforms/patterns/render.py diagram_cells). Two macros, so that counting stones builds no list."""
    stones, diagrams = [], []
    for name, family in FAMILIES.items():
        identifier(name)
        stones.append(f"    WHEN '{name}' THEN {len(family.layout.points)}")
        diagrams.append(f"    WHEN '{name}' THEN {diagram_cells(name)}")
    return [f"CREATE OR REPLACE MACRO {macro}(family) AS CASE family\n" + "\n".join(branches) + "\nEND"
            for macro, branches in (("pattern_stone_cells", stones), ("pattern_diagram_cells", diagrams))]


def install_macros(con: duckdb.DuckDBPyConnection) -> None:
    """Create the macros of the derived columns in the connection's current database and schema."""
    for macro in layout_macros():
        con.execute(macro)
    con.execute(sql_text("macros/columns"))
