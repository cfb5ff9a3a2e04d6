-- pattern_stats suite, incremental build: per family and symmetry, the keys of the new games' counts (view
-- pattern_counts_new) that the previous complete counts already has (view pattern_counts_previous: its runs, one after
-- the other, so a key can be in several).
SELECT family, symmetry, count(*) AS row_count
FROM pattern_counts_new
SEMI JOIN pattern_counts_previous USING (family, symmetry, key)
GROUP BY ALL
