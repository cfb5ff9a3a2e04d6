-- The most chosen canonical patterns of one family and symmetry of a release's pattern_stats (ties: more
-- occurrences, then the smaller key): the top-patterns artifact of a build run (flows/artifacts.py).
-- Parameters: the family, the symmetry, how many rows.
SELECT family, key, chosen, occurrence, round(chosen_rate, 4) AS chosen_rate, orbit_size, stones
FROM pattern_stats
WHERE family = ? AND symmetry = ?
ORDER BY chosen DESC, occurrence DESC, key
LIMIT ?
