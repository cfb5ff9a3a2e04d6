-- search/setups: every setup stone of the release for the search index (docs/search.md#index), in no particular
-- order: `game`, the rank of its game in game_id order (the order of search/games.sql), its stone_number, colour 1
-- (black) or 2 (white), row and col. The index places each row by game and number, so nothing is sorted.
WITH ranked AS (
    SELECT
        game_id,
        row_number() OVER (ORDER BY game_id) - 1 AS game
    FROM games
)

SELECT
    ranked.game,
    setups.stone_number AS number,
    CAST(CASE setups.colour WHEN 'B' THEN 1 ELSE 2 END AS TINYINT) AS colour,
    setups."row",
    setups.col
FROM setups
INNER JOIN ranked USING (game_id);
