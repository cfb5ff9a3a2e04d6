-- Evaluation, predictor: how many 16-symmetry patterns of the ranking's families a pattern_stats file holds.
-- Parameters in order: the files of pattern_stats (a partitioned table, docs/releases.md#release-folder), the list of
-- families.
SELECT count(*)
FROM read_parquet(?)
WHERE symmetry = 16 AND list_contains(?, family)
