-- Report, opening explorer: the moves from every position played in at least $min_games games (and from
-- the empty board), by depth, the most played position first, then its most played moves; year_counts for
-- each move's trend.
SELECT depth, node, move, colour, child, games, node_games, share, black_win_rate, results_known, year_counts
FROM opening_tree
WHERE node_games >= $min_games OR depth = 0
ORDER BY depth, node_games DESC, node, games DESC, move
