-- pattern_tail (docs/releases.md#pattern_tail): per family and symmetry of the build, the keys that pattern_stats
-- leaves out (seen fewer than the family's min_occurrence times) and their summed counts, so that pattern_stats
-- plus pattern_tail holds every count of the complete counts (view pattern_counts, the build state). The
-- thresholds are the build config's min_occurrence (registered as pattern_tail_thresholds: family,
-- min_occurrence). A family published with every key has a row of zeros.
CREATE OR REPLACE TABLE pattern_tail AS
WITH parts AS (
    SELECT family, symmetry, min_occurrence
    FROM pattern_tail_thresholds CROSS JOIN (VALUES (8), (16)) AS symmetries (symmetry)
),

tail AS (
    SELECT family, symmetry, count(*) AS keys, sum(occurrence) AS occurrence, sum(chosen) AS chosen
    FROM pattern_counts JOIN pattern_tail_thresholds USING (family)
    WHERE occurrence < min_occurrence
    GROUP BY ALL
)

SELECT
    family,
    CAST(symmetry AS INTEGER) AS symmetry,
    CAST(min_occurrence AS INTEGER) AS min_occurrence,
    CAST(coalesce(tail.keys, 0) AS BIGINT) AS keys,
    CAST(coalesce(tail.occurrence, 0) AS BIGINT) AS occurrence,
    CAST(coalesce(tail.chosen, 0) AS BIGINT) AS chosen
FROM parts LEFT JOIN tail USING (family, symmetry)
ORDER BY family, symmetry;
