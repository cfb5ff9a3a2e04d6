-- game_counts suite: the rows whose exact counts are decimal integers, for the checks done in Python.
SELECT board_size, moves, sequences, positions, sequences_approx, positions_approx
FROM game_counts
WHERE regexp_full_match(sequences, '[0-9]+') AND regexp_full_match(positions, '[0-9]+')
