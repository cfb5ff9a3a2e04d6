-- The macros that compute a release's derived columns from its stored ones (docs/tables.md): the
-- catalog, `gopat.open_release` and the build install them, so every reader sees the same values.
-- gopat.columns computes the same values in Python for readers of the Parquet files without DuckDB.
-- pattern_stone_cells(family) and pattern_diagram_cells(family), the shape of each family's
-- diagram, are installed before this file (transforms/tables/macros.py).

-- The SGF point of a board point: column letter, then row letter, 'a' = 0; NULL for a pass.
CREATE OR REPLACE MACRO sgf_point(row, col) AS
    chr((97 + col)::INTEGER) || chr((97 + row)::INTEGER);

-- The key's (or template's) stone-plane symbols: the digits after the colour to move, before any
-- liberty digits.
CREATE OR REPLACE MACRO pattern_stone_symbols(family, key) AS
    substr(key, 2, pattern_stone_cells(family));

-- Occupied cells (black or white) of the stone plane (docs/patterns.md#stones).
CREATE OR REPLACE MACRO pattern_stones(family, key) AS CAST(
    length(pattern_stone_symbols(family, key))
    - length(replace(replace(pattern_stone_symbols(family, key), '1', ''), '2', '')) AS INTEGER
);

-- The diagram text of a key or template (docs/patterns.md#diagrams): 'Black to move' or 'White to
-- move', then the layout's rows, stones as .XO# (wildcards ?ox stay), liberty digits beside them.
-- pattern_diagram_cells(family) lists, for each character after the first line, its position in
-- the symbols drawn, then a space and a line break.
CREATE OR REPLACE MACRO pattern_diagram(family, key) AS
    CASE WHEN left(key, 1) = '1' THEN 'Black' ELSE 'White' END || ' to move' || chr(10) || array_to_string(
        list_select(
            string_split(
                translate(pattern_stone_symbols(family, key), '0123', '.XO#')
                || substr(key, 2 + pattern_stone_cells(family)) || ' ' || chr(10),
                ''
            ),
            pattern_diagram_cells(family)
        ),
        ''
    );
