-- game_counts suite: each check is a query returning the rows that violate it (the suite counts them).

-- check: game_counts_moves_run_from_1
SELECT board_size, count(*), min(moves), max(moves) FROM game_counts GROUP BY board_size
HAVING min(moves) <> 1 OR max(moves) <> count(*) OR count(DISTINCT moves) <> count(*);

-- check: game_counts_exact_counts_are_decimal_integers
SELECT board_size, moves FROM game_counts
WHERE NOT regexp_full_match(sequences, '0|[1-9][0-9]*') OR NOT regexp_full_match(positions, '0|[1-9][0-9]*');
