-- moves: the kept main-line moves of every game in `games` (duplicates' moves are dropped);
-- `point` is computed from row and col as readers compute it (macros/columns.sql): the release file leaves it out.
CREATE OR REPLACE TABLE moves AS
WITH kept_games AS (
    SELECT game_id FROM games
)

SELECT moves_all.*, sgf_point(moves_all."row", moves_all.col) AS point
FROM moves_all
SEMI JOIN kept_games USING (game_id)
ORDER BY game_id, move_number;
