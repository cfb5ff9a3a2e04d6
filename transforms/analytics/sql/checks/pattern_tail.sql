-- pattern_tail suite: each check is a query returning the rows that violate it (the suite counts them).
-- $built: the build's families (manifest families); $thresholds: their min_occurrence, in the same order.

-- check: one_row_per_family_and_symmetry_with_its_threshold
WITH expected AS (
    SELECT family, min_occurrence, symmetry
    FROM (SELECT unnest($built) AS family, unnest($thresholds) AS min_occurrence)
    CROSS JOIN (VALUES (8), (16)) AS symmetries (symmetry)
),

found AS (
    SELECT family, symmetry, count(*) AS row_count, any_value(min_occurrence) AS min_occurrence
    FROM pattern_tail
    GROUP BY ALL
)

SELECT family, symmetry, expected.min_occurrence AS expected, found.min_occurrence AS found, found.row_count
FROM expected FULL OUTER JOIN found USING (family, symmetry)
WHERE found.row_count IS DISTINCT FROM 1 OR expected.min_occurrence IS DISTINCT FROM found.min_occurrence;

-- check: counts_are_those_of_keys_below_the_threshold
-- each key left out was seen at least once and fewer than min_occurrence times, and chosen at most as often
SELECT family, symmetry, min_occurrence, keys, occurrence, chosen
FROM pattern_tail
WHERE keys IS NULL OR occurrence IS NULL OR chosen IS NULL OR min_occurrence IS NULL
    OR min_occurrence < 1 OR keys < 0 OR chosen < 0 OR chosen > occurrence
    OR occurrence < keys OR occurrence > keys * (min_occurrence - 1);
