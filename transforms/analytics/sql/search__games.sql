-- search__games: the games of the search index (docs/search.md#index), in game_id order: what a
-- search filters and prints, and what its replay needs (board size, move and setup counts, and
-- where a game with setup stones came from, since the release does not store those stones).
SELECT
    game_id, pb, pw, dt, "year", winner, board_size, move_count, setup_stones,
    source, source_sha256, member, tree_index
FROM games
ORDER BY game_id;
