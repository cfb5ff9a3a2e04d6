-- setups suite: each check is a query returning the rows that violate it (the suite counts them).

-- check: setups_game_id_exists_in_games
SELECT game_id, stone_number FROM setups ANTI JOIN games USING (game_id);

-- check: setups_numbered_1_to_setup_stones
WITH per_game AS (
    SELECT game_id, count(*) AS stones, count(DISTINCT stone_number) AS numbers,
           min(stone_number) AS first, max(stone_number) AS last
    FROM setups
    GROUP BY game_id
)
SELECT g.game_id, g.setup_stones, p.stones, p.numbers, p.first, p.last
FROM games AS g LEFT JOIN per_game AS p USING (game_id)
WHERE g.setup_stones IS NULL
   OR coalesce(p.stones, 0) <> g.setup_stones
   OR coalesce(p.numbers, 0) <> g.setup_stones
   OR (g.setup_stones > 0 AND (p.first <> 1 OR p.last <> g.setup_stones));

-- check: setups_one_stone_per_point
SELECT game_id, point, count(*) AS stones FROM setups GROUP BY game_id, point HAVING count(*) > 1;

-- check: setups_colour_in_b_w
SELECT game_id, stone_number, colour FROM setups WHERE colour IS NULL OR colour NOT IN ('B', 'W');

-- check: setups_on_board
SELECT s.game_id, s.stone_number, s.row, s.col, g.board_size
FROM setups AS s JOIN games AS g USING (game_id)
WHERE s.row IS NULL OR s.col IS NULL
   OR s.row < 0 OR s.col < 0 OR s.row >= g.board_size OR s.col >= g.board_size;

-- check: setups_point_is_sgf_col_row_letters
SELECT game_id, stone_number, row, col, point FROM setups
WHERE point IS DISTINCT FROM chr((97 + col)::INTEGER) || chr((97 + row)::INTEGER);
