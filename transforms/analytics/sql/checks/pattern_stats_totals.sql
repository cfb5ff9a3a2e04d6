-- pattern_stats suite: rows, sum(occurrence) and sum(chosen) of table $source (pattern_stats or complete counts) per
-- family and symmetry of $symmetries (the groups, 8 and 16).
SELECT
    family,
    symmetry,
    count(*) AS row_count,
    coalesce(sum(occurrence), 0) AS occurrence,
    coalesce(sum(chosen), 0) AS chosen
FROM query_table($source)
WHERE family IS NOT NULL AND list_contains($symmetries, symmetry)
GROUP BY ALL
