-- move_patterns of family $family in an incremental build: the previous release's rows ($previous, a Parquet file)
-- and the new games' event shards ($new, a list of Parquet files), in game and move order. One row per chosen event
-- (docs/releases.md#move_patterns); a game's rows are all in one of the two.
SELECT family, game_id, move_number, colour, key8, key16
FROM read_parquet($previous)
WHERE family = $family
UNION ALL
SELECT family, game_id, move_number, colour, key8, key16
FROM read_parquet($new)
WHERE family = $family
ORDER BY game_id, move_number
