-- steps/rejects_counts: the rejected files (members and whole sources: tree_index NULL) and the rejected
-- game trees of files that gave games (tree_index set), the two reject terms of the ingest
-- equations (docs/releases.md#ingest-contract).
SELECT
    count(*) FILTER (WHERE tree_index IS NULL) AS files_rejected,
    count(tree_index) AS trees_rejected
FROM rejects_all;
