-- search/setups: every setup stone of the release for the search index (docs/search.md#index), in
-- game_id order then placement order: colour 1 (black) or 2 (white), row and col.
SELECT
    CAST(CASE colour WHEN 'B' THEN 1 ELSE 2 END AS TINYINT) AS colour,
    "row",
    col
FROM setups
ORDER BY game_id, stone_number;
