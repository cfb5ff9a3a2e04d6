-- pattern_stats suite, key checks: 16-canonical keys of scratch table $scratch whose merged 8-symmetry counts
-- differ from the 16-symmetry row (docs/symmetry.md). Both sides are summed in one aggregation; NULL: the key
-- has no row of that side. Every row carries the number of such keys; the first $samples are returned.
WITH sides AS (
    SELECT
        key,
        sum(occurrence) FILTER (WHERE symmetry = 8) AS occurrence_8,
        sum(chosen) FILTER (WHERE symmetry = 8) AS chosen_8,
        sum(occurrence) FILTER (WHERE symmetry = 16) AS occurrence_16,
        sum(chosen) FILTER (WHERE symmetry = 16) AS chosen_16
    FROM query_table($scratch)
    GROUP BY key
)

SELECT count(*) OVER () AS differences, key, occurrence_8, chosen_8, occurrence_16, chosen_16
FROM sides
WHERE occurrence_8 IS DISTINCT FROM occurrence_16 OR chosen_8 IS DISTINCT FROM chosen_16
ORDER BY key
LIMIT $samples
