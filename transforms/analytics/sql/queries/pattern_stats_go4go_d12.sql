-- The d12 rows of pattern_stats under one symmetry group, in key order: `gopat export go4go-d12`
-- (cli/commands/patterns.py), one `key;occurrence;chosen;orbit_size` line each.
-- Parameter: the symmetry (8 or 16).
SELECT key, occurrence, chosen, orbit_size
FROM pattern_stats
WHERE family = 'd12' AND symmetry = ?
ORDER BY key
