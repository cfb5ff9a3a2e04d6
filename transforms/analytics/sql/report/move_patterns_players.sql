-- Report, pattern events page: for each of the patterns $keys of family $family (keyed under $symmetry symmetries),
-- the $per players who played it most, with the games in which they played it and the win rate of those games
-- (decided results only).
WITH events AS (
    SELECT
        CASE WHEN $symmetry = 8 THEN e.key8 ELSE e.key16 END AS key,
        CASE e.colour WHEN 'B' THEN g.pb ELSE g.pw END AS player,
        e.game_id,
        CASE WHEN g.winner IN ('B', 'W') THEN (g.winner = e.colour)::INTEGER END AS won
    FROM move_patterns AS e
    JOIN games AS g USING (game_id)
    WHERE e.family = $family
),

per_game AS (
    SELECT key, player, game_id, count(*) AS played, any_value(won) AS won
    FROM events
    WHERE list_contains($keys, key) AND player IS NOT NULL
    GROUP BY key, player, game_id
),

ranked AS (
    SELECT
        key,
        player,
        sum(played) AS played,
        count(*) AS games,
        avg(won) AS win_rate,
        row_number() OVER (PARTITION BY key ORDER BY sum(played) DESC, player) AS rank
    FROM per_game
    GROUP BY key, player
)

SELECT key, player, played, games, win_rate
FROM ranked
WHERE rank <= $per
ORDER BY list_position($keys, key), rank
