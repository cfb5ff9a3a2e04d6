-- Evaluation, predictor: the 16-symmetry patterns of the ranking's families with their counts, in file order.
-- Parameters in order: pattern_stats.parquet, the list of families.
SELECT family, key, occurrence, chosen
FROM read_parquet(?)
WHERE symmetry = 16 AND list_contains(?, family)
