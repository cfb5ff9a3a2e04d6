-- Report, pattern events page: the $top patterns of family $family played most (move_patterns), keyed under $symmetry
-- symmetries, with the games that played them and their first and last year.
WITH events AS (
    SELECT
        CASE WHEN $symmetry = 8 THEN e.key8 ELSE e.key16 END AS key,
        e.game_id,
        g.year
    FROM move_patterns AS e
    JOIN games AS g USING (game_id)
    WHERE e.family = $family
)

SELECT key, count(*) AS played, count(DISTINCT game_id) AS games, min(year) AS first_year, max(year) AS last_year
FROM events
GROUP BY key
ORDER BY played DESC, key
LIMIT $top
