-- Report, pattern page: the $top patterns with the highest chosen rate among those seen at least
-- $min_occurrence times.
SELECT key, occurrence, chosen, chosen_rate, orbit_size
FROM pattern_stats
WHERE family = $family AND symmetry = $symmetry AND occurrence >= $min_occurrence
ORDER BY chosen_rate DESC, occurrence DESC, key
LIMIT $top
