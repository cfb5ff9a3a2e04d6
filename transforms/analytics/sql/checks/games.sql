-- games suite: each check is a query returning the rows that violate it (the suite counts them).
-- $files_ingested is the manifest's ingest.files_ingested; $min_moves the shortest game whose sequence
-- hash must be unique.

-- check: game_id_unique
SELECT game_id, count(*) AS copies FROM games
WHERE game_id IS NOT NULL
GROUP BY game_id
HAVING count(*) > 1;

-- check: game_id_is_sha256_prefix_member_tree
SELECT game_id FROM games
WHERE game_id IS DISTINCT FROM left(source_sha256, 12) || ':' || member
      || CASE WHEN tree_index > 0 THEN '#' || tree_index ELSE '' END;

-- check: game_members_within_files_ingested
SELECT count(DISTINCT (source_sha256, member)) AS members FROM games
HAVING count(DISTINCT (source_sha256, member)) > $files_ingested;

-- check: sequence_sha1_unique_with_20_moves
WITH compared AS (
    SELECT sequence_sha1, game_id, count(*) OVER (PARTITION BY sequence_sha1) AS copies
    FROM games
    WHERE move_count >= $min_moves
)

SELECT sequence_sha1, game_id FROM compared WHERE copies > 1;

-- check: member_raw_only_for_guessed_names
SELECT game_id, member_raw, member_name_guessed FROM games
WHERE (member_raw IS NOT NULL) IS DISTINCT FROM member_name_guessed;
