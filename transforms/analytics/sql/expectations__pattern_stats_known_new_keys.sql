-- pattern_stats suite, incremental build: per family and symmetry, the rows of the new games' counts
-- (view pattern_stats_new) whose key the previous release already has (view pattern_stats_previous).
SELECT family, symmetry, count(*) AS row_count
FROM pattern_stats_new
SEMI JOIN pattern_stats_previous USING (family, symmetry, key)
GROUP BY ALL
