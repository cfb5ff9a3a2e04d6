-- Report, summary page: the most chosen pattern of one family (ties: the smallest key).
SELECT key, occurrence, chosen, chosen_rate
FROM pattern_stats
WHERE family = $family AND symmetry = $symmetry
ORDER BY chosen DESC, key
LIMIT 1
