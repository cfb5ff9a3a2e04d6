-- fuseki suite: each check is a query returning the rows that violate it (the suite counts them).
-- Needs the D4 macros of macros/d4.sql and the temp table opening_games of models/opening_games.sql.

-- check: fuseki_sequence_is_smallest_of_its_8_variants
SELECT key, t FROM fuseki, range(8) AS d4 (t)
WHERE kind = 'sequence' AND array_to_string(d4_points(string_split(key, ' '), t), ' ') < key;

-- check: fuseki_position_is_smallest_of_its_8_variants
SELECT key, t FROM fuseki, range(8) AS d4 (t)
WHERE kind = 'position' AND d4_position(position_black(key), position_white(key), t) < key;

-- check: fuseki_position_of_sequence_is_its_canonical_position
WITH stones AS (
    SELECT key, position, string_split(key, ' ') AS seq FROM fuseki WHERE kind = 'sequence'
)
SELECT key, position FROM stones, range(8) AS d4 (t)
GROUP BY key, position
HAVING min(d4_position(
    list_filter(seq, lambda p, i: i % 2 = 1), list_filter(seq, lambda p, i: i % 2 = 0), t
)) IS DISTINCT FROM position;

-- check: fuseki_key_has_moves_distinct_points
SELECT kind, key FROM fuseki
WHERE length(list_distinct(regexp_extract_all(key, '[a-s]{2}'))) <> moves
   OR len(regexp_extract_all(key, '[a-s]{2}')) <> moves
   OR len(position_black(position)) <> (moves + 1) // 2;

-- check: fuseki_keys_match_their_kind
SELECT kind, key FROM fuseki
WHERE NOT regexp_full_match(key, CASE kind WHEN 'sequence' THEN '[a-s]{2}( [a-s]{2})*'
                                  ELSE 'B:([a-s]{2}( [a-s]{2})*)?[|]W:([a-s]{2}( [a-s]{2})*)?' END)
   OR (kind = 'position' AND key <> position);

-- check: fuseki_sgf_spells_the_sequence
SELECT key, sgf FROM fuseki
WHERE (kind = 'sequence' AND sgf IS DISTINCT FROM array_to_string(list_transform(
           string_split(key, ' '),
           lambda p, i: ';' || CASE WHEN i % 2 = 1 THEN 'B' ELSE 'W' END || '[' || p || ']'
       ), ''))
   OR (kind = 'position' AND sgf IS NOT NULL);

-- check: fuseki_one_moves_value
SELECT DISTINCT moves FROM fuseki OFFSET 1;

-- check: fuseki_sequences_and_positions_count_the_same_games
SELECT sum(games) FILTER (WHERE kind = 'sequence') AS sequences,
       sum(games) FILTER (WHERE kind = 'position') AS positions
FROM fuseki
HAVING sequences IS DISTINCT FROM positions;

-- check: fuseki_position_rows_sum_their_sequences
WITH per_position AS (
    SELECT position, sum(games) AS games, count(*) AS sequences
    FROM fuseki WHERE kind = 'sequence' GROUP BY position
)
SELECT p.key, p.games, s.games, p.distinct_sequences, s.sequences
FROM (SELECT * FROM fuseki WHERE kind = 'position') AS p
FULL JOIN per_position AS s ON s.position = p.key
WHERE p.games IS DISTINCT FROM s.games OR p.distinct_sequences IS DISTINCT FROM s.sequences;

-- check: fuseki_year_counts_add_up
SELECT kind, key FROM fuseki
WHERE coalesce(list_sum(list_transform(year_counts, lambda y: y.games)), 0) + unknown_year <> games
   OR first_year IS DISTINCT FROM list_min(list_transform(year_counts, lambda y: y.year))
   OR last_year IS DISTINCT FROM list_max(list_transform(year_counts, lambda y: y.year))
   OR list_transform(year_counts, lambda y: y.year)
      <> list_sort(list_distinct(list_transform(year_counts, lambda y: y.year)))
   OR list_bool_or(list_transform(year_counts, lambda y: y.games < 1));

-- check: fuseki_results_add_up
SELECT kind, key FROM fuseki
WHERE results_known + unknown_results <> games OR unknown_results < 0
   OR black_score < 0 OR black_score > results_known
   OR black_win_rate IS DISTINCT FROM (CASE WHEN results_known > 0 THEN black_score / results_known END)
   OR black_score * 2 <> round(black_score * 2);

-- check: fuseki_games_are_the_opening_games
SELECT (SELECT sum(games) FROM fuseki WHERE kind = 'sequence') AS in_fuseki,
       (SELECT count(DISTINCT game_id) FROM opening_games) AS opening_games
WHERE in_fuseki IS DISTINCT FROM opening_games AND (in_fuseki IS NOT NULL OR opening_games > 0);

-- check: fuseki_example_game_is_an_opening_game
SELECT example_game_id FROM fuseki
WHERE example_game_id NOT IN (SELECT game_id FROM opening_games);
