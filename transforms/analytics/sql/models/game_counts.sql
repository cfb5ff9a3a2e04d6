-- game_counts (docs/symmetry.md#game-counts): distinct N-move games on an empty board modulo the 8 symmetries,
-- for N = 1..N_max, from gopat.transforms.analytics.counting.game_counts_frame (registered as game_counts_input).
-- sequences: distinct sequences of N moves on distinct points (Black first, colours alternate, no
-- captures); positions: distinct sets of ceil(N/2) black and floor(N/2) white stones; both up to
-- the 8 symmetries of the square, exact integers as decimal text (they outgrow BIGINT); the
-- *_approx columns are the same numbers as DOUBLE for sorting and plotting.
CREATE OR REPLACE TABLE game_counts AS
SELECT
    CAST(board_size AS INTEGER) AS board_size,
    CAST(moves AS INTEGER) AS moves,
    CAST(sequences AS VARCHAR) AS sequences,
    CAST(positions AS VARCHAR) AS positions,
    CAST(sequences_approx AS DOUBLE) AS sequences_approx,
    CAST(positions_approx AS DOUBLE) AS positions_approx
FROM game_counts_input
ORDER BY board_size, moves;
