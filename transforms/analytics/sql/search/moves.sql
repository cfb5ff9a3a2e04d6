-- search/moves: every move of the release for the search index (docs/search.md#index), in no particular order:
-- `game`, the rank of its game in game_id order (the order of search/games.sql), its move_number, colour 1 (black) or
-- 2 (white), row and col with -1 for a pass. The index places each row by game and number, so nothing is sorted.
WITH ranked AS (
    SELECT
        game_id,
        row_number() OVER (ORDER BY game_id) - 1 AS game
    FROM games
)

SELECT
    ranked.game,
    moves.move_number AS number,
    CAST(CASE moves.colour WHEN 'B' THEN 1 ELSE 2 END AS TINYINT) AS colour,
    CAST(coalesce(moves."row", -1) AS SMALLINT) AS "row",
    CAST(coalesce(moves.col, -1) AS SMALLINT) AS col
FROM moves
INNER JOIN ranked USING (game_id);
