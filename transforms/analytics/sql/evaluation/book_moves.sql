-- Evaluation, opening book: the first moves of a release's games on an empty board of one size.
-- Parameters in order: moves.parquet, games.parquet, the board size, the last move number.
-- A pass has no point: row and col are -1.
SELECT m.game_id, m.colour, coalesce(m.row, -1) AS row, coalesce(m.col, -1) AS col
FROM read_parquet(?) AS m
JOIN read_parquet(?) AS g USING (game_id)
WHERE g.board_size = ? AND g.setup_stones = 0 AND m.move_number <= ?
ORDER BY m.game_id, m.move_number
