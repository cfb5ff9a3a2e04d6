-- search/setups: every setup stone of the release for the search index (docs/search.md#index), in no particular
-- order: `game`, its game's rank (view game_ranks, search/game_ranks.sql), its stone_number, colour 1
-- (black) or 2 (white), row and col. The index places each row by game and number, so nothing is sorted.
SELECT
    game_ranks.game,
    setups.stone_number AS number,
    CAST(CASE setups.colour WHEN 'B' THEN 1 ELSE 2 END AS TINYINT) AS colour,
    setups."row",
    setups.col
FROM setups
INNER JOIN game_ranks USING (game_id);
