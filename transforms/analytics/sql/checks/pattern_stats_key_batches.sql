-- pattern_stats suite, key checks: the rows of one family and symmetry of table $source (pattern_stats or
-- the incremental view pattern_stats_new), NULL counts as 0 so the checks see them as wrong.
SELECT
    key,
    coalesce(orbit_size, 0) AS orbit_size,
    coalesce(occurrence, 0) AS occurrence,
    coalesce(chosen, 0) AS chosen
FROM query_table($source)
WHERE family = $family AND symmetry = $symmetry
