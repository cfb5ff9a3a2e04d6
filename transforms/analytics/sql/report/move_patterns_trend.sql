-- Report, pattern events page: per year, the family's moves (rows of move_patterns in games of that year) and how
-- many of them played each of the patterns $keys (keyed under $symmetry symmetries); 0 rows for a key not played.
WITH events AS (
    SELECT
        CASE WHEN $symmetry = 8 THEN e.key8 ELSE e.key16 END AS key,
        g.year
    FROM move_patterns AS e
    JOIN games AS g USING (game_id)
    WHERE e.family = $family AND g.year IS NOT NULL
),

totals AS (
    SELECT year, count(*) AS moves FROM events GROUP BY year
),

played AS (
    SELECT year, key, count(*) AS played FROM events WHERE list_contains($keys, key) GROUP BY year, key
)

SELECT totals.year, played.key, coalesce(played.played, 0) AS played, totals.moves
FROM totals
LEFT JOIN played USING (year)
ORDER BY totals.year, played.key
