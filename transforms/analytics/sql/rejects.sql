-- rejects: one row per rejected file, archive member or whole source, with its reason code.
CREATE OR REPLACE TABLE rejects AS
SELECT source, source_sha256, member, reason, message
FROM rejects_all
ORDER BY source, member, reason;
