-- pattern_tail (docs/releases.md#pattern_tail): per family and symmetry of the build, the keys that pattern_stats
-- leaves out (seen fewer than the family's min_occurrence times) and their summed counts, so that pattern_stats
-- plus pattern_tail holds every count of the complete counts. The build tallies those keys as it writes
-- pattern_stats (registered as pattern_tail_counts: family, symmetry, keys, occurrence, chosen; the complete
-- counts of an incremental build are a sum of runs, never a table, docs/releases.md#complete-counts); the
-- thresholds are the build config's min_occurrence (registered as pattern_tail_thresholds: family,
-- min_occurrence). A family published with every key has a row of zeros.
CREATE OR REPLACE TABLE pattern_tail AS
WITH parts AS (
    SELECT family, symmetry, min_occurrence
    FROM pattern_tail_thresholds CROSS JOIN (VALUES (8), (16)) AS symmetries (symmetry)
)

SELECT
    family,
    CAST(symmetry AS INTEGER) AS symmetry,
    CAST(min_occurrence AS INTEGER) AS min_occurrence,
    CAST(coalesce(tail.keys, 0) AS BIGINT) AS keys,
    CAST(coalesce(tail.occurrence, 0) AS BIGINT) AS occurrence,
    CAST(coalesce(tail.chosen, 0) AS BIGINT) AS chosen
FROM parts LEFT JOIN pattern_tail_counts AS tail USING (family, symmetry)
ORDER BY family, symmetry;
