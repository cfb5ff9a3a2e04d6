-- Report, pattern page: the chosen rate of one family per number of stones in the pattern.
SELECT stones, sum(chosen) / sum(occurrence)
FROM pattern_stats
WHERE family = $family AND symmetry = $symmetry
GROUP BY stones
ORDER BY stones
