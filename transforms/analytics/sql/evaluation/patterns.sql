-- Evaluation, predictor: the 16-symmetry patterns of the ranking's families with their counts, in file order.
-- Parameters in order: the files of pattern_stats (a partitioned table, docs/releases.md#release-folder), the list of
-- families.
SELECT family, key, occurrence, chosen
FROM read_parquet(?)
WHERE symmetry = 16 AND list_contains(?, family)
