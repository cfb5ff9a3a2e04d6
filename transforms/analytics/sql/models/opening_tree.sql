-- opening_tree: an opening explorer over the opening games (models/opening_games.sql), N = getvariable('opening_moves').
--
-- One row per edge: depth k (0..N-1), node = canonical position after k moves (the position text of
-- models/fuseki.sql, smallest over the 8 symmetries; the empty board is 'B:|W:'), move = the (k+1)-th move
-- in the node's canonical frame, colour = its colour, child = canonical position after k+1 moves.
-- When several symmetries map the game's position to the node (the node has a non-trivial
-- stabiliser), the move is the smallest of its images under them, so equivalent continuations merge:
-- per game, (node, move) = the smallest pair (position text, move image) over the 8 symmetries.
-- games: games taking the edge; node_games: games reaching the node (counted separately from the
-- edges; every opening game has all N moves, so for each node sum(games) = node_games);
-- share = games / node_games. Black's result from `winner` as in models/fuseki.sql: black_score sums
-- 'B' = 1, 'W' = 0, 'D' = 0.5 over results_known games; unknown_results counts NULL winners;
-- black_win_rate = black_score / results_known (NULL when no result is known). year_counts: the edge's
-- games per known year (ascending), as in models/fuseki.sql; games without a year counted in unknown_year.
-- Walk it: start at node 'B:|W:' (depth 0), follow `child` to the node of the next depth.
CREATE OR REPLACE TABLE opening_tree AS
WITH after_moves AS (
    SELECT
        game_id,
        year,
        winner,
        move_number AS depth,
        coalesce(list(point) FILTER (WHERE colour = 'B') OVER upto, []) AS black,
        coalesce(list(point) FILTER (WHERE colour = 'W') OVER upto, []) AS white,
        lead(point) OVER ordered AS next_point
    FROM opening_games
    WINDOW
        upto AS (PARTITION BY game_id ORDER BY move_number ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW),
        ordered AS (PARTITION BY game_id ORDER BY move_number)
    UNION ALL
    SELECT game_id, year, winner, 0 AS depth, [] AS black, [] AS white, point AS next_point
    FROM opening_games
    WHERE move_number = 1
),

framed AS (
    SELECT
        after_moves.game_id,
        after_moves.depth,
        any_value(after_moves.year) AS year,
        any_value(after_moves.winner) AS winner,
        min({
            'node': d4_position(after_moves.black, after_moves.white, d4.t),
            'move': d4_point(after_moves.next_point, d4.t)
        }) AS best
    FROM after_moves
    CROSS JOIN range(8) AS d4 (t)
    GROUP BY after_moves.game_id, after_moves.depth
),

steps AS (
    SELECT
        framed.game_id,
        framed.depth,
        framed.best.node AS node,
        framed.best.move AS move,
        lead(framed.best.node) OVER (PARTITION BY framed.game_id ORDER BY framed.depth) AS child,
        framed.year,
        framed.winner
    FROM framed
),

edge_years AS (
    SELECT depth, node, move, child, year, count(*) AS games
    FROM steps
    WHERE depth < getvariable('opening_moves') AND year IS NOT NULL
    GROUP BY depth, node, move, child, year
),

year_lists AS (
    SELECT depth, node, move, child, list({'year': year, 'games': games} ORDER BY year) AS year_counts
    FROM edge_years
    GROUP BY depth, node, move, child
),

nodes AS (
    SELECT depth, node, count(*) AS node_games
    FROM steps
    GROUP BY depth, node
),

edges AS (
    SELECT
        depth,
        node,
        move,
        child,
        count(*) AS games,
        count(*) - count(year) AS unknown_year,
        count(winner) AS results_known,
        count(*) - count(winner) AS unknown_results,
        sum(CASE winner WHEN 'B' THEN 1.0 WHEN 'D' THEN 0.5 WHEN 'W' THEN 0.0 END) AS black_score
    FROM steps
    WHERE depth < getvariable('opening_moves')
    GROUP BY depth, node, move, child
)

SELECT
    CAST(edges.depth AS INTEGER) AS depth,
    edges.node,
    edges.move,
    CASE WHEN edges.depth % 2 = 0 THEN 'B' ELSE 'W' END AS colour,
    edges.child,
    edges.games,
    nodes.node_games,
    edges.games / nodes.node_games AS share,
    edges.results_known,
    edges.unknown_results,
    CAST(edges.black_score AS DOUBLE) AS black_score,
    CAST(edges.black_score / nullif(edges.results_known, 0) AS DOUBLE) AS black_win_rate,
    coalesce(year_lists.year_counts, []) AS year_counts,
    edges.unknown_year,
    CAST(getvariable('opening_moves') AS INTEGER) AS moves
FROM edges
INNER JOIN nodes USING (depth, node)
LEFT JOIN year_lists USING (depth, node, move, child)
ORDER BY edges.depth, nodes.node_games DESC, edges.node, edges.games DESC, edges.move;

DROP TABLE IF EXISTS temp.opening_games;
