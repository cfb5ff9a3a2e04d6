-- search/moves: every move of the release for the search index (docs/search.md#index), in game_id
-- order then move order: colour 1 (black) or 2 (white), row and col with -1 for a pass.
SELECT
    CAST(CASE colour WHEN 'B' THEN 1 ELSE 2 END AS TINYINT) AS colour,
    CAST(coalesce("row", -1) AS SMALLINT) AS "row",
    CAST(coalesce(col, -1) AS SMALLINT) AS col
FROM moves
ORDER BY game_id, move_number;
