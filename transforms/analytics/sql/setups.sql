-- setups: the setup stones (AB, AW) of every game in `games`, in the order they are placed
-- (duplicates' stones are dropped); games.setup_stones counts them per game.
CREATE OR REPLACE TABLE setups AS
WITH kept_games AS (
    SELECT game_id FROM games
)

SELECT setups_all.*
FROM setups_all
SEMI JOIN kept_games USING (game_id)
ORDER BY game_id, stone_number;
