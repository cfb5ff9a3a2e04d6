-- pattern_stats suite: keys, occurrence and chosen that pattern_tail table $source (pattern_tail, or the previous
-- release's pattern_tail_previous in an incremental build) sums, per family and symmetry of $symmetries (8 and
-- 16), in the shape of checks/pattern_stats_totals.sql.
SELECT
    family,
    symmetry,
    coalesce(sum(keys), 0) AS key_count,
    coalesce(sum(occurrence), 0) AS occurrence,
    coalesce(sum(chosen), 0) AS chosen
FROM query_table($source)
WHERE family IS NOT NULL AND list_contains($symmetries, symmetry)
GROUP BY ALL
