-- pattern_stats suite, incremental build: per family and symmetry, the keys of the new games' complete counts
-- (view pattern_counts_new) that the previous complete counts already have (view pattern_counts_previous).
SELECT family, symmetry, count(*) AS row_count
FROM pattern_counts_new
SEMI JOIN pattern_counts_previous USING (family, symmetry, key)
GROUP BY ALL
