-- search/game_ranks: the view game_ranks, each game's rank in game_id order (the order of search/games.sql), which
-- search/moves.sql and search/setups.sql give their rows as `game`.
CREATE OR REPLACE TEMP VIEW game_ranks AS
SELECT
    game_id,
    row_number() OVER (ORDER BY game_id) - 1 AS game
FROM games;
