-- Report, fuseki page: the $top most played opening sequences (ties: the smallest key).
SELECT key, sgf, games, first_year, last_year, black_win_rate, results_known, moves, year_counts
FROM fuseki
WHERE kind = 'sequence'
ORDER BY games DESC, key
LIMIT $top
