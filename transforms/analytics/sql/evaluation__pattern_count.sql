-- Evaluation, predictor: how many 16-symmetry patterns of the ranking's families a pattern_stats file holds.
-- Parameters in order: pattern_stats.parquet, the list of families.
SELECT count(*)
FROM read_parquet(?)
WHERE symmetry = 16 AND list_contains(?, family)
