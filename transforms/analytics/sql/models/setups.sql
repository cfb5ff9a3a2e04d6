-- setups: the setup stones (AB, AW) of every game in `games`, in the order they are placed
-- (duplicates' stones are dropped); games.setup_stones counts them per game.
-- `point` is computed from row and col as readers compute it (macros/columns.sql): the release file leaves it out.
CREATE OR REPLACE TABLE setups AS
WITH kept_games AS (
    SELECT game_id FROM games
)

SELECT setups_all.*, sgf_point(setups_all."row", setups_all.col) AS point
FROM setups_all
SEMI JOIN kept_games USING (game_id)
ORDER BY game_id, stone_number;
