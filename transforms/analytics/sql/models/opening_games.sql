-- opening_games (temporary), for fuseki and opening_tree: the opening games and their first N moves
-- (N = getvariable('opening_moves')).
--
-- An opening game is a game of `games` with board_size 19, no setup stones and no handicap
-- (setup_stones = 0 and handicap = 0), whose first N moves all exist (move_count >= N), contain no
-- pass and alternate colours starting with Black. Other games are left out of fuseki and
-- opening_tree (their first moves are not a comparable opening). Stones are never removed: a capture
-- inside the first N moves is kept as played (the earliest capture needs 7 moves; none occurs in
-- professional openings).
CREATE OR REPLACE TEMP TABLE opening_games AS
WITH first_moves AS (
    SELECT game_id, move_number, colour, point
    FROM moves
    WHERE move_number BETWEEN 1 AND getvariable('opening_moves')
),

complete AS (
    SELECT game_id
    FROM first_moves
    GROUP BY game_id
    HAVING
        count(*) = getvariable('opening_moves')
        AND count(DISTINCT move_number) = count(*)
        AND count(point) = count(*)
        AND bool_and(colour = CASE WHEN move_number % 2 = 1 THEN 'B' ELSE 'W' END)
)

SELECT games.game_id, games.year, games.winner, first_moves.move_number, first_moves.colour, first_moves.point
FROM games
INNER JOIN complete USING (game_id)
INNER JOIN first_moves USING (game_id)
WHERE games.board_size = 19 AND games.setup_stones = 0 AND coalesce(games.handicap, 0) = 0
ORDER BY games.game_id, first_moves.move_number;
