-- search/games: the games of the search index (docs/search.md#index), in game_id order: what a
-- search filters and prints, and what its replay needs (board size, move and setup stone counts).
SELECT game_id, pb, pw, dt, "year", winner, board_size, move_count, setup_stones
FROM games
ORDER BY game_id;
