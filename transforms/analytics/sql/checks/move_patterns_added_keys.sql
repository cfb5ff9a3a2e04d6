-- move_patterns suite, incremental build: per family, symmetry and key, the rows the build adds (schema `added`,
-- steps/added_rows.sql) equal the new games' chosen count (relation `new_chosen`: view pattern_counts_new, its
-- keys drawn as text, expectations/move_patterns.py). Counts add: the previous rows are the previous release's.

-- check: added_key_counts_equal_new_games_chosen
WITH rows_per_key AS (
    SELECT family, 8 AS symmetry, key8 AS key, count(*) AS chosen FROM added.move_patterns GROUP BY ALL
    UNION ALL
    SELECT family, 16 AS symmetry, key16 AS key, count(*) AS chosen FROM added.move_patterns GROUP BY ALL
)

SELECT family, symmetry, key, rows_per_key.chosen AS added_rows, new_chosen.chosen AS new_games_chosen
FROM rows_per_key FULL OUTER JOIN new_chosen USING (family, symmetry, key)
WHERE rows_per_key.chosen IS DISTINCT FROM new_chosen.chosen;
