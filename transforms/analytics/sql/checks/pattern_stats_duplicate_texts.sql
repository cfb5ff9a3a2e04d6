-- pattern_stats suite, key checks: (symmetry, key) pairs of one family of the published rows $source given more
-- than once (run only when the keys are out of order). Every row carries the number of such pairs; the first
-- $samples pairs are returned as examples.
SELECT
    count(*) OVER () AS duplicates,
    symmetry,
    key,
    count(*) AS copies
FROM query_table($source)
WHERE family = $family
GROUP BY symmetry, key
HAVING count(*) > 1
ORDER BY symmetry, key
LIMIT $samples
