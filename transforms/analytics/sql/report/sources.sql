-- Report, summary page: games and rejects per source of the manifest (docs/releases.md#manifest).
-- $sources: the manifest's sources as a list of {source, sha256}; a source with no game or reject counts 0.
WITH sources AS (
    SELECT unnest($sources::STRUCT(source VARCHAR, sha256 VARCHAR)[], recursive := true)
),
games_per_source AS (
    SELECT source_sha256, count(*) AS games FROM games GROUP BY ALL
),
rejects_per_source AS (
    SELECT source_sha256, count(*) AS rejects FROM rejects GROUP BY ALL
)
SELECT s.source, s.sha256, coalesce(g.games, 0), coalesce(r.rejects, 0)
FROM sources AS s
LEFT JOIN games_per_source AS g ON g.source_sha256 = s.sha256
LEFT JOIN rejects_per_source AS r ON r.source_sha256 = s.sha256
ORDER BY s.source
