-- opening_tree suite: each check is a query returning the rows that violate it (the suite counts them).
-- Needs the D4 macros of macros/d4.sql, the temp table opening_games of models/opening_games.sql and the temp
-- table opening_tree_frames of checks/opening_tree_frames.sql; the last check needs table fuseki.

-- check: opening_tree_edges_sum_to_node_games
SELECT depth, node, sum(games), min(node_games), max(node_games) FROM opening_tree
GROUP BY depth, node
HAVING sum(games) <> min(node_games) OR min(node_games) <> max(node_games);

-- check: opening_tree_node_games_equal_games_arriving
WITH arriving AS (
    SELECT depth + 1 AS depth, child AS node, sum(games) AS games FROM opening_tree GROUP BY ALL
),
nodes AS (SELECT DISTINCT depth, node, node_games, moves FROM opening_tree)
SELECT coalesce(n.depth, a.depth), coalesce(n.node, a.node), n.node_games, a.games
FROM nodes AS n FULL JOIN arriving AS a USING (depth, node)
WHERE coalesce(n.depth, a.depth) BETWEEN 1 AND (SELECT max(moves) - 1 FROM opening_tree)
  AND n.node_games IS DISTINCT FROM a.games;

-- check: opening_tree_one_root
SELECT list(DISTINCT node) AS roots FROM opening_tree WHERE depth = 0
HAVING roots <> ['B:|W:'];

-- check: opening_tree_depth_within_moves
SELECT depth, moves FROM opening_tree
WHERE depth < 0 OR depth >= moves OR moves <> (SELECT max(moves) FROM opening_tree);

-- check: opening_tree_node_has_depth_stones
SELECT depth, node FROM opening_tree
WHERE len(position_black(node)) <> (depth + 1) // 2 OR len(position_white(node)) <> depth // 2
   OR colour <> CASE WHEN depth % 2 = 0 THEN 'B' ELSE 'W' END;

-- check: opening_tree_node_is_smallest_of_its_8_variants
SELECT node, t FROM opening_tree_frames WHERE image < node;

-- check: opening_tree_move_is_smallest_under_the_node_stabiliser
SELECT tree.node, tree.move, frames.t
FROM opening_tree AS tree
INNER JOIN opening_tree_frames AS frames ON frames.node = tree.node AND frames.image = tree.node
WHERE d4_point(tree.move, frames.t) < tree.move;

-- check: opening_tree_move_is_on_an_empty_point
SELECT node, move FROM opening_tree
WHERE NOT regexp_full_match(move, '[a-s]{2}')
   OR list_contains(position_black(node), move) OR list_contains(position_white(node), move);

-- check: opening_tree_child_is_node_plus_move
WITH grown AS (
    SELECT node, move, child,
           position_black(node) || CASE WHEN colour = 'B' THEN [move] ELSE [] END AS b,
           position_white(node) || CASE WHEN colour = 'W' THEN [move] ELSE [] END AS w
    FROM opening_tree
)
SELECT node, move, child FROM grown, range(8) AS d4 (t)
GROUP BY node, move, child
HAVING min(d4_position(b, w, t)) IS DISTINCT FROM child;

-- check: opening_tree_results_add_up
SELECT depth, node, move FROM opening_tree
WHERE results_known + unknown_results <> games OR unknown_results < 0
   OR black_score < 0 OR black_score > results_known
   OR black_win_rate IS DISTINCT FROM (CASE WHEN results_known > 0 THEN black_score / results_known END)
   OR abs(share - games / node_games) > 1e-12;

-- check: opening_tree_year_counts_add_up
SELECT depth, node, move FROM opening_tree
WHERE coalesce(list_sum(list_transform(year_counts, lambda y: y.games)), 0) + unknown_year <> games
   OR list_transform(year_counts, lambda y: y.year)
      <> list_sort(list_distinct(list_transform(year_counts, lambda y: y.year)))
   OR list_bool_or(list_transform(year_counts, lambda y: y.games < 1));

-- check: opening_tree_root_counts_the_opening_games
SELECT (SELECT max(node_games) FROM opening_tree WHERE depth = 0) AS in_tree,
       (SELECT count(DISTINCT game_id) FROM opening_games) AS opening_games
WHERE in_tree IS DISTINCT FROM opening_games AND (in_tree IS NOT NULL OR opening_games > 0);

-- check: opening_tree_leaves_match_fuseki_positions
SELECT f.key, f.games, t.games
FROM (SELECT key, games FROM fuseki WHERE kind = 'position') AS f
FULL JOIN (
    SELECT child AS key, sum(games) AS games FROM opening_tree
    WHERE depth = (SELECT max(moves) - 1 FROM opening_tree) GROUP BY child
) AS t USING (key)
WHERE f.games IS DISTINCT FROM t.games;
