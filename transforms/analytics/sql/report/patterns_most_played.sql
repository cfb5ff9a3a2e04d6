-- Report, pattern page: the $top most chosen patterns of one family (ties: the smallest key).
SELECT key, occurrence, chosen, chosen_rate, orbit_size
FROM pattern_stats
WHERE family = $family AND symmetry = $symmetry
ORDER BY chosen DESC, key
LIMIT $top
