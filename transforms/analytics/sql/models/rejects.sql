-- rejects: one row per rejected file, archive member or whole source (tree_index NULL), and one per
-- rejected game tree of a file that gave games (tree_index set), with its reason code. member_raw
-- and member_name_guessed: docs/releases.md#member-names.
CREATE OR REPLACE TABLE rejects AS
SELECT source, source_sha256, member, member_raw, member_name_guessed, tree_index, reason, message
FROM rejects_all
ORDER BY source, member, tree_index NULLS FIRST, reason;
