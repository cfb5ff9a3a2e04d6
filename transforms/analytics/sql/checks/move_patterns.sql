-- move_patterns suite, row checks: each check is a query returning the rows that violate it (the suite counts them).
-- A full build checks every row; an incremental build the rows it adds, by putting schema `added`
-- (steps/added_rows.sql) first on the search path: `move_patterns`, `moves` and `games` are then its own rows.
-- $families: the release's move_patterns families (manifest config.event_families); $last_move_families: those of
-- them anchored at the last move (d12). Which moves a family counts: docs/patterns.md#positions and #d12.

-- check: family_is_a_move_patterns_family
SELECT family, count(*) AS row_count FROM move_patterns
WHERE family IS NULL OR NOT list_contains($families, family)
GROUP BY ALL;

-- check: family_game_id_move_number_unique
SELECT family, game_id, move_number, count(*) AS row_count FROM move_patterns
GROUP BY ALL
HAVING count(*) > 1;

-- check: rows_per_family_equal_the_board_moves_counted
WITH counted AS (
    SELECT
        count(*) FILTER (WHERE m.row IS NOT NULL) AS board_moves,
        -- d12: the board move before is on the third line or further in, and this move is in its diamond
        count(*) FILTER (
            WHERE m.row IS NOT NULL AND m.last_row BETWEEN 2 AND m.board_size - 3
                AND m.last_col BETWEEN 2 AND m.board_size - 3
                AND abs(m.row - m.last_row) + abs(m.col - m.last_col) BETWEEN 1 AND 2
        ) AS last_move_moves
    FROM (
        SELECT
            moves.row, moves.col, games.board_size,
            lag(moves.row) OVER by_game AS last_row,
            lag(moves.col) OVER by_game AS last_col
        FROM moves JOIN games USING (game_id)
        WINDOW by_game AS (PARTITION BY game_id ORDER BY move_number)
    ) AS m
),

expected AS (
    SELECT
        family,
        CASE WHEN list_contains($last_move_families, family) THEN last_move_moves ELSE board_moves END AS row_count
    FROM (SELECT unnest($families) AS family), counted
),

found AS (
    SELECT family, count(*) AS row_count FROM move_patterns GROUP BY family
)

SELECT family, expected.row_count AS expected, coalesce(found.row_count, 0) AS found
FROM expected LEFT JOIN found USING (family)
WHERE expected.row_count <> coalesce(found.row_count, 0);

-- check: each_row_is_a_counted_board_move_of_its_colour
SELECT e.family, e.game_id, e.move_number, e.colour, m.colour AS played, m.row, m.col, m.last_row, m.last_col
FROM move_patterns AS e
LEFT JOIN (
    SELECT
        moves.game_id, moves.move_number, moves.colour, moves.row, moves.col, games.board_size,
        lag(moves.row) OVER by_game AS last_row,
        lag(moves.col) OVER by_game AS last_col
    FROM moves JOIN games USING (game_id)
    WINDOW by_game AS (PARTITION BY game_id ORDER BY move_number)
) AS m USING (game_id, move_number)
WHERE m.row IS NULL
   OR m.colour IS DISTINCT FROM e.colour
   OR (list_contains($last_move_families, e.family) AND NOT coalesce(
        m.last_row BETWEEN 2 AND m.board_size - 3 AND m.last_col BETWEEN 2 AND m.board_size - 3
        AND abs(m.row - m.last_row) + abs(m.col - m.last_col) BETWEEN 1 AND 2, false));

-- check: key8_colour_digit_is_the_colour
SELECT family, game_id, move_number, colour, key8 FROM move_patterns
WHERE left(key8, 1) IS DISTINCT FROM CASE colour WHEN 'B' THEN '1' WHEN 'W' THEN '2' END;
