-- pattern_stats, step 0: raw (not yet canonical) counts summed over all shards.
-- `pattern_shards` is the union of the per-shard Parquet files written by the extraction workers:
-- one row per (family, raw key) and shard.
CREATE OR REPLACE TABLE pattern_raw AS
WITH shards AS (
    SELECT family, key, occurrence, chosen, result FROM pattern_shards
)

SELECT
    family,
    key,
    sum(occurrence)::BIGINT AS occurrence,
    sum(chosen)::BIGINT AS chosen,
    bit_or(result) AS result
FROM shards
GROUP BY family, key;
