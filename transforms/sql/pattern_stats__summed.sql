-- pattern_stats, step 1: counts summed over all shards per family, symmetry and canonical key.
-- `pattern_shards` is the union of the per-shard Parquet files the extraction workers wrote,
-- already canonical under the 8- and 16-element groups (transforms/stats.py canonical_shard), so
-- merging shards is a plain sum.
CREATE OR REPLACE TABLE pattern_summed AS
WITH shards AS (
    SELECT family, symmetry, key, orbit_size, occurrence, chosen, result
    FROM pattern_shards
)

SELECT
    family,
    symmetry,
    key,
    max(orbit_size) AS orbit_size,
    sum(occurrence)::BIGINT AS occurrence,
    sum(chosen)::BIGINT AS chosen,
    bit_or(result) AS result
FROM shards
GROUP BY family, symmetry, key;
