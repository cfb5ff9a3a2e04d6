-- pattern_stats suite, key checks: (symmetry, key) pairs of scratch table $scratch given more than once.
-- Every row carries the number of such pairs; the first $samples pairs are returned as examples.
SELECT
    count(*) OVER () AS duplicates,
    symmetry,
    own,
    count(*) AS copies
FROM query_table($scratch)
GROUP BY symmetry, own
HAVING count(*) > 1
ORDER BY symmetry, own
LIMIT $samples
