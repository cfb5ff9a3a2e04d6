-- search/moves: every move of the release for the search index (docs/search.md#index), in no particular order:
-- `game`, its game's rank (view game_ranks, search/game_ranks.sql), its move_number, colour 1 (black) or
-- 2 (white), row and col with -1 for a pass. The index places each row by game and number, so nothing is sorted.
SELECT
    game_ranks.game,
    moves.move_number AS number,
    CAST(CASE moves.colour WHEN 'B' THEN 1 ELSE 2 END AS TINYINT) AS colour,
    CAST(coalesce(moves."row", -1) AS SMALLINT) AS "row",
    CAST(coalesce(moves.col, -1) AS SMALLINT) AS col
FROM moves
INNER JOIN game_ranks USING (game_id);
