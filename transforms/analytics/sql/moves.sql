-- moves: the kept main-line moves of every game in `games` (duplicates' moves are dropped).
CREATE OR REPLACE TABLE moves AS
WITH kept_games AS (
    SELECT game_id FROM games
)

SELECT moves_all.*
FROM moves_all
SEMI JOIN kept_games USING (game_id)
ORDER BY game_id, move_number;
