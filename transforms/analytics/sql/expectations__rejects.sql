-- rejects suite: each check is a query returning the rows that violate it (the suite counts them).

-- check: unfetched_source_is_whole_source_reject
SELECT source, member, reason FROM rejects
WHERE source_sha256 IS NULL AND member IS DISTINCT FROM '';
