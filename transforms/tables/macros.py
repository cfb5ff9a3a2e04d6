"""The DuckDB macros that compute a release's derived columns (transforms/analytics/sql/macros.sql), installed in
a connection or an attached database."""

from __future__ import annotations

import re

import duckdb

from gopat.transforms.analytics.loader import sql_text
from gopat.transforms.patterns.families import FAMILIES
from gopat.transforms.patterns.render import diagram_cells

_NAME = re.compile(r"[a-z][a-z0-9_]*")


def layout_macro() -> str:
    """The macro pattern_layout(family) that macros.sql draws with: each family's stone cells and diagram cells
    (transforms/patterns/render.py diagram_cells), as literals of the family registry."""
    branches = []
    for name, family in FAMILIES.items():
        if not _NAME.fullmatch(name):
            raise ValueError(f"family name {name!r} is not a plain lower-case name")
        branches.append(f"    WHEN '{name}' THEN {{'stone_cells': {len(family.layout.points)}, "
                        f"'diagram': {diagram_cells(name)}}}")
    return "CREATE OR REPLACE MACRO pattern_layout(family) AS CASE family\n" + "\n".join(branches) + "\nEND"


def install_macros(con: duckdb.DuckDBPyConnection) -> None:
    """Create the macros of the derived columns in the connection's current database and schema."""
    con.execute(layout_macro())
    con.execute(sql_text("macros"))
