-- fuseki: the first N moves of the opening games (models/opening_games.sql), N = getvariable('opening_moves').
--
-- One row per kind x canonical key:
--   kind 'sequence': key = the moves in order as SGF points ('pd dd qp ...'; colours alternate from
--     Black), canonical = the lexicographically smallest text over the 8 symmetries (macros/d4.sql);
--     `sgf` spells it ';B[..];W[..]...'; `position` is the canonical position the sequence reaches.
--   kind 'position': key = the stones after N moves regardless of order, 'B:<points>|W:<points>'
--     with each side sorted, canonical = the smallest such text over the 8 symmetries; `sgf` is NULL.
-- The two forms are canonicalised independently (each has its own smallest frame). Colours are
-- never swapped (Black moves first).
-- games: number of games; year_counts: games per known year (ascending), first_year/last_year over
-- known years, games without a year counted in unknown_year. Black's result from `winner`:
-- 'B' scores 1, 'W' 0, 'D' 0.5; games with NULL winner are left out of black_win_rate and counted in
-- unknown_results (results_known + unknown_results = games). distinct_sequences: canonical
-- sequences that reach the key (1 for kind 'sequence'). example_game_id: smallest game_id.
CREATE OR REPLACE TABLE fuseki AS
WITH per_game AS (
    SELECT
        game_id,
        any_value(year) AS year,
        any_value(winner) AS winner,
        list(point ORDER BY move_number) AS seq,
        coalesce(list(point) FILTER (WHERE colour = 'B'), []) AS black,
        coalesce(list(point) FILTER (WHERE colour = 'W'), []) AS white
    FROM opening_games
    GROUP BY game_id
),

canonical AS (
    SELECT
        per_game.game_id,
        any_value(per_game.year) AS year,
        any_value(per_game.winner) AS winner,
        min(array_to_string(d4_points(per_game.seq, d4.t), ' ')) AS sequence,
        min(d4_position(per_game.black, per_game.white, d4.t)) AS position
    FROM per_game
    CROSS JOIN range(8) AS d4 (t)
    GROUP BY per_game.game_id
),

forms AS (
    SELECT 'sequence' AS kind, sequence AS key, position, sequence, game_id, year, winner FROM canonical
    UNION ALL
    SELECT 'position' AS kind, position AS key, position, sequence, game_id, year, winner FROM canonical
),

per_year AS (
    SELECT kind, key, year, count(*) AS games
    FROM forms
    WHERE year IS NOT NULL
    GROUP BY kind, key, year
),

year_lists AS (
    SELECT kind, key, list({'year': year, 'games': games} ORDER BY year) AS year_counts
    FROM per_year
    GROUP BY kind, key
),

totals AS (
    SELECT
        kind,
        key,
        any_value(position) AS position,
        count(*) AS games,
        count(DISTINCT sequence) AS distinct_sequences,
        min(year) AS first_year,
        max(year) AS last_year,
        count(*) - count(year) AS unknown_year,
        count(winner) AS results_known,
        count(*) - count(winner) AS unknown_results,
        sum(CASE winner WHEN 'B' THEN 1.0 WHEN 'D' THEN 0.5 WHEN 'W' THEN 0.0 END) AS black_score,
        min(game_id) AS example_game_id
    FROM forms
    GROUP BY kind, key
)

SELECT
    totals.kind,
    CAST(getvariable('opening_moves') AS INTEGER) AS moves,
    totals.key,
    CASE
        WHEN totals.kind = 'sequence' THEN array_to_string(
            list_transform(
                string_split(totals.key, ' '),
                lambda p, i: ';' || CASE WHEN i % 2 = 1 THEN 'B' ELSE 'W' END || '[' || p || ']'
            ),
            ''
        )
    END AS sgf,
    totals.position,
    totals.games,
    CAST(totals.distinct_sequences AS BIGINT) AS distinct_sequences,
    CAST(totals.first_year AS INTEGER) AS first_year,
    CAST(totals.last_year AS INTEGER) AS last_year,
    coalesce(year_lists.year_counts, []) AS year_counts,
    totals.unknown_year,
    totals.results_known,
    totals.unknown_results,
    CAST(totals.black_score AS DOUBLE) AS black_score,
    CAST(totals.black_score / nullif(totals.results_known, 0) AS DOUBLE) AS black_win_rate,
    totals.example_game_id
FROM totals
LEFT JOIN year_lists USING (kind, key)
ORDER BY totals.kind DESC, totals.games DESC, totals.key;

DROP TABLE IF EXISTS temp.opening_games;
