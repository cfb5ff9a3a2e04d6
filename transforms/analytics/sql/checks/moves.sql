-- moves suite: each check is a query returning the rows that violate it (the suite counts them).
-- Needs the temp table moves_per_game__ of checks/moves_per_game.sql.

-- check: game_id_move_number_unique
SELECT game_id, moves, numbers FROM moves_per_game__ WHERE moves <> numbers;

-- check: game_id_exists_in_games
SELECT game_id, move_number FROM moves ANTI JOIN games USING (game_id);

-- check: move_numbers_contiguous_1_to_move_count
SELECT g.game_id, g.move_count, coalesce(p.numbers, 0) AS numbers, p.first, p.last
FROM games AS g LEFT JOIN moves_per_game__ AS p USING (game_id)
WHERE g.move_count IS NULL
   OR coalesce(p.moves, 0) <> g.move_count
   OR coalesce(p.numbers, 0) <> g.move_count
   OR (g.move_count > 0 AND (p.first <> 1 OR p.last <> g.move_count));

-- check: colour_in_b_w
SELECT game_id, move_number, colour FROM moves WHERE colour IS NULL OR colour NOT IN ('B', 'W');

-- check: row_col_on_board_or_both_null
SELECT m.game_id, m.move_number, m.row, m.col, g.board_size
FROM moves AS m JOIN games AS g USING (game_id)
WHERE (m.row IS NULL) <> (m.col IS NULL)
   OR m.row < 0 OR m.col < 0 OR m.row >= g.board_size OR m.col >= g.board_size;

-- check: point_is_sgf_col_row_letters
SELECT game_id, move_number, row, col, point FROM moves
WHERE point IS DISTINCT FROM chr((97 + col)::INTEGER) || chr((97 + row)::INTEGER);
