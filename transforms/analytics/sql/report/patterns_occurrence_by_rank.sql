-- Report, pattern page: occurrence at the ranks $ranks of one family's patterns, the most frequent ranked 1.
WITH ranked AS (
    SELECT row_number() OVER (ORDER BY occurrence DESC) AS rank, occurrence
    FROM pattern_stats
    WHERE family = $family AND symmetry = $symmetry
)
SELECT rank, occurrence
FROM ranked
WHERE rank IN (SELECT unnest($ranks::BIGINT[]))
ORDER BY rank
