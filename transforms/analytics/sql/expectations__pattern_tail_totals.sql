-- pattern_stats suite: keys, occurrence and chosen that pattern_tail sums, per family and symmetry (8 or 16), in the
-- shape of expectations__pattern_stats_totals.sql.
SELECT
    family,
    symmetry,
    coalesce(sum(keys), 0) AS key_count,
    coalesce(sum(occurrence), 0) AS occurrence,
    coalesce(sum(chosen), 0) AS chosen
FROM pattern_tail
WHERE family IS NOT NULL AND symmetry IN (8, 16)
GROUP BY ALL
