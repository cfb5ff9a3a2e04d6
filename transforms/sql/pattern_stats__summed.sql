-- pattern_stats, step 1: counts summed per family, symmetry and canonical key (int64 form).
-- Input `pattern_canonical` maps every raw key of the shards to its canonical key (see
-- transforms/stats.py); raw keys of one canonical class are summed here.
CREATE OR REPLACE TABLE pattern_summed AS
WITH canonical AS (
    SELECT family, symmetry, key, orbit_size, occurrence, chosen, result
    FROM pattern_canonical
)

SELECT
    family,
    symmetry,
    key,
    max(orbit_size) AS orbit_size,
    sum(occurrence)::BIGINT AS occurrence,
    sum(chosen)::BIGINT AS chosen,
    bit_or(result) AS result
FROM canonical
GROUP BY family, symmetry, key;
