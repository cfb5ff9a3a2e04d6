-- move_patterns suite, the whole table against pattern_stats and pattern_tail: each check is a query returning the
-- rows that violate it. A full build checks every family; an incremental build only the $families whose keys
-- pattern_stats publishes from a threshold above 1 (expectations/move_patterns.py).

-- check: key_counts_equal_pattern_stats_chosen
-- every published key of the families: its rows are its chosen count (docs/releases.md#pattern_tail)
WITH events AS (
    SELECT family, 8 AS symmetry, key8 AS key, count(*) AS chosen FROM move_patterns GROUP BY ALL
    UNION ALL
    SELECT family, 16 AS symmetry, key16 AS key, count(*) AS chosen FROM move_patterns GROUP BY ALL
),

stats AS (
    SELECT family, symmetry, key, chosen FROM pattern_stats
    WHERE list_contains($families, family)
)

SELECT family, symmetry, key, events.chosen AS move_patterns_rows, stats.chosen AS pattern_stats_chosen
FROM events RIGHT JOIN stats USING (family, symmetry, key)
WHERE coalesce(events.chosen, 0) <> stats.chosen;

-- check: rows_of_unpublished_keys_equal_pattern_tail_chosen
-- the keys pattern_stats leaves out: their rows add up to pattern_tail's chosen
WITH events AS (
    SELECT family, 8 AS symmetry, key8 AS key, count(*) AS chosen FROM move_patterns
    WHERE list_contains($families, family) GROUP BY ALL
    UNION ALL
    SELECT family, 16 AS symmetry, key16 AS key, count(*) AS chosen FROM move_patterns
    WHERE list_contains($families, family) GROUP BY ALL
),

published AS (
    SELECT family, symmetry, key FROM pattern_stats
    WHERE list_contains($families, family)
),

unpublished AS (
    SELECT family, symmetry, sum(chosen) AS chosen
    FROM events ANTI JOIN published USING (family, symmetry, key)
    GROUP BY ALL
),

tail AS (
    SELECT family, symmetry, chosen FROM pattern_tail WHERE list_contains($families, family)
)

SELECT family, symmetry, unpublished.chosen AS move_patterns_rows, tail.chosen AS pattern_tail_chosen
FROM unpublished FULL OUTER JOIN tail USING (family, symmetry)
WHERE coalesce(unpublished.chosen, 0) <> coalesce(tail.chosen, -1);
