-- games: one row per unique game (member, member_raw, member_name_guessed: docs/releases.md#member-names).
-- A game whose board size, setup and move sequence (sequence_sha1) repeat an earlier game's is a
-- duplicate: the first copy in source order, then member path, is kept. Only games of at least 20
-- moves are compared; shorter records (header-only, abandoned) coincide by chance.
CREATE OR REPLACE TABLE games AS
WITH candidates AS (
    SELECT
        *,
        CASE WHEN move_count >= 20 THEN sequence_sha1 ELSE game_id END AS identity
    FROM games_all
),

ranked AS (
    SELECT
        *,
        row_number() OVER (PARTITION BY identity ORDER BY source_index, member, tree_index) AS copy_number
    FROM candidates
)

SELECT * EXCLUDE (identity, source_index, copy_number)
FROM ranked
WHERE copy_number = 1
ORDER BY game_id;
