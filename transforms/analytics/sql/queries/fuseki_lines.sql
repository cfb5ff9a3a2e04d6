-- fuseki step (query, no table): the most common canonical N-move sequences of `opening_games`
-- (models/opening_games.sql, N = getvariable('opening_moves')), top getvariable('opening_top') rows.
-- Canonical sequence and Black's win rate exactly as in models/fuseki.sql; ties broken by the sequence text.
WITH per_game AS (
    SELECT game_id, any_value(winner) AS winner, list(point ORDER BY move_number) AS seq
    FROM opening_games
    GROUP BY game_id
),

canonical AS (
    SELECT
        per_game.game_id,
        any_value(per_game.winner) AS winner,
        min(array_to_string(d4_points(per_game.seq, d4.t), ' ')) AS sequence
    FROM per_game
    CROSS JOIN range(8) AS d4 (t)
    GROUP BY per_game.game_id
)

SELECT
    sequence,
    count(*) AS games,
    CAST(
        sum(CASE winner WHEN 'B' THEN 1.0 WHEN 'D' THEN 0.5 WHEN 'W' THEN 0.0 END) / nullif(count(winner), 0)
        AS DOUBLE
    ) AS black_win_rate
FROM canonical
GROUP BY sequence
ORDER BY games DESC, sequence
LIMIT getvariable('opening_top');
