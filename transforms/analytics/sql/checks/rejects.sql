-- rejects suite: each check is a query returning the rows that violate it (the suite counts them).
-- $files_rejected is the manifest's ingest.files_rejected.

-- check: unfetched_source_is_whole_source_reject
SELECT source, member, reason FROM rejects
WHERE source_sha256 IS NULL AND member IS DISTINCT FROM '';

-- check: file_rows_equal_files_rejected
SELECT count(*) AS file_rows FROM rejects
WHERE tree_index IS NULL
HAVING count(*) <> $files_rejected;

-- check: rejected_tree_is_in_a_member
SELECT source, member, tree_index FROM rejects
WHERE tree_index IS NOT NULL AND (member = '' OR source_sha256 IS NULL);

-- check: member_raw_only_for_guessed_names
SELECT source, member, member_raw, member_name_guessed FROM rejects
WHERE (member_raw IS NOT NULL) IS DISTINCT FROM member_name_guessed;
